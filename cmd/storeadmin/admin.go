package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/app/seed"
	"storeadmin/internal/auth"
	"storeadmin/internal/base/handle"
	"storeadmin/models"
)

func migrate(ctx context.Context, args []string, log *slog.Logger) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	var db dbFlags
	db.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	_, closeDB, err := db.openDB(ctx, log) // openDB migrates
	if err != nil {
		return err
	}
	closeDB()
	log.Info("migrations applied")
	return nil
}

func storesCreate(ctx context.Context, args []string, stdout io.Writer, log *slog.Logger) error {
	fs := flag.NewFlagSet("stores create", flag.ContinueOnError)
	var db dbFlags
	db.register(fs)
	storeHandle := fs.String("handle", "", "the store's handle: lower-case letters, digits and dashes")
	name := fs.String("name", "", "the store's name")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if !handle.ValidStore(*storeHandle) {
		return fmt.Errorf("--handle is required: 1 to %d lower-case letters, digits and dashes", handle.MaxStoreLength)
	}
	if strings.TrimSpace(*name) == "" {
		return errors.New("--name is required")
	}
	bdb, closeDB, err := db.openDB(ctx, log)
	if err != nil {
		return err
	}
	defer closeDB()
	s := &models.Store{Handle: *storeHandle, Name: strings.TrimSpace(*name)}
	if err := models.CreateStore(ctx, bdb, s); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d\t%s\t%s\n", s.ID, s.Handle, s.Name)
	return nil
}

func keysCreate(ctx context.Context, args []string, stdout io.Writer, log *slog.Logger) error {
	fs := flag.NewFlagSet("keys create", flag.ContinueOnError)
	name := fs.String("name", "", "a name that says who uses the key")
	role := fs.String("role", "", "admin, staff, or publishable (a storefront key, sa_pub_..., for shoppers' browsers: it only ingests, on /storefront/v1)")
	scopes := fs.String("scopes", "", "comma-separated scopes, e.g. orders:read,products:write; empty grants all the role allows")
	expiresIn := fs.Duration("expires-in", 0, "lifetime, e.g. 24h or 720h; 0 never expires")
	return storeCommand(ctx, fs, args, log, func(bdb *bun.DB, s *models.Store, _ *dbFlags) error {
		return createKey(ctx, bdb, s, *name, *role, *scopes, *expiresIn, stdout)
	})
}

func createKey(ctx context.Context, bdb *bun.DB, s *models.Store, name, role, scopes string, expiresIn time.Duration, stdout io.Writer) error {
	if expiresIn < 0 {
		return errors.New("--expires-in must be positive")
	}
	now := time.Now()
	var expires *time.Time
	if expiresIn > 0 {
		t := now.Add(expiresIn)
		expires = &t
	}
	var k *models.APIKey
	if auth.Role(role) == auth.RolePublishable {
		if scopes != "" {
			return errors.New("a publishable key holds no scopes: leave out --scopes")
		}
		var err error
		if k, err = auth.NewPublishableKey(s.ID, name, expires, now); err != nil {
			return err
		}
	} else {
		r, err := auth.ParseKeyRole(role)
		if err != nil {
			return fmt.Errorf("%w (or publishable, for a storefront key)", err)
		}
		if k, err = auth.NewAPIKey(s.ID, name, r, splitList(scopes), expires, now); err != nil {
			return err
		}
	}
	if err := models.CreateAPIKey(ctx, bdb, k); err != nil {
		return err
	}
	fmt.Fprintln(stdout, *k.Key)
	return nil
}

func keysList(ctx context.Context, args []string, stdout io.Writer, log *slog.Logger) error {
	fs := flag.NewFlagSet("keys list", flag.ContinueOnError)
	return storeCommand(ctx, fs, args, log, func(bdb *bun.DB, s *models.Store, _ *dbFlags) error {
		return listKeys(ctx, bdb, s, stdout)
	})
}

func listKeys(ctx context.Context, bdb *bun.DB, s *models.Store, stdout io.Writer) error {
	keys, err := models.ListAPIKeys(ctx, bdb, s.ID, models.Paging{Limit: 1 << 30})
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tROLE\tSCOPES\tHINT\tSTATUS\tLAST USED")
	now := time.Now()
	for _, k := range keys {
		scopes, used := "(all the role allows)", "never"
		if len(k.Scopes) > 0 {
			scopes = strings.Join(k.Scopes, ",")
		}
		if k.LastUsedAt != nil {
			used = k.LastUsedAt.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Name, k.Role, scopes, k.Hint,
			models.KeyStatus(k.RevokedAt, k.ExpiresAt, now), used)
	}
	return tw.Flush()
}

func keysRevoke(ctx context.Context, args []string, stdout io.Writer, log *slog.Logger) error {
	fs := flag.NewFlagSet("keys revoke", flag.ContinueOnError)
	id := fs.Int64("id", 0, "the key's id (see keys list)")
	return storeCommand(ctx, fs, args, log, func(bdb *bun.DB, s *models.Store, _ *dbFlags) error {
		k, err := models.RevokeAPIKey(ctx, bdb, s.ID, *id)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "revoked key %d (%s) at %s\n", k.ID, k.Name, k.RevokedAt.UTC().Format(time.RFC3339))
		return nil
	})
}

func seedCmd(ctx context.Context, args []string, stdout io.Writer, log *slog.Logger) error {
	fs := flag.NewFlagSet("seed", flag.ContinueOnError)
	var mf mediaFlags
	mf.register(fs)
	publicURL := fs.String("public-url", envOr("STOREADMIN_PUBLIC_URL", "http://127.0.0.1:8080"),
		"the base URL serve will answer at, for the seeded images' links (env STOREADMIN_PUBLIC_URL)")
	return storeCommand(ctx, fs, args, log, func(bdb *bun.DB, s *models.Store, db *dbFlags) error {
		files, err := mf.open(ctx, bdb, db.dataDir, *publicURL)
		if err != nil {
			return err
		}
		if err := seed.Store(ctx, bdb, files, s.ID, time.Now()); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "seeded store %s\n", s.Handle)
		return nil
	})
}

// storeCommand is the shape of the commands that act on one store: it adds
// the database flags and --store to fs, parses args, opens the database,
// finds the store and runs fn.
func storeCommand(ctx context.Context, fs *flag.FlagSet, args []string, log *slog.Logger, fn func(*bun.DB, *models.Store, *dbFlags) error) error {
	var db dbFlags
	db.register(fs)
	store := fs.String("store", "", "the store's handle")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *store == "" {
		return errors.New("--store is required")
	}
	bdb, closeDB, err := db.openDB(ctx, log)
	if err != nil {
		return err
	}
	defer closeDB()
	s, err := models.GetStoreByHandle(ctx, bdb, *store)
	if err != nil {
		return err
	}
	return fn(bdb, s, &db)
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
