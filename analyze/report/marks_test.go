package report

import (
	"strings"
	"testing"

	"github.com/vprof/vprof/analyze/internal/testprof"
	"github.com/vprof/vprof/analyze/rank"
	"github.com/vprof/vprof/analyze/timeline"
)

// TestMarks: the report's top functions become timeline marks, its most
// anomalous variables value tracks, both said in words.
func TestMarks(t *testing.T) {
	normal, buggy, err := testprof.Runs(t.TempDir(), 40, 80)
	if err != nil {
		t.Fatal(err)
	}
	res, err := rank.Analyze([]string{normal}, []string{buggy}, rank.DefaultOptions(), nil)
	if err != nil {
		t.Fatal(err)
	}
	marks := Marks(res, 10)
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
	if m := marks[0]; m.Func != "recover_loop" || !strings.Contains(m.Note, "values of budget (value) unlike the normal run: discount 0.00") {
		t.Errorf("first mark %+v", m)
	}
	vars := Vars(res, 3)
	if len(vars) == 0 || vars[0].Name != "budget" || vars[0].Function != "recover_loop" {
		t.Fatalf("anomalous vars %+v (functions %+v)", vars, res.Functions)
	}
	if want := "budget (recover_loop), value: values unlike the normal run: discount 0.00"; vars[0].Label != want {
		t.Errorf("track label %q, want %q", vars[0].Label, want)
	}
	// The tracks of those variables: one a thread, a point a sample.
	for _, in := range []struct {
		path string
		want int
	}{{normal, 400}, {buggy, 800}} {
		tr, tracks, err := timeline.ReadProfileWithTracks(in.path, vars)
		if err != nil {
			t.Fatal(err)
		}
		tk := tracks[tr.Threads[0]]
		if len(tk) != 1 || len(tk[0].Times) != in.want || tk[0].Name != vars[0].Label {
			t.Fatalf("%s: %d tracks (%+v), want 1 track of %d points", in.path, len(tk), tk, in.want)
		}
	}
}
