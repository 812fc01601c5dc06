// Package testredis runs a throwaway redis-server for a test: on a free
// loopback port, in the test's temporary folder, stopped when the test ends.
//
// The binary comes from the machine (Debian's redis-server package; .ci/run
// installs it). Without it a test fails under CI (CI=true), where the shared
// rate limit must be tested, and is skipped elsewhere.
package testredis

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Server is one running redis-server.
type Server struct {
	URL  string // redis://127.0.0.1:<port>/0
	cmd  *exec.Cmd
	done chan struct{}
}

// startAttempts bounds the retries when another process takes the free port
// between our probe and redis-server's bind.
const startAttempts = 5

// Start runs a redis-server for t and stops it when t ends.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		msg := "redis-server is not installed (apt-get install -y redis-server): the Redis rate limiter is untested"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	var lastErr error
	for range startAttempts {
		s, err := start(t, bin)
		if err == nil {
			t.Cleanup(s.Stop)
			return s
		}
		lastErr = err
	}
	t.Fatalf("start redis-server: %v", lastErr)
	return nil
}

func start(t testing.TB, bin string) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	// No persistence: the counts of a test are worth nothing after it.
	cmd := exec.Command(bin,
		"--bind", "127.0.0.1", "--port", strconv.Itoa(port), "--dir", t.TempDir(),
		"--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &Server{URL: fmt.Sprintf("redis://127.0.0.1:%d/0", port), cmd: cmd, done: make(chan struct{})}
	var output strings.Builder
	go func() {
		// Drain the output (redis-server blocks on a full pipe) and keep it
		// for the error of a failed start.
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if output.Len() < 4096 {
				output.WriteString(sc.Text() + "\n")
			}
		}
		cmd.Wait()
		close(s.done)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		if ping(ctx, port) == nil {
			return s, nil
		}
		select {
		case <-s.done:
			return nil, fmt.Errorf("redis-server exited: %s", output.String())
		case <-ctx.Done():
			s.Stop()
			return nil, fmt.Errorf("redis-server did not answer on port %d within 30s", port)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Stop stops the server (a test may do it early, to see the service without
// it) and waits for it to exit.
func (s *Server) Stop() {
	select {
	case <-s.done:
		return
	default:
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
}

// freePort asks the kernel for a loopback port nobody listens on.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// ping speaks just enough RESP to learn that the server answers.
func ping(ctx context.Context, port int) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if strings.TrimSpace(line) != "+PONG" {
		return fmt.Errorf("redis-server answered %q to PING", line)
	}
	return nil
}
