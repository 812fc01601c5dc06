package pgembed

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tempDir is like t.TempDir but traversable by the postgres user, which runs
// the server when the tests run as root.
func tempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "pgembed-test-*")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func start(t *testing.T, cfg Config) *Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cfg.Logf = t.Logf
	s, err := Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func exec1(t *testing.T, s *Server, query string, dest ...any) {
	t.Helper()
	db, err := sql.Open("pgx", s.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if len(dest) == 0 {
		_, err = db.ExecContext(ctx, query)
	} else {
		err = db.QueryRowContext(ctx, query).Scan(dest...)
	}
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

func TestRestartKeepsData(t *testing.T) {
	dataDir := filepath.Join(tempDir(t), "data")
	s := start(t, Config{DataDir: dataDir, Fast: true})
	t.Cleanup(func() { s.Stop() })

	var one int
	exec1(t, s, "select 1", &one)
	if one != 1 {
		t.Fatalf("select 1 = %d", one)
	}
	if want := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/shop?sslmode=disable", s.Port()); s.URL("shop") != want {
		t.Errorf("URL = %q, want %q", s.URL("shop"), want)
	}
	if _, err := os.Stat(filepath.Join(dataDir, logName)); err != nil {
		t.Errorf("server log: %v", err)
	}
	exec1(t, s, "create table kept (v text); insert into kept values ('still here')")
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := s.Stop(); err != nil {
		t.Fatalf("second Stop: %v", err)
	}

	// A server killed hard leaves its postmaster.pid behind; the pid in it
	// belongs to no process any more.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	stale := fmt.Sprintf("%d\n%s\n1700000000\n%d\n\n127.0.0.1\n  1234   5678\nready   \n", dead.Process.Pid, dataDir, s.Port())
	if err := os.WriteFile(filepath.Join(dataDir, "postmaster.pid"), []byte(stale), 0o600); err != nil {
		t.Fatal(err)
	}

	s2 := start(t, Config{DataDir: dataDir, Fast: true})
	t.Cleanup(func() { s2.Stop() })
	var v string
	exec1(t, s2, "select v from kept", &v)
	if v != "still here" {
		t.Fatalf("after restart kept.v = %q", v)
	}
}

func TestAttachToRunningServer(t *testing.T) {
	dataDir := filepath.Join(tempDir(t), "missing", "parents", "data")
	s1 := start(t, Config{DataDir: dataDir, Fast: true})
	t.Cleanup(func() { s1.Stop() })

	s2 := start(t, Config{DataDir: dataDir, Fast: true})
	if s2.Port() != s1.Port() {
		t.Fatalf("attached Server has port %d, running server %d", s2.Port(), s1.Port())
	}
	if err := s2.Stop(); err != nil {
		t.Fatal(err)
	}
	var one int
	exec1(t, s1, "select 1", &one) // still up: s2 did not own it
	if err := s1.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dataDir, "postmaster.pid")); !os.IsNotExist(err) {
		t.Fatalf("server still running after owner's Stop (postmaster.pid: %v)", err)
	}
}

func TestUntraversableDirFailsClearly(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root hands the server to another user")
	}
	locked, err := os.MkdirTemp("", "pgembed-locked-*") // mode 0700, owned by root
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(locked) })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = Start(ctx, Config{DataDir: filepath.Join(locked, "data"), Fast: true})
	if err == nil || !strings.Contains(err.Error(), locked) {
		t.Fatalf("Start = %v, want an error naming %s", err, locked)
	}
	t.Log(err)
}

func TestFindBinDir(t *testing.T) {
	dir, err := FindBinDir("")
	if err != nil {
		t.Skip(err)
	}
	if err := checkBinDir(dir); err != nil {
		t.Fatalf("FindBinDir = %s: %v", dir, err)
	}
	_, err = FindBinDir(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "apt-get install -y postgresql") || !strings.Contains(err.Error(), "STOREADMIN_PG_BIN") {
		t.Fatalf("FindBinDir(empty dir) = %v, want an install hint", err)
	}
}

