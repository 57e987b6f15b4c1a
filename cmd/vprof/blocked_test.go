package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// TestRecordWallBlocked: with --clock wall, a program asleep in
// clock_nanosleep (a call the kernel restarts unseen after a stop) is
// sampled with its registers; the summary and vprof info count them.
func TestRecordWallBlocked(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep")
	}
	out := filepath.Join(t.TempDir(), "sleep.vprof")
	// 1 s: on a loaded machine the first samples spend a few hundred ms
	// loading the C library's CFI.
	code, _, stderr := runVprof("record", "--clock", "wall", "-o", out, "--", "sleep", "1")
	if code != 0 {
		t.Fatalf("record: exit %d, %s", code, stderr)
	}
	m := regexp.MustCompile(`blocked threads: (\d+) samples, (\d+) with registers \((\d+) stops`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("summary lacks the blocked threads' line:\n%s", stderr)
	}
	n, _ := strconv.Atoi(m[1])
	regs, _ := strconv.Atoi(m[2])
	stops, _ := strconv.Atoi(m[3])
	if n < 100 || regs < n*9/10 || stops < 1 || stops > 5 {
		t.Errorf("blocked samples %d, with registers %d, stops %d: want up to 1000, nearly all with registers, from a stop or two", n, regs, stops)
	}
	code, info, stderr := runVprof("info", out)
	if code != 0 {
		t.Fatalf("info: exit %d, %s", code, stderr)
	}
	want := "blocked:      " + m[1] + " samples of threads blocked in system calls, " + m[2] + " with registers"
	if !regexp.MustCompile(regexp.QuoteMeta(want)).MatchString(info) {
		t.Errorf("info lacks %q:\n%s", want, info)
	}
}
