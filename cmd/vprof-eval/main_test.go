package main

import (
	"bytes"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vprof/vprof/testprogs"
)

// TestRecordArgs checks that every manifest program is recorded with the
// component of the thesis' protocol (an existing file, its root cause's),
// and with -whole without one, on the clock its slowdown shows in.
func TestRecordArgs(t *testing.T) {
	progs, err := testprogs.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range progs {
		args := recordArgs(config{}, p)
		i := slices.Index(args, "--component")
		if i < 0 || i+1 >= len(args) || args[i+1] != p.SourcePath() {
			t.Errorf("%s: record %v, want --component %s", p.Name, args, p.SourcePath())
		}
		whole := recordArgs(config{whole: true}, p)
		if slices.Contains(whole, "--component") {
			t.Errorf("%s -whole: record %v has a --component", p.Name, whole)
		}
		want := "cpu"
		if p.Measure == "wall" {
			want = "wall"
		}
		if j := slices.Index(whole, "--clock"); j < 0 || whole[j+1] != want {
			t.Errorf("%s: record %v, want --clock %s", p.Name, whole, want)
		}
	}
}

func TestPrintTable(t *testing.T) {
	rows := []Row{
		{Program: "a", Issue: "X-1", RootCause: "f", VprofRank: 1, PlainRank: 4, GprofRank: 2, Pattern: "scalability",
			Expected: "scalability", LineDist: 0, Component: "a/f.c", Unmonitored: []string{"n_workers"}, ThesisRank: 1},
		{Program: "b", Issue: "X-2", RootCause: "g", VprofRank: 5, Expected: "wrong constraint", LineDist: -1, Location: "x.h:3", Component: "b/g.c",
			Above: []Above{{Function: "caller", Cost: 0.9, Source: "n value"}}, RootCost: 0.1},
		{Program: "c", Issue: "X-3", RootCause: "h", Err: "record normal: exit status 1"},
	}
	tests := []struct {
		whole     bool
		want, not []string
	}{
		{false, []string{"f.c", "1st on 1 of 2 programs, in the top 3 on 1; pattern right on 1 of 2", "(Table 3.3): 1st on 1 of 2.",
			"Protocol: the thesis' (Table 3.2): vprof record --component",
			"not sampled: a (n_workers)", "error: record normal", "other file",
			"Ranked above the root cause (calibrated cost, discount r and its source):\n  b: caller (0.900 s, r 0.00 from n value); root cause 0.100 s\n"},
			[]string{"-whole", "  a: "}},
		{true, []string{"Protocol: -whole"}, []string{"Table 3.2", "not sampled"}},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		r := rows
		if tt.whole {
			r = nil
			for _, x := range rows {
				x.Component, x.Unmonitored = "", nil
				r = append(r, x)
			}
		}
		printTable(&b, r, tt.whole)
		out := b.String()
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("whole=%v: output lacks %q:\n%s", tt.whole, w, out)
			}
		}
		for _, w := range tt.not {
			if strings.Contains(out, w) {
				t.Errorf("whole=%v: output has %q:\n%s", tt.whole, w, out)
			}
		}
	}
}

