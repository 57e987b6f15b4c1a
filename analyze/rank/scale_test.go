package rank

import (
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// TestNormalScale: when the normal runs are longer than the slow ones (a
// bigger input that does not trigger the bug), their costs are counted at
// the slow runs' length before the extra cost is taken (method.md §4,
// D56). The root cause takes most of both kinds of runs, more of the slow
// ones; in seconds it took less in the slow runs than in the longer normal
// ones, so without the rule its extra cost is negative and a function seen
// a few times, only in the slow runs, ranks first. With slow runs that are
// the longer ones the costs are compared as measured.
func TestNormalScale(t *testing.T) {
	// One run of each kind, 1 ms a sample: work (the loop, its index
	// values differ between the kinds), helper (other work of the normal
	// runs), cmp (a few samples in the slow runs only, no variables).
	run := func(work, helper, cmp int, slow bool) []ev {
		var evs []ev
		tick := uint64(0)
		for i := range work {
			x := int64(i % 10)
			if slow {
				x = int64(i % 100)
			}
			evs = append(evs, ev{tid: 1, tick: tick, stack: []uint64{P(pcWork), P(pcMain)}, vals: []model.Value{val(0, vI, x)}})
			tick++
		}
		for range helper {
			evs = append(evs, ev{tid: 1, tick: tick, stack: []uint64{P(pcHelper), P(pcMain)}})
			tick++
		}
		for range cmp {
			evs = append(evs, ev{tid: 1, tick: tick, stack: []uint64{P(pcCmp), P(pcMain)}})
			tick++
		}
		return evs
	}
	for _, c := range []struct {
		name                 string
		nWork, nHelper       int  // normal run
		bWork, bCmp          int  // slow run
		attached             bool // the normal run was recorded attached (--pid, --duration)
		wantFirst            string
		wantExtra, wantScale float64 // work's extra cost (ms); the factor
	}{
		// Normal 200 ms (work 160), slow 153 ms (work 150): work is 78%
		// of a normal run and 98% of the slow one. Scaled by 153/200,
		// work's normal cost is 122.4 ms: extra 27.6 ms.
		{"normal runs longer", 160, 40, 150, 3, false, "work", 150 - 160*153.0/200, 153.0 / 200},
		// Normal 100 ms: the slow run is longer, its slowdown in seconds
		// is what the extra cost explains (150 - 80 ms).
		{"slow runs longer", 80, 20, 150, 3, false, "work", 70, 1},
		// An attached recording lasts what the user chose: its length says
		// nothing of the work, and the costs are compared as measured.
		{"attached", 160, 40, 150, 3, true, "cmp", -10, 1},
	} {
		a := New(DefaultOptions())
		n := feed(t, a, Normal, "n", run(c.nWork, c.nHelper, 0, false))
		b := feed(t, a, Buggy, "b", run(c.bWork, 0, c.bCmp, true))
		n.hdr.Attached = c.attached
		if got := normalScale([]*Run{n}, []*Run{b}); !near(got, c.wantScale) {
			t.Errorf("%s: scale %g, want %g", c.name, got, c.wantScale)
		}
		res := a.Result()
		if res.Functions[0].Name != c.wantFirst {
			t.Errorf("%s: ranked %v, want %s first", c.name, names(res), c.wantFirst)
		}
		if w := findFunc(t, res, "work"); !near(w.Extra*1e3, c.wantExtra) {
			t.Errorf("%s: work's extra cost %g ms, want %g", c.name, w.Extra*1e3, c.wantExtra)
		}
	}
}

// TestNormalScaleStackTime: D51's extra time on the stack is taken as the
// extra cost is (D56): a callee that takes all of its caller's time in a
// normal run of 100 ms and in a slow run of 60 ms has no extra time under
// it (60 - 100 x 0.6), not -40 ms.
func TestNormalScaleStackTime(t *testing.T) {
	a := New(DefaultOptions())
	stack := []uint64{P(pcHelper), P(pcWork), P(pcMain)}
	mk := func(n int) []ev {
		evs := make([]ev, n)
		for i := range evs {
			evs[i] = ev{tid: 1, tick: uint64(i), stack: stack}
		}
		return evs
	}
	feed(t, a, Normal, "n", mk(100))
	feed(t, a, Buggy, "b", mk(60))
	a.Result()
	if !near(a.normalScale, 0.6) {
		t.Fatalf("scale %g, want 0.6", a.normalScale)
	}
	nb, nn := a.kindCounts()
	below, _, _ := a.extraBelow(int(a.funcIdx["work"]), nb, nn)
	if got, ok := below[a.funcIdx["helper"]]; !ok || !near(got, 0) {
		t.Errorf("helper's extra time under work %g ms, want 0", got*1e3)
	}
}
