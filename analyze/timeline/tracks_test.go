package timeline

import (
	"reflect"
	"testing"

	"github.com/vprof/vprof/analyze/internal/testprof"
	"github.com/vprof/vprof/analyze/regtime"
)

// TestStreamProfile: streaming a profile gives the threads, summaries and
// value tracks of reading it whole and compressing it.
func TestStreamProfile(t *testing.T) {
	_, buggy, err := testprof.Runs(t.TempDir(), 40, 80)
	if err != nil {
		t.Fatal(err)
	}
	exprs := 0
	for _, p := range []regtime.Params{regtime.Thesis, regtime.Later, {CDT: 0.05, CGT: 0.01, TTFT: 0.2, MinRecords: 10}} {
		tr, tracks, err := ReadProfileWithTracks(buggy, reportVars)
		if err != nil {
			t.Fatal(err)
		}
		want := regtime.All(tr, p)
		str, got, stracks, err := StreamProfile(buggy, reportVars, p)
		if err != nil {
			t.Fatal(err)
		}
		if len(str.Threads) != len(tr.Threads) || str.Calls() != 0 || len(got) != len(want) || !reflect.DeepEqual(str.Funcs, tr.Funcs) {
			t.Fatalf("streamed %d threads (%d calls kept), %d summaries; want %d threads", len(str.Threads), str.Calls(), len(got), len(tr.Threads))
		}
		for i, th := range tr.Threads {
			sth := str.Threads[i]
			w := *th
			w.Calls = nil
			if !reflect.DeepEqual(*sth, w) || got[i].Thread != sth {
				t.Fatalf("thread %d: %+v, want %+v", i, sth, w)
			}
			ws, gs := *want[i], *got[i]
			ws.Thread, gs.Thread = nil, nil
			if !reflect.DeepEqual(ws, gs) {
				t.Errorf("thread %d: summary %+v, want %+v", i, gs, ws)
			}
			if !reflect.DeepEqual(tracks[th], stracks[sth]) || len(stracks[sth]) == 0 {
				t.Errorf("thread %d: %d tracks, want %d", i, len(stracks[sth]), len(tracks[th]))
			}
		}
		exprs += got[0].Exprs
	}
	if exprs == 0 {
		t.Error("no expression in any summary: the test compares plain calls only")
	}
}
