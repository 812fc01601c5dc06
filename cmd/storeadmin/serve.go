package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/graph/limits"
	"storeadmin/internal/abandonment"
	"storeadmin/internal/app/seed"
	"storeadmin/internal/app/server"
	"storeadmin/internal/audit"
	"storeadmin/internal/auth"
	"storeadmin/internal/base/database"
	"storeadmin/internal/base/geoip"
	"storeadmin/internal/base/metrics"
	"storeadmin/internal/billing"
	"storeadmin/internal/events"
	"storeadmin/internal/funnelruns"
	"storeadmin/internal/idempotency"
	"storeadmin/internal/insights"
	"storeadmin/internal/media"
	"storeadmin/internal/previews"
	"storeadmin/internal/retention"
	"storeadmin/internal/storefront"
	"storeadmin/models"
)

// demoHandle is the store serve --demo creates.
const demoHandle = "demo"

// demoKeyName starts the name of every key serve --demo prints; the next
// serve --demo revokes them.
const demoKeyName = "Demo admin key"

// shutdownGrace is how long serve waits for requests in flight on SIGTERM.
const shutdownGrace = 30 * time.Second

func serve(ctx context.Context, args []string, stdout io.Writer, log *slog.Logger) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var db dbFlags
	db.register(fs)
	var mf mediaFlags
	mf.register(fs)
	var pf paymentFlags
	pf.register(fs)
	var df domainFlags
	df.register(fs)
	var sf storefrontFlags
	sf.register(fs)
	shopRateLimit := fs.Int("storefront-rate-limit", envInt("STOREADMIN_STOREFRONT_RATE_LIMIT", server.DefaultStorefrontRateLimit),
		"storefront surface requests per shopper address per minute (env STOREADMIN_STOREFRONT_RATE_LIMIT)")
	shopOrigins := fs.String("storefront-origins", os.Getenv("STOREADMIN_STOREFRONT_ORIGINS"),
		"origins that may call the storefront surface for every store besides its active domains, comma-separated, e.g. http://localhost:3000 (env STOREADMIN_STOREFRONT_ORIGINS)")
	addr := fs.String("addr", envOr("STOREADMIN_ADDR", "127.0.0.1:8080"), "listen address (env STOREADMIN_ADDR)")
	demo := fs.Bool("demo", os.Getenv("STOREADMIN_DEMO") == "1", "create and seed a demo store and print an admin key (env STOREADMIN_DEMO=1)")
	rateLimit := fs.Int("rate-limit", envInt("STOREADMIN_RATE_LIMIT", server.DefaultRateLimit), "requests per key per minute (env STOREADMIN_RATE_LIMIT)")
	redisURL := fs.String("redis-url", os.Getenv("REDIS_URL"),
		"Redis holding the rate limit's counts, shared by every replica, e.g. redis://127.0.0.1:6379/0; default: each process counts alone (env REDIS_URL)")
	allowPrivate := fs.Bool("webhook-allow-private", os.Getenv("STOREADMIN_WEBHOOK_ALLOW_PRIVATE") == "1",
		"allow webhook targets on loopback and private addresses, for tests (env STOREADMIN_WEBHOOK_ALLOW_PRIVATE=1)")
	webhookWorkers := fs.Int("webhook-workers", envInt("STOREADMIN_WEBHOOK_WORKERS", events.DefaultWorkers),
		"webhook deliveries this process sends at once (env STOREADMIN_WEBHOOK_WORKERS)")
	publicURL := fs.String("public-url", os.Getenv("STOREADMIN_PUBLIC_URL"), "the service's public base URL; default http://<addr> (env STOREADMIN_PUBLIC_URL)")
	countryHeader := fs.String("country-header", os.Getenv("STOREADMIN_COUNTRY_HEADER"),
		"trusted header holding the client's country, e.g. CF-IPCountry (env STOREADMIN_COUNTRY_HEADER)")
	clientIPHeader := fs.String("client-ip-header", os.Getenv("STOREADMIN_CLIENT_IP_HEADER"),
		"trusted header holding the client's address, e.g. X-Forwarded-For (env STOREADMIN_CLIENT_IP_HEADER)")
	graphqlTimeout := fs.Duration("graphql-timeout", envDuration("STOREADMIN_GRAPHQL_TIMEOUT", limits.DefaultTimeout),
		"how long one GraphQL operation (REST request) may run (env STOREADMIN_GRAPHQL_TIMEOUT)")
	logFormat := fs.String("log-format", envOr(logFormatEnv, "text"), "the log's format: text or json, one object a line (env "+logFormatEnv+")")
	metricsAddr := fs.String("metrics-addr", os.Getenv("STOREADMIN_METRICS_ADDR"),
		"serve GET /metrics on this address of its own instead of --addr, e.g. 127.0.0.1:9090 (env STOREADMIN_METRICS_ADDR)")
	billingURL := fs.String("billing-api-url", envOr("STOREADMIN_BILLING_API_URL", billing.DefaultAPIURL),
		"the billing provider's API, Stripe or a Stripe-compatible server (env STOREADMIN_BILLING_API_URL); its secret key is read from STOREADMIN_BILLING_SECRET_KEY only")
	billingPublishable := fs.String("billing-publishable-key", os.Getenv("STOREADMIN_BILLING_PUBLISHABLE_KEY"),
		"the billing provider's publishable key, handed to browsers for its card form; empty (and no secret key): billing is not configured (env STOREADMIN_BILLING_PUBLISHABLE_KEY)")
	eventsRetention := retention.DefaultHorizon
	if v := os.Getenv("STOREADMIN_EVENTS_RETENTION"); v != "" {
		var err error
		if eventsRetention, err = retention.ParseHorizon(v); err != nil {
			return err
		}
	}
	fs.Func("events-retention", "how long storefront browsing events are kept: days (400d, the default), a duration, or 0 for ever (env STOREADMIN_EVENTS_RETENTION)",
		func(v string) (err error) { eventsRetention, err = retention.ParseHorizon(v); return err })
	smtpURL := fs.String("smtp-url", os.Getenv("STOREADMIN_SMTP_URL"),
		"the SMTP server of mail to shoppers (recovery reminders): smtp://user:pass@host:587 (STARTTLS when offered) or smtps://...:465, ?from=address for the sender (default no-reply@<platform domain>); default none: mail goes to the mail_outbox table and the log (env STOREADMIN_SMTP_URL)")
	surcharges := fs.Bool("surcharges", os.Getenv("STOREADMIN_SURCHARGES") != "0",
		"let stores charge the handling surcharge (pp15) at checkout; false: none is charged and switching one on is refused (env STOREADMIN_SURCHARGES=0 turns them off)")
	moneyExperiments := fs.Bool("money-experiments", os.Getenv("STOREADMIN_MONEY_EXPERIMENTS") != "0",
		"let stores that opt in run price and shipping A/B tests; false: none runs and starting one is refused (env STOREADMIN_MONEY_EXPERIMENTS=0 turns them off)")
	customizer := fs.Bool("customizer", os.Getenv("STOREADMIN_CUSTOMIZER") != "0",
		"offer stores the product customizer; false: GET /store/customizer/status says platform_enabled false (env STOREADMIN_CUSTOMIZER=0 turns it off)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if flagSet(fs, "log-format") {
		// The environment's format is main's already; the flag's replaces it.
		l, err := newLogger(stderr, *logFormat)
		if err != nil {
			return fmt.Errorf("--log-format: %w", err)
		}
		log = l
	}
	// The secret key comes from the environment alone: a flag's value is
	// on the command line, which every user of the machine can read.
	bill, err := billing.New(billing.Config{APIURL: *billingURL, SecretKey: os.Getenv("STOREADMIN_BILLING_SECRET_KEY"), PublishableKey: *billingPublishable, Log: log})
	if err != nil {
		return err
	}

	ipPolicy, err := storefront.ParseIPPolicy(sf.ipPolicy)
	if err != nil {
		return fmt.Errorf("--storefront-ip: %w", err)
	}
	geo, err := geoip.Open(sf.geoIPDB)
	if err != nil {
		return err
	}
	defer geo.Close()

	pay, err := pf.gateway(log)
	if err != nil {
		return err
	}
	bdb, closeDB, err := db.openDB(ctx, log)
	if err != nil {
		return err
	}
	defer closeDB()
	// From here on an unreachable database is logged once per outage, not
	// by every request, poll and worker that meets it.
	log = slog.New(database.QuietOutages(ctx, log.Handler(), bdb.DB))

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", *addr, err)
	}
	base := *publicURL
	if base == "" {
		base = "http://" + ln.Addr().String()
	}
	files, err := mf.open(ctx, bdb, db.dataDir, base)
	if err != nil {
		ln.Close()
		return err
	}
	go sweep(ctx, bdb, files, log)
	counts := metrics.New()
	custom, err := df.open(log)
	if err != nil {
		ln.Close()
		return err
	}
	reminders, err := openRecovery(ctx, bdb, *smtpURL, custom.Config().PlatformDomain, base, log)
	if err != nil {
		ln.Close()
		return err
	}
	signer, err := previews.Open(ctx, bdb)
	if err != nil {
		ln.Close()
		return err
	}
	// The abandonment job runs on the engine and emits through it.
	flagging := &abandonment.Job{DB: bdb, Log: log, Now: time.Now}
	hooks, err := events.New(bdb, events.Config{AllowPrivate: *allowPrivate, Workers: *webhookWorkers, Log: log, Metrics: counts,
		Work: []events.Work{custom.Work(bdb, time.Now), retention.Work(bdb, eventsRetention, time.Now, log), flagging.Work(), reminders.Work(bdb, time.Now),
			insights.Work(bdb, time.Now, log), funnelruns.Work(bdb, time.Now, log)}})
	if err != nil {
		ln.Close()
		return err
	}
	flagging.Events = hooks
	cfg := server.Config{
		Events:               hooks,
		Domains:              custom,
		Recovery:             reminders,
		Previews:             signer,
		Media:                files,
		Payments:             pay,
		Billing:              bill,
		RateLimit:            *rateLimit,
		RedisURL:             *redisURL,
		AllowPrivateWebhooks: *allowPrivate,
		Audit:                audit.Config{CountryHeader: *countryHeader, ClientIPHeader: *clientIPHeader},
		PublicURL:            base,
		GraphQLTimeout:       *graphqlTimeout,
		EventsRetention:      eventsRetention,
		Metrics:              counts,
		MetricsElsewhere:     *metricsAddr != "",
		StorefrontRateLimit:  *shopRateLimit,
		StorefrontOrigins:    splitList(*shopOrigins),
		StorefrontIP:         ipPolicy,
		GeoIP:                geo,
		Platform:             models.Platform{SurchargesOff: !*surcharges, MoneyExperimentsOff: !*moneyExperiments, CustomizerOff: !*customizer},
	}
	srv, err := server.New(bdb, cfg, log, time.Now)
	if err != nil {
		ln.Close()
		return err
	}
	defer srv.Close()
	if err := hooks.Start(ctx); err != nil {
		ln.Close()
		return err
	}
	defer stopEvents(hooks, log)
	log.Info("config", "addr", ln.Addr().String(), "public_url", base, "rate_limit", cfg.RateLimit, "rate_limit_counts", rateCounts(cfg.RedisURL),
		"webhook_allow_private", cfg.AllowPrivateWebhooks, "country_header", cfg.Audit.CountryHeader,
		"client_ip_header", cfg.Audit.ClientIPHeader, "webhook_workers", *webhookWorkers, "graphql_timeout", cfg.GraphQLTimeout, "events_retention", eventsRetention, "metrics_addr", *metricsAddr, "database", dbDescription(db),
		"payments_api_url", pf.apiURL, "secrets_key", pay.Box != nil,
		"platform_domain", custom.Config().PlatformDomain, "domain_cname_target", custom.Config().TargetHost, "dns_resolver", custom.Resolver(),
		"billing", bill.Configured(), "billing_api_url", *billingURL, "mail", reminders.Mail(),
		"storefront_rate_limit", *shopRateLimit, "storefront_origins", cfg.StorefrontOrigins, "storefront_ip", ipPolicy, "geoip_db", sf.geoIPDB, "geoip_coordinates", geo.Locates())

	if *demo {
		key, revoked, err := prepareDemo(ctx, bdb, files, log)
		if err != nil {
			ln.Close()
			return err
		}
		fmt.Fprintf(stdout, "storeadmin is serving the demo store %q.\n\n", demoHandle)
		if revoked > 0 {
			fmt.Fprintf(stdout, "  The admin key printed last time is revoked; use this one.\n\n")
		}
		fmt.Fprintf(stdout, "  REST:      %s/api/v1\n", base)
		fmt.Fprintf(stdout, "  GraphQL:   %s/graphql (open it in a browser for the playground)\n", base)
		fmt.Fprintf(stdout, "  Admin key: %s\n\n", key)
		fmt.Fprintf(stdout, "  curl -H \"Authorization: Bearer %s\" %s/api/v1/store\n\n", key, base)
	}

	httpSrv := &http.Server{
		Handler:           srv,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       2 * time.Minute,
		WriteTimeout:      5 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	errc := make(chan error, 2)
	go func() { errc <- httpSrv.Serve(ln) }()
	metricsURL := base + "/metrics"
	if *metricsAddr != "" {
		metricsSrv, url, err := serveMetrics(*metricsAddr, counts, errc)
		if err != nil {
			httpSrv.Close()
			return err
		}
		defer metricsSrv.Close()
		metricsURL = url
	}
	log.Info("serving", "rest", base+"/api/v1", "graphql", base+"/graphql", "metrics", metricsURL)

	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: draining requests", "grace", shutdownGrace)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := httpSrv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shutdown: %w", err)
	}
	stopEvents(hooks, log)
	log.Info("stopped")
	return nil
}

