// Package ratelimit is the per-key request budget of both surfaces: so many
// units per key per minute, counted in this process (one server) or in Redis
// (several replicas sharing one budget), with go-chi/httprate's sliding
// window either way.
//
// A request costs 1, charged by the middleware before anything else runs.
// A GraphQL mutation costs one per root field it runs: graph's mutation
// budget charges the fields beyond the first with Spend, after parsing and
// before any field runs, so 500 aliased refunds cost 500, not 1.
package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/go-chi/httprate"
	httprateredis "github.com/go-chi/httprate-redis"
	"github.com/redis/go-redis/v9"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/failure"
	"storeadmin/internal/base/metrics"
)

// Window is the length of the budget's window.
const Window = time.Minute

// MaxCost is the most one request may cost: a mutation may run at most this
// many root fields. Past it the request is refused with 400, whatever the
// budget, since retrying later could not make it pass.
const MaxCost = 50

// redisTimeout is how long a Redis command may take before the limiter
// counts in this process instead (see Config.RedisURL).
const redisTimeout = 250 * time.Millisecond

// Config is what the limiter needs.
type Config struct {
	// Limit is the units per key per window.
	Limit int
	// RedisURL (redis://[user:password@]host:port/db, or rediss:// for TLS),
	// when set, keeps the counts in Redis, so that every replica pointing at
	// it spends the same budget. When Redis fails or is slower than 250 ms,
	// each replica counts on its own, in memory, until Redis answers again:
	// the service stays up and every key still has a limit, though each
	// replica grants it in full for that while.
	RedisURL string
	// Key names the budget a request spends.
	Key func(*http.Request) string
	// Log receives the switches to and from local counting.
	Log *slog.Logger
	// Metrics counts the requests refused. Default: nothing counted.
	Metrics *metrics.Metrics
}

// Limiter counts the requests of each key.
type Limiter struct {
	rl    *httprate.RateLimiter
	cfg   Config
	close func() error
}

// New builds the limiter cfg describes: in-process, or in Redis when
// cfg.RedisURL is set.
func New(cfg Config) (*Limiter, error) {
	l := &Limiter{cfg: cfg, close: func() error { return nil }}
	opts := []httprate.Option{
		// The counters we use never fail (the Redis one falls back to
		// memory). If one did, httprate's default would answer 428 on its
		// own; this logs instead, and the request is refused with 429.
		httprate.WithErrorHandler(func(w http.ResponseWriter, r *http.Request, err error) {
			cfg.Log.ErrorContext(r.Context(), "rate limit counter", "error", err)
		}),
	}
	if cfg.RedisURL != "" {
		counter, closeClient, err := redisCounter(cfg)
		if err != nil {
			return nil, err
		}
		opts = append(opts, httprate.WithLimitCounter(counter))
		l.close = closeClient
	}
	l.rl = httprate.NewRateLimiter(cfg.Limit, Window, opts...)
	return l, nil
}

// redisCounter is httprate-redis's counter on the client cfg.RedisURL
// names, with its fallback to local counting logged once per outage.
func redisCounter(cfg Config) (httprate.LimitCounter, func() error, error) {
	opts, err := redis.ParseURL(cfg.RedisURL)
	if err != nil {
		// url.Error quotes the whole URL, password included.
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		return nil, nil, fmt.Errorf("redis URL: %w", err)
	}
	// Short timeouts and no retries, as httprate-redis advises: a slow
	// Redis must switch the limiter to local counting, not slow every
	// request down.
	opts.DialTimeout = 2 * redisTimeout
	opts.ReadTimeout = redisTimeout
	opts.WriteTimeout = redisTimeout
	opts.MaxRetries = -1
	client := redis.NewClient(opts)
	where := redisHost(cfg.RedisURL)
	counter := httprateredis.NewCounter(&httprateredis.Config{
		Client:       client,
		WindowLength: Window,
		PrefixKey:    "storeadmin:ratelimit",
		OnFallbackChange: func(local bool) {
			if local {
				cfg.Log.Warn("rate limit: Redis is unreachable; each replica counts on its own until it answers", "redis", where)
			} else {
				cfg.Log.Info("rate limit: Redis answers again; the budget is shared again", "redis", where)
			}
		},
	})
	return counter, client.Close, nil
}

// redisHost names the Redis server of u for the log: its host, never its
// credentials.
func redisHost(u string) string {
	if p, err := url.Parse(u); err == nil {
		return p.Host
	}
	return "(unparsable URL)"
}

// Close releases the Redis connections, if any.
func (l *Limiter) Close() error { return l.close() }

// Handler charges each request 1 against its key's budget and refuses it
// with 429 when the budget is spent. The requests it lets through carry
// their budget for Spend.
func (l *Limiter) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := l.cfg.Key(r)
		if l.rl.OnLimit(w, r, key) {
			l.cfg.Metrics.RateLimitRefused(metrics.RefusedRequests)
			failure.Write(w, r, apperr.New(apperr.RateLimited,
				"too many requests: the limit is %d per minute; retry after the number of seconds in Retry-After", l.cfg.Limit))
			return
		}
		b := &budget{l: l, key: key, w: w, r: r}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), budgetKey{}, b)))
	})
}

type budgetKey struct{}

// budget is the key of one request and where its limit headers go.
type budget struct {
	l   *Limiter
	key string
	w   http.ResponseWriter
	r   *http.Request
}

// Spend charges cost, the whole cost of the request of ctx (the middleware
// charged 1 of it already), and returns the error to refuse the request with
// when it costs more than MaxCost (400) or its key's budget does not cover
// it (429). Nothing is charged for a refused request beyond its 1. The
// refusal also decides the answer's status (failure.SetStatus): gqlgen's
// transport answers errors met before execution with 200.
// Operations the service runs for itself carry no budget and spend none,
// but MaxCost holds for them too.
func Spend(ctx context.Context, cost int) error {
	b, _ := ctx.Value(budgetKey{}).(*budget)
	if cost > MaxCost {
		failure.SetStatus(ctx, apperr.Invalid)
		return apperr.Invalidf("this request runs %d mutations; one request may run at most %d: send the rest in further requests", cost, MaxCost)
	}
	if b == nil || cost <= 1 {
		return nil
	}
	r := b.r.WithContext(httprate.WithIncrement(ctx, cost-1))
	if b.l.rl.OnLimit(b.w, r, b.key) {
		b.l.cfg.Metrics.RateLimitRefused(metrics.RefusedCost)
		failure.SetStatus(ctx, apperr.RateLimited)
		return apperr.New(apperr.RateLimited, "too many requests: this request runs %d mutations, each counting 1 against the limit of %d per minute, and this key had %d left; retry after the number of seconds in Retry-After, or run fewer at once",
			cost, b.l.cfg.Limit, leftBefore(b.w))
	}
	return nil
}

// leftBefore is what was left of the budget before the request: httprate
// just wrote what is left after its 1 in X-RateLimit-Remaining.
func leftBefore(w http.ResponseWriter) int {
	n, _ := strconv.Atoi(w.Header().Get("X-RateLimit-Remaining"))
	return n + 1
}
