package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vprof/vprof/sampler"
)

// TestOverheadIdle: the cost figure of an idle target's recording is per
// second of recording and per sample, not a share of next to no CPU.
func TestOverheadIdle(t *testing.T) {
	for _, c := range []struct {
		name         string
		res          sampler.Result
		samples      uint64
		want, reject []string
	}{
		{"idle server, 10 minutes", sampler.Result{Elapsed: 10 * time.Minute, TracerCPU: 400 * time.Millisecond,
			SetupCPU: 100 * time.Millisecond, TargetCPU: 93 * time.Millisecond}, 60,
			[]string{"vprof used 400.0 ms of CPU in 10m0s (0.7 ms per second, 5000.0 µs per sample after start-up)",
				"the program was mostly idle (93.0 ms of CPU, 0.2 ms per second)"}, []string{"%"}},
		{"busy program", sampler.Result{Elapsed: 4 * time.Second, TracerCPU: 80 * time.Millisecond,
			TargetCPU: 2 * time.Second}, 2000,
			[]string{"vprof used 80.0 ms of CPU in 4s (20.0 ms per second, 40.0 µs per sample after start-up), 4.0% of the program's 2.00 s of CPU"}, nil},
		{"no samples", sampler.Result{Elapsed: time.Second, TracerCPU: 10 * time.Millisecond}, 0,
			[]string{"vprof used 10.0 ms of CPU in 1s (10.0 ms per second)"}, []string{"per sample", "%"}},
	} {
		got := overhead(&c.res, c.samples)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q, want %q", c.name, got, w)
			}
		}
		for _, r := range c.reject {
			if strings.Contains(got, r) {
				t.Errorf("%s: %q has %q", c.name, got, r)
			}
		}
	}
}

// TestRecordSummaryIdle: recording a program that sleeps, the binary's
// summary gives vprof's CPU per second and says the program was idle or
// had no samples, with no percentage of the program's CPU; standard error
// redirected to a file holds no escape sequence.
func TestRecordSummaryIdle(t *testing.T) {
	dir := t.TempDir()
	r := execVprof(t, dir, nil, "record", "--progress", "-o", filepath.Join(dir, "idle.data"), "--", "sh", "-c", "sleep 0.5")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var line string
	for _, l := range strings.Split(r.stderr, "\n") {
		if strings.HasPrefix(l, "  overhead: ") {
			line = l
		}
	}
	if !strings.Contains(line, "ms per second") || strings.Contains(line, "% of the program") {
		t.Errorf("overhead line %q; stderr:\n%s", line, r.stderr)
	}
	if strings.Contains(r.stderr, "\x1b") || strings.Contains(r.stderr, "\r") {
		t.Errorf("escape sequences in redirected output: %q", r.stderr)
	}
}

// TestRecordEscapesOnTerminalOnly: on a terminal (script(1)'s pty) the
// progress line redraws itself with escape sequences; with TERM=dumb, or
// redirected (TestRecordSummaryIdle), the output is plain.
func TestRecordEscapesOnTerminalOnly(t *testing.T) {
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("no script(1) for a terminal")
	}
	dir := t.TempDir()
	cmd := fmt.Sprintf("%s record -o %s -- sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done'", vprofBinary(t), filepath.Join(dir, "t.data"))
	for _, c := range []struct {
		term    string
		escapes bool
	}{{"xterm", true}, {"dumb", false}} {
		sc := exec.Command(script, "-qec", cmd, "/dev/null")
		sc.Env = append(os.Environ(), "TERM="+c.term)
		out, err := sc.CombinedOutput()
		if err != nil {
			t.Fatalf("TERM=%s: %v\n%q", c.term, err, out)
		}
		if got := strings.Contains(string(out), "\x1b["); got != c.escapes || !strings.Contains(string(out), "overhead: ") {
			t.Errorf("TERM=%s on a terminal: escape sequences %v, want %v: %q", c.term, got, c.escapes, out)
		}
	}
}

// TestSummaryEntryValues: the summary splits the unknown entry values by
// where their chains of call-site records stopped (method.md D117), and
// says nothing of them when there are none.
func TestSummaryEntryValues(t *testing.T) {
	res := sampler.Result{Elapsed: time.Second}
	res.Trailer.Samples, res.Trailer.UnreadableReads = 100, 40
	v := &res.Values
	v.EntryValue, v.EntryNoValue, v.EntryNoValueDeep, v.EntryNoRecords = 40, 30, 5, 20
	v.EntryTail, v.EntryNoCaller, v.EntryBound, v.EntryLast = 3, 2, 1, 7
	var b strings.Builder
	printSummary(&b, &res)
	want := fmt.Sprintf("  entry values: 7 found at the %dth call-site record of a chain; unknown: 30 no value in a caller's record (5 at the 2nd or a later record, 20 from a caller in an object without records), 3 under a tail call no chain restores, 2 no caller frame, 1 past %d records, 4 other\n",
		sampler.MaxEntryHops, sampler.MaxEntryHops)
	if !strings.Contains(b.String(), want) {
		t.Errorf("summary:\n%s\nwant the line\n%s", b.String(), want)
	}
	res.Values = sampler.ValueStats{}
	b.Reset()
	printSummary(&b, &res)
	if strings.Contains(b.String(), "  entry values:") {
		t.Errorf("no entry values unknown, yet the summary says:\n%s", b.String())
	}
}
