package auth

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/stdlib"
)

// KeyChannel is the channel the api_keys trigger announces changes on
// (migration api_key_changes).
const KeyChannel = "api_keys_changed"

// ListenerName is the application_name of the listener's connection, by
// which pg_stat_activity shows it.
const ListenerName = "storeadmin key listener"

// fenceTimeout bounds a fence's round trip: a connection that does not
// answer within it is taken for lost (a half-open TCP connection shows no
// error until something is sent).
const fenceTimeout = 5 * time.Second

// The listener reconnects after a pause that doubles from retryFirst up to
// retryMost; the cache answers nothing meanwhile.
const (
	retryFirst = 50 * time.Millisecond
	retryMost  = 5 * time.Second
)

// firstDial bounds the connection made before the service starts.
const firstDial = 10 * time.Second

// startListener keeps a connection of its own listening on KeyChannel for c
// until ctx ends, and runs the fences requests ask for on it; done is closed
// when it has stopped. db is the pool, asked only for its connection
// settings. The first connection is made before startListener returns, so
// a service starts with its cache on (and a test's statement counts do not
// depend on how soon the listener connected); if it fails, the listener
// keeps trying in the background.
func startListener(ctx context.Context, db *sql.DB, c *keyCache, log *slog.Logger) (done <-chan struct{}) {
	dialCtx, cancel := context.WithTimeout(ctx, firstDial)
	conn, err := dialListener(dialCtx, db, c)
	cancel()
	if err == nil {
		c.listening()
	}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		listen(ctx, db, c, log, conn, err)
	}()
	return stopped
}

// listen serves conn, the listener's connection or nil when dialling it
// failed with err, and then connects again whenever it is lost, until ctx
// ends.
func listen(ctx context.Context, db *sql.DB, c *keyCache, log *slog.Logger, conn *pgconn.PgConn, err error) {
	pause := retryFirst
	for {
		if conn != nil {
			err = serveListener(ctx, conn, c)
			c.lost()
			closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
			conn.Close(closeCtx) //nolint:errcheck // the connection is being dropped either way
			cancel()
		}
		if ctx.Err() != nil {
			return
		}
		log.Warn("the API key listener has no connection: every request reads its key from the database until it is back",
			"error", err, "retry_in", pause.String())
		select {
		case <-ctx.Done():
			return
		case <-time.After(pause):
		}
		if conn, err = dialListener(ctx, db, c); err == nil {
			c.listening()
			log.Info("the API key listener is back: checked keys are kept in memory again")
			pause = retryFirst
		} else {
			pause = min(2*pause, retryMost)
		}
	}
}

// dialListener opens a connection with the pool's settings, outside the
// pool (it is held for good and its session listens), and runs LISTEN on it.
// Notices go to c as they arrive, during any call on the connection.
func dialListener(ctx context.Context, db *sql.DB, c *keyCache) (*pgconn.PgConn, error) {
	pooled, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	var cfg *pgconn.Config
	err = pooled.Raw(func(driverConn any) error {
		sc, ok := driverConn.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("the key listener needs a pgx connection, not %T", driverConn)
		}
		cfg = &sc.Conn().Config().Config // Config returns a copy
		return nil
	})
	pooled.Close()
	if err != nil {
		return nil, err
	}
	// The pool cancels a statement with a cancel request and breaks the
	// connection only 5 s later; here ending a wait for a notice must be
	// immediate and keep the connection, which a deadline does.
	cfg.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.DeadlineContextWatcherHandler{Conn: pc.Conn()}
	}
	cfg.OnNotification = func(_ *pgconn.PgConn, n *pgconn.Notification) { c.changed(n.Payload) }
	params := make(map[string]string, len(cfg.RuntimeParams)+1)
	for k, v := range cfg.RuntimeParams {
		params[k] = v
	}
	params["application_name"] = ListenerName
	cfg.RuntimeParams = params
	conn, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := conn.Exec(ctx, "LISTEN "+KeyChannel).Close(); err != nil {
		conn.Close(context.WithoutCancel(ctx)) //nolint:errcheck // already failing
		return nil, err
	}
	return conn, nil
}

// serveListener waits for notices on conn and runs the fences requests
// wait for, until ctx ends or the connection fails.
func serveListener(ctx context.Context, conn *pgconn.PgConn, c *keyCache) error {
	for {
		wait, stop := context.WithCancel(ctx)
		if f := c.nextFence(stop); f != nil {
			stop()
			fctx, cancel := context.WithTimeout(ctx, fenceTimeout)
			err := conn.Exec(fctx, "-- fence").Close()
			cancel()
			f.finish(err == nil)
			if err != nil {
				return err
			}
			continue
		}
		err := conn.WaitForNotification(wait)
		c.woke()
		stop()
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil && !errors.Is(err, context.Canceled):
			return err
		}
	}
}
