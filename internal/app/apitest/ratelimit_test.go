package apitest_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/app/server"
	"storeadmin/internal/auth"
	"storeadmin/internal/base/metrics"
	"storeadmin/internal/testkit/testlog"
	"storeadmin/internal/testkit/testredis"
	"storeadmin/models"
)

// replicas starts n servers on the database of e, each behind its own HTTP
// server, with e's configuration but rate-limit counts in the Redis at
// redisURL, as n replicas of one deployment. log receives their logs (nil:
// discarded).
func replicas(t testing.TB, e *apitest.Env, n int, redisURL string, log *slog.Logger) []*apitest.Env {
	t.Helper()
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	cfg := e.Config
	cfg.RedisURL = redisURL
	var out []*apitest.Env
	for range n {
		cfg.Metrics = metrics.New() // each replica counts its own requests
		srv, err := server.New(e.DB, cfg, log, time.Now)
		if err != nil {
			t.Fatalf("server.New: %v", err)
		}
		t.Cleanup(func() { srv.Close() })
		hs := httptest.NewServer(srv)
		t.Cleanup(hs.Close)
		out = append(out, &apitest.Env{T: t, DB: e.DB, URL: hs.URL, Config: cfg, Media: e.Media, Events: e.Events})
	}
	return out
}

// limiterKinds are the two ways the service counts: in its process (one
// server), and in Redis (two replicas, which the steps of a test alternate
// between).
var limiterKinds = []struct {
	name    string
	servers func(t testing.TB, e *apitest.Env) []*apitest.Env
}{
	{"in-process", func(t testing.TB, e *apitest.Env) []*apitest.Env { return []*apitest.Env{e} }},
	{"redis", func(t testing.TB, e *apitest.Env) []*apitest.Env {
		return replicas(t, e, 2, testredis.Start(t).URL, nil)
	}},
}

// inOneWindow runs f, which must use a fresh key each time, until a run
// starts and ends in the same minute of the wall clock, and fails the test
// with that run's complaint, if any. Redis counts in minute windows (the
// in-process limiter's start at its creation), and httprate weighs the
// previous window's count into the current one, fading it: a run that
// straddles two windows may be granted one more request than its limit.
func inOneWindow(t *testing.T, f func() string) {
	t.Helper()
	for range 3 {
		start := time.Now().Truncate(time.Minute)
		complaint := f()
		if time.Now().Truncate(time.Minute).Equal(start) {
			if complaint != "" {
				t.Fatal(complaint)
			}
			return
		}
	}
	t.Fatal("three runs in a row straddled a minute boundary")
}

// TestRateLimitSharedAcrossReplicas: two replicas sharing Redis grant one
// key its limit in total, not its limit each.
func TestRateLimitSharedAcrossReplicas(t *testing.T) {
	const limit = 10
	e := apitest.New(t, apitest.WithRateLimit(limit))
	servers := replicas(t, e, 2, testredis.Start(t).URL, nil)
	s := e.Store("Acme")
	inOneWindow(t, func() string {
		key := e.Key(s.ID, auth.RoleAdmin)
		var got []int
		granted := map[int]int{}
		for i := range 2 * limit {
			srv := servers[i%2]
			var r *apitest.Response
			if i%4 < 2 {
				r = srv.Do(http.MethodGet, "/store", key, nil)
			} else {
				r = srv.GraphQL(key, `{ store { id } }`, nil)
			}
			got = append(got, r.Status)
			if r.Status == http.StatusOK {
				granted[i%2]++
			}
		}
		for i, status := range got {
			want := http.StatusOK
			if i >= limit {
				want = http.StatusTooManyRequests
			}
			if status != want {
				return fmt.Sprintf("statuses across both replicas %v: want %d of 200, then 429s", got, limit)
			}
		}
		if granted[0] != limit/2 || granted[1] != limit/2 {
			return fmt.Sprintf("replicas granted %v, want %d each", granted, limit/2)
		}
		return ""
	})
}

