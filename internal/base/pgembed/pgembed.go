// Package pgembed runs a PostgreSQL server from the machine's own binaries in
// a data folder.
//
// It exists so that `storeadmin serve` and the tests need nothing but an
// installed PostgreSQL: no Docker, no system service, no configuration. The
// server listens on 127.0.0.1 only, trusts every local connection as user
// postgres, and keeps its data (and its log, postgres.log) in the data folder,
// so that data survives restarts.
//
// PostgreSQL refuses to run as root; when the caller is root every PostgreSQL
// program is run as the postgres system user instead, and the data folder is
// handed to that user.
package pgembed

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the readiness check speaks SQL, not just TCP
)

// Bounds on every wait, so that a broken installation fails instead of hanging.
const (
	readyTimeout  = 30 * time.Second
	initdbTimeout = 2 * time.Minute // a slow disk without Fast can need a while
	stopTimeout   = 30 * time.Second
	statusTimeout = 10 * time.Second
)

// logName is the server log inside the data folder; errors quote its tail.
const logName = "postgres.log"

// Config says where and how to run the server.
type Config struct {
	// DataDir is required; it is created if missing and initdb'd if it
	// holds no cluster yet.
	DataDir string
	// BinDir holds pg_ctl, initdb and postgres; see FindBinDir for the
	// fallbacks when it is empty.
	BinDir string
	// Port is the loopback TCP port; 0 picks a free one.
	Port int
	// Fast trades crash safety for speed (fsync, synchronous_commit and
	// full_page_writes off); only for throwaway servers such as in tests.
	Fast bool
	// Logf, if set, receives progress messages.
	Logf func(format string, args ...any)
}

// Server is a running PostgreSQL server, either started by Start or found
// already running on the data folder.
type Server struct {
	dataDir string
	binDir  string
	port    int
	pid     int  // of the postmaster we started
	owned   bool // only a server we started (or took over) may be stopped by us
	run     runner
	logf    func(string, ...any)
	// owner is our lock on the data folder's owner file while owned; see
	// ownerName.
	owner *ownerLock

	mu      sync.Mutex
	stopped bool
}

// Start runs a server on cfg.DataDir and returns once it accepts connections.
// If a server is already running on that folder, Start attaches to it instead
// and the returned Server's Stop leaves it running, unless a Start of a
// process that has since died (killed with SIGKILL, say) started it: then
// Start takes it over, and Stop stops it.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	if cfg.DataDir == "" {
		return nil, errors.New("pgembed: Config.DataDir is required")
	}
	dataDir, err := filepath.Abs(cfg.DataDir)
	if err != nil {
		return nil, fmt.Errorf("pgembed: data dir: %w", err)
	}
	binDir, err := FindBinDir(cfg.BinDir)
	if err != nil {
		return nil, err
	}
	run, err := newRunner()
	if err != nil {
		return nil, err
	}
	logf := cfg.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	s := &Server{dataDir: dataDir, binDir: binDir, run: run, logf: logf}

	if err := s.prepareDir(); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dataDir, "PG_VERSION")); errors.Is(err, fs.ErrNotExist) {
		if err := s.initdb(ctx, cfg.Fast); err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, fmt.Errorf("pgembed: %w", err)
	}

	if port, ok, err := s.running(ctx); err != nil {
		return nil, err
	} else if ok {
		return s.attach(ctx, port)
	}

	// A port picked by us may be taken by someone else before the server
	// binds it; a new pick almost always succeeds.
	attempts := 1
	if cfg.Port == 0 {
		attempts = 3
	}
	for i := 0; ; i++ {
		port := cfg.Port
		if port == 0 {
			if port, err = freePort(); err != nil {
				return nil, err
			}
		}
		err = s.start(ctx, port, cfg.Fast)
		if err == nil {
			s.port, s.owned = port, true
			s.pid, _ = readPidFile(dataDir)
			s.lockOwner()
			break
		}
		// Someone else may have started this folder between our check and
		// our start; their server is as good as ours.
		if port, ok, rerr := s.running(ctx); rerr == nil && ok {
			return s.attach(ctx, port)
		}
		if i+1 >= attempts || !strings.Contains(err.Error(), "could not bind") {
			return nil, err
		}
		logf("pgembed: port %d was taken, trying another", port)
	}
	if err := waitReady(ctx, s.URL("postgres")); err != nil {
		_ = s.Stop()
		return nil, fmt.Errorf("pgembed: server on %s started but does not answer: %w%s", dataDir, err, s.logTail())
	}
	logf("pgembed: PostgreSQL ready on 127.0.0.1:%d (data in %s)", s.port, dataDir)
	return s, nil
}

