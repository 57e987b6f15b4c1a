package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/vprof/vprof/analyze/report"
	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/proffile"
)

// writeRun writes a profile of a small program: main calls busy (costly,
// normal in both runs, a counter i) and scan (a loop over n items). In the
// buggy run scan's n is ten times larger and scan runs longer.
func writeRun(t *testing.T, path string, buggy bool, seed int, buildID string) {
	t.Helper()
	writeRunGlobal(t, path, buggy, seed, buildID, false)
}

// writeRunGlobal is writeRun; with global, main also reads a global limit
// declared in lib/busy.c (5 normal, 9 buggy) at its call of busy.
func writeRunGlobal(t *testing.T, path string, buggy bool, seed int, buildID string, global bool) {
	t.Helper()
	r := func(lo, hi uint64) []model.PCRange { return []model.PCRange{{Lo: lo, Hi: hi}} }
	s := &model.Schema{
		Path: "/bin/app", BuildID: buildID, Type: "exec", HasDWARF: true, Files: []string{"/src/app.c", "/src/lib/busy.c"},
		Funcs: []model.Func{
			{Name: "main", File: 0, Line: 5, Ranges: r(0x1000, 0x1100)},
			{Name: "busy", File: 1, Line: 20, Ranges: r(0x1100, 0x1200), Blocks: []uint64{0x1100}},
			{Name: "scan", File: 0, Line: 40, Ranges: r(0x1200, 0x1300), Blocks: []uint64{0x1200, 0x1240}},
			{Name: "_ZN3app5Store4findEv", Display: "app::Store::find()", File: 0, Line: 60, Ranges: r(0x1300, 0x1400)},
		},
		Vars: []model.Var{
			{Name: "i", Func: 1, File: 1, Type: "int", Kind: model.KindInt, Size: 4, Tags: model.TagLoop},
			{Name: "n", Func: 2, Type: "int", Kind: model.KindInt, Size: 4, Tags: model.TagLoop},
			{Name: "limit", Func: model.NoFunc, File: 1, Type: "int", Kind: model.KindInt, Size: 4},
		},
		Lines: []model.LineRow{{PC: 0x1000, Line: 5}, {PC: 0x1100, Line: 21}, {PC: 0x1200, Line: 41}, {PC: 0x1240, Line: 44}, {PC: 0x1300, Line: 61}},
	}
	w, err := proffile.Create(path, model.Header{Target: "/bin/app", PID: 7, IntervalNS: 1e6})
	if err != nil {
		t.Fatal(err)
	}
	w.AddObject(&model.Object{ID: 0, Path: "/bin/app", BuildID: buildID, Program: true, Schema: s})
	w.AddMapping(model.Mapping{PID: 7, Start: 0x401000, End: 0x402000, Bias: 0x400000, Obj: 0})
	tick := uint64(0)
	add := func(pc uint64, vals ...model.Value) {
		tick++
		err := w.AddSample(7, 7, &model.Sample{Tick: tick, WeightNS: 1e6, Stack: []uint64{0x400000 + pc, 0x401010}, Values: vals})
		if err != nil {
			t.Fatal(err)
		}
	}
	scan := 60
	if buggy {
		scan = 300
	}
	limit := uint64(5)
	if buggy {
		limit = 9
	}
	for k := range 400 {
		if global {
			add(0x1110, model.Value{Var: 0, Bits: uint64((k*7 + seed) % 50)}, model.Value{Var: 2, Frame: 1, Bits: limit})
		} else {
			add(0x1110, model.Value{Var: 0, Bits: uint64((k*7 + seed) % 50)})
		}
	}
	for k := range scan {
		n := uint64(10 + (k+seed)%5)
		pc := uint64(0x1210)
		if buggy {
			n *= 10
			pc = 0x1250
		}
		add(pc, model.Value{Var: 1, Bits: n})
	}
	for range 30 {
		add(0x1310)
	}
	if err := w.Close(model.Trailer{}); err != nil {
		t.Fatal(err)
	}
}

