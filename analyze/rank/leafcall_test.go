package rank

import (
	"strings"
	"testing"
)

// TestLeafCaller: a callee that holds no variable, has no loop and calls
// nothing, run only in the slow runs (hist r = 0), inside a caller whose
// own loop went wrong: the caller takes the callee's place and the callee
// the caller's (method.md §7, D74), though the callee's cost alone is
// larger than the caller's calibrated cost. A callee whose time a library
// function carries, one with a program callee under it, one with a loop
// variable in its schema, and a caller whose loop looks normal (its
// evidence another variable's) leave the callee first.
func TestLeafCaller(t *testing.T) {
	for _, c := range []struct {
		name     string
		leaf     uint64 // the callee's PC: cmp has no variables, helper a loop variable
		lib      bool   // the callee's time is in memcpy under it
		below    bool   // the callee's time is in helper under it
		loopNorm bool   // the caller's loop index looks as in the normal runs
		want     string
	}{
		{"a leaf that holds nothing", pcCmp, false, false, false, "work"},
		{"a library function carries its time", pcCmp, true, false, false, "cmp"},
		{"a program function runs under it", pcCmp, false, true, false, "helper"},
		{"a loop of its own", pcHelper, false, false, false, "helper"},
		{"the caller's loop looks normal", pcCmp, false, false, true, "cmp"},
	} {
		a := New(DefaultOptions())
		var normal, buggy []ev
		for range 40 { // main's own work: work is no driver frame
			addEv(&normal, []uint64{P(pcMain)})
			addEv(&buggy, []uint64{P(pcMain)})
		}
		for i := range 100 { // work's own loop, over a few items
			addEv(&normal, []uint64{P(pcWork), P(pcMain)}, val(0, vI, int64(i%5)), val(0, vFlag, int64(i%3)))
		}
		for i := range 90 { // the same loop, over many items when slow
			x := int64(i % 90)
			if c.loopNorm {
				x = int64(i % 5)
			}
			addEv(&buggy, []uint64{P(pcWork), P(pcMain)}, val(0, vI, x), val(0, vFlag, int64(7+i%3)))
		}
		stack := []uint64{P(c.leaf), P(pcWork), P(pcMain)}
		switch {
		case c.lib:
			stack = append([]uint64{L(pcMemcpy)}, stack...)
		case c.below:
			stack = append([]uint64{P(pcHelper)}, stack...)
		}
		for i := range 150 { // the callee, called on every item only when slow
			x := int64(i % 90)
			if c.loopNorm {
				x = int64(i % 5)
			}
			addEv(&buggy, stack, val(1, vI, x), val(1, vFlag, int64(7+i%3)))
		}
		feed(t, a, Normal, "n", normal)
		feed(t, a, Buggy, "b", buggy)
		res := a.Result()
		w := findFunc(t, res, "work")
		if got := names(res); got[0] != c.want {
			t.Errorf("%s: ranked %v, want %s first (work placed %q, r %g)", c.name, got, c.want, w.Placed, w.Discount)
		}
		if c.want == "work" {
			leaf := findFunc(t, res, "cmp")
			if !strings.Contains(w.Placed, "D74") || !strings.Contains(leaf.Placed, "D74") || leaf.Calibrated >= w.Calibrated {
				t.Errorf("%s: work placed %q (%g), cmp placed %q (%g): want the two swapped by D74", c.name, w.Placed, w.Calibrated, leaf.Placed, leaf.Calibrated)
			}
		}
	}
}
