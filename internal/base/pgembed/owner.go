package pgembed

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ownerName is the file in the data folder through which the process that
// started the server says so. It holds an exclusive flock(2) on the file for
// as long as it lives (the kernel drops it however the process dies, kill -9
// included), and writes in it the identity of the postmaster it started.
//
// A later Start that finds the server running, the lock free and the identity
// that of the running postmaster knows that server was started by a Start
// whose process is gone, and takes it over: it is then stopped by this
// Server's Stop, instead of running on with nobody to stop it.
const ownerName = "storeadmin.owner"

// ownerLock is a held lock on a data folder's owner file.
type ownerLock struct{ f *os.File }

// tryLockOwner takes the owner lock of dataDir without waiting; nil when
// another process (or another Server of this one) holds it.
func tryLockOwner(dataDir string) *ownerLock {
	f, err := os.OpenFile(filepath.Join(dataDir, ownerName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil
	}
	return &ownerLock{f: f}
}

// names reports whether the owner file names the postmaster now running on
// the data folder.
func (l *ownerLock) names(dataDir string) bool {
	running := postmasterIdentity(dataDir)
	if running == "" {
		return false
	}
	if _, err := l.f.Seek(0, io.SeekStart); err != nil {
		return false
	}
	recorded, err := io.ReadAll(l.f)
	return err == nil && strings.TrimSpace(string(recorded)) == running
}

// record writes the identity of the postmaster running on dataDir.
func (l *ownerLock) record(dataDir string) error {
	id := postmasterIdentity(dataDir)
	if id == "" {
		return errors.New("pgembed: no postmaster.pid to record")
	}
	if err := l.f.Truncate(0); err != nil {
		return err
	}
	if _, err := l.f.WriteAt([]byte(id+"\n"), 0); err != nil {
		return fmt.Errorf("pgembed: recording the owner of %s: %w", dataDir, err)
	}
	return nil
}

// release drops the lock; the file stays, naming a postmaster that is gone.
func (l *ownerLock) release() {
	if l != nil {
		l.f.Close()
	}
}

// postmasterIdentity is the pid and start time (lines 1 and 3) of dataDir's
// postmaster.pid: a pid alone may be reused, the pair is not. Empty when there
// is no readable pid file.
func postmasterIdentity(dataDir string) string {
	data, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		return ""
	}
	lines := strings.Split(string(data), "\n")
	if len(lines) < 3 || strings.TrimSpace(lines[0]) == "" || strings.TrimSpace(lines[2]) == "" {
		return ""
	}
	return strings.TrimSpace(lines[0]) + " " + strings.TrimSpace(lines[2])
}
