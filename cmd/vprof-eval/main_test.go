package main

import (
	"bytes"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vprof/vprof/testprogs"
)

// TestRecordArgs checks that every manifest program is recorded whole by
// default, and with -record-component with the component of the thesis'
// protocol (an existing file, its root cause's), on the clock its
// slowdown shows in.
func TestRecordArgs(t *testing.T) {
	progs, err := testprogs.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range progs {
		args := recordArgs(config{recordComponent: true}, p)
		i := slices.Index(args, "--component")
		if i < 0 || i+1 >= len(args) || args[i+1] != p.SourcePath() {
			t.Errorf("%s -record-component: record %v, want --component %s", p.Name, args, p.SourcePath())
		}
		whole := recordArgs(config{}, p)
		if slices.Contains(whole, "--component") {
			t.Errorf("%s: record %v has a --component", p.Name, whole)
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
		{Program: "a", Issue: "X-1", RootCause: "f", PlainRank: 4, GprofRank: 2, Expected: "scalability",
			Whole:     Analysis{Rank: 1, Pattern: "scalability", LineDist: 0},
			Comp:      Analysis{Rank: 2, Pattern: "wrong constraint", LineDist: 0},
			Component: "a/f.c", Unmonitored: []string{"n_workers"}, ThesisRank: 1},
		{Program: "b", Issue: "X-2", RootCause: "g", PlainRank: 3, Expected: "wrong constraint", Component: "b/g.c",
			Whole: Analysis{Rank: 5, LineDist: -1, Location: "x.h:3", Above: []Above{{Function: "caller", Cost: 0.9, Source: "n value"}}, RootCost: 0.1},
			Comp:  Analysis{Rank: 1, Pattern: "wrong constraint", LineDist: -1, Above: []Above{{Function: "comp_only", Cost: 0.9, Source: "hist"}}}},
		{Program: "c", Issue: "X-3", RootCause: "h", Err: "record normal: exit status 1"},
		{Program: "d", Issue: "X-4", RootCause: "k", PlainRank: 2, Expected: "scalability",
			Whole: Analysis{Rank: 2, Pattern: "scalability", LineDist: -1}},
	}
	tests := []struct {
		record    bool
		want, not []string
	}{
		{false, []string{
			"a X-1 f 1 scalability 2 wrong constraint scalability 1 4 2 0 0% f.c",
			"b X-2 g 5 - 1 wrong constraint wrong constraint - 3 - other file 0% g.c",
			"d X-4 k 2 scalability n/a n/a scalability - 2 - - 0% -", "c X-3 h error \n",
			"f.c",
			"whole-program: root cause 1st in 1 of 3 programs (33%, goal 90%), in the top 3 in 2; never below its plain-profile rank in 2 of 3; pattern right in 2 of 3 (67%).",
			"component: root cause 1st in 1 of 2 programs (50%, goal 90%), in the top 3 in 2; never below its plain-profile rank in 2 of 2; pattern right in 1 of 2 (50%).",
			"(Table 3.3): 1st on 1 of the 1 it evaluated.",
			"Protocol: each program recorded whole", "vprof report --component <the root cause's source file>",
			"left out of its column: a (n_workers)", "error: c: record normal: exit status 1\n", "other file",
			"Ranked above the root cause, whole-program (calibrated cost, discount r and its source):\n b: caller (0.900 s, r 0.00 from n value); root cause 0.100 s\n"},
			[]string{"-record-component", "  a: ", "comp_only"}},
		{true, []string{"Protocol: -record-component", "vprof (recorded with --component): root cause 1st in 1 of 3", "so not sampled: a (n_workers)"},
			[]string{"whole-program:", "left out of its column"}},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		r := slices.Clone(rows)
		for i := range r {
			r[i].RecordComponent = tt.record && r[i].Component != ""
		}
		printTable(&b, r)
		out := squeeze(b.String())
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("record-component=%v: output lacks %q:\n%s", tt.record, w, out)
			}
		}
		for _, w := range tt.not {
			if strings.Contains(out, w) {
				t.Errorf("record-component=%v: output has %q:\n%s", tt.record, w, out)
			}
		}
	}
}

// squeeze turns every run of spaces into one, so that tests can match
// table rows whatever the column widths.
func squeeze(s string) string {
	return regexp.MustCompile(` +`).ReplaceAllString(s, " ")
}

