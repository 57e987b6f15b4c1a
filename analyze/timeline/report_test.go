package timeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vprof/vprof/analyze"
	"github.com/vprof/vprof/analyze/regtime"
	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/proffile"
)

// writeRun writes a profile of a program whose loop() calls work() while
// its loop variable budget counts down: budget starts at start, and each
// tick spends workTicks of every 10 ticks in work().
func writeRun(t testing.TB, path string, budgets []int64, workTicks int) {
	r := func(lo, hi uint64) []model.PCRange { return []model.PCRange{{Lo: lo, Hi: hi}} }
	schema := &model.Schema{
		Path: "/bin/srv", Type: "exec", HasDWARF: true, Files: []string{"/src/srv.c"},
		Funcs: []model.Func{
			{Name: "main", Display: "main", Line: 10, Ranges: r(0x1000, 0x1100)},
			{Name: "recover_loop", Display: "recover_loop", Line: 20, Ranges: r(0x1100, 0x1200)},
			{Name: "do_work", Display: "do_work", Line: 40, Ranges: r(0x1200, 0x1300)},
		},
		Vars: []model.Var{
			{Name: "budget", Func: 1, Line: 21, Type: "long", Kind: model.KindInt, Size: 8, Tags: model.TagLoop | model.TagCond},
		},
		Locs:  []model.Loc{{Var: 0, PCStart: 0x1100, PCEnd: 0x1200, Kind: model.LocFrame, Offset: -24, Size: 8}},
		Lines: []model.LineRow{{PC: 0x1000, Line: 10}, {PC: 0x1100, Line: 20}, {PC: 0x1200, Line: 40}, {PC: 0x1300}},
	}
	const bias = 0x400000
	w, err := proffile.Create(path, model.Header{Target: "/bin/srv", PID: 5, IntervalNS: 1e6, Clock: model.ClockCPU, Depth: 3, Stack: 64})
	if err != nil {
		t.Fatal(err)
	}
	w.AddObject(&model.Object{ID: 0, Path: "/bin/srv", Program: true, Schema: schema})
	w.AddMapping(model.Mapping{PID: 5, Start: bias + 0x1000, End: bias + 0x2000, Bias: bias, Obj: 0})
	w.AddProc(model.ProcEvent{Kind: model.ProcStart, PID: 5, Path: "/bin/srv"})
	w.AddThread(model.ThreadEvent{PID: 5, TID: 6, Name: "recovery"})
	tick := uint64(1)
	// main's own start-up: recover_loop is not on every sample of the
	// thread (no driver frame, method.md §4).
	for ; tick <= 10; tick++ {
		s := model.Sample{Tick: tick, TimeNS: int64(tick) * 1e6, WeightNS: 1e6, Stack: []uint64{bias + 0x1011}}
		if err := w.AddSample(5, 6, &s); err != nil {
			t.Fatal(err)
		}
	}
	for _, b := range budgets {
		for k := 0; k < 10; k++ {
			s := model.Sample{Tick: tick, TimeNS: int64(tick) * 1e6, WeightNS: 1e6}
			if k < workTicks {
				s.Stack = []uint64{bias + 0x1210, bias + 0x1121, bias + 0x1011}
				s.Values = []model.Value{{Frame: 1, Obj: 0, Var: 0, Bits: uint64(b)}}
			} else {
				s.Stack = []uint64{bias + 0x1110, bias + 0x1011}
				s.Values = []model.Value{{Frame: 0, Obj: 0, Var: 0, Bits: uint64(b)}}
			}
			if err := w.AddSample(5, 6, &s); err != nil {
				t.Fatal(err)
			}
			tick++
		}
	}
	if err := w.Close(model.Trailer{EndNS: int64(tick) * 1e6}); err != nil {
		t.Fatal(err)
	}
}

func reportRuns(t testing.TB) (normal, buggy string) {
	dir := t.TempDir()
	normal, buggy = filepath.Join(dir, "normal.vprof"), filepath.Join(dir, "buggy.vprof")
	var nb, bb []int64
	for i := 0; i < 40; i++ {
		nb = append(nb, int64(i%5+1))
	}
	// The slow run is slower: twice the loop's iterations.
	for i := 0; i < 80; i++ {
		bb = append(bb, int64(1000+37*i))
	}
	writeRun(t, normal, nb, 2)
	writeRun(t, buggy, bb, 8)
	return normal, buggy
}

func TestReport(t *testing.T) {
	normal, buggy := reportRuns(t)
	res, err := analyze.Analyze([]string{normal}, []string{buggy}, analyze.DefaultOptions(), nil)
	if err != nil {
		t.Fatal(err)
	}
	marks := ReportMarks(res, 10)
	if len(marks) == 0 || marks[0].Rank != 1 {
		t.Fatalf("marks %+v", marks)
	}
	// Only functions the report blames (a cost left once discounted) are
	// marked, and the notes say the discount in words.
	for _, m := range marks {
		for _, f := range res.Functions {
			if f.Name == m.Func && f.Calibrated <= 0 {
				t.Errorf("%s marked with calibrated cost %g", f.Name, f.Calibrated)
			}
		}
		if strings.Contains(m.Note, "r =") || !strings.Contains(m.Note, "discount") {
			t.Errorf("mark note %q", m.Note)
		}
	}
	vars := AnomalousVars(res, 3)
	if len(vars) == 0 || vars[0].Name != "budget" || vars[0].Function != "recover_loop" {
		t.Fatalf("anomalous vars %+v (functions %+v)", vars, res.Functions)
	}
	var runs []*Run
	for _, in := range []struct{ label, path string }{{"normal", normal}, {"buggy", buggy}} {
		tr, tracks, err := ReadProfileWithTracks(in.path, vars)
		if err != nil {
			t.Fatal(err)
		}
		tk := tracks[tr.Threads[0]]
		want := map[string]int{"normal": 400, "buggy": 800}[in.label]
		if len(tk) != 1 || len(tk[0].Times) != want || !strings.HasPrefix(tk[0].Name, "budget (recover_loop)") {
			t.Fatalf("%s: %d tracks, %d points, want 1 track of %d", in.label, len(tk), len(tk[0].Times), want)
		}
		runs = append(runs, &Run{Label: in.label, Trace: tr, Summaries: regtime.All(tr, regtime.Thesis), Tracks: tracks})
	}
	if v := runs[1].Tracks[runs[1].Trace.Threads[0]][0].Values; v[0] != 1000 || v[399] != 1000+37*39 {
		t.Fatalf("buggy budget values %v ... %v", v[0], v[399])
	}
	path := filepath.Join(t.TempDir(), "report.html")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(f, &Page{Title: "report", Runs: runs, Params: regtime.Thesis, Preset: "thesis", Marks: marks}); err != nil {
		t.Fatal(err)
	}
	f.Close()

	p := openPage(t, path)
	if errs := p.errors(); len(errs) > 0 {
		t.Fatalf("console errors: %v", errs)
	}
	if n := eval[int](t, p, "document.querySelectorAll('.run').length"); n != 2 {
		t.Fatalf("%d runs side by side, want 2", n)
	}
	if n := eval[int](t, p, "vprof.rows.filter(r => r.hits.some(h => h.track)).length"); n != 2 {
		t.Fatalf("%d rows draw a value track, want 2", n)
	}
	if got := eval[string](t, p, "Array.from(document.querySelectorAll('.legend-item .mk')).map(e => e.textContent).sort().join(',')"); !strings.HasPrefix(got, "#1") {
		t.Fatalf("legend mark %q", got)
	}
	screenshot(t, p, "report.png")
}
