package timeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vprof/vprof/analyze/internal/testprof"
	"github.com/vprof/vprof/analyze/regtime"
)

// reportMarks and reportVars are the marks and value tracks the report
// gives for testprof.Runs (report.TestMarks checks that it does).
var (
	reportMarks = []Mark{{Func: "recover_loop", Rank: 1,
		Note: "calibrated cost 0.2 s (raw 0.8 s); values of budget (value) unlike the normal run: discount 0.00; scalability"}}
	reportVars = []VarRef{{Function: "recover_loop", Name: "budget",
		Label: "budget (recover_loop), value: values unlike the normal run: discount 0.00"}}
)

func TestReport(t *testing.T) {
	normal, buggy, err := testprof.Runs(t.TempDir(), 40, 80)
	if err != nil {
		t.Fatal(err)
	}
	marks, vars := reportMarks, reportVars
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