func TestStartAfterCrash(t *testing.T) {
	dataDir := filepath.Join(tempDir(t), "data")
	s := start(t, Config{DataDir: dataDir, Fast: true})
	t.Cleanup(func() { s.Stop() })
	exec1(t, s, "create table kept (v int); insert into kept values (42)")
	exec1(t, s, "checkpoint") // Fast mode does not promise more than this

	pidFile, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	fmt.Sscan(string(pidFile), &pid)
	p, err := os.FindProcess(pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Kill(); err != nil { // SIGKILL: postmaster.pid stays behind
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); isPostgresProcess(pid); {
		if time.Now().After(deadline) {
			t.Fatalf("postmaster %d survived SIGKILL", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}

	s2 := start(t, Config{DataDir: dataDir, Fast: true})
	t.Cleanup(func() { s2.Stop() })
	var v int
	exec1(t, s2, "select v from kept", &v)
	if v != 42 {
		t.Fatalf("after crash kept.v = %d", v)
	}
}

// helperDirEnv names the data folder TestHelperStartAndHang starts a server
// on; without it that test is skipped.
const helperDirEnv = "PGEMBED_TEST_HELPER_DIR"

// TestHelperStartAndHang is not a test: TestTakeOverAfterOwnerKilled runs the
// test binary on it as the process that starts a server and then dies.
func TestHelperStartAndHang(t *testing.T) {
	dir := os.Getenv(helperDirEnv)
	if dir == "" {
		t.Skip("the helper process of TestTakeOverAfterOwnerKilled")
	}
	if _, err := Start(context.Background(), Config{DataDir: dir, Fast: true}); err != nil {
		t.Fatal(err)
	}
	fmt.Println("started")
	select {} // until killed
}

// TestTakeOverAfterOwnerKilled starts a server from another process, kills
// that process with SIGKILL (the server runs on), and checks that the next
// Start takes the server over, so that its Stop stops it; but not a server
// that the owner file does not name.
func TestTakeOverAfterOwnerKilled(t *testing.T) {
	dataDir := filepath.Join(tempDir(t), "data")
	helper := exec.Command(os.Args[0], "-test.run=^TestHelperStartAndHang$", "-test.v")
	helper.Env = append(os.Environ(), helperDirEnv+"="+dataDir)
	out, err := helper.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = StopDataDir(Config{DataDir: dataDir}) })
	started := make(chan bool, 1)
	go func() {
		buf := make([]byte, 4096)
		var seen []byte
		for {
			n, err := out.Read(buf)
			seen = append(seen, buf[:n]...)
			if strings.Contains(string(seen), "started") {
				started <- true
				io.Copy(io.Discard, out)
				return
			}
			if err != nil {
				started <- false
				return
			}
		}
	}()
	if !<-started {
		helper.Wait()
		t.Fatal("the helper process did not start a server")
	}
	if err := helper.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	helper.Wait()
	pid, _ := readPidFile(dataDir)
	if pid == 0 || !isPostgresProcess(pid) {
		t.Fatal("the server died with the process that started it")
	}

	// A server the owner file does not name (started by hand, or by a
	// version before owner files) is only attached to.
	owner := filepath.Join(dataDir, ownerName)
	recorded, err := os.ReadFile(owner)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(owner, []byte("1 1700000000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := start(t, Config{DataDir: dataDir, Fast: true})
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if !isPostgresProcess(pid) {
		t.Fatal("Stop stopped a server it did not start")
	}

	if err := os.WriteFile(owner, recorded, 0o600); err != nil {
		t.Fatal(err)
	}
	s = start(t, Config{DataDir: dataDir, Fast: true})
	// While it runs, it is s's: another Start only attaches.
	other := start(t, Config{DataDir: dataDir, Fast: true})
	if err := other.Stop(); err != nil {
		t.Fatal(err)
	}
	var one int
	exec1(t, s, "select 1", &one)
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dataDir, "postmaster.pid")); !os.IsNotExist(err) {
		t.Fatalf("the server taken over still runs after Stop (postmaster.pid: %v)", err)
	}
}
