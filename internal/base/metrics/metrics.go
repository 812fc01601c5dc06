// Package metrics is what the service counts for its operators, served in
// the Prometheus text format (GET /metrics) through the official client
// library: requests by route and status with their latency, the database
// pool, the webhook queue's depth and its jobs' outcomes, webhook
// deliveries by outcome and rate-limit refusals.
//
// Each service owns one *Metrics, with a registry of its own rather than
// the library's global one: the tests run many services in one process,
// each on its own database. A nil *Metrics counts nothing, so that a
// subsystem built without one (a command other than serve, a package's own
// tests) needs no second path.
package metrics

import (
	"context"
	"database/sql"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// namespace prefixes every metric of ours (the library's go_, process_ and
// go_sql_ metrics keep their standard names, which dashboards know).
const namespace = "storeadmin"

// Unmatched is the route label of a request no route matched (a 404 for a
// made-up path), so that made-up paths cannot grow the label set.
const Unmatched = "unmatched"

// Metrics holds the service's collectors and the registry serving them.
type Metrics struct {
	registry    *prometheus.Registry
	requests    *prometheus.CounterVec
	latency     *prometheus.HistogramVec
	jobs        *prometheus.CounterVec
	deliveries  *prometheus.CounterVec
	rateLimited *prometheus.CounterVec
}

// New makes the collectors, with the Go runtime's and the process's.
func New() *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "http_requests_total",
			Help: "HTTP requests answered, by method, route pattern and status (499: the client hung up first).",
		}, []string{"method", "route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Name: "http_request_duration_seconds",
			Help:    "Time from a request's arrival to the end of its answer, by method and route pattern.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"method", "route"}),
		jobs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "river_jobs_total",
			Help: "River job runs in this process, by queue, kind and outcome (completed, retryable, discarded, cancelled, snoozed).",
		}, []string{"queue", "kind", "outcome"}),
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "webhook_deliveries_total",
			Help: "Webhook delivery attempts, by outcome: succeeded, retrying (failed, another attempt is due), failed (the last attempt failed), skipped (the subscription is off).",
		}, []string{"outcome"}),
		rateLimited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "rate_limit_refusals_total",
			Help: "Requests refused with 429, by reason: requests (the key's budget was spent) or cost (a mutation's cost exceeded what was left).",
		}, []string{"reason"}),
	}
	m.registry.MustRegister(m.requests, m.latency, m.jobs, m.deliveries, m.rateLimited,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the registry in the Prometheus text format. A collector
// that fails (the queue's depth while the database is out) leaves its
// metrics out; the others are still served.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// Request counts one answered request. route is the router's pattern
// (/api/v1/store/orders/{id}), never the raw path, which would make a
// series per record.
func (m *Metrics) Request(method, route string, status int, took time.Duration) {
	if m == nil {
		return
	}
	m.requests.WithLabelValues(method, route, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(method, route).Observe(took.Seconds())
}

// Webhook outcomes of one delivery attempt.
const (
	DeliverySucceeded = "succeeded"
	DeliveryRetrying  = "retrying"
	DeliveryFailed    = "failed"
	DeliverySkipped   = "skipped"
)

// WebhookDelivery counts one delivery attempt's outcome.
func (m *Metrics) WebhookDelivery(outcome string) {
	if m == nil {
		return
	}
	m.deliveries.WithLabelValues(outcome).Inc()
}

// Rate-limit refusal reasons.
const (
	RefusedRequests = "requests"
	RefusedCost     = "cost"
)

// RateLimitRefused counts one request refused with 429.
func (m *Metrics) RateLimitRefused(reason string) {
	if m == nil {
		return
	}
	m.rateLimited.WithLabelValues(reason).Inc()
}

// Database reports the pool's use (database/sql's DBStats: open, in use and
// idle connections, waits and their time) as the standard go_sql_* metrics.
// A Metrics reports one pool: a second is an error.
func (m *Metrics) Database(db *sql.DB, name string) error {
	return m.registry.Register(collectors.NewDBStatsCollector(db, name))
}

// QueueCount is the number of a queue's jobs in one state.
type QueueCount struct {
	Queue, State string
	Jobs         int64
}

// QueueDepth reports, at each scrape, what depth returns: the jobs waiting
// and running per queue. depth gets a context bounded by scrapeTimeout. A
// Metrics reports one queue depth: a second is an error.
func (m *Metrics) QueueDepth(depth func(context.Context) ([]QueueCount, error)) error {
	return m.registry.Register(queueCollector{depth: depth})
}

// scrapeTimeout bounds the queue depth's statement: a scrape must answer
// even when the database is slow.
const scrapeTimeout = 2 * time.Second

var queueDepthDesc = prometheus.NewDesc(namespace+"_river_queue_jobs",
	"River jobs per queue and state (available: due and waiting for a worker; running), read at the scrape.",
	[]string{"queue", "state"}, nil)

type queueCollector struct {
	depth func(context.Context) ([]QueueCount, error)
}

func (c queueCollector) Describe(ch chan<- *prometheus.Desc) { ch <- queueDepthDesc }

func (c queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	counts, err := c.depth(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(queueDepthDesc, err)
		return
	}
	for _, q := range counts {
		ch <- prometheus.MustNewConstMetric(queueDepthDesc, prometheus.GaugeValue, float64(q.Jobs), q.Queue, q.State)
	}
}

// Job counts one run of a queue's job by its outcome.
func (m *Metrics) Job(queue, kind, outcome string) {
	if m == nil {
		return
	}
	m.jobs.WithLabelValues(queue, kind, outcome).Inc()
}
