package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The tests in this file run the vprof binary as a user does: built with
// the go command, started as a process, its exit status, standard output
// and standard error read apart.

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// moduleRoot is the directory that holds go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}

// vprofBinary builds ./cmd/vprof once per test run. In a git clone (.git
// a directory: the go command does not stamp from a worktree's .git file)
// it is stamped with the revision, as 'make install' and 'go install' do.
func vprofBinary(t *testing.T) string {
	t.Helper()
	root := moduleRoot(t)
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "vprof-bin")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "vprof")
		args := []string{"build", "-o", binPath}
		if st, err := os.Stat(filepath.Join(root, ".git")); err == nil && st.IsDir() {
			args = append(args, "-buildvcs=true")
		}
		cmd := exec.Command("go", append(args, "./cmd/vprof")...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = errors.New("go build: " + err.Error() + "\n" + string(out))
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// execResult is what a run of the binary gave.
type execResult struct {
	code           int
	stdout, stderr string
}

// execVprof runs the vprof binary with args in dir ("" for the current
// directory) and env added to the environment.
func execVprof(t *testing.T, dir string, env []string, args ...string) execResult {
	t.Helper()
	cmd := exec.Command(vprofBinary(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("vprof %s: %v", strings.Join(args, " "), err)
		}
		code = ee.ExitCode()
	}
	return execResult{code, o.String(), e.String()}
}

func TestMain(m *testing.M) {
	// Recordings cache schemas: not in the user's own cache.
	cache, err := os.MkdirTemp("", "vprof-test-cache")
	if err == nil {
		os.Setenv("XDG_CACHE_HOME", cache)
	}
	code := m.Run()
	if cache != "" {
		os.RemoveAll(cache)
	}
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}
