package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vprof/vprof/analyze/report"
)

// TestReportWarnings: the report checks its own inputs and says, on
// standard error and in the JSON's warnings, when a file is given twice,
// one recording is on both sides, the slow runs are not slower, the runs
// come from different builds, or a run is too short for the statistics.
func TestReportWarnings(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	writeRun(t, p("n1"), false, 0, "aa")
	writeRun(t, p("n2"), false, 1, "aa")
	writeRun(t, p("b1"), true, 0, "aa")
	writeRun(t, p("b3"), true, 3, "bb")
	// Real recordings: a copy of one is the same recording; one of a
	// program that exits at once has too few samples.
	if r := execVprof(t, dir, nil, "record", "-q", "-o", p("r1"), "--", "sh", "-c", "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done"); r.code != 0 {
		t.Fatalf("record: %d %s", r.code, r.stderr)
	}
	data, err := os.ReadFile(p("r1"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p("r1copy"), data, 0o644)
	if r := execVprof(t, dir, nil, "record", "-q", "-o", p("short"), "--", "sh", "-c", "exit 0"); r.code != 0 {
		t.Fatalf("record: %d %s", r.code, r.stderr)
	}
	for _, c := range []struct {
		name string
		args []string
		want string // "" : no warning at all
	}{
		{"clean", []string{p("n1"), p("b1")}, ""},
		{"twice on one side", []string{"--normal", p("n1") + "," + p("n1"), "--buggy", p("b1")}, p("n1") + " is given twice among the normal runs"},
		{"other spelling", []string{"--normal", p("n1") + "," + dir + "/./n1", "--buggy", p("b1")}, " is given twice among the normal runs"},
		{"both sides", []string{p("n1"), p("n1")}, p("n1") + " is given as a normal and as a buggy run"},
		{"copies", []string{p("r1"), p("r1copy")}, p("r1") + " and " + p("r1copy") + " are the same recording"},
		{"swapped", []string{p("b1"), p("n1")}, "the buggy runs are not slower than the normal ones (0.490 s sampled against 0.730 s, means per run): are NORMAL and BUGGY swapped? If not, each function's normal-run cost is counted at the slow runs' length (x 0.67)"},
		{"builds", []string{p("n1"), p("b3")}, "are different builds"},
		{"short", []string{p("short"), p("r1")}, p("short") + " has "},
	} {
		r := execVprof(t, dir, nil, append([]string{"report", "-q"}, c.args...)...)
		if r.code != 0 {
			t.Errorf("%s: exit %d: %s", c.name, r.code, r.stderr)
			continue
		}
		warned := strings.Contains(r.stderr, "vprof report: warning: ")
		if c.want == "" && warned || c.want != "" && !strings.Contains(r.stderr, "vprof report: warning: ") || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s: stderr %q, want the warning %q", c.name, r.stderr, c.want)
		}
		r = execVprof(t, dir, nil, append([]string{"report", "-q", "--format", "json"}, c.args...)...)
		var rep report.JSON
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || rep.Warnings == nil {
			t.Fatalf("%s: JSON %v: %q", c.name, err, r.stdout)
		}
		if got := strings.Join(rep.Warnings, "\n"); !strings.Contains(got, c.want) || (c.want == "") != (got == "") {
			t.Errorf("%s: JSON warnings %q, want %q", c.name, rep.Warnings, c.want)
		}
	}
}
