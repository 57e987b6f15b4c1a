package rank

import (
	"strings"
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// TestEchoingCaller: a caller all of whose time is one callee, whose only
// anomalies are how long its values were held (durations and deltas:
// each call of the callee takes longer), ranks below the callee when the
// callee's arguments look normal and its own loop went wrong (D43); a
// caller whose values went wrong, a callee given a different argument, or
// a callee with no loop keep D10's reading (the caller first).
func TestEchoingCaller(t *testing.T) {
	for _, c := range []struct {
		name                                    string
		callerValues, counter, paramWrong, loop bool
		want                                    string
	}{
		{"only held longer", false, false, false, true, "helper"},
		{"the caller's values went wrong", true, false, false, true, "work"},
		{"the caller's values not compared (a counter)", false, true, false, true, "work"},
		{"the callee was passed another value", false, false, true, true, "work"},
		{"no loop in the callee", false, false, false, false, "work"},
	} {
		// n is helper's parameter: what work passes it.
		s := progSchema()
		s.Vars[vN].Param = true
		if !c.loop {
			s.Vars[vNode].Tags = model.TagCond // the same walk, not a loop of helper's
		}
		hdr := headerWith(s)

		a := New(DefaultOptions())
		inHelper := []uint64{P(pcHelper), P(pcWork), P(pcMain)}
		var normal, buggy []ev
		// Normal runs: short calls, one sample each: work's flag is a new
		// call's value at every sample.
		for i := range 40 {
			flag := int64(i % 4)
			if c.counter {
				flag = int64(i)
			}
			addEv(&normal, inHelper, val(0, vN, int64(i%5)), val(1, vFlag, flag))
			addEv(&normal, []uint64{P(pcMain)})
		}
		// Slow runs: each call of helper is 30 samples long; flag takes
		// the same values, each held through a call; helper walks nodes it
		// never walked in the normal runs (its loop went wrong).
		for i := range 150 {
			flag, n := int64(i/30%4), int64(i%5)
			if c.counter {
				flag = int64(i / 30) // only grows: its values are not compared (D2)
			}
			if c.callerValues {
				flag += 50
			}
			if c.paramWrong {
				n += 100
			}
			addEv(&buggy, inHelper, val(0, vN, n), val(1, vFlag, flag), val(0, vNode, int64(0x1000+i*64)))
		}
		last := buggy[len(buggy)-1].vals[1] // flag as the last call left it
		for range 3 {                       // work's own instructions: 2% of its time
			addEv(&buggy, []uint64{P(pcWork), P(pcMain)}, last)
		}
		for range 40 {
			addEv(&buggy, []uint64{P(pcMain)})
		}
		feedWith(t, a, Normal, "n", hdr, normal)
		feedWith(t, a, Buggy, "b", hdr, buggy)
		res := a.Result()
		w, h := findFunc(t, res, "work"), findFunc(t, res, "helper")
		if w.Discount >= DefaultOptions().DefaultDiscount || h.Discount >= DefaultOptions().DefaultDiscount {
			t.Fatalf("%s: work r %g, helper r %g: want both anomalous", c.name, w.Discount, h.Discount)
		}
		if got := names(res); got[0] != c.want {
			t.Errorf("%s: ranked %v, want %s first (work placed %q)", c.name, got, c.want, w.Placed)
		}
		if c.want == "helper" && (res.Functions[1].Name != "work" || strings.Contains(w.Placed, "D10")) {
			t.Errorf("%s: ranked %v, work placed %q: want work second, not by D10", c.name, names(res), w.Placed)
		}
	}
}