func TestPrintTrials(t *testing.T) {
	trial := func(ra, rb int, pa string) []Row {
		return []Row{
			{Program: "a", Issue: "X-1", RootCause: "f", VprofRank: ra, PlainRank: 4, GprofRank: 2, Pattern: pa, Expected: "scalability"},
			{Program: "b", Issue: "X-2", RootCause: "g", VprofRank: rb, PlainRank: 7, Expected: "wrong constraint", ThesisRank: 4},
		}
	}
	all := [][]Row{trial(1, 2, "scalability"), trial(1, 1, ""), trial(1, 5, "scalability")}
	all[0][1].Above, all[0][1].RootCost = []Above{{Function: "h", Cost: 1, Source: "hist"}}, 0.5
	all[2][1].Above, all[2][1].RootCost = []Above{{Function: "h", Cost: 1, Source: "hist"}, {Function: "k", Cost: 0.9, Discount: 0.2, Source: "i delta"}}, 0.5
	var b bytes.Buffer
	printTrials(&b, all, false)
	out := b.String()
	for _, w := range []string{
		"1 1 1", "2 1 5  4 ", "(Table 3.3): 1st on 0 of 2.", "3/3", "2/3", "1/3", "0/3",
		"1st in 4 of 6 program-trials (67%); 1st in every trial on 1 of 2 programs",
		"in the top 3 in every trial on 1; pattern right in 2 of 6 program-trials (33%), in every trial on 0",
		"Ranked above the root cause (in how many trials):\n  b: h 2/3, k 1/3\n",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	if a := recordArgs(config{interval: "250us", recordFlags: []string{"--sampler", "ptrace"}}, testprogs.Program{Name: "x"}); !slices.Contains(a, "250us") || !slices.Contains(a, "ptrace") {
		t.Errorf("record %v: no --interval", a)
	}
}

func TestCollapsedShare(t *testing.T) {
	out := []byte("_start;main;work 5\n_start;main;ns::f(int);memcpy 3\n_start;main;ns::fx 2\nbad line\n\n")
	if tot, in := collapsedShare(out, "ns::f"); tot != 10 || in != 3 {
		t.Errorf("ns::f: %g of %g, want 3 of 10", in, tot)
	}
	if _, in := collapsedShare(out, "main"); in != 10 {
		t.Errorf("main: %g, want 10", in)
	}
}

func TestGprofLine(t *testing.T) {
	tests := []struct{ line, name string }{
		{" 41.18      0.07     0.07    12000     5.83     5.83  ut_crc32_sw", "ut_crc32_sw"},
		{" 10.00      0.10     0.01                             recv_group_scan_log_recs.constprop.0", "recv_group_scan_log_recs.constprop.0"},
		{"  5.00      0.20     0.01     2000     0.01     0.01  innodb::dict_sys_t::get_size()", "innodb::dict_sys_t::get_size()"},
		{"  %   cumulative   self              self     total", ""},
	}
	for _, tt := range tests {
		m := gprofLine.FindStringSubmatch(tt.line)
		got := ""
		if m != nil {
			got = m[1]
		}
		if got != tt.name {
			t.Errorf("%q: %q, want %q", tt.line, got, tt.name)
		}
	}
}

func TestLineDistance(t *testing.T) {
	p := testprogs.Program{Source: "row0upd.cpp", RootCauseLine: 62}
	tests := []struct {
		loc  string
		want int
	}{
		{"row0upd.cpp:60", 2},
		{"row0upd.cpp:70 bb3", 8},
		{"/abs/cascade_delete/row0upd.cpp:62", 0},
		{"stl_algobase.h:2065", -1}, // inlined from a header: not comparable
		{"row0ins.cpp:62", -1},
		{"row0upd.cpp", -1},
		{"row0upd.cpp:x", -1},
	}
	for _, tt := range tests {
		if got := lineDistance(tt.loc, p); got != tt.want {
			t.Errorf("lineDistance(%q) = %d, want %d", tt.loc, got, tt.want)
		}
	}
}

// quickPrograms are the scoreboard's five fastest programs (a few seconds
// each for 3+3 runs), chosen by run time, not by rank, for `make test`.
var quickPrograms = []string{"healthcheck", "var_range", "cascade_delete", "dict_status", "discard_body"}

// TestQuickEval is the issue's quick subset of `make eval`, with the real
// vprof command on the real programs: vprof must rank the root cause at
// most 3rd on at least 3 of them (the issue's figure; here they rank 1st
// to 3rd, and a heavily loaded machine that loses ticks may push one or
// two further). The full table is `make eval`.
func TestQuickEval(t *testing.T) {
	if testing.Short() {
		t.Skip("records 30 runs; skipped with -short")
	}
	dir := t.TempDir()
	vprof := filepath.Join(dir, "vprof")
	build := exec.Command("go", "build", "-o", vprof, "./cmd/vprof")
	build.Dir = testprogs.Root()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	c := config{vprof: vprof, root: testprogs.Root(), out: filepath.Join(dir, "eval"), runs: 3,
		progs: map[string]bool{}, log: io.Discard}
	for _, p := range quickPrograms {
		testprogs.Path(t, p)
		c.progs[p] = true
	}
	rows, err := evaluate(c)
	if err != nil {
		t.Fatal(err)
	}
	var table bytes.Buffer
	printTable(&table, rows, false)
	// The issue's bar is the top 3 on at least 3 of them; the bar here is
	// what the scoreboard reaches trial after trial (3 trials of all 11
	// programs, twice): all five in the top 3 (healthcheck is 1st or 2nd,
	// as the normal runs catch hc_check's variables or not), four 1st.
	top3, first := 0, 0
	for _, r := range rows {
		if r.Err != "" {
			t.Errorf("%s: %s", r.Program, r.Err)
		}
		if r.VprofRank >= 1 && r.VprofRank <= 3 {
			top3++
		}
		if r.VprofRank == 1 {
			first++
		}
	}
	if len(rows) != len(quickPrograms) || top3 < len(quickPrograms) || first < 3 {
		t.Fatalf("root cause in vprof's top 3 on %d of %d programs, 1st on %d; want all in the top 3, 3 or more 1st:\n%s",
			top3, len(rows), first, table.String())
	}
	t.Logf("\n%s", table.String())

	// -reuse analyses the same profiles again: the same ranks, patterns and
	// locations, and nothing recorded (the profiles keep their times).
	stamp := func() map[string]time.Time {
		m := map[string]time.Time{}
		files, _ := filepath.Glob(filepath.Join(c.out, "*", "*.data"))
		for _, f := range files {
			if fi, err := os.Stat(f); err == nil {
				m[f] = fi.ModTime()
			}
		}
		return m
	}
	before := stamp()
	c.reuse = true
	again, err := evaluate(c)
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		a, b := rows[i], again[i]
		a.Seconds, b.Seconds = 0, 0
		if !reflect.DeepEqual(a, b) {
			t.Errorf("-reuse: %s differs:\nrecorded %+v\nreused   %+v", a.Program, a, b)
		}
	}
	if after := stamp(); len(before) != 6*len(quickPrograms) || !maps.Equal(before, after) {
		t.Errorf("-reuse touched the profiles: %d before, %d after", len(before), len(after))
	}
	c.out = filepath.Join(dir, "none")
	if rows, _ := evaluate(c); len(rows) == 0 || !strings.Contains(rows[0].Err, "-reuse") {
		t.Errorf("-reuse without profiles: rows %+v, want an error naming -reuse", rows)
	}
}