// serveMetrics serves GET /metrics alone on addr (--metrics-addr), so that
// it can be kept on a private network while --addr faces clients. A
// failure of its server ends serve through errc, as the main server's does.
func serveMetrics(addr string, counts *metrics.Metrics, errc chan<- error) (*http.Server, string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", fmt.Errorf("listen on %s (--metrics-addr): %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", counts.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: time.Minute}
	go func() {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			errc <- fmt.Errorf("metrics server: %w", err)
		}
	}()
	return srv, "http://" + ln.Addr().String() + "/metrics", nil
}

// flagSet tells whether the command line named the flag.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// eventsGrace is how long serve waits, after the last request, for webhook
// deliveries in flight: one attempt's timeout and a margin. Deliveries cut
// short are retried by the next process to run.
const eventsGrace = events.DefaultTimeout + 5*time.Second

// stopEvents stops the webhook workers, letting deliveries in flight finish.
func stopEvents(e *events.Engine, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), eventsGrace)
	defer cancel()
	if err := e.Stop(ctx); err != nil {
		log.Error("stop webhook workers", "error", err)
	}
}

// prepareDemo makes sure the demo store exists and is seeded, and returns a
// fresh admin key for it. The keys it printed before are revoked (their
// number is returned): a demo has one live key, the one on the screen.
func prepareDemo(ctx context.Context, db *bun.DB, files *media.Media, log *slog.Logger) (string, int64, error) {
	store, err := models.GetStoreByHandle(ctx, db, demoHandle)
	if err != nil {
		store = &models.Store{Handle: demoHandle, Name: "Demo Outfitters"}
		if err := models.CreateStore(ctx, db, store); err != nil {
			return "", 0, err
		}
	}
	// Seeding is idempotent: this fills a new store and completes one whose
	// earlier seeding was interrupted.
	log.Info("seeding the demo store", "handle", demoHandle)
	if err := seed.Store(ctx, db, files, store.ID, time.Now()); err != nil {
		return "", 0, fmt.Errorf("seed demo store: %w", err)
	}
	k, err := auth.NewAPIKey(store.ID, demoKeyName+" "+time.Now().UTC().Format(time.DateTime), auth.RoleAdmin, nil, nil, time.Now())
	if err != nil {
		return "", 0, err
	}
	var revoked int64
	err = db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewUpdate().Model((*models.APIKey)(nil)).Set("revoked_at = now()").
			Where("store_id = ? AND revoked_at IS NULL AND name LIKE ?", store.ID, demoKeyName+" %").Exec(ctx)
		if err != nil {
			return err
		}
		revoked, _ = res.RowsAffected()
		return models.CreateAPIKey(ctx, tx, k)
	})
	if err != nil {
		return "", 0, err
	}
	if revoked > 0 {
		log.Info("revoked the demo keys printed before", "revoked", revoked)
	}
	return *k.Key, revoked, nil
}

// rateCounts says where the rate limit counts, for the log: never the
// Redis password.
func rateCounts(redisURL string) string {
	if redisURL == "" {
		return "in this process"
	}
	return "in Redis at " + redact(redisURL)
}

func dbDescription(f dbFlags) string {
	if f.url != "" {
		return redact(f.url)
	}
	return "embedded in " + f.dataDir
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func envDuration(name string, def time.Duration) time.Duration {
	if v, err := time.ParseDuration(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// sweepEvery is how often expired downloads and stale uploads are deleted.
const sweepEvery = 5 * time.Minute

// sweep deletes expired blobs and idempotency keys until ctx ends.
func sweep(ctx context.Context, db bun.IDB, files *media.Media, log *slog.Logger) {
	t := time.NewTicker(sweepEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if n, err := files.Sweep(ctx); err != nil {
				log.Warn("sweeping blobs", "err", err)
			} else if n > 0 {
				log.Info("swept blobs", "deleted", n)
			}
			if n, err := idempotency.Sweep(ctx, db, time.Now()); err != nil {
				log.Warn("sweeping idempotency keys", "err", err)
			} else if n > 0 {
				log.Info("swept idempotency keys", "deleted", n)
			}
		}
	}
}