// URL is the connection URL of database dbname on this server.
func (s *Server) URL(dbname string) string {
	u := url.URL{
		Scheme:   "postgres",
		User:     url.User("postgres"),
		Host:     net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)),
		Path:     "/" + dbname,
		RawQuery: "sslmode=disable",
	}
	return u.String()
}

// Port is the TCP port the server listens on at 127.0.0.1.
func (s *Server) Port() int { return s.port }

// Stop shuts the server down with a fast shutdown (open transactions are
// rolled back) if this Server started it. Calling it again does nothing.
func (s *Server) Stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.owned || s.stopped {
		return nil
	}
	if err := stopDir(s.run, s.binDir, s.dataDir, s.pid); err != nil {
		return err
	}
	s.owner.release()
	s.owner = nil
	s.stopped = true
	s.logf("pgembed: PostgreSQL on %s stopped", s.dataDir)
	return nil
}

// StopDataDir stops whatever server runs on cfg.DataDir, whoever started it.
// It is meant for servers left behind by a process that died before it could
// call Stop; when no server runs there it does nothing.
func StopDataDir(cfg Config) error {
	dataDir, err := filepath.Abs(cfg.DataDir)
	if err != nil {
		return fmt.Errorf("pgembed: data dir: %w", err)
	}
	binDir, err := FindBinDir(cfg.BinDir)
	if err != nil {
		return err
	}
	run, err := newRunner()
	if err != nil {
		return err
	}
	return stopDir(run, binDir, dataDir, 0)
}

// stopDir stops the server on dataDir if its postmaster is pid (any if 0):
// after a crash of ours, the server there may have been restarted by
// someone else, and it is not ours to stop.
func stopDir(run runner, binDir, dataDir string, pid int) error {
	running, _ := readPidFile(dataDir)
	if running == 0 || (pid != 0 && running != pid) || !isPostgresProcess(running) {
		// Already down (perhaps crashed, leaving its pid file); Stop must
		// not fail, nor wait for a pid file that nobody will remove.
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout+5*time.Second)
	defer cancel()
	out, err := run.command(ctx, filepath.Join(binDir, "pg_ctl"), "stop",
		"-D", dataDir, "-m", "fast", "-w", "-t", strconv.Itoa(int(stopTimeout/time.Second))).CombinedOutput()
	if err != nil {
		if _, serr := os.Stat(filepath.Join(dataDir, "postmaster.pid")); errors.Is(serr, fs.ErrNotExist) {
			return nil // it went down on its own meanwhile
		}
		return fmt.Errorf("pgembed: pg_ctl stop on %s: %w: %s", dataDir, err, bytes.TrimSpace(out))
	}
	return nil
}

// FindBinDir returns the folder holding the PostgreSQL server programs:
// explicit if given, else $STOREADMIN_PG_BIN, else the folder of pg_ctl found
// on PATH (symlinks resolved, because Debian links only some programs into
// /usr/local/bin or /usr/bin), else the newest /usr/lib/postgresql/*/bin.
func FindBinDir(explicit string) (string, error) {
	const hint = "install PostgreSQL (apt-get install -y postgresql) or set STOREADMIN_PG_BIN to the folder holding pg_ctl, initdb and postgres"
	if explicit != "" {
		if err := checkBinDir(explicit); err != nil {
			return "", fmt.Errorf("pgembed: PostgreSQL bin dir %s: %w; %s", explicit, err, hint)
		}
		return explicit, nil
	}
	if env := os.Getenv("STOREADMIN_PG_BIN"); env != "" {
		if err := checkBinDir(env); err != nil {
			return "", fmt.Errorf("pgembed: STOREADMIN_PG_BIN=%s: %w; %s", env, err, hint)
		}
		return env, nil
	}
	for _, prog := range []string{"pg_ctl", "initdb"} {
		p, err := exec.LookPath(prog)
		if err != nil {
			continue
		}
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		if dir := filepath.Dir(p); checkBinDir(dir) == nil {
			return dir, nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return versionLess(dirs[j], dirs[i]) })
	for _, dir := range dirs {
		if checkBinDir(dir) == nil {
			return dir, nil
		}
	}
	return "", errors.New("pgembed: no PostgreSQL server programs (pg_ctl, initdb, postgres) found; " + hint)
}

