package bench

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Target is one read on one server: how to make its request.
type Target func() *http.Request

// Client is an HTTP client that keeps at most conns connections to a
// server open and reuses them, as a load balancer or a busy client would.
func Client(conns int) *http.Client {
	return &http.Client{Transport: &http.Transport{
		MaxIdleConnsPerHost: conns,
		MaxConnsPerHost:     conns,
		DisableCompression:  true,
	}}
}

// Drive sends n requests of target over conns connections at once, each
// connection sending its next request when its answer is read, and
// returns each request's latency. An answer other than 200 is an error.
func Drive(client *http.Client, target Target, conns, n int) ([]time.Duration, error) {
	latencies := make([]time.Duration, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Pointer[error]
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for failed.Load() == nil {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				start := time.Now()
				if err := do(client, target()); err != nil {
					failed.CompareAndSwap(nil, &err)
					return
				}
				latencies[i] = time.Since(start)
			}
		}()
	}
	wg.Wait()
	if err := failed.Load(); err != nil {
		return nil, *err
	}
	return latencies, nil
}

func do(client *http.Client, req *http.Request) error {
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 500))
		return fmt.Errorf("%s %s: status %d: %s", req.Method, req.URL.Path, resp.StatusCode, body)
	}
	_, err = io.Copy(io.Discard, resp.Body)
	return err
}

// Percentile is the p-th percentile (0 < p <= 100) of latencies.
func Percentile(latencies []time.Duration, p float64) time.Duration {
	if len(latencies) == 0 {
		return 0
	}
	sorted := slices.Clone(latencies)
	slices.Sort(sorted)
	i := int(float64(len(sorted))*p/100+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// CPUTime is the CPU this process has used, user and system.
func CPUTime() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// RSS is this process's resident memory now, from /proc (0 where there is
// no /proc).
func RSS() int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// PeakRSS samples RSS every interval until stop is called, which returns
// the highest sample.
func PeakRSS(interval time.Duration) (stop func() int64) {
	var peak atomic.Int64
	peak.Store(RSS())
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if r := RSS(); r > peak.Load() {
					peak.Store(r)
				}
			}
		}
	}()
	return func() int64 {
		close(done)
		<-finished
		return max(peak.Load(), RSS())
	}
}
