package rank

import (
	"slices"
	"strings"
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

// TestSystemFile: system and compiler headers, not a program's own.
func TestSystemFile(t *testing.T) {
	if !systemFile("/usr/include/stdio.h") || systemFile("/src/include/app.h") || !systemFile("/opt/gcc/include/c++/13/vector") {
		t.Error("systemFile")
	}
}

// TestPLTStubNotRanked: a sample in the program's PLT stub of a library
// function (memcpy@plt, named since D290) is not the program's own code:
// the stub is not ranked, as the unnamed code it was before was not, and
// a program function is.
func TestPLTStubNotRanked(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ranked bool
	}{
		{"memcpy@plt", false},
		{"memcpy_plt", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := progSchema()
			s.Funcs = append(s.Funcs, model.Func{Name: tc.name, Display: tc.name, File: -1, Ranges: []model.PCRange{{Lo: 0x1300, Hi: 0x1310}}})
			a := New(DefaultOptions())
			feedWith(t, a, Buggy, "b", headerWith(s), []ev{
				{tid: 1, tick: 1, ms: 3, stack: []uint64{P(0x1304), P(pcWork)}},
				{tid: 1, tick: 2, stack: []uint64{P(pcWork)}},
			})
			res := a.Result()
			if ranked := slices.Contains(names(res), tc.name); ranked != tc.ranked {
				t.Fatalf("%s ranked %v, want %v (%v)", tc.name, ranked, tc.ranked, names(res))
			}
			if w := findFunc(t, res, "work"); !tc.ranked && (!near(w.PCCost, 4e-3) || len(w.Via) != 1 || w.Via[0].Func != tc.name) {
				t.Errorf("work: pc %g ms via %+v, want 4 ms via %s", w.PCCost*1e3, w.Via, tc.name)
			}
		})
	}
}

