package storefront

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"

	"storeadmin/internal/base/geoip"
	"storeadmin/models"
)

// ImportLine is one line of an import file: an event as POST /events takes
// it, plus what an analytics export carries of the browser that sent it.
type ImportLine struct {
	EventInput
	IP        string `json:"ip"`
	UserAgent string `json:"user_agent"`
}

// ImportChunk is how many lines one transaction of an import stores:
// enough for COPY and the sessionising statement to run at full speed,
// few enough to keep memory flat at any size. An import stopped half way
// keeps its committed chunks; run again, it stores only the rest.
const ImportChunk = 100_000

// maxLine bounds a line of an import file, as jsonbody bounds a request.
const maxLine = 64 << 10

// importSince is the oldest time an imported event may carry.
var importSince = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// ImportConfig is what an import needs beyond its file.
type ImportConfig struct {
	GeoIP    *geoip.DB
	IPPolicy IPPolicy
	Now      time.Time
}

// BadLine is a line an import skipped, and why.
type BadLine struct {
	Line    int
	Problem string
}

// ImportReport says what an import did.
type ImportReport struct {
	Lines       int // events read (blank lines aside)
	Stored      int
	Duplicates  int // of an event already stored, or earlier in the file
	NewSessions int
	Skipped     int       // bad lines, not stored
	BadLines    []BadLine // the first MaxBadLines of them
}

// MaxBadLines is how many bad lines a report names.
const MaxBadLines = 20

// Import stores the events of r, a JSON Lines file (one ImportLine a
// line), in the store: checked as POST /events checks them (any age since
// 2000 though), enriched from each line's ip and user_agent, copied into
// a staging table with PostgreSQL COPY and sessionised by the statement
// every event goes through (models.IngestStaged). A bad line is skipped
// and reported with its number, the rest is stored: a backfill of a
// million lines is not lost to one of them; run again after fixing them,
// only they are stored.
func Import(ctx context.Context, db *bun.DB, storeID int64, r io.Reader, cfg ImportConfig) (ImportReport, error) {
	var rep ImportReport
	policy := cfg.IPPolicy
	if policy == "" {
		policy = IPTruncated
	}
	en := newEnricher(cfg.GeoIP, policy)
	win := window{from: importSince, to: cfg.Now.Add(MaxClockSkew)}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	chunk := make([]models.StagedEvent, 0, ImportChunk)
	flush := func() error {
		if len(chunk) == 0 {
			return nil
		}
		got, err := copyAndIngest(ctx, db, storeID, chunk)
		if err != nil {
			return err
		}
		rep.Stored += got.Stored
		rep.NewSessions += got.NewSessions
		rep.Duplicates += len(chunk) - got.Stored
		chunk = chunk[:0]
		return nil
	}
	n := 0
	for sc.Scan() {
		n++
		raw := sc.Bytes()
		if len(bytesTrim(raw)) == 0 {
			continue
		}
		rep.Lines++
		var line ImportLine
		err := decodeStrict(raw, &line, "", "the line")
		var ev models.StagedEvent
		if err == nil {
			ev, err = line.stage("", n, win)
		}
		if err != nil {
			rep.Skipped++
			if len(rep.BadLines) < MaxBadLines {
				rep.BadLines = append(rep.BadLines, BadLine{Line: n, Problem: err.Error()})
			}
			continue
		}
		en.add(&ev, Client{UserAgent: line.UserAgent, IP: line.IP})
		chunk = append(chunk, ev)
		if len(chunk) == ImportChunk {
			if err := flush(); err != nil {
				return rep, err
			}
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return rep, fmt.Errorf("line %d is longer than %d bytes", n+1, maxLine)
		}
		return rep, err
	}
	return rep, flush()
}

func bytesTrim(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// copyAndIngest stores events in one transaction: COPY into the staging
// table, then the sessionising statement reads it.
func copyAndIngest(ctx context.Context, db *bun.DB, storeID int64, events []models.StagedEvent) (models.Ingested, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return models.Ingested{}, err
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return models.Ingested{}, err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it does nothing
	if err := models.PrepareBulkIngest(ctx, tx); err != nil {
		return models.Ingested{}, err
	}
	if err := models.CreateStagingTable(ctx, tx); err != nil {
		return models.Ingested{}, err
	}
	// COPY is pgx's, on the connection the transaction holds.
	err = conn.Raw(func(dc any) error {
		_, err := dc.(*stdlib.Conn).Conn().CopyFrom(ctx, pgx.Identifier{models.StagingTable}, models.StagingColumns,
			pgx.CopyFromSlice(len(events), func(i int) ([]any, error) { return events[i].Row(), nil }))
		return err
	})
	if err != nil {
		return models.Ingested{}, fmt.Errorf("copy: %w", err)
	}
	got, err := models.IngestStaged(ctx, tx, storeID, SessionIdleMinutes*time.Minute)
	if err != nil {
		return models.Ingested{}, err
	}
	return got, tx.Commit()
}