func checkBinDir(dir string) error {
	for _, prog := range []string{"pg_ctl", "initdb", "postgres"} {
		fi, err := os.Stat(filepath.Join(dir, prog))
		if err != nil {
			return fmt.Errorf("no %s there", prog)
		}
		if fi.IsDir() || fi.Mode()&0o111 == 0 {
			return fmt.Errorf("%s there is not executable", prog)
		}
	}
	return nil
}

// versionLess orders /usr/lib/postgresql/<v>/bin by number, so 10 beats 9.6.
func versionLess(a, b string) bool {
	va := strings.Split(filepath.Base(filepath.Dir(a)), ".")
	vb := strings.Split(filepath.Base(filepath.Dir(b)), ".")
	for i := 0; i < len(va) && i < len(vb); i++ {
		x, _ := strconv.Atoi(va[i])
		y, _ := strconv.Atoi(vb[i])
		if x != y {
			return x < y
		}
	}
	return len(va) < len(vb)
}

// prepareDir creates the data folder and makes sure the user the server runs
// as can reach and own it; otherwise initdb and pg_ctl fail with messages that
// do not point at the real cause.
func (s *Server) prepareDir() error {
	// Parents get 0755: MkdirAll would give them the data dir's 0700, which
	// locks out the postgres user when we are root.
	if err := os.MkdirAll(filepath.Dir(s.dataDir), 0o755); err != nil {
		return fmt.Errorf("pgembed: create data dir: %w", err)
	}
	if s.run.cred != nil {
		if err := s.run.checkTraversable(filepath.Dir(s.dataDir)); err != nil {
			return err
		}
	}
	if err := os.Mkdir(s.dataDir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("pgembed: create data dir: %w", err)
	}
	if s.run.cred == nil {
		return nil
	}
	fi, err := os.Stat(s.dataDir)
	if err != nil {
		return fmt.Errorf("pgembed: %w", err)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid == s.run.cred.Uid {
		return nil
	}
	uid, gid := int(s.run.cred.Uid), int(s.run.cred.Gid)
	err = filepath.WalkDir(s.dataDir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	})
	if err != nil {
		return fmt.Errorf("pgembed: hand data dir %s to user %s: %w", s.dataDir, s.run.userName, err)
	}
	return nil
}

func (s *Server) initdb(ctx context.Context, fast bool) error {
	s.logf("pgembed: creating a new PostgreSQL cluster in %s", s.dataDir)
	ctx, cancel := context.WithTimeout(ctx, initdbTimeout)
	defer cancel()
	args := []string{"-D", s.dataDir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C"}
	if fast {
		args = append(args, "--no-sync")
	}
	out, err := s.run.command(ctx, filepath.Join(s.binDir, "initdb"), args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("pgembed: initdb %s: %w\n%s", s.dataDir, err, tail(out, 20))
	}
	return nil
}

// running reports the port of a live server on the data folder. A
// postmaster.pid whose process is gone, or is no longer a postgres process
// because its pid was reused, is removed so that it cannot block a start.
func (s *Server) running(ctx context.Context) (port int, ok bool, err error) {
	pidFile := filepath.Join(s.dataDir, "postmaster.pid")
	data, err := os.ReadFile(pidFile)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, false, nil
	} else if err != nil {
		return 0, false, fmt.Errorf("pgembed: %w", err)
	}
	pid, port := parsePidFile(data)
	if pid <= 0 || port <= 0 {
		// A postmaster writes the file in pieces; a half-written one
		// belongs to a server that is still starting, so let pg_ctl
		// start report the conflict instead of deleting it.
		if time.Since(modTime(pidFile)) < 10*time.Second {
			return 0, false, nil
		}
		s.logf("pgembed: removing unreadable %s", pidFile)
		return 0, false, removeStale(pidFile)
	}
	if !isPostgresProcess(pid) {
		s.logf("pgembed: removing stale %s (process %d is gone)", pidFile, pid)
		return 0, false, removeStale(pidFile)
	}
	sctx, cancel := context.WithTimeout(ctx, statusTimeout)
	defer cancel()
	if err := s.run.command(sctx, filepath.Join(s.binDir, "pg_ctl"), "status", "-D", s.dataDir).Run(); err != nil {
		return 0, false, nil
	}
	return port, true, nil
}

