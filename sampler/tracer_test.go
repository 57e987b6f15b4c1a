package sampler

import (
	"strings"
	"syscall"
	"testing"
)

func TestParseTracerPid(t *testing.T) {
	for _, c := range []struct {
		status string
		want   int
	}{
		{"Name:\tvprof\nState:\tS (sleeping)\nTracerPid:\t31741\nUid:\t0\t0\t0\t0\n", 31741},
		{"Name:\tvprof\nTracerPid:\t0\n", 0},
		{"Name:\tvprof\n", 0},
		{"TracerPid:\tx\n", 0},
		{"TracerPid:\t12", 12}, // no final newline
	} {
		if got := parseTracerPid(c.status); got != c.want {
			t.Errorf("parseTracerPid(%q) = %d, want %d", c.status, got, c.want)
		}
	}
	// This test runs untraced (go test does not trace its binary).
	if pid, comm := tracerOf("/proc/self"); pid != 0 {
		t.Logf("the test itself is traced by %d (%s)", pid, comm)
	}
}

// TestPermissionErrorNewProcess: a refusal at launch names no pid 0.
func TestPermissionErrorNewProcess(t *testing.T) {
	msg := (&PermissionError{PID: 0, Err: syscall.EPERM}).Error()
	if strings.Contains(msg, "process 0") || !strings.Contains(msg, "the program vprof starts") {
		t.Errorf("PermissionError{PID: 0}: %q", msg)
	}
}
