package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecordUnderTracer: vprof run under a tracer that follows forks (here
// vprof itself) cannot trace the program it starts, since the tracer took
// it first; it says so, naming the tracer, instead of asking for
// CAP_SYS_PTRACE for "process 0".
func TestRecordUnderTracer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds vprof")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "vprof")
	if b, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	cmd := exec.Command(bin, "record", "-q", "-o", filepath.Join(dir, "outer.data"), "--",
		bin, "record", "-q", "-o", filepath.Join(dir, "inner.data"), "--", "true")
	out, _ := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 2 {
		t.Errorf("inner vprof exit %d, want 2; output %q", code, out)
	}
	if s := string(out); !strings.Contains(s, "vprof itself is traced by process") || !strings.Contains(s, "(vprof)") {
		t.Errorf("output %q: want the tracer named", s)
	}
}
