package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestRecordUnderNohup: vprof started with SIGHUP ignored (nohup, a
// script's background job) keeps it ignored: a hangup neither ends the
// recording nor reaches the program, which inherits the ignored
// disposition as it would without vprof.
func TestRecordUnderNohup(t *testing.T) {
	if testing.Short() {
		t.Skip("builds vprof")
	}
	bin := vprofBinary(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "p.data")
	// The program hangs up its tracer, waits, then reports its own
	// ignored signals (SigIgn, hex; SIGHUP is bit 0).
	prog := `kill -HUP $PPID; sleep 0.3; grep SigIgn /proc/self/status`
	cmd := exec.Command("sh", "-c", `trap "" HUP; exec "$0" record -q -o "$1" -- sh -c "$2"`, bin, out, prog)
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("vprof record under an ignored SIGHUP: %v\n%s", err, b)
	}
	var mask uint64
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "SigIgn:" {
			mask, _ = strconv.ParseUint(f[1], 16, 64)
		}
	}
	if mask&1 == 0 {
		t.Errorf("the program's SigIgn %#x lacks SIGHUP; output:\n%s", mask, b)
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("no profile: %v", err)
	}
}