func TestReportCommand(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	writeRun(t, p("n1"), false, 0, "aa")
	writeRun(t, p("n2"), false, 1, "aa")
	writeRun(t, p("b1"), true, 0, "aa")
	writeRun(t, p("b2"), true, 2, "aa")
	writeRun(t, p("b3"), true, 3, "bb") // another build
	os.WriteFile(p("junk"), []byte("hello"), 0o644)

	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr string
	}{
		{"table", []string{"report", p("n1"), p("b1")}, 0, []string{"scan", "n (delta)", "scalability", "app.c:44 bb1", "app::Store::find()"}, ""},
		{"lists", []string{"report", "--normal", p("n1") + "," + p("n2"), "--buggy", p("b1") + "," + p("b2"), "--top", "1"}, 0, []string{"│    1 │ scan"}, ""},
		{"markdown", []string{"report", "--format", "markdown", p("n1"), p("b1")}, 0, []string{"| rank |", "|    1 | scan"}, ""},
		{"csv", []string{"report", "--format", "csv", p("n1"), p("b1")}, 0, []string{"rank,tie,function,calibrated_cost_s", "\n1,false,scan,"}, ""},
		{"explain", []string{"report", "--explain", "scan", p("n1"), p("b1")}, 0, []string{"scan: rank 1", "AD statistic", "<- r(f)", "pattern: scalability"}, ""},
		{"explain json", []string{"report", "--explain", "busy", "--format", "json", p("n1"), p("b1")}, 0, []string{`"function": "busy"`, `"hellinger"`}, ""},
		{"explain without parameters", []string{"report", "--explain", "app::Store::find", p("n1"), p("b1")}, 0, []string{"app::Store::find(): rank"}, ""},
		{"explain unknown", []string{"report", "--explain", "sca", p("n1"), p("b1")}, 2, nil, `did you mean scan`},
		{"other build", []string{"report", "--normal", p("n1"), "--buggy", p("b3")}, 0, []string{"scan"}, "different builds"},
		{"help", []string{"report", "--help"}, 0, []string{"Examples:", "--explain", "--component"}, ""},
		{"no args", []string{"report"}, 1, nil, "need a normal and a buggy profile"},
		{"one list", []string{"report", "--normal", p("n1"), p("b1")}, 1, nil, "give both --normal and --buggy"},
		{"bad format", []string{"report", "--format", "xml", p("n1"), p("b1")}, 1, nil, `--format "xml"`},
		{"bad discount", []string{"report", "--default-discount", "2", p("n1"), p("b1")}, 1, nil, "--default-discount"},
		{"bad min samples", []string{"report", "--min-samples", "0", p("n1"), p("b1")}, 1, nil, "--min-samples 0"},
		{"min samples", []string{"report", "--explain", "scan", "--min-samples", "1000000", p("n1"), p("b1")}, 0, []string{"too few samples"}, ""},
		{"missing file", []string{"report", p("n1"), p("nope")}, 2, nil, "no such file"},
		{"foreign file", []string{"report", p("n1"), p("junk")}, 2, nil, "not a vprof profile"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var so, se bytes.Buffer
			code := mainStatus(tt.args, &so, &se)
			ok := code == tt.code && strings.Contains(se.String(), tt.stderr)
			for _, s := range tt.stdout {
				ok = ok && strings.Contains(so.String(), s)
			}
			if !ok {
				t.Fatalf("exit %d (want %d)\nstdout: %s\nstderr: %s", code, tt.code, so.String(), se.String())
			}
		})
	}
}