func TestPrintTrials(t *testing.T) {
	trial := func(ra, rb, ca int, pa string) []Row {
		return []Row{
			{Program: "a", Issue: "X-1", RootCause: "f", PlainRank: 4, GprofRank: 2, Expected: "scalability", Component: "a/f.c",
				Whole: Analysis{Rank: ra, Pattern: pa}, Comp: Analysis{Rank: ca, Pattern: "scalability"}},
			{Program: "b", Issue: "X-2", RootCause: "g", PlainRank: 7, Expected: "wrong constraint", ThesisRank: 4,
				Whole: Analysis{Rank: rb}},
		}
	}
	all := [][]Row{trial(1, 2, 3, "scalability"), trial(1, 1, 1, ""), trial(1, 9, 0, "scalability")}
	all[0][1].Whole.Above, all[0][1].Whole.RootCost = []Above{{Function: "h", Cost: 1, Source: "hist"}}, 0.5
	all[2][1].Whole.Above, all[2][1].Whole.RootCost = []Above{{Function: "h", Cost: 1, Source: "hist"}, {Function: "k", Cost: 0.9, Discount: 0.2, Source: "i delta"}}, 0.5
	all[1][0].Comp.Above = []Above{{Function: "comp_only"}}
	var b bytes.Buffer
	printTrials(&b, all)
	out := squeeze(b.String())
	for _, w := range []string{
		"a X-1 f 1 1 1 3/3 2/3 3 1 - 1/3 3/3 scalability - 4 4 4 2 2 2",
		"b X-2 g 2 1 9 1/3 0/3 n/a n/a n/a n/a n/a wrong constraint 4 7 7 7 - - - 0%",
		"(Table 3.3): 1st on 0 of the 1 it evaluated.",
		"whole-program: root cause 1st in 4 of 6 program-trials (67%, goal 90%), in the top 3 in 5; never below its plain-profile rank in 5 of 6; pattern right in 2 of 6 (33%).",
		"component: root cause 1st in 1 of 3 program-trials (33%, goal 90%), in the top 3 in 2; never below its plain-profile rank in 2 of 3; pattern right in 3 of 3 (100%).",
		"Over 3 trials, whole-program: 1st in every trial on 1 of 2 programs, in the top 3 in every trial on 1; pattern right in every trial on 0.",
		"Ranked above the root cause, whole-program (in how many trials):\n b: h 2/3, k 1/3\n",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "comp_only") {
		t.Errorf("output lists the component analysis' functions above the root cause:\n%s", out)
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

// The bar is what the scoreboard reaches trial after trial (docs/method.md,
// decisions D2-D7), with room for a loaded machine that loses ticks: over
// the 3 trials of the 19-program scoreboard, both columns ranked every one
// of these five root causes (discard_body, cascade_delete, dict_status,
// healthcheck, var_range), the whole-program column 1st on 3 or 4 of them
// and the component column on 4 or 5.
const (
	// quickMinCompRanked: programs whose root cause the component column
	// (the thesis' protocol, after the fact) ranks at all.
	quickMinCompRanked = 5
	// quickMinWholeRanked: programs whose root cause the headline,
	// whole-program column ranks at all.
	quickMinWholeRanked = 5
	// quickMinWholeFirst: programs whose root cause it ranks 1st.
	quickMinWholeFirst = 2
)

// TestQuickEval is the issue's quick subset of `make eval`, with the real
// vprof command on the real programs: each recorded once, whole, and
// analysed whole-program and narrowed to its component; both columns must
// reach the bar above, and -reuse must give the same rows from the same
// recordings. The full table is `make eval`.
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
	printTable(&table, rows)
	compRanked, ranked, first := 0, 0, 0
	for _, r := range rows {
		if r.Err != "" {
			t.Errorf("%s: %s", r.Program, r.Err)
			continue
		}
		if r.Component == "" || r.RecordComponent {
			t.Errorf("%s: component %q, recorded with it %v; want a component, recorded whole", r.Program, r.Component, r.RecordComponent)
		}
		// Both columns filled: each analysis' report was read.
		for _, f := range []string{"report.json", "report-component.json"} {
			if _, err := os.Stat(filepath.Join(c.out, r.Program, f)); err != nil {
				t.Errorf("%s: no %s: %v", r.Program, f, err)
			}
		}
		compRanked += b2i(r.Comp.Rank >= 1)
		ranked += b2i(r.Whole.Rank >= 1)
		first += b2i(r.Whole.Rank == 1)
	}
	if len(rows) != len(quickPrograms) || compRanked < quickMinCompRanked || ranked < quickMinWholeRanked || first < quickMinWholeFirst {
		t.Errorf("%d rows; the component column ranks %d root causes; the vprof column ranks %d, %d 1st; want %d rows, %d, %d and %d or more",
			len(rows), compRanked, ranked, first, len(quickPrograms), quickMinCompRanked, quickMinWholeRanked, quickMinWholeFirst)
	}
	if t.Failed() {
		t.Fatalf("\n%s", table.String())
	}
	t.Logf("\n%s", table.String())

	// -reuse analyses the same profiles again, both ways: the same ranks,
	// patterns and locations, and nothing recorded (the profiles keep
	// their times).
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
	// Whole recordings are not analysed as the old protocol's.
	c.recordComponent = true
	if rows, _ := evaluate(c); len(rows) == 0 || !strings.Contains(rows[0].Err, "recorded whole") {
		t.Errorf("-reuse -record-component on whole recordings: rows %+v, want an error", rows)
	}
	c.recordComponent = false
	c.out = filepath.Join(dir, "none")
	if rows, _ := evaluate(c); len(rows) == 0 || !strings.Contains(rows[0].Err, "-reuse") {
		t.Errorf("-reuse without profiles: rows %+v, want an error naming -reuse", rows)
	}
}

func TestOrdinal(t *testing.T) {
	for n, want := range map[int]string{1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th", 21: "21st", 22: "22nd", 101: "101st", 111: "111th"} {
		if got := ordinal(n); got != want {
			t.Errorf("ordinal(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestPrintExpected checks make demo's lines: what a program reproduces,
// from the manifest, and the verdict on a report (here a report's JSON as
// vprof report writes it, the root cause under its C++ display name).
func TestPrintExpected(t *testing.T) {
	dir := t.TempDir()
	report := func(body string) string {
		f := filepath.Join(dir, "report.json")
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	tests := []struct {
		program, report string
		want            string // "": an error
	}{
		{"dict_status", "", "dict_status reproduces MDEV-17933 (MariaDB): normal: srv_n_tables = 3000; buggy: srv_n_tables = 80000.\n" +
			"expected: root cause innodb::dict_sys_t::get_size(), at dict0dict.cpp:44; pattern scalability.\n"},
		{"dict_status", `{"functions": [{"rank": 1, "function": "main", "pattern": "wrong constraint"},
			{"rank": 2, "function": "innodb::dict_sys_t::get_size() const", "pattern": "scalability", "locations": ["dict0dict.cpp:47 bb2"]}]}`,
			"vprof: root cause ranked 2nd (expected 1st), pattern scalability (expected scalability), 3 lines from line 44.\n"},
		{"var_range", `{"functions": [{"rank": 1, "function": "main"}]}`,
			"vprof: root cause not ranked (expected 1st), pattern - (expected scalability).\n"},
		{"var_range", `{"functions": `, ""},
		{"no_such_program", "", ""},
	}
	for _, tt := range tests {
		f := ""
		if tt.report != "" {
			f = report(tt.report)
		}
		var b bytes.Buffer
		err := printExpected(&b, tt.program, f)
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("%s %q: no error, printed %q", tt.program, tt.report, b.String())
		case tt.want != "" && err != nil:
			t.Errorf("%s %q: %v", tt.program, tt.report, err)
		case b.String() != tt.want:
			t.Errorf("%s %q: printed\n%q, want\n%q", tt.program, tt.report, b.String(), tt.want)
		}
	}
}

// An inlined root cause has no row of its own: the report's row for it is its
// host's, and only a program that says so (root_cause_inlined) is scored so.
func TestFindRootInlined(t *testing.T) {
	report := []byte(`{"functions": [
		{"rank": 1, "function": "FixMate::handleAlignment(SAMRecord const&)", "pattern": "scalability", "locations": ["fixmate.cpp:49"]},
		{"rank": 2, "function": "hash_map::insert(value const&)", "pattern": "scalability"}]}`)
	erase := testprogs.Program{RootCauseFunction: "_ZN8hash_map5eraseENS_8iteratorE", RootCauseDisplay: "hash_map::erase(hash_map::iterator)"}
	host := erase
	host.RootCauseInlined, host.RootCauseHost = true, "_ZN7FixMate15handleAlignmentERK9SAMRecord"
	for _, tc := range []struct {
		name string
		p    testprogs.Program
		rank int
	}{
		{"not inlined: no row", erase, 0},
		{"inlined: its host's row", host, 1},
	} {
		a, _, err := findRoot(tc.p, report)
		if err != nil {
			t.Fatal(err)
		}
		if a.Rank != tc.rank {
			t.Errorf("%s: rank %d, want %d", tc.name, a.Rank, tc.rank)
		}
	}
}
