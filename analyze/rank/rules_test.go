package rank

import (
	"slices"
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// TestDriverFrame: a function on the stack of every sample of its thread
// (main, a thread's start routine, an event loop) whose variable differs
// by construction (a cursor that advances as slowly as the work below it)
// is charged its own instructions only; without the rule its
// variable-based cost, every sample, would rank it above the root cause
// (method.md §4, D5).
func TestDriverFrame(t *testing.T) {
	a := New(DefaultOptions())
	var normal, buggy []ev
	for i := range 60 {
		normal = append(normal, ev{tid: 1, tick: uint64(i), stack: []uint64{P(pcWork), P(pcMain)},
			vals: []model.Value{val(0, vI, int64(i%10)), val(1, vStart, int64(i%3))}})
	}
	for i := range 120 {
		buggy = append(buggy, ev{tid: 1, tick: uint64(i), stack: []uint64{P(pcWork), P(pcMain)},
			vals: []model.Value{val(0, vI, int64(i%100)), val(1, vStart, int64(i/40))}})
	}
	feed(t, a, Normal, "n", normal)
	feed(t, a, Buggy, "b", buggy)
	res := a.Result()
	if len(res.Functions) == 0 || res.Functions[0].Name != "work" {
		t.Fatalf("ranked %v, want work first", names(res))
	}
	if w := res.Functions[0]; !near(w.Raw, 120e-3) || !near(w.Extra, 60e-3) {
		t.Errorf("work raw %g ms extra %g ms, want 120 and 60", w.Raw*1e3, w.Extra*1e3)
	}
	for _, f := range res.Functions {
		if f.Name == "main" {
			t.Errorf("main ranked with raw %g ms: a driver frame's cost is its own instructions (none)", f.Raw*1e3)
		}
	}
	// With samples of its thread outside main (more than 1%), main is no
	// driver: its variable-based cost counts.
	a = New(DefaultOptions())
	feed(t, a, Normal, "n", normal)
	for i := range 10 {
		buggy = append(buggy, ev{tid: 1, tick: uint64(200 + i), stack: []uint64{P(pcHelper)}})
	}
	feed(t, a, Buggy, "b", buggy)
	if m := findFunc(t, a.Result(), "main"); !near(m.Raw, 120e-3) {
		t.Errorf("main (no driver) raw %g ms, want 120", m.Raw*1e3)
	}
	// On every sample of its thread in the buggy runs but on half of them
	// in the normal runs, main is no driver either (D9): the bug made it
	// cover its thread, the program's structure does not.
	a = New(DefaultOptions())
	half := slices.Clone(normal)
	for i := range 60 {
		half = append(half, ev{tid: 1, tick: uint64(100 + i), stack: []uint64{P(pcHelper)}})
	}
	feed(t, a, Normal, "n", half)
	feed(t, a, Buggy, "b", buggy[:120])
	if m := findFunc(t, a.Result(), "main"); !near(m.Raw, 120e-3) {
		t.Errorf("main, on every slow sample but half the normal ones: raw %g ms, want 120 (no driver)", m.Raw*1e3)
	}
}

// TestCounter: a value that only grows (a statistics counter, a clock)
// is compared by its deltas, not by value: a longer run makes it larger by
// construction.
func TestCounter(t *testing.T) {
	a := New(DefaultOptions())
	var normal, buggy []ev
	for i := range 50 {
		normal = append(normal, ev{tid: 1, tick: uint64(i), stack: []uint64{P(pcHelper)}, vals: []model.Value{val(0, vG, int64(2*i))}})
	}
	for i := range 200 {
		buggy = append(buggy, ev{tid: 1, tick: uint64(i), stack: []uint64{P(pcHelper)}, vals: []model.Value{val(0, vG, int64(2*i))}})
	}
	feed(t, a, Normal, "n", normal)
	feed(t, a, Buggy, "b", buggy)
	res := a.Result()
	for _, vv := range res.Variables {
		if vv.Name != "g" {
			continue
		}
		for _, d := range vv.Dims {
			if d.Dim == DimValue && (d.OK || d.Reason != ReasonCounter) {
				t.Errorf("g value dimension: %+v, want no verdict, %q", d, ReasonCounter)
			}
		}
		if vv.R < DefaultOptions().DefaultDiscount {
			t.Errorf("g: r %g (%s %s), want no evidence: the rate is the same", vv.R, vv.Dim, vv.Reason)
		}
		return
	}
	t.Fatal("no verdict on g")
}

// TestSystemHeaderInlined: code of a system header inlined into a program
// function (std::find) is library code: its cost is the program
// function's, via it, and it is not ranked.
func TestSystemHeaderInlined(t *testing.T) {
	s := progSchema()
	s.Files = append(s.Files, "/usr/include/c++/12/bits/stl_algo.h")
	s.Funcs[fInl].File = 1
	hdr := header()
	hdr[0] = &model.Object{ID: 0, Path: "/bin/prog", BuildID: "b1", Program: true, Schema: s}
	a := New(DefaultOptions())
	feedWith(t, a, Buggy, "b", hdr, []ev{
		{tid: 1, tick: 1, ms: 3, stack: []uint64{P(pcWorkInl)}},
		{tid: 1, tick: 2, stack: []uint64{P(pcWork)}},
	})
	res := a.Result()
	for _, f := range res.Functions {
		if f.Name == "inl" {
			t.Errorf("inl (a system header's) is ranked")
		}
	}
	w := findFunc(t, res, "work")
	if !near(w.PCCost, 4e-3) || len(w.Via) != 1 || w.Via[0].Func != "inl" {
		t.Errorf("work: pc %g ms via %+v, want 4 ms via inl", w.PCCost*1e3, w.Via)
	}
	if !systemFile("/usr/include/stdio.h") || systemFile("/src/include/app.h") || !systemFile("/opt/gcc/include/c++/13/vector") {
		t.Error("systemFile")
	}
}

func names(res *Result) []string {
	var out []string
	for _, f := range res.Functions {
		out = append(out, f.Name)
	}
	return out
}

// TestRunNoise: a value that differs from run to run within each kind (a
// value left on the stack, address bits) as much as between the kinds
// carries no verdict; one whose kinds differ beyond their runs' spread
// keeps it (method.md §5).
func TestRunNoise(t *testing.T) {
	for _, c := range []struct {
		name  string
		value func(kind Kind, run, i int) int64
		noise bool
	}{
		{"garbage per run", func(k Kind, run, i int) int64 { return int64(1000*run+7*int(k)) + int64(i%2) }, true},
		{"kinds apart", func(k Kind, run, i int) int64 { return int64(100*int(k)) + int64(run%2) + int64(i%3) }, false},
	} {
		a := New(DefaultOptions())
		for _, k := range []Kind{Normal, Buggy} {
			for run := range 3 {
				var evs []ev
				for i := range 20 {
					evs = append(evs, ev{tid: 1, tick: uint64(i), stack: []uint64{P(pcWork)},
						vals: []model.Value{val(0, vFlag, c.value(k, run+3*int(k), i))}})
				}
				feed(t, a, k, k.String()+string(rune('0'+run)), evs)
			}
		}
		res := a.Result()
		for _, vv := range res.Variables {
			if vv.Name != "flag" {
				continue
			}
			for _, d := range vv.Dims {
				if d.Dim == DimValue && (d.Reason == ReasonRunNoise) != c.noise {
					t.Errorf("%s: value dimension %s (within %.2f, between %.2f), want run noise %v", c.name, d.Reason, d.Within, d.Hellinger, c.noise)
				}
			}
		}
	}
}

// TestTiesAndPatternReasons: functions equal on every ranking key share a
// rank, whatever their names; every top row says which pattern rule
// matched or why none did.
func TestTiesAndPatternReasons(t *testing.T) {
	a := New(DefaultOptions())
	var buggy []ev
	for i := range 4 {
		// cmp and helper: the same cost, no variables.
		buggy = append(buggy, ev{tid: 1, tick: uint64(2 * i), stack: []uint64{P(pcCmp)}},
			ev{tid: 1, tick: uint64(2*i + 1), stack: []uint64{P(pcHelper)}})
	}
	feed(t, a, Normal, "n", []ev{{tid: 1, tick: 1, stack: []uint64{P(pcMain)}}})
	feed(t, a, Buggy, "b", buggy)
	res := a.Result()
	c, h := findFunc(t, res, "cmp"), findFunc(t, res, "helper")
	if c.Rank != h.Rank || !c.Tie || !h.Tie {
		t.Errorf("cmp rank %d tie %v, helper rank %d tie %v: want one rank, both ties", c.Rank, c.Tie, h.Rank, h.Tie)
	}
	for _, f := range res.Functions {
		if f.Pattern == "" && f.PatternReason == "" {
			t.Errorf("%s: no pattern and no reason", f.Name)
		}
	}
}

// TestNewCostWeight: of two functions with about the same extra cost in
// the slow runs and the same discount, the one whose slow-run cost is
// mostly new (cheap in the normal runs) ranks above the one that grew with
// its normal work (method.md §7, D8), though its extra cost is smaller.
func TestNewCostWeight(t *testing.T) {
	a := New(DefaultOptions())
	var normal, buggy []ev
	// work: 100 -> 150 ms (50 more, a third of it new); helper: 5 -> 50
	// ms (45 more, nine tenths new); both with a variable whose values
	// differ (r = 0).
	add := func(evs *[]ev, pc uint64, v int32, base int64, n int) {
		for i := range n {
			*evs = append(*evs, ev{tid: 1, tick: uint64(len(*evs)), stack: []uint64{P(pc)},
				vals: []model.Value{val(0, v, base+int64(i%7))}})
		}
	}
	add(&normal, pcWork, vI, 0, 100)
	add(&normal, pcHelper, vN, 0, 5)
	add(&buggy, pcWork, vI, 1000, 150)
	add(&buggy, pcHelper, vN, 1000, 50)
	feed(t, a, Normal, "n", normal)
	feed(t, a, Buggy, "b", buggy)
	res := a.Result()
	w, h := findFunc(t, res, "work"), findFunc(t, res, "helper")
	if w.Extra <= h.Extra || w.Discount != h.Discount || h.Rank >= w.Rank {
		t.Errorf("helper rank %d (extra %g, r %g), work rank %d (extra %g, r %g): want helper above",
			h.Rank, h.Extra, h.Discount, w.Rank, w.Extra, w.Discount)
	}
}
