package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestRecordAttachNotPermitted: 'vprof record -p PID' run by a user who may
// not trace PID says so, names what is missing and what to run; "no such
// process" is kept for a PID that does not exist. Needs root (to start the
// target and run vprof as another user) and setpriv.
func TestRecordAttachNotPermitted(t *testing.T) {
	setpriv, err := exec.LookPath("setpriv")
	if os.Geteuid() != 0 || err != nil {
		t.Skip("needs root and setpriv (util-linux) to run vprof as another user")
	}
	// A copy of the binary that user nobody can run.
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "vprof")
	src, err := os.Open(vprofBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	src.Close()
	dst.Close()

	target := exec.Command("sleep", "30")
	if err := target.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { target.Process.Kill(); target.Wait() }()
	pid := strconv.Itoa(target.Process.Pid)
	for _, s := range []string{"auto", "ptrace"} {
		cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups",
			bin, "record", "--sampler", s, "-o", filepath.Join(dir, "x.data"), "-p", pid)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		ee, _ := err.(*exec.ExitError)
		msg := string(out)
		if ee == nil || ee.ExitCode() != 2 || strings.Contains(msg, "no such process") ||
			!strings.Contains(msg, "not permitted to trace process "+pid) || !strings.Contains(msg, "CAP_SYS_PTRACE") ||
			!strings.Contains(msg, "sudo vprof record -p "+pid) {
			t.Errorf("--sampler %s as nobody: %v\n%s\nwant exit 2, not permitted, CAP_SYS_PTRACE and what to run", s, err, msg)
		}
	}
	if target.ProcessState != nil {
		t.Fatal("the target did not survive")
	}
	r := execVprof(t, dir, nil, "record", "-o", filepath.Join(dir, "y.data"), "-p", "1073741824")
	if r.code != 2 || !strings.Contains(r.stderr, "no such process") {
		t.Errorf("-p of a missing process: exit %d, %q", r.code, r.stderr)
	}
}