// attach uses the server running on the data folder at port, taking it over
// when the process that started it is gone (see ownerName).
func (s *Server) attach(ctx context.Context, port int) (*Server, error) {
	s.port, s.owned = port, false
	if lock := tryLockOwner(s.dataDir); lock != nil && lock.names(s.dataDir) {
		s.owned, s.owner = true, lock
		s.pid, _ = readPidFile(s.dataDir)
		s.logf("pgembed: taking over the PostgreSQL on %s (port %d, pid %d) that an exited process started; it stops when this one does", s.dataDir, port, s.pid)
	} else {
		lock.release()
		s.logf("pgembed: attaching to the PostgreSQL already running on %s (port %d)", s.dataDir, port)
	}
	if err := waitReady(ctx, s.URL("postgres")); err != nil {
		s.owner.release()
		return nil, fmt.Errorf("pgembed: PostgreSQL already running on %s (port %d) does not answer: %w%s", s.dataDir, port, err, s.logTail())
	}
	return s, nil
}

// lockOwner marks the server we have just started as ours, so that a later
// Start can take it over should this process die without stopping it. Without
// the lock (held by another Server of this process) the server is ours all
// the same, only not taken over after a crash.
func (s *Server) lockOwner() {
	lock := tryLockOwner(s.dataDir)
	if lock == nil {
		return
	}
	if err := lock.record(s.dataDir); err != nil {
		s.logf("%v", err)
		lock.release()
		return
	}
	s.owner = lock
}

func (s *Server) start(ctx context.Context, port int, fast bool) error {
	// pg_ctl hands -o to a shell, hence the quoting of the empty value that
	// turns Unix sockets off: a socket in the data folder could exceed the
	// 107-byte socket path limit in deep temp folders, and TCP is all we use.
	opts := []string{
		"-c listen_addresses=127.0.0.1",
		"-c port=" + strconv.Itoa(port),
		"-c unix_socket_directories=''",
	}
	if fast {
		opts = append(opts, "-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off")
	}
	s.logf("pgembed: starting PostgreSQL on 127.0.0.1:%d (data in %s)", port, s.dataDir)
	secs := int(readyTimeout / time.Second)
	ctx, cancel := context.WithTimeout(ctx, readyTimeout+5*time.Second)
	defer cancel()
	out, err := s.run.command(ctx, filepath.Join(s.binDir, "pg_ctl"), "start",
		"-D", s.dataDir, "-l", filepath.Join(s.dataDir, logName),
		"-w", "-t", strconv.Itoa(secs), "-o", strings.Join(opts, " ")).CombinedOutput()
	if err != nil {
		return fmt.Errorf("pgembed: start PostgreSQL on %s: %w: %s%s", s.dataDir, err, bytes.TrimSpace(out), s.logTail())
	}
	return nil
}

// logTail quotes the end of the server log, where PostgreSQL explains why it
// did not start.
func (s *Server) logTail() string {
	f, err := os.Open(filepath.Join(s.dataDir, logName))
	if err != nil {
		return ""
	}
	defer f.Close()
	const max = 8 << 10
	if fi, err := f.Stat(); err == nil && fi.Size() > max {
		_, _ = f.Seek(fi.Size()-max, io.SeekStart)
	}
	buf := make([]byte, max)
	n, _ := f.Read(buf)
	if n == 0 {
		return ""
	}
	return "\n--- end of " + filepath.Join(s.dataDir, logName) + " ---\n" + tail(buf[:n], 15)
}

func tail(b []byte, lines int) string {
	ls := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(ls) > lines {
		ls = ls[len(ls)-lines:]
	}
	return strings.Join(ls, "\n")
}

