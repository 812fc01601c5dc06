package main

import (
	"bufio"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"storeadmin/internal/base/pgembed"
)

// TestServeTakesOverOrphanedPostgres kills serve with SIGKILL, which leaves
// its embedded PostgreSQL running, and checks that the next serve takes that
// server over and stops it on exit.
func TestServeTakesOverOrphanedPostgres(t *testing.T) {
	dir, err := os.MkdirTemp("", "storeadmin-orphan-*")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil { // the postgres user must reach the data folder
		t.Fatal(err)
	}
	dataDir := filepath.Join(dir, "pgdata")
	t.Cleanup(func() {
		_ = pgembed.StopDataDir(pgembed.Config{DataDir: dataDir})
		os.RemoveAll(dir)
	})
	args := []string{"serve", "--database-url=", "--data-dir", dataDir, "--addr", "127.0.0.1:0", "--blob-url", "file://" + filepath.Join(dir, "blobs")}

	first := exec.Command(os.Args[0], args...)
	first.Env = append(os.Environ(), asBinaryEnv+"=1", "DATABASE_URL=")
	stderr, err := first.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	for lines := bufio.NewScanner(stderr); !strings.Contains(log.String(), "msg=serving"); {
		if !lines.Scan() {
			first.Wait()
			t.Fatalf("the first serve stopped before serving:\n%s", log.String())
		}
		log.WriteString(lines.Text() + "\n")
	}
	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	first.Wait()
	pid := postmasterPid(t, dataDir)
	if pid == 0 || syscall.Kill(pid, 0) != nil {
		t.Fatal("PostgreSQL died with serve; this test needs it orphaned")
	}

	s := startServe(t, args[1:]...)
	if s.logs.Count(slog.LevelInfo, "taking over the PostgreSQL") != 1 {
		t.Errorf("the second serve did not take over the orphaned PostgreSQL:\n%s", s.logs)
	}
	rest := regexp.MustCompile(`rest=(\S+)`).FindStringSubmatch(strings.Join(s.logs.Lines(slog.LevelInfo), "\n"))
	if rest == nil {
		t.Fatalf("no address in the logs:\n%s", s.logs)
	}
	if status, body := get(t, rest[1]+"/store", ""); status != http.StatusUnauthorized {
		t.Errorf("GET /store without a key: %d %s", status, body)
	}
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dataDir, "postmaster.pid")); !os.IsNotExist(err) {
		t.Fatalf("PostgreSQL still runs after the second serve stopped (postmaster.pid: %v)", err)
	}
}

// postmasterPid is the pid in dataDir's postmaster.pid, 0 without one.
func postmasterPid(t *testing.T, dataDir string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		return 0
	}
	var pid int
	if _, err := fmt.Sscan(strings.SplitN(string(data), "\n", 2)[0], &pid); err != nil {
		t.Fatal(err)
	}
	return pid
}