// refunds counts the refunds of order id.
func refunds(t *testing.T, e *apitest.Env, id int64) int64 {
	t.Helper()
	n, err := e.DB.NewSelect().Model((*models.Refund)(nil)).Where("order_id = ?", id).Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// auditedRefusal says whether the audit log of store has a refundOrder
// write refused with 429.
func auditedRefusal(t *testing.T, e *apitest.Env, storeID int64) bool {
	t.Helper()
	page, err := models.PageAuditLogs(context.Background(), e.DB, storeID, nil, models.Paging{Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range page.Rows {
		if l.StatusCode == http.StatusTooManyRequests && strings.HasPrefix(l.Action, "refundOrder") {
			return true
		}
	}
	return false
}

// refundsMutation is one mutation of n aliased refunds of 1 cent of $id,
// the last `inFragment` of them through a fragment spread.
func refundsMutation(n, inFragment int) string {
	var direct, frag strings.Builder
	for i := range n {
		// The first goes unaliased: a document may alias at most 50 fields
		// (graph/limits), and 51 fields must reach the mutation cap.
		f := " refundOrder(id: $id, input: {amount_cents: 1}) { id }"
		if i > 0 {
			f = fmt.Sprintf(" r%d:%s", i, f)
		}
		if i >= n-inFragment {
			frag.WriteString(f)
		} else {
			direct.WriteString(f)
		}
	}
	if inFragment == 0 {
		return "mutation($id: Int!) {" + direct.String() + " }"
	}
	return "mutation($id: Int!) {" + direct.String() + " ...more } fragment more on Mutation {" + frag.String() + " }"
}

// TestMutationFieldsSpendTheRateLimit: each root field of a mutation counts
// against the key's budget, on either surface and with either limiter; a
// mutation the budget does not cover is refused with 429 and runs nothing.
func TestMutationFieldsSpendTheRateLimit(t *testing.T) {
	for _, kind := range limiterKinds {
		t.Run(kind.name, func(t *testing.T) {
			const limit = 10
			e := apitest.New(t, apitest.WithRateLimit(limit))
			servers := kind.servers(t, e)
			srv := func(i int) *apitest.Env { return servers[i%len(servers)] }
			s := e.Store("Acme")
			inOneWindow(t, func() string {
				key := e.Key(s.ID, auth.RoleAdmin)
				o := createOrder(t, e, s.ID, orderSpec{})
				vars := map[string]any{"id": o.ID}
				remaining := func(step string, r *apitest.Response, want string) string {
					if got := r.Header.Get("X-RateLimit-Remaining"); got != want {
						return fmt.Sprintf("%s: X-RateLimit-Remaining %q, want %q; %d %s", step, got, want, r.Status, r.Raw)
					}
					return ""
				}

				// Three fields cost three.
				g := srv(0).GraphQL(key, refundsMutation(3, 0), vars)
				if g.Status != http.StatusOK || g.Body["errors"] != nil || refunds(t, e, o.ID) != 3 {
					return fmt.Sprintf("3 refunds: %d %s", g.Status, g.Raw)
				}
				if c := remaining("3 refunds", g, "7"); c != "" {
					return c
				}
				// Eight would cost eight of the seven left: refused before
				// any runs, charged 1, the request itself.
				g = srv(1).GraphQL(key, refundsMutation(8, 0), vars)
				if g.Status != http.StatusTooManyRequests || g.ErrorCode() != "RATE_LIMITED" || g.Header.Get("Retry-After") == "" {
					return fmt.Sprintf("8 refunds with 7 left: %d %v %s", g.Status, g.Header, g.Raw)
				}
				if n := refunds(t, e, o.ID); n != 3 {
					return fmt.Sprintf("a refused mutation ran: %d refunds, want 3", n)
				}
				if c := remaining("refused 8 refunds", g, "6"); c != "" {
					return c
				}
				if !auditedRefusal(t, e, s.ID) {
					return "the refused mutation is not in the audit log with 429"
				}
				// A REST write runs one mutation field: it costs 1.
				r := srv(0).Do(http.MethodPost, orderPath(o.ID, "/refund"), key, map[string]any{"amount_cents": 1})
				if r.Status != http.StatusOK {
					return fmt.Sprintf("REST refund: %d %s", r.Status, r.Raw)
				}
				if c := remaining("REST refund", r, "5"); c != "" {
					return c
				}
				// Five fields, five left: granted, and the budget is spent.
				g = srv(1).GraphQL(key, refundsMutation(5, 0), vars)
				if g.Status != http.StatusOK || g.Body["errors"] != nil || refunds(t, e, o.ID) != 9 {
					return fmt.Sprintf("5 refunds with 5 left: %d %s", g.Status, g.Raw)
				}
				if c := remaining("5 refunds", g, "0"); c != "" {
					return c
				}
				r = srv(0).Do(http.MethodPost, orderPath(o.ID, "/refund"), key, map[string]any{"amount_cents": 1})
				if r.Status != http.StatusTooManyRequests || refunds(t, e, o.ID) != 9 {
					return fmt.Sprintf("REST refund past the limit: %d %s", r.Status, r.Raw)
				}
				return ""
			})
		})
	}
}

// TestMutationFieldCap: a mutation of more than 50 root fields (fragments
// included) is refused with 400 before any runs, whatever the budget; 50 run.
func TestMutationFieldCap(t *testing.T) {
	for _, kind := range limiterKinds {
		t.Run(kind.name, func(t *testing.T) {
			e := apitest.New(t, apitest.WithRateLimit(1000))
			servers := kind.servers(t, e)
			s := e.Store("Acme")
			key := e.Key(s.ID, auth.RoleAdmin)
			o := createOrder(t, e, s.ID, orderSpec{})
			vars := map[string]any{"id": o.ID}
			g := servers[0].GraphQL(key, refundsMutation(51, 20), vars)
			if g.Status != http.StatusBadRequest || g.ErrorCode() != "BAD_USER_INPUT" {
				t.Fatalf("51 refunds: %d %s", g.Status, g.Raw)
			}
			if msg := fmt.Sprint(g.Body["errors"]); !strings.Contains(msg, "runs 51 mutations") || !strings.Contains(msg, "at most 50") {
				t.Fatalf("51 refunds: message %s", msg)
			}
			if n := refunds(t, e, o.ID); n != 0 {
				t.Fatalf("a refused mutation ran: %d refunds", n)
			}
			g = servers[len(servers)-1].GraphQL(key, refundsMutation(50, 20), vars)
			if g.Status != http.StatusOK || g.Body["errors"] != nil || refunds(t, e, o.ID) != 50 {
				t.Fatalf("50 refunds: %d %s", g.Status, g.Raw)
			}
			if got := g.Header.Get("X-RateLimit-Remaining"); got != "949" {
				t.Fatalf("after 400 (cost 1) and 50 refunds: X-RateLimit-Remaining %q, want 949", got)
			}
		})
	}
}

// TestRateLimitWithoutRedis: when Redis stops answering, the replica keeps
// serving and counts each key in memory, and says so once.
func TestRateLimitWithoutRedis(t *testing.T) {
	const limit = 3
	e := apitest.New(t, apitest.WithRateLimit(limit))
	redis := testredis.Start(t)
	logs := &testlog.Records{}
	srv := replicas(t, e, 1, redis.URL, logs.Logger())[0]
	s := e.Store("Acme")
	key := e.Key(s.ID, auth.RoleAdmin)
	srv.Do(http.MethodGet, "/store", key, nil).Expect(t, http.StatusOK)
	redis.Stop()
	inOneWindow(t, func() string {
		key := e.Key(s.ID, auth.RoleAdmin)
		var got []int
		for range limit + 2 {
			got = append(got, srv.Do(http.MethodGet, "/store", key, nil).Status)
		}
		if fmt.Sprint(got) != "[200 200 200 429 429]" {
			return fmt.Sprintf("without Redis: statuses %v, want %d of 200, then 429s", got, limit)
		}
		return ""
	})
	if n := logs.Count(slog.LevelWarn, "Redis is unreachable"); n != 1 {
		t.Fatalf("logged the fallback %d times, want once:\n%s", n, logs.String())
	}
}

// BenchmarkRateLimitedRead measures GET /api/v1/store with each limiter, so
// that what Redis adds to a request (two round trips: read the counts, then
// add to them) is a known number.
func BenchmarkRateLimitedRead(b *testing.B) {
	for _, kind := range limiterKinds {
		b.Run(kind.name, func(b *testing.B) {
			e := apitest.New(b)
			srv := kind.servers(b, e)[0]
			s := e.Store("Bench")
			key := e.Key(s.ID, auth.RoleAdmin)
			benchmarkRequests(b, &http.Client{}, func() *http.Request {
				r, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/v1/store", nil)
				r.Header.Set("Authorization", "Bearer "+key)
				return r
			})
		})
	}
}
