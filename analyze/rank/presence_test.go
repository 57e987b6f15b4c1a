package rank

import (
	"strings"
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// TestPresentCaller: a caller and its callee that both ran only in the
// slow runs (every verdict of either is "present only when slow"), the
// callee's loop among them, and the callee holding most but not all of
// the caller's time: the caller ranks just below the callee though its
// cost holds the callee's and its own loop's (method.md §7, D60), whether
// or not the caller has a loop of its own. A callee whose values were
// compared with the normal runs', one with no loop, or one that holds
// less than PresentShare of the caller's time leaves the caller first.
func TestPresentCaller(t *testing.T) {
	for _, c := range []struct {
		name                                 string
		callerLoop, calleeNormal, calleeLoop bool
		inCallee, own                        int
		want                                 string
	}{
		{"both only present, the caller loops", true, false, true, 150, 13, "helper"},
		{"both only present, no loop in the caller", false, false, true, 150, 13, "helper"},
		{"the callee's values compared", true, true, true, 150, 13, "work"},
		{"no loop in the callee", true, false, false, 150, 13, "work"},
		{"the callee holds less than three quarters", true, false, true, 100, 60, "work"},
	} {
		a := New(DefaultOptions())
		inHelper := []uint64{P(pcHelper), P(pcWork), P(pcMain)}
		var normal, buggy []ev
		for range 40 {
			addEv(&normal, []uint64{P(pcMain)})
		}
		if c.calleeNormal {
			for i := range 20 { // helper ran, on small arguments; work's variables were not read
				addEv(&normal, inHelper, val(0, vN, int64(i%5)))
			}
		}
		for i := range c.inCallee {
			vals := []model.Value{val(0, vN, int64(100+i%5)), val(1, vFlag, int64(50+i%4))}
			if c.calleeLoop {
				vals = append(vals, val(0, vNode, int64(0x1000+i*64)))
			}
			if c.callerLoop {
				vals = append(vals, val(1, vI, int64(i/25)))
			}
			addEv(&buggy, inHelper, vals...)
		}
		for i := range c.own { // its own instructions: filling what the callee sorts
			vals := []model.Value{val(0, vFlag, int64(50+i%4))}
			if c.callerLoop {
				vals = append(vals, val(0, vI, int64(i%6)))
			}
			addEv(&buggy, []uint64{P(pcWork), P(pcMain)}, vals...)
		}
		for range 40 {
			addEv(&buggy, []uint64{P(pcMain)})
		}
		feed(t, a, Normal, "n", normal)
		feed(t, a, Buggy, "b", buggy)
		res := a.Result()
		w, h := findFunc(t, res, "work"), findFunc(t, res, "helper")
		if w.Discount != 0 || h.Discount != 0 {
			t.Fatalf("%s: work r %g, helper r %g: want both 0", c.name, w.Discount, h.Discount)
		}
		if got := names(res); got[0] != c.want {
			t.Errorf("%s: ranked %v, want %s first (work placed %q)", c.name, got, c.want, w.Placed)
		}
		if c.want == "helper" && (res.Functions[1].Name != "work" || !strings.Contains(w.Placed, "D60")) {
			t.Errorf("%s: ranked %v, work placed %q: want work just below, by D60", c.name, names(res), w.Placed)
		}
	}
}
