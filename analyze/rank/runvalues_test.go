package rank

import (
	"strings"
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// TestCallerDescribingInput pins D70: a caller all of whose slow-run time
// is one callee takes the callee's place (D10) only when its evidence can
// mark the call, not the run: not when its anomalous values kept one value
// through each run, nor, when it was above other work in the normal runs,
// when they differ in what it held; it keeps D10's place on a variable
// present only when slow, on values held per call, and when its callee
// was its work in the normal runs too.
func TestCallerDescribingInput(t *testing.T) {
	for _, c := range []struct {
		name string
		// runConst: work's flag keeps one value through each run (3 when
		// normal, 53 when slow); else it changes at every call (0-3 when
		// normal, 50-53 when slow, or 0-3 in both with held).
		runConst bool
		// otherWork: in the normal runs work spends most of its time in
		// its own instructions, helper a fifth of it.
		otherWork bool
		// slowPath: work reads `used` only in the slow runs (present
		// only when slow) and flag looks as in the normal runs.
		slowPath bool
		// held: flag takes the normal values, each held through a call of
		// helper (its durations went wrong, many changes per run).
		held bool
		// noCallee: with otherWork, helper never ran under work in the
		// normal runs.
		noCallee bool
		want     string
	}{
		{name: "a value kept through each run", runConst: true, want: "helper"},
		{name: "a value kept through each run, above other work", runConst: true, otherWork: true, want: "helper"},
		{name: "values that differ, above other work", otherWork: true, want: "helper"},
		{name: "values that differ, the callee its work in both kinds", want: "work"},
		{name: "a path taken only when slow, above other work", otherWork: true, slowPath: true, want: "work"},
		{name: "values that differ, the callee never sampled under it in the normal runs", otherWork: true, noCallee: true, want: "helper"},
		{name: "values held per call, above other work", otherWork: true, held: true, want: "work"},
	} {
		s := progSchema()
		s.Vars[vN].Param = true
		hdr := headerWith(s)
		a := New(DefaultOptions())
		inHelper := []uint64{P(pcHelper), P(pcWork), P(pcMain)}
		flagOf := func(i int, slow bool) int64 {
			switch {
			case c.runConst && slow:
				return 53
			case c.runConst:
				return 3
			case c.slowPath || c.held || !slow:
				return int64(i % 4)
			}
			return 50 + int64(i%4)
		}
		var normal, buggy []ev
		for i := range 40 {
			f := val(1, vFlag, flagOf(i, false))
			if c.otherWork && (i%5 != 0 || c.noCallee) {
				addEv(&normal, []uint64{P(pcWork), P(pcMain)}, f)
				continue
			}
			// helper's arguments and walk: normal ones.
			addEv(&normal, inHelper, f, val(0, vN, int64(i%5)), val(0, vNode, int64(0x1000+(i%3)*64)))
		}
		for i := range 150 {
			f := val(1, vFlag, flagOf(i, true))
			if c.held {
				f = val(1, vFlag, int64(i/30%4))
			}
			// helper was given another n and walks nodes it never
			// walked in the normal runs: its loop went wrong.
			vals := []model.Value{f, val(0, vN, int64(100+i%5)), val(0, vNode, int64(0x9000+i*64))}
			if c.slowPath {
				vals = append(vals, val(1, vUsed, int64(i%7)))
			}
			addEv(&buggy, inHelper, vals...)
		}
		for range 40 {
			addEv(&buggy, []uint64{P(pcMain)})
		}
		feedWith(t, a, Normal, "n", hdr, normal)
		feedWith(t, a, Buggy, "b", hdr, buggy)
		res := a.Result()
		w, h := findFunc(t, res, "work"), findFunc(t, res, "helper")
		if w.Discount >= DefaultOptions().DefaultDiscount || h.Discount >= DefaultOptions().DefaultDiscount {
			t.Fatalf("%s: work r %g (%s), helper r %g: want both anomalous", c.name, w.Discount, w.Reason, h.Discount)
		}
		got := names(res)
		if got[0] != c.want {
			t.Errorf("%s: ranked %v, want %s first (work placed %q)", c.name, got, c.want, w.Placed)
		}
		if byD10 := strings.Contains(w.Placed, "D10"); byD10 != (c.want == "work") {
			t.Errorf("%s: work placed %q: want D10 %v", c.name, w.Placed, c.want == "work")
		}
	}
}