// TestHeaderHelperInlined: code of a system header inlined into a program
// function (std::find) is library code: its cost is the program
// function's, via it, and it is not ranked (D3). So is a helper of the
// program's own header that was inlined at every call (no out-of-line
// code), as the flat profile charges it (decision D17, issue 14 class 5:
// an inlined helper's row split its caller's cost); a header function
// with an out-of-line copy, or an inlined function of a .c file, keeps
// its row.
func TestHeaderHelperInlined(t *testing.T) {
	for _, tc := range []struct {
		name      string
		file      string
		outOfLine bool
		ranked    bool
	}{
		{"system header", "/usr/include/c++/12/bits/stl_algo.h", true, false},
		{"header, inlined everywhere", "/src/app/mem0mem.h", false, false},
		{"C++ header, inlined everywhere", "/src/app/dict.hpp", false, false},
		{"header, out-of-line copy too", "/src/app/mem0mem.h", true, true},
		{"source file, inlined everywhere", "/src/app/md4c.c", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := progSchema()
			s.Files = append(s.Files, tc.file)
			s.Funcs[fInl].File = 1
			s.Funcs[fInl].Ranges = nil
			if tc.outOfLine {
				s.Funcs[fInl].Ranges = []model.PCRange{{Lo: 0x1900, Hi: 0x1920}}
			}
			hdr := headerWith(s)
			a := New(DefaultOptions())
			feedWith(t, a, Buggy, "b", hdr, []ev{
				{tid: 1, tick: 1, ms: 3, stack: []uint64{P(pcWorkInl)}},
				{tid: 1, tick: 2, stack: []uint64{P(pcWork)}},
			})
			res := a.Result()
			ranked := slices.Contains(names(res), "inl")
			if ranked != tc.ranked {
				t.Fatalf("inl ranked %v, want %v (%v)", ranked, tc.ranked, names(res))
			}
			w := findFunc(t, res, "work")
			if !tc.ranked && (!near(w.PCCost, 4e-3) || len(w.Via) != 1 || w.Via[0].Func != "inl") {
				t.Errorf("work: pc %g ms via %+v, want 4 ms via inl", w.PCCost*1e3, w.Via)
			}
			if tc.ranked && !near(w.PCCost, 1e-3) {
				t.Errorf("work: pc %g ms, want 1 ms (inl keeps its 3)", w.PCCost*1e3)
			}
		})
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
		// Three samples a normal run of a loop index that goes further
		// when slow: two normal runs are at distance 1 by chance alone,
		// which is no evidence that runs differ (D16).
		{"three samples a run", func(k Kind, run, i int) int64 {
			if k == Normal {
				return int64((run*3 + i) * 997 % 3001)
			}
			return int64((run*20 + i) * 1499 % 30011)
		}, false},
	} {
		a := New(DefaultOptions())
		for _, k := range []Kind{Normal, Buggy} {
			for run := range 3 {
				var evs []ev
				n := 20
				if c.name == "three samples a run" && k == Normal {
					n = 3
				}
				for i := range n {
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
//
// With PatternTop 1 the two tie at rank 1 and both are top rows: the one
// listed second has its reason too (D228; before it, a row tied at the
// last top rank but listed past PatternTop had neither).
func TestTiesAndPatternReasons(t *testing.T) {
	for _, top := range []int{10, 1} {
		tiesAndPatternReasons(t, top)
	}
}

func tiesAndPatternReasons(t *testing.T, top int) {
	o := DefaultOptions()
	o.PatternTop = top
	a := New(o)
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
			t.Errorf("PatternTop %d: %s (rank %d): no pattern and no reason", top, f.Name, f.Rank)
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

// TestCallerDecides: a caller whose slow-run time is all one callee's, and
// whose own variable went wrong during it, takes the callee's place though
// the callee's evidence is stronger: it decided to make the call that costs
// (method.md §7, D10). A caller with time of its own beside the callee,
// or whose variables were read during only part of the callee's time,
// keeps its place.
func TestCallerDecides(t *testing.T) {
	for _, c := range []struct {
		name      string
		own       int // slow samples of work outside helper
		normalOwn int // normal samples of work outside helper
		readEvery int // work's flag is read at every readEvery-th helper sample
		want      string
	}{
		{"all of its time", 0, 0, 1, "work"},
		{"time of its own", 60, 0, 1, "helper"},
		// Work's own time is steady (as long in the normal run as in the
		// slow one): its extra time is all helper's, but work is still a
		// frame above other work, and D10 asks the share of time on the
		// stack (D321: the share of extra time, tried, gave handlers whose
		// other work is steady the places of the callees below them).
		{"time of its own, steady", 10, 10, 1, "helper"},
		{"evidence during half", 0, 0, 2, "helper"},
	} {
		a := New(DefaultOptions())
		var normal, buggy []ev
		inHelper := []uint64{P(pcHelper), P(pcWork), P(pcMain)}
		normal = workCallsHelper(40)
		for i := range c.normalOwn {
			addEv(&normal, []uint64{P(pcWork), P(pcMain)}, val(0, vFlag, int64(i%4)))
		}
		for i := range 150 {
			vals := []model.Value{val(0, vN, int64(100+i%5))} // r = 0
			if i%c.readEvery == 0 {
				vals = append(vals, val(1, vFlag, int64(i/c.readEvery%8))) // wider: 0 < r < 0.8
			}
			addEv(&buggy, inHelper, vals...)
		}
		for i := range c.own {
			addEv(&buggy, []uint64{P(pcWork), P(pcMain)}, val(0, vFlag, int64(i%8)))
		}
		for range 40 {
			addEv(&buggy, []uint64{P(pcMain)}) // main: the driver, work is not
		}
		feed(t, a, Normal, "n", normal)
		feed(t, a, Buggy, "b", buggy)
		res := a.Result()
		w, h := findFunc(t, res, "work"), findFunc(t, res, "helper")
		if w.Discount <= h.Discount || w.Discount >= DefaultOptions().DefaultDiscount {
			t.Fatalf("%s: work r %g, helper r %g: want helper's evidence stronger, work's below the default", c.name, w.Discount, h.Discount)
		}
		if got := res.Functions[0].Name; got != c.want {
			t.Errorf("%s: ranked %v, want %s first", c.name, names(res), c.want)
		}
		// The report says why a row's cost is not its own.
		if placed := w.Placed != "" && h.Placed != ""; placed != (c.want == "work") {
			t.Errorf("%s: work placed %q, helper placed %q", c.name, w.Placed, h.Placed)
		}
	}
}

// TestCallerDecidesTie: a caller and the callee that is all of its time,
// both with r = 0, have equal calibrated costs; the caller that decided
// ranks first and the callee right below it, so that no name decides
// between them ("helper" sorts before "work"; method.md §7, D13).
func TestCallerDecidesTie(t *testing.T) {
	a := New(DefaultOptions())
	var normal, buggy []ev
	inHelper := []uint64{P(pcHelper), P(pcWork), P(pcMain)}
	normal = workCallsHelper(40)
	for i := range 150 {
		addEv(&buggy, inHelper, val(0, vN, int64(100+i%5)), val(1, vFlag, int64(50+i%4)))
	}
	for range 40 {
		addEv(&buggy, []uint64{P(pcMain)})
	}
	feed(t, a, Normal, "n", normal)
	feed(t, a, Buggy, "b", buggy)
	res := a.Result()
	w, h := findFunc(t, res, "work"), findFunc(t, res, "helper")
	if w.Discount != 0 || h.Discount != 0 {
		t.Fatalf("work r %g, helper r %g: want both 0", w.Discount, h.Discount)
	}
	if got := names(res); len(got) < 2 || got[0] != "work" || got[1] != "helper" {
		t.Errorf("ranked %v, want work, then helper", got)
	}
	if w.Placed == "" || h.Placed == "" {
		t.Errorf("work placed %q, helper placed %q: want both said", w.Placed, h.Placed)
	}
	if w.Calibrated <= h.Calibrated || h.Calibrated < w.Calibrated*(1-1e-12) {
		t.Errorf("calibrated work %g, helper %g: want helper just below", w.Calibrated, h.Calibrated)
	}
}

// TestMergingCaller: a caller whose time holds two anomalous callees,
// neither under the other, each a quarter of its time or more, ranks just
// below the better of them, though its own variable went wrong too and its
// extra cost is their sum (method.md §7, D12). With one anomalous callee
// and time of its own it keeps its place.
func TestMergingCaller(t *testing.T) {
	for _, c := range []struct {
		name       string
		cmp, own   int // slow samples of work in cmp, in itself
		want       string
		workSecond bool
	}{
		{"two callees", 80, 0, "helper", true},
		{"one callee and its own time", 0, 80, "work", false},
	} {
		a := New(DefaultOptions())
		var normal, buggy []ev
		inHelper := []uint64{P(pcHelper), P(pcWork), P(pcMain)}
		inCmp := []uint64{P(pcCmp), P(pcWork), P(pcMain)}
		for i := range 20 {
			addEv(&normal, inHelper, val(0, vN, int64(i%5)), val(1, vFlag, int64(i%4)))
			addEv(&normal, inCmp, val(0, vG, int64(i%5)), val(1, vFlag, int64(i%4)))
			addEv(&normal, []uint64{P(pcWork), P(pcMain)}, val(0, vFlag, int64(i%4)))
			addEv(&normal, []uint64{P(pcMain)})
		}
		for i := range 90 {
			addEv(&buggy, inHelper, val(0, vN, int64(100+i%5)), val(1, vFlag, int64(50+i%4)))
		}
		for i := range c.cmp {
			addEv(&buggy, inCmp, val(0, vG, int64(100+i%5)), val(1, vFlag, int64(50+i%4)))
		}
		for i := range c.own {
			addEv(&buggy, []uint64{P(pcWork), P(pcMain)}, val(0, vFlag, int64(50+i%4)))
		}
		for range 40 {
			addEv(&buggy, []uint64{P(pcMain)})
		}
		feed(t, a, Normal, "n", normal)
		feed(t, a, Buggy, "b", buggy)
		res := a.Result()
		if w := findFunc(t, res, "work"); w.Discount != 0 {
			t.Fatalf("%s: work r %g, want 0 (its own variable went wrong)", c.name, w.Discount)
		}
		if got := res.Functions[0].Name; got != c.want {
			t.Errorf("%s: ranked %v, want %s first", c.name, names(res), c.want)
		}
		if c.workSecond && (len(res.Functions) < 2 || res.Functions[1].Name != "work") {
			t.Errorf("%s: ranked %v, want work right below helper", c.name, names(res))
		}
	}
}

// heldFor is the value at tick i of a variable that steps by one after
// holding each value for the ticks of durs, in turn.
func heldFor(durs []int, i int) int64 {
	var v int64
	for k := 0; ; k++ {
		d := durs[k%len(durs)]
		if i < d {
			return v
		}
		i -= d
		v++
	}
}

// TestPatternFromEvidence: the bug pattern reads the variables that give a
// function its discount, and the shape of their values, rather than the
// one that a name picks among them (method.md §8, D11).
func TestPatternFromEvidence(t *testing.T) {
	// The normal runs of the cases whose work runs only when slow: as
	// long as the slow ones, so that work's absence there is no chance
	// (D37).
	var mainOnly []ev
	for i := range 30 {
		mainOnly = append(mainOnly, ev{tid: 1, tick: uint64(i), stack: []uint64{P(pcMain)}})
	}
	cases := []struct {
		name           string
		normal, buggy  func(i int) []model.Value // values read in work at tick i
		nNormal, nSlow int
		threads        int    // slow-run threads (0: one)
		want, wantVar  string // pattern, a variable its reason names
	}{
		{
			// flag (cond) and i (loop) are both present only when slow, r
			// = 0: flag is v* by name, and rule 2 (a loop that goes
			// further) comes before rule 3.
			name:  "tied variables: rule order, not name",
			buggy: func(i int) []model.Value { return []model.Value{val(0, vFlag, int64(i%5)), val(0, vI, int64(i))} },
			nSlow: 30, want: PatternScalability, wantVar: "i",
		},
		{
			// D31: the loop runs in the slow runs only, and used (cond, a
			// static: state that outlives a call) keeps one value through
			// them: the same walk, repeated on state that does not change
			// (rule 2 before D31: a loop that goes further, scalability).
			name:  "a walk in the slow runs only, on state stuck",
			buggy: func(i int) []model.Value { return []model.Value{val(0, vUsed, 7), val(0, vI, int64(i))} },
			nSlow: 30, want: PatternMissing, wantVar: "i",
		},
		{
			// D31's bound: flag, a local, holds one value through the walk
			// (set after it, say): it is no state a call leaves for the
			// next, rule 2.
			name:  "a walk in the slow runs only, on a local stuck",
			buggy: func(i int) []model.Value { return []model.Value{val(0, vFlag, 7), val(0, vI, int64(i))} },
			nSlow: 30, want: PatternScalability, wantVar: "i",
		},
		{
			// D31's bound: used holds the value the normal runs read too
			// (the function ran there without the loop): nothing says the
			// walk repeats on stuck state, rule 2.
			name:    "a walk in the slow runs only, on state at its normal value",
			normal:  func(i int) []model.Value { return []model.Value{val(0, vUsed, 7)} },
			buggy:   func(i int) []model.Value { return []model.Value{val(0, vUsed, 7), val(0, vI, int64(i))} },
			nNormal: 60, nSlow: 30, want: PatternScalability, wantVar: "i",
		},
		{
			// D31's bound: used keeps one value through the normal runs
			// too, at another value: a setting (the size of the data, say),
			// not state that stopped moving: rule 2 (i and used tie at
			// r = 0, and rule 2 comes first).
			name:    "a walk in the slow runs only, on a setting that differs",
			normal:  func(i int) []model.Value { return []model.Value{val(0, vUsed, 3)} },
			buggy:   func(i int) []model.Value { return []model.Value{val(0, vUsed, 7), val(0, vI, int64(i))} },
			nNormal: 60, nSlow: 30, want: PatternScalability, wantVar: "i",
		},
		{
			// D31 with the normal runs' state moving: used changed there
			// (the function ran without the loop), and sticks at a value
			// of its own through the slow runs' walk.
			name:    "a walk in the slow runs only, on state that moved when normal",
			normal:  func(i int) []model.Value { return []model.Value{val(0, vUsed, int64(i%5))} },
			buggy:   func(i int) []model.Value { return []model.Value{val(0, vUsed, 7), val(0, vI, int64(i))} },
			nNormal: 60, nSlow: 30, want: PatternMissing, wantVar: "i",
		},
		{
			// D31's bound: the loop runs in the normal runs too, on state
			// stuck at another value: not D31 (the normal runs made the
			// walk), rule 3 on used, whose constant differs.
			name:    "a walk the normal runs made too, on state stuck",
			normal:  func(i int) []model.Value { return []model.Value{val(0, vUsed, 3), val(0, vI, int64(i%10))} },
			buggy:   func(i int) []model.Value { return []model.Value{val(0, vUsed, 7), val(0, vI, int64(i%100))} },
			nNormal: 60, nSlow: 200, want: PatternWrong, wantVar: "used",
		},
		{
			// flag holds each value 20 ticks instead of 2 (r = 0, duration)
			// while the loop variable i steps every tick as in the normal
			// runs: the loop runs longer, not slower.
			name:    "a condition held while the loop steps at its normal pace",
			normal:  func(i int) []model.Value { return []model.Value{val(0, vFlag, int64(i/2)), val(0, vI, int64(i%10))} },
			buggy:   func(i int) []model.Value { return []model.Value{val(0, vFlag, int64(i/20)), val(0, vI, int64(i%10))} },
			nNormal: 60, nSlow: 200, want: PatternScalability, wantVar: "i",
		},
		{
			// i, present only when slow, keeps each value 10 ticks: the
			// loop stays on one iteration.
			name:  "a loop variable held over ticks, slow runs only",
			buggy: func(i int) []model.Value { return []model.Value{val(0, vI, int64(i/10))} },
			nSlow: 50, want: PatternMissing, wantVar: "i",
		},
		{
			// Only the argument p differs; the condition flag looks normal.
			name: "an argument went wrong, the conditions look normal",
			normal: func(i int) []model.Value {
				return []model.Value{val(0, vFlag, int64(i%4)), ptr(0, vP, 0x9000, int64(i%4))}
			},
			buggy: func(i int) []model.Value {
				return []model.Value{val(0, vFlag, int64(i%4)), ptr(0, vP, 0x9000, 1000+int64(i%4))}
			},
			nNormal: 60, nSlow: 120, want: PatternMissing, wantVar: "p",
		},
		{
			// D53: the argument p holds each value 20 ticks instead of 2
			// (r = 0, duration; its values as in the normal runs) while
			// the loop variable i steps every tick as in the normal runs:
			// each call on a value runs longer, over more data (rule 6
			// before D53: missing constraint).
			name: "an argument held while the loop steps at its normal pace",
			normal: func(i int) []model.Value {
				return []model.Value{ptr(0, vP, 0x9000, int64(i/2%4)), val(0, vI, int64(i%10))}
			},
			buggy: func(i int) []model.Value {
				return []model.Value{ptr(0, vP, 0x9000, int64(i/20%4)), val(0, vI, int64(i%10))}
			},
			nNormal: 60, nSlow: 200, want: PatternScalability, wantVar: "p",
		},
		{
			// D53's bound: the same argument held longer in a function
			// with no loop, whose condition looks normal: rule 6, the same
			// work done more.
			name: "an argument held, no loop, the condition normal",
			normal: func(i int) []model.Value {
				return []model.Value{ptr(0, vP, 0x9000, int64(i/2%4)), val(0, vFlag, int64(i%4))}
			},
			buggy: func(i int) []model.Value {
				return []model.Value{ptr(0, vP, 0x9000, int64(i/20%4)), val(0, vFlag, int64(i%4))}
			},
			nNormal: 60, nSlow: 200, want: PatternMissing, wantVar: "p",
		},
		{
			// D227: the argument p went wrong (r = 0) and the condition
			// flag went wrong only in its durations (r between 0 and
			// DefaultDiscount: its values last 3 and 4 ticks where most
			// lasted 2), longer than normal, with no loop, and the
			// condition used looks normal: rule 1's missing constraint
			// for flag agrees with rule 6's for p (before D227: no rule,
			// flag was no normal condition).
			name: "an argument went wrong, a condition held a little longer, no loop",
			normal: func(i int) []model.Value {
				return []model.Value{val(0, vFlag, heldFor([]int{2, 2, 2, 3}, i)%4), val(0, vUsed, int64(i%3)), ptr(0, vP, 0x9000, int64(i%4))}
			},
			buggy: func(i int) []model.Value {
				return []model.Value{val(0, vFlag, heldFor([]int{3, 4, 3, 4}, i)%4), val(0, vUsed, int64(i%3)), ptr(0, vP, 0x9000, 1000+int64(i%4))}
			},
			nNormal: 120, nSlow: 240, want: PatternMissing, wantVar: "p",
		},
		{
			// D227's bound: the same with flag's values lasting shorter
			// than normal: the condition is decided otherwise (rule 3's
			// reading), which rule 6 does not read: no rule matches.
			name: "an argument went wrong, a condition held a little shorter, no loop",
			normal: func(i int) []model.Value {
				return []model.Value{val(0, vFlag, heldFor([]int{3, 4, 3, 4}, i)%4), val(0, vUsed, int64(i%3)), ptr(0, vP, 0x9000, int64(i%4))}
			},
			buggy: func(i int) []model.Value {
				return []model.Value{val(0, vFlag, heldFor([]int{2, 2, 2, 3}, i)%4), val(0, vUsed, int64(i%3)), ptr(0, vP, 0x9000, 1000+int64(i%4))}
			},
			nNormal: 120, nSlow: 240, want: "", wantVar: "p",
		},
		{
			// D32: the condition flag is read in the normal runs only
			// (absent when slow, r = DefaultDiscount): it says nothing
			// about how work decided in the slow runs, so rule 6 does not
			// read the same work done more (before D32: missing
			// constraint). No rule matches.
			name: "an argument went wrong, the condition never read when slow",
			normal: func(i int) []model.Value {
				return []model.Value{val(0, vFlag, int64(i%4)), ptr(0, vP, 0x9000, int64(i%4))}
			},
			buggy: func(i int) []model.Value {
				return []model.Value{ptr(0, vP, 0x9000, 1000+int64(i%4))}
			},
			nNormal: 60, nSlow: 120, want: "", wantVar: "p",
		},
		{
			// D14: flag changes every 2 ticks where it changed every 20:
			// its durations differ (r = 0) but are shorter, not "the same
			// for an abnormally long time". No loop steps at its normal
			// pace: rule 3 (before D14 rule 1 read a wait that should have
			// stopped).
			name:    "a condition whose values last shorter than normal",
			normal:  func(i int) []model.Value { return []model.Value{val(0, vFlag, int64(i/20))} },
			buggy:   func(i int) []model.Value { return []model.Value{val(0, vFlag, int64(i/2))} },
			nNormal: 200, nSlow: 200, want: PatternWrong, wantVar: "flag",
		},
		{
			// D14: flag keeps one value through each slow thread's run
			// (its one duration per thread is the run's span) where it
			// changed every 10 ticks: rule 3, the condition is decided on
			// a value stuck (before D14 rule 1: missing constraint).
			name:    "a condition that keeps one value through the slow run",
			normal:  func(i int) []model.Value { return []model.Value{val(0, vFlag, int64(i/10%6))} },
			buggy:   func(i int) []model.Value { return []model.Value{val(0, vFlag, 3)} },
			nNormal: 60, nSlow: 200, threads: 3, want: PatternWrong, wantVar: "flag",
		},
		{
			// D20: flag changes once in each slow thread's run (two
			// durations of 100 ticks per thread, each a piece of the run's
			// span) where it changed every 10 ticks. Both pieces are beyond
			// the normal range only because the run is long: not "the
			// same for an abnormally long time", rule 3 (before D20 rule
			// 1: missing constraint).
			name:    "a condition that changes once per slow run",
			normal:  func(i int) []model.Value { return []model.Value{val(0, vFlag, int64(i/10%6))} },
			buggy:   func(i int) []model.Value { return []model.Value{val(0, vFlag, 3+int64(i/100))} },
			nNormal: 60, nSlow: 200, threads: 3, want: PatternWrong, wantVar: "flag",
		},
		{
			// D20's bound: flag changes twice in each slow thread's run
			// (three durations of about 67 ticks per thread): its values
			// last longer than the normal runs' many times over, rule 1.
			name:    "a condition that changes twice per slow run",
			normal:  func(i int) []model.Value { return []model.Value{val(0, vFlag, int64(i/10%6))} },
			buggy:   func(i int) []model.Value { return []model.Value{val(0, vFlag, 3+int64(i/67))} },
			nNormal: 60, nSlow: 200, threads: 3, want: PatternMissing, wantVar: "flag",
		},
		{
			// D14: i steps every tick in the normal runs but for one
			// iteration held 100 ticks; in the slow runs every iteration
			// takes 100 ticks. No slow duration is beyond the normal
			// range, yet the iterations are longer (stochastic order): a
			// loop variable stays rule 1.
			name: "a loop whose iterations are longer, within the normal range",
			normal: func(i int) []model.Value {
				if i >= 50 && i < 150 {
					return []model.Value{val(0, vI, 50)}
				}
				return []model.Value{val(0, vI, int64(i))}
			},
			buggy:   func(i int) []model.Value { return []model.Value{val(0, vI, int64(i/100))} },
			nNormal: 250, nSlow: 400, want: PatternMissing, wantVar: "i",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := New(DefaultOptions())
			run := func(vals func(int) []model.Value, n, threads int) []ev {
				if vals == nil {
					return mainOnly
				}
				var evs []ev
				for tid := range max(threads, 1) {
					for i := range n {
						evs = append(evs, ev{tid: int32(tid + 1), tick: uint64(i), stack: []uint64{P(pcWork)}, vals: vals(i)})
					}
				}
				return evs
			}
			feed(t, a, Normal, "n", run(c.normal, c.nNormal, 1))
			feed(t, a, Buggy, "b", run(c.buggy, c.nSlow, c.threads))
			res := a.Result()
			w := findFunc(t, res, "work")
			if w.Pattern != c.want || !strings.Contains(w.PatternReason, c.wantVar+" ") {
				t.Errorf("work: pattern %q (%s), v* %s (%s, r %.2f); want %q from %s",
					w.Pattern, w.PatternReason, w.Variable, w.Dimension, w.Discount, c.want, c.wantVar)
			}
		})
	}
}

// TestPatternDecidedCall pins decision D15: a function that no rule of
// §8 classifies, whose argument went wrong and was read during all of the
// one callee that is all of its slow-run time, decided that call: a
// wrong constraint. One that also spends time of its own, or whose
// evidence covers half of the callee, is left unclassified.
func TestPatternDecidedCall(t *testing.T) {
	cases := []struct {
		name      string
		own       int // slow samples with work alone on the stack
		readEvery int // work's p is read at every readEvery-th helper sample
		want      string
		inReason  string
	}{
		{"all of its time in the callee", 0, 1, PatternWrong, "read during all of helper"},
		{"time of its own", 200, 1, "", "neither a loop nor a condition variable"},
		{"evidence during half of the callee", 0, 2, "", "neither a loop nor a condition variable"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := New(DefaultOptions())
			var n, b []ev
			for i := range 60 {
				addEv(&n, []uint64{P(pcWork), P(pcMain)}, ptr(0, vP, 0x9000, int64(i%4)))
				addEv(&n, []uint64{P(pcMain)})
			}
			// work's argument p points to other values; helper, called
			// only when slow, reads n (args).
			for i := range 200 {
				vals := []model.Value{val(0, vN, int64(i))}
				if i%c.readEvery == 0 {
					vals = append(vals, ptr(1, vP, 0x9000, 1000+int64(i%4)))
				}
				addEv(&b, []uint64{P(pcHelper), P(pcWork), P(pcMain)}, vals...)
			}
			for i := range c.own {
				addEv(&b, []uint64{P(pcWork), P(pcMain)}, ptr(0, vP, 0x9000, 1000+int64(i%4)))
			}
			for range 60 {
				addEv(&b, []uint64{P(pcMain)}) // main: the driver, work is not
			}
			feed(t, a, Normal, "n", n)
			feed(t, a, Buggy, "b", b)
			w := findFunc(t, a.Result(), "work")
			if w.Discount >= DefaultOptions().DefaultDiscount {
				t.Fatalf("work: r %g, want its argument's anomaly", w.Discount)
			}
			if w.Pattern != c.want || !strings.Contains(w.PatternReason, c.inReason) {
				t.Errorf("work: pattern %q (%s); want %q, reason with %q", w.Pattern, w.PatternReason, c.want, c.inReason)
			}
		})
	}
}

// addEv appends a sample of thread 1 at the next tick.
func addEv(evs *[]ev, stack []uint64, vals ...model.Value) {
	*evs = append(*evs, ev{tid: 1, tick: uint64(len(*evs)), stack: stack, vals: vals})
}

// workCallsHelper is n normal ticks in helper under work under main (n, flag
// values in their normal range) and n in main alone: the normal runs of the
// D10 tests.
func workCallsHelper(n int) []ev {
	var evs []ev
	inHelper := []uint64{P(pcHelper), P(pcWork), P(pcMain)}
	for i := range n {
		addEv(&evs, inHelper, val(0, vN, int64(i%5)), val(1, vFlag, int64(i%4)))
		addEv(&evs, []uint64{P(pcMain)})
	}
	return evs
}

// TestPatternClockSpacing pins decision D52: in a function that decided
// the call that is all of its slow-run time (rule 7, D15), a clock whose
// deltas or durations went wrong (a time read once before the call and
// held through it: deltas of 0 at every sample of a longer call) is not
// what the decision read: with its loop and condition variables normal or
// none, the call is made as in the normal runs, with nothing to skip it:
// missing constraint. The same values under a name that is no clock's (a
// count of events: its delta is its rate) keep D15's wrong constraint, and
// so does a clock whose function also has a condition gone wrong... which
// rule 3 classifies first.
//
// D285: the same function with a callee that has no variable verdict (as a
// callee in a file --component leaves out) decided no call D15 can read,
// and it has no loop or condition variable read in the slow runs: its
// clock alone reads missing constraint all the same. A count keeps no
// pattern, and so does a clock beside a condition gone wrong.
func TestPatternClockSpacing(t *testing.T) {
	cases := []struct {
		name, varName, typ string
		flagWrong          bool // work's condition flag goes wrong in the slow runs
		want, inReason     string
		// calleeBare: helper's variable is never read, so it has no
		// variable verdict (as a callee in a file that --component leaves
		// out): no call that work decided (D15), and D285 reads the clock.
		calleeBare bool
	}{
		{"a clock held through the call", "tp.time", "long int", false, PatternMissing, "only clock tp.time went wrong (", false},
		{"a clock by its type", "tp.at", "time_t", false, PatternMissing, "only clock tp.at went wrong", false},
		{"a clock's word inside a name", "last_now_ms", "long", false, PatternMissing, "only clock last_now_ms", false},
		{"a count, not a clock", "tp.total", "long int", false, PatternWrong, "read during all of helper", false},
		{"a word that only contains a clock's letters", "tp.times_seen", "long int", false, PatternWrong, "read during all of helper", false},
		{"a clock and a condition gone wrong", "tp.time", "long int", true, PatternWrong, "read during all of helper", false},
		{"a clock, the callee without a verdict", "tp.time", "long int", false, PatternMissing, "(D285)", true},
		{"a clock by its type, the callee without a verdict", "tp.at", "time_t", false, PatternMissing, "(D285)", true},
		{"a count, the callee without a verdict", "tp.total", "long int", false, "", "neither a loop nor a condition variable", true},
		{"a clock and a condition gone wrong, the callee without a verdict", "tp.time", "long int", true, "", "neither a loop nor a condition variable", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hdr := header()
			s := hdr[0].(*model.Object).Schema
			vT := int32(len(s.Vars))
			s.Vars = append(s.Vars, model.Var{Name: c.varName, Func: fWork, Line: 27, Type: c.typ, Kind: model.KindInt, Size: 8, Tags: model.TagArgs})
			a := New(DefaultOptions())
			// Normal: work calls helper briefly; its time, read at entry,
			// is a new second at every sample (deltas of 3 to 9).
			var n, b []ev
			clock := int64(1_700_000_000)
			for i := range 60 {
				clock += 3 + int64(i%7)
				vals := []model.Value{val(0, vN, int64(i%5)), val(1, vT, clock)}
				if c.calleeBare {
					vals = vals[1:]
				}
				if c.flagWrong {
					vals = append(vals, val(1, vFlag, int64(i%4)))
				}
				addEv(&n, []uint64{P(pcHelper), P(pcWork), P(pcMain)}, vals...)
				addEv(&n, []uint64{P(pcMain)})
			}
			// Slow: each call runs 20 ticks on one time value (deltas of
			// 0, then the next call's second).
			for i := range 200 {
				if i%20 == 0 {
					clock += 3 + int64(i/20%7)
				}
				vals := []model.Value{val(0, vN, int64(100+i%5)), val(1, vT, clock)}
				if c.calleeBare {
					vals = vals[1:]
				}
				if c.flagWrong {
					vals = append(vals, val(1, vFlag, int64(i%6))) // wider: 0 < r < 0.8
				}
				addEv(&b, []uint64{P(pcHelper), P(pcWork), P(pcMain)}, vals...)
			}
			for range 60 {
				addEv(&b, []uint64{P(pcMain)})
			}
			feedWith(t, a, Normal, "n", hdr, n)
			feedWith(t, a, Buggy, "b", hdr, b)
			w := findFunc(t, a.Result(), "work")
			if w.Discount >= DefaultOptions().DefaultDiscount {
				t.Fatalf("work: r %g, want its clock's anomaly", w.Discount)
			}
			if w.Pattern != c.want || !strings.Contains(w.PatternReason, c.inReason) {
				t.Errorf("work: pattern %q (%s); want %q, reason with %q", w.Pattern, w.PatternReason, c.want, c.inReason)
			}
		})
	}
}

// TestDriverOnlyWhenSlow: a function on every slow sample of its thread
// that never ran in the normal runs is a driver frame only when nothing
// around it ran there either (its thread left no normal samples, D9). When
// main, around it, ran in the normal runs, the thread ran without it: it
// covers the thread only when slow and is where the time went (D73); a
// small decision function whose whole slow time is the costly call it
// made is the shape (a flush that the wrong condition makes on every write).
func TestDriverOnlyWhenSlow(t *testing.T) {
	var normal, buggy, idle []ev
	for i := range 60 {
		normal = append(normal, ev{tid: 1, tick: uint64(i), stack: []uint64{P(pcWork), P(pcMain)}})
		idle = append(idle, ev{tid: 2, tick: uint64(i), stack: []uint64{P(pcCmp)}})
	}
	for i := range 120 {
		buggy = append(buggy, ev{tid: 1, tick: uint64(i), stack: []uint64{P(pcWork), P(pcHelper), P(pcMain)},
			vals: []model.Value{val(0, vI, int64(i%100))}})
	}
	for _, c := range []struct {
		name   string
		normal []ev
		driver bool
	}{
		{"main ran in the normal runs", normal, false},
		{"its thread left no normal samples", idle, true},
	} {
		a := New(DefaultOptions())
		feed(t, a, Normal, "n", c.normal)
		feed(t, a, Buggy, "b", buggy)
		a.Result()
		f := a.funcIdx[findKey(t, a, "helper")]
		if got := a.drivers()[f]; got != c.driver {
			t.Errorf("%s: helper a driver frame %v, want %v", c.name, got, c.driver)
		}
	}
}

func findKey(t *testing.T, a *Analyzer, display string) string {
	t.Helper()
	for _, f := range a.funcs {
		if f.display == display {
			return f.key
		}
	}
	t.Fatalf("no function %q", display)
	return ""
}
