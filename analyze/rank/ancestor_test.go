package rank

import (
	"strings"
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// TestAncestorBelowPart: a caller whose loop runs over more items in the
// slow runs (its index reaches values the normal runs never reached, and
// takes theirs too) and whose time is split between two callees ranks
// just below the callee that holds the largest part of its extra time
// (method.md §7, D51). Its index differs at every sample by construction
// when the input is bigger, and its inclusive cost holds the callee's.
// A caller whose own values went wrong otherwise, whose time is one
// callee's (D10's piece of work), whose other part is its own
// instructions, or whose loop barely ran in the normal runs (its share of
// the time grew: the slowdown is made there) keeps its place.
func TestAncestorBelowPart(t *testing.T) {
	for _, c := range []struct {
		name  string
		index func(i int) int64 // work's loop index i in the slow runs
		cmp   int               // slow samples of work in cmp (its other callee)
		own   int               // ... in its own instructions
		items int               // normal samples of work in helper
		want  string
		nidx  func(i int) int64 // work's loop index in the normal runs; nil: i % 20
	}{
		{"more items, split between callees", func(i int) int64 { return int64(i % 100) }, 40, 0, 40, "helper", nil},
		{"values never seen when normal", func(i int) int64 { return int64(50 + i%10) }, 40, 0, 40, "work", nil},
		// D165: the index stays below the normal runs' largest (each call
		// of the loop went over fewer items), or one value per kind (what
		// the run was given).
		{"fewer items per call", func(i int) int64 { return int64(i % 5) }, 40, 0, 40, "helper", nil},
		{"fewer items, its own instructions", func(i int) int64 { return int64(i % 5) }, 0, 40, 40, "work", nil},
		{"one value per kind (the input)", func(int) int64 { return 7 }, 40, 0, 40, "helper", func(int) int64 { return 3 }},
		{"one callee", func(i int) int64 { return int64(i % 100) }, 0, 0, 40, "work", nil},
		{"its own instructions", func(i int) int64 { return int64(i % 100) }, 0, 40, 40, "work", nil},
		{"a loop that barely ran when normal", func(i int) int64 { return int64(i % 100) }, 40, 0, 8, "work", nil},
	} {
		a := New(DefaultOptions())
		var normal, buggy []ev
		nidx := c.nidx
		if nidx == nil {
			nidx = func(i int) int64 { return int64(i % 20) }
		}
		inHelper := []uint64{P(pcHelper), P(pcWork), P(pcMain)}
		inCmp := []uint64{P(pcCmp), P(pcWork), P(pcMain)}
		// Normal runs: the loop over fewer items; per item the same work
		// in helper, cmp and work itself as in the slow runs. main (the
		// driver) takes a third of the time in both kinds.
		for i := range c.items {
			addEv(&normal, inHelper, val(0, vN, int64(i%5)), val(1, vI, nidx(i)))
			if c.cmp > 0 && i%4 == 0 {
				addEv(&normal, inCmp, val(0, vG, int64(i/4%5)), val(1, vI, nidx(i)))
			}
			if c.own > 0 && i%4 == 0 {
				addEv(&normal, []uint64{P(pcWork), P(pcMain)}, val(0, vI, nidx(i)))
			}
		}
		for range 25 {
			addEv(&normal, []uint64{P(pcMain)})
		}
		for i := range 160 {
			addEv(&buggy, inHelper, val(0, vN, int64(i%5)), val(1, vI, c.index(i)))
		}
		for i := range c.cmp {
			addEv(&buggy, inCmp, val(0, vG, int64(i%5)), val(1, vI, c.index(i)))
		}
		for i := range c.own {
			addEv(&buggy, []uint64{P(pcWork), P(pcMain)}, val(0, vI, c.index(i)))
		}
		for range 100 {
			addEv(&buggy, []uint64{P(pcMain)})
		}
		feed(t, a, Normal, "n", normal)
		feed(t, a, Buggy, "b", buggy)
		res := a.Result()
		w, h := findFunc(t, res, "work"), findFunc(t, res, "helper")
		if w.Variable != "i" || w.Dimension != "value" || w.Discount >= DefaultOptions().DefaultDiscount || h.Discount < DefaultOptions().DefaultDiscount {
			t.Fatalf("%s: work r %g from %s (%s), helper r %g: want work's index wrong in value, helper normal", c.name, w.Discount, w.Variable, w.Dimension, h.Discount)
		}
		if got := res.Functions[0].Name; got != c.want {
			t.Errorf("%s: ranked %v, want %s first", c.name, names(res), c.want)
		}
		if c.want == "helper" && (res.Functions[1].Name != "work" || !strings.Contains(w.Placed, "D51")) {
			t.Errorf("%s: ranked %v, work placed %q: want work right below helper, said", c.name, names(res), w.Placed)
		}
		if c.want == "work" && strings.Contains(w.Placed, "D51") {
			t.Errorf("%s: work placed %q", c.name, w.Placed)
		}
	}
}

// TestClockAbovePart: a request hook with no loop of its own (no variable
// tagged loop in its schema), whose strongest evidence is the steps of a
// clock it holds (a request's time stamp: fewer requests per tick when
// the lookups below take longer), and whose share of the thread grew
// because one of its callees' calls grew, ranks just below that callee
// (method.md §7, D51 with D230). A frame with a loop of its own keeps
// ShareGrowth's reading (a loop that barely ran when normal is where the
// slowdown is made), and so does one whose steps are a counter's (what
// its own code advanced: D43's recovery_budget), not a clock's.
func TestClockAbovePart(t *testing.T) {
	const vStamp = 13
	for _, c := range []struct {
		name  string
		stamp string // name of work's variable with the steps
		loop  bool   // work keeps its loop variables in the schema
		want  string // first row
	}{
		{"a clock's steps, no loop", "request_time", false, "helper"},
		{"a clock's steps, a loop of its own", "request_time", true, "work"},
		{"a counter's steps, no loop", "served", false, "work"},
	} {
		s := progSchema()
		s.Vars = append(s.Vars, model.Var{Name: c.stamp, Func: fWork, Line: 27, Type: "long", Kind: model.KindInt, Size: 8, Tags: model.TagCond})
		if !c.loop {
			for i := range s.Vars {
				if s.Vars[i].Func == fWork {
					s.Vars[i].Tags &^= model.TagLoop
				}
			}
		}
		a := New(DefaultOptions())
		var normal, buggy []ev
		inHelper := []uint64{P(pcHelper), P(pcWork), P(pcMain)}
		inCmp := []uint64{P(pcCmp), P(pcWork), P(pcMain)}
		// Normal runs: the hook takes a fifth of the thread, the driver's
		// own work the rest; 40-60 requests between two ticks. Slow runs:
		// the lookup (helper, given what it is given when normal) takes
		// most of the thread, 4-6 requests between two ticks.
		var stamp int64
		for i := range 40 {
			stamp += int64(40 + i%21)
			addEv(&normal, inHelper, val(0, vN, int64(i%5)), val(1, vStamp, stamp))
			if i%4 == 0 {
				stamp += int64(40 + i%21)
				addEv(&normal, inCmp, val(1, vStamp, stamp))
			}
		}
		for range 200 {
			addEv(&normal, []uint64{P(pcMain)})
		}
		stamp = 0
		for i := range 160 {
			stamp += int64(4 + i%3)
			addEv(&buggy, inHelper, val(0, vN, int64(i%5)), val(1, vStamp, stamp))
			if i%8 == 0 {
				stamp += int64(4 + i%3)
				addEv(&buggy, inCmp, val(1, vStamp, stamp))
			}
		}
		for range 60 {
			addEv(&buggy, []uint64{P(pcMain)})
		}
		feedWith(t, a, Normal, "n", headerWith(s), normal)
		feedWith(t, a, Buggy, "b", headerWith(s), buggy)
		res := a.Result()
		w, h := findFunc(t, res, "work"), findFunc(t, res, "helper")
		if w.Variable != c.stamp || w.Dimension != "delta" || w.Discount >= DefaultOptions().DefaultDiscount || h.Discount < DefaultOptions().DefaultDiscount {
			t.Fatalf("%s: work r %g from %s (%s), helper r %g: want work's steps wrong in delta, helper normal", c.name, w.Discount, w.Variable, w.Dimension, h.Discount)
		}
		if got := res.Functions[0].Name; got != c.want {
			t.Errorf("%s: ranked %v, want %s first", c.name, names(res), c.want)
		}
		if c.want == "helper" && (res.Functions[1].Name != "work" || !strings.Contains(w.Placed, "D51")) {
			t.Errorf("%s: ranked %v, work placed %q: want work right below helper, said", c.name, names(res), w.Placed)
		}
		if c.want == "work" && strings.Contains(w.Placed, "D51") {
			t.Errorf("%s: work placed %q", c.name, w.Placed)
		}
	}
}