func waitReady(ctx context.Context, dsn string) error {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	db, err := sql.Open("pgx", dsn+"&connect_timeout=2")
	if err != nil {
		return err
	}
	defer db.Close()
	for {
		pctx, pcancel := context.WithTimeout(ctx, 2*time.Second)
		var one int
		err = db.QueryRowContext(pctx, "select 1").Scan(&one)
		pcancel()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last error: %v)", ctx.Err(), err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgembed: find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func isPostgresProcess(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // no /proc: trust kill(2)
	}
	// "pid (comm) state ...": a crashed postmaster that nobody has reaped
	// yet is a zombie, which kill(2) still reports as alive.
	open, closing := bytes.IndexByte(stat, '('), bytes.LastIndexByte(stat, ')')
	if open < 0 || closing < open || closing+2 >= len(stat) {
		return true
	}
	comm := string(stat[open+1 : closing])
	if stat[closing+2] == 'Z' {
		return false
	}
	return strings.HasPrefix(comm, "postgres") || strings.HasPrefix(comm, "postmaster")
}

// readPidFile returns the postmaster pid and port from dataDir's
// postmaster.pid, zeros if there is none.
func readPidFile(dataDir string) (pid, port int) {
	data, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		return 0, 0
	}
	return parsePidFile(data)
}

// parsePidFile reads line 1 (pid) and line 4 (port) of a postmaster.pid.
func parsePidFile(data []byte) (pid, port int) {
	lines := strings.Split(string(data), "\n")
	pid, _ = strconv.Atoi(strings.TrimSpace(lines[0]))
	if len(lines) > 3 {
		port, _ = strconv.Atoi(strings.TrimSpace(lines[3]))
	}
	return pid, port
}

func removeStale(pidFile string) error {
	if err := os.Remove(pidFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("pgembed: remove stale %s: %w", pidFile, err)
	}
	return nil
}

func modTime(p string) time.Time {
	fi, err := os.Stat(p)
	if err != nil {
		return time.Time{}
	}
	return fi.ModTime()
}

// runner runs PostgreSQL programs as the user they accept: ourselves, or the
// postgres system user when we are root.
type runner struct {
	cred     *syscall.Credential
	userName string
	home     string
}

func newRunner() (runner, error) {
	if os.Geteuid() != 0 {
		return runner{}, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return runner{}, fmt.Errorf("pgembed: PostgreSQL refuses to run as root and there is no postgres user to run it as (%v); install PostgreSQL (apt-get install -y postgresql), which creates it", err)
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	cred := &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	if gids, err := u.GroupIds(); err == nil {
		for _, g := range gids {
			if n, err := strconv.ParseUint(g, 10, 32); err == nil {
				cred.Groups = append(cred.Groups, uint32(n))
			}
		}
	}
	return runner{cred: cred, userName: u.Username, home: u.HomeDir}, nil
}

func (r runner) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	// Our working directory may be one the postgres user cannot enter,
	// which makes initdb fail to find its own files.
	cmd.Dir = "/"
	// PGDATA, PGPORT and friends would silently override what we pass.
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PG") || (r.cred != nil && strings.HasPrefix(kv, "HOME=")) {
			continue
		}
		cmd.Env = append(cmd.Env, kv)
	}
	if r.cred != nil {
		cmd.Env = append(cmd.Env, "HOME="+r.home)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: r.cred}
	}
	// The postmaster that pg_ctl forks could keep our output pipe open;
	// never wait for it beyond pg_ctl's own exit.
	cmd.WaitDelay = 2 * time.Second
	return cmd
}

// checkTraversable fails, naming the culprit, when the server's user could not
// reach dir; PostgreSQL itself would only report a vague permission error.
func (r runner) checkTraversable(dir string) error {
	groups := map[uint32]bool{r.cred.Gid: true}
	for _, g := range r.cred.Groups {
		groups[g] = true
	}
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return fmt.Errorf("pgembed: %w", err)
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return nil
		}
		var bit os.FileMode = 0o001
		switch {
		case st.Uid == r.cred.Uid:
			bit = 0o100
		case groups[st.Gid]:
			bit = 0o010
		}
		if fi.Mode().Perm()&bit == 0 {
			return fmt.Errorf("pgembed: PostgreSQL must run as user %s (we are root), which cannot enter %s (mode %v); put the data dir elsewhere or make %s traversable (chmod o+x %s)",
				r.userName, d, fi.Mode(), d, d)
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}