// TestReportJSONShape checks the stable JSON shape of the issue.
func TestReportJSONShape(t *testing.T) {
	dir := t.TempDir()
	n, b := filepath.Join(dir, "n"), filepath.Join(dir, "b")
	writeRun(t, n, false, 0, "aa")
	writeRun(t, b, true, 0, "aa")
	var so, se bytes.Buffer
	if code := mainStatus([]string{"report", "--format", "json", n, b}, &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	var raw map[string][]map[string]any
	var whole struct {
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal(so.Bytes(), &whole); err != nil || whole.Warnings == nil {
		t.Fatalf("warnings %v (want an array, empty here): %v", whole.Warnings, err)
	}
	var top map[string]json.RawMessage
	json.Unmarshal(so.Bytes(), &top)
	delete(top, "warnings")
	b2, _ := json.Marshal(top)
	if err := json.Unmarshal(b2, &raw); err != nil {
		t.Fatal(err)
	}
	want := []string{"rank", "tie", "function", "calibrated_cost_s", "extra_cost_s", "raw_cost_s", "pc_cost_s", "plain_rank", "discount",
		"discount_source", "pattern", "pattern_reason", "variable", "dimension", "locations", "where", "via"}
	slices.Sort(want)
	rows := raw["functions"]
	if len(rows) < 3 {
		t.Fatalf("%d rows", len(rows))
	}
	for _, r := range rows {
		var keys []string
		for k := range r {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if !reflect.DeepEqual(keys, want) {
			t.Fatalf("keys %v, want %v", keys, want)
		}
	}
	row := rows[0]
	if top := row; top["function"] != "scan" || top["rank"] != 1.0 || top["pattern"] != "scalability" || top["variable"] != "n" ||
		top["dimension"] != "delta" || top["discount_source"] != "variable" || top["discount"] != 0.0 {
		t.Errorf("top row %v", top)
	}
	if locs, _ := row["locations"].([]any); len(locs) != 1 || locs[0] != "app.c:44" {
		t.Errorf("locations %v", row["locations"])
	}
	// The table's "where, basic block" column: app.c:44 bb1 (0x1240).
	if where, _ := row["where"].([]any); len(where) != 1 || !reflect.DeepEqual(where[0], map[string]any{
		"file": "app.c", "line": 44.0, "block": 1.0, "block_addr": "0x1240", "samples": where[0].(map[string]any)["samples"]}) {
		t.Errorf("where %v", row["where"])
	}
	for _, r := range rows {
		if r["function"] == "app::Store::find()" && (r["discount_source"] != "hist" || r["dimension"] != "hist") {
			t.Errorf("function without variables: %v", r)
		}
	}
}

// TestReportComponent narrows the analysis to the variables of one source
// file or directory: the other functions keep their costs but lose their
// variable verdicts to the hist-discounter.
func TestReportComponent(t *testing.T) {
	dir := t.TempDir()
	n, b := filepath.Join(dir, "n"), filepath.Join(dir, "b")
	writeRunGlobal(t, n, false, 0, "aa", true)
	writeRunGlobal(t, b, true, 0, "aa", true)
	tests := []struct {
		comps            []string
		main, busy, scan string // discount source of each
	}{
		// main (app.c) reads lib's global limit at its call of busy, but
		// busy's own evidence claims those samples (method.md §4, charged
		// cost) and main has no PC cost of its own: it is never ranked
		// (""). Outside the component main would not even get the
		// global's verdict.
		{nil, "", "variable", "variable"},
		{[]string{"lib/"}, "", "variable", "hist"},
		{[]string{"busy.c"}, "", "variable", "hist"},
		{[]string{"/src/lib"}, "", "variable", "hist"},
		{[]string{"app.c"}, "", "hist", "variable"},
		{[]string{"app.c", "lib"}, "", "variable", "variable"},
	}
	// Components that match no file: an error naming what they could be.
	for _, c := range []string{"usy.c", "/src/li", "app.cc"} { // not at a path boundary; a typo
		var so, se bytes.Buffer
		code := mainStatus([]string{"report", "--component", c, n, b}, &so, &se)
		if want := "--component " + c + " matches no source file of /bin/app; it could match files /src/app.c, /src/lib/busy.c"; code != 2 || !strings.Contains(se.String(), want) {
			t.Errorf("--component %s: exit %d, stderr %q; want 2 and %q", c, code, se.String(), want)
		}
	}
	for _, tt := range tests {
		args := []string{"report", "--format", "json", "--top", "0"}
		for _, c := range tt.comps {
			args = append(args, "--component", c)
		}
		var so, se bytes.Buffer
		if code := mainStatus(append(args, n, b), &so, &se); code != 0 {
			t.Fatalf("%v: exit %d: %s", tt.comps, code, se.String())
		}
		var rep report.JSON
		if err := json.Unmarshal(so.Bytes(), &rep); err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, r := range rep.Functions {
			got[r.Function] = r.DiscountSource
		}
		if got["main"] != tt.main || got["busy"] != tt.busy || got["scan"] != tt.scan {
			t.Errorf("--component %v: main %q busy %q scan %q, want %q %q %q", tt.comps,
				got["main"], got["busy"], got["scan"], tt.main, tt.busy, tt.scan)
		}
	}
}

func TestFlatCommand(t *testing.T) {
	dir := t.TempDir()
	b := filepath.Join(dir, "b")
	writeRun(t, b, true, 0, "aa")
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr string
	}{
		// busy 400 ms, scan 300, find 30 of 730 ms.
		{"table", []string{"flat", b}, 0, []string{"730 samples", "54.79 │        0.400 │  0.400 │ busy", "41.10 │        0.700 │  0.300 │ scan", "│ app::Store::find()"}, ""},
		{"csv", []string{"flat", "--format", "csv", b}, 0, []string{"percent_time,cumulative_s,self_s,name\n54.79,0.4,0.4,busy\n41.10,0.7,0.3,scan\n"}, ""},
		{"markdown top", []string{"flat", "--format", "markdown", "--top", "1", b}, 0, []string{"54.79 |        0.400 |"}, ""},
		{"help", []string{"flat", "--help"}, 0, []string{"Examples:", "gprof"}, ""},
		{"no file", []string{"flat"}, 1, nil, "need one profile"},
		{"json not offered", []string{"flat", "--format", "json", b}, 1, nil, "--format"},
		{"missing", []string{"flat", filepath.Join(dir, "x")}, 2, nil, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var so, se bytes.Buffer
			code := mainStatus(tt.args, &so, &se)
			ok := code == tt.code && strings.Contains(se.String(), tt.stderr)
			for _, s := range tt.stdout {
				ok = ok && strings.Contains(so.String(), s)
			}
			if !ok {
				t.Fatalf("exit %d (want %d)\nstdout: %s\nstderr: %s", code, tt.code, so.String(), se.String())
			}
		})
	}
	var so, se bytes.Buffer
	mainStatus([]string{"flat", "--format", "markdown", "--top", "1", b}, &so, &se)
	if strings.Contains(so.String(), "scan") {
		t.Errorf("--top 1 shows more: %s", so.String())
	}
}
