package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// runVprof runs a vprof command line in-process.
func runVprof(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = mainStatus(args, &o, &e)
	return code, o.String(), e.String()
}

// busyShell is a target that computes for a few hundred milliseconds
// without output (a shell loop: no compiler needed).
var busyShell = []string{"sh", "-c", "i=0; while [ $i -lt 40000 ]; do i=$((i+1)); done; exit 3"}

func TestRecordUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"record"}, 1, "nothing to record"},
		{[]string{"record", "-p", "1", "--", "true"}, 1, "not both"},
		{[]string{"record", "--clock", "tsc", "--", "true"}, 1, "--clock"},
		{[]string{"record", "--sampler", "dtrace", "--", "true"}, 1, "--sampler"},
		{[]string{"record", "--interval", "1ns", "--", "true"}, 1, "too short"},
		{[]string{"record", "--stack", "500", "--", "true"}, 1, "--stack"},
		{[]string{"record", "--depth", "-1", "--", "true"}, 1, "--depth"},
		{[]string{"record", "--func", "(", "--", "true"}, 1, "--func"},
		{[]string{"record", "-o", filepath.Join(t.TempDir(), "x"), "--", "vprof-no-such-command"}, 2, "command not found"},
		{[]string{"record", "-o", filepath.Join(t.TempDir(), "x"), "-p", "1073741824"}, 2, "no such process"},
		{[]string{"info"}, 1, "need one profile"},
		{[]string{"info", filepath.Join(t.TempDir(), "none")}, 2, "no such file"},
	} {
		code, _, stderr := runVprof(c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("vprof %s: exit %d, stderr %q; want %d and %q", strings.Join(c.args, " "), code, stderr, c.code, c.want)
		}
	}
	code, out, _ := runVprof("record", "--help")
	if code != 0 || !strings.Contains(out, "Examples:") || !strings.Contains(out, "-- ./server") {
		t.Errorf("record --help: exit %d, %q", code, out)
	}
}

func TestRecordAndInfo(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	// Default output name, exit status passed through.
	code, _, stderr := runVprof(append([]string{"record", "-q", "--"}, busyShell...)...)
	if code != 3 {
		t.Fatalf("record: exit %d, want the program's 3; stderr %q", code, stderr)
	}
	if !strings.Contains(stderr, "no DWARF") {
		t.Errorf("stderr %q: want the no-DWARF warning for the shell", stderr)
	}
	if _, err := os.Stat("vprof.data"); err != nil {
		t.Fatal(err)
	}
	// A second recording moves the first to .old; the summary is printed.
	code, _, stderr = runVprof("record", "--interval", "500us", "--", "sh", "-c", "exit 0")
	if code != 0 || !strings.Contains(stderr, "samples") || !strings.Contains(stderr, "profile vprof.data") {
		t.Errorf("second record: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat("vprof.data.old"); err != nil {
		t.Errorf("existing profile not moved to .old: %v", err)
	}
	code, out, stderr := runVprof("info", "--samples", "2", "vprof.data.old")
	if code != 0 {
		t.Fatalf("info: exit %d, %s", code, stderr)
	}
	for _, want := range []string{"target:", "/dash", "complete", "sampling:     clock cpu, interval 1ms", "sampler:      p", "processes:    1", "exit status:  3", "sample tick"} {
		if !strings.Contains(out, want) && !(want == "/dash" && strings.Contains(out, "/sh")) {
			t.Errorf("info output lacks %q:\n%s", want, out)
		}
	}
	// A cut profile: info says how much it recovered.
	b, err := os.ReadFile("vprof.data.old")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile("cut.vprof", b[:len(b)*2/3], 0o644)
	code, out, _ = runVprof("info", "cut.vprof")
	if code != 0 || !strings.Contains(out, "INCOMPLETE") || !strings.Contains(out, "recovered") {
		t.Errorf("info on a cut profile: exit %d\n%s", code, out)
	}
}

func TestRecordDurationLaunch(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep")
	}
	out := filepath.Join(t.TempDir(), "d.vprof")
	// --duration stops recording; the program runs on and its status is
	// passed through when it ends.
	code, _, stderr := runVprof("record", "-o", out, "--duration", "100ms", "--", "sh", "-c", "sleep 0.4; exit 4")
	if code != 4 {
		t.Errorf("exit %d, want 4; stderr %q", code, stderr)
	}
	if !strings.Contains(stderr, "runs on") {
		t.Errorf("stderr %q: want a note that the program runs on", stderr)
	}
	_, info, _ := runVprof("info", out)
	if !strings.Contains(info, "detached") {
		t.Errorf("info: %s", info)
	}
}

func TestRecordProgress(t *testing.T) {
	out := filepath.Join(t.TempDir(), "p.vprof")
	code, _, stderr := runVprof("record", "--progress", "-o", out, "--", "sh", "-c", "i=0; while [ $i -lt 1500000 ]; do i=$((i+1)); done")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// A line a second (the loop runs 1 s or more) and the summary.
	if !regexp.MustCompile(`vprof record: [0-9.]+m?s  1 threads  [0-9]+ samples`).MatchString(stderr) || !strings.Contains(stderr, "per sample (µs)") {
		t.Errorf("stderr lacks progress or summary:\n%s", stderr)
	}
}
