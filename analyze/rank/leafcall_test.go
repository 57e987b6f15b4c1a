package rank

import (
	"strings"
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// TestLeafCaller: a callee that holds no variable, has no loop and calls
// nothing, run only in the slow runs (hist r = 0), inside a caller whose
// own loop went wrong: the caller takes the callee's place and the callee
// the caller's (method.md §7, D74), though the callee's cost alone is
// larger than the caller's calibrated cost. One with a program callee
// under it, one with a loop variable in its schema, and a caller whose loop
// looks normal (its evidence another variable's) leave the callee first.
// A callee whose time a library function carries is D123's (see
// TestLibraryCaller): the caller, its direct one, takes its place too.
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
		{"a library function carries its time (D123)", pcCmp, true, false, false, "work"},
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
			rule := "D74"
			if c.lib {
				rule = "D123"
			}
			leaf := findFunc(t, res, "cmp")
			if !strings.Contains(w.Placed, rule) || !strings.Contains(leaf.Placed, rule) || leaf.Calibrated >= w.Calibrated {
				t.Errorf("%s: work placed %q (%g), cmp placed %q (%g): want the two swapped by %s", c.name, w.Placed, w.Calibrated, leaf.Placed, leaf.Calibrated, rule)
			}
		}
	}
}

// TestLibraryCaller: a callee that holds no variable, has no loop and no
// program callee, whose time is a library function's (memcpy under it),
// run only in the slow runs (hist r = 0): its direct caller, whose own
// variables went wrong (a condition; its loop looks normal, so D74 would
// not apply), takes its place and it takes the caller's (method.md §7,
// D123). A callee that does half of its work in its own instructions, a
// caller whose variables look normal, and a direct caller that has no
// variable verdict (the caller that went wrong is one frame further out)
// leave the callee first.
func TestLibraryCaller(t *testing.T) {
	for _, c := range []struct {
		name     string
		ownHalf  bool // every second callee sample is in its own code
		flagNorm bool // the caller's condition looks as in the normal runs
		between  bool // helper (no variables sampled) runs between the caller and the callee
		want     string
	}{
		{"a wrapper of a library call", false, false, false, "work"},
		{"its own instructions do half of its work", true, false, false, "cmp"},
		{"the caller's variables look normal", false, true, false, "cmp"},
		{"its direct caller has no variable verdict", false, false, true, "cmp"},
	} {
		a := New(DefaultOptions())
		var normal, buggy []ev
		for range 40 { // main's own work: work is no driver frame
			addEv(&normal, []uint64{P(pcMain)})
			addEv(&buggy, []uint64{P(pcMain)})
		}
		for i := range 100 { // work's loop, as many items both times
			addEv(&normal, []uint64{P(pcWork), P(pcMain)}, val(0, vI, int64(i%5)), val(0, vFlag, int64(i%3)))
		}
		flag := func(i int) int64 {
			if c.flagNorm {
				return int64(i % 3)
			}
			return int64(7 + i%3)
		}
		for i := range 90 {
			addEv(&buggy, []uint64{P(pcWork), P(pcMain)}, val(0, vI, int64(i%5)), val(0, vFlag, flag(i)))
		}
		for i := range 150 { // the callee, a library call, only when slow
			stack := []uint64{P(pcCmp), P(pcWork), P(pcMain)}
			d := uint8(1)
			if c.between {
				stack, d = []uint64{P(pcCmp), P(pcHelper), P(pcWork), P(pcMain)}, 2
			}
			if !c.ownHalf || i%2 == 0 {
				stack = append([]uint64{L(pcMemcpy)}, stack...)
				d++
			}
			addEv(&buggy, stack, val(d, vI, int64(i%5)), val(d, vFlag, flag(i)))
		}
		feed(t, a, Normal, "n", normal)
		feed(t, a, Buggy, "b", buggy)
		res := a.Result()
		w := findFunc(t, res, "work")
		if got := names(res); got[0] != c.want {
			t.Errorf("%s: ranked %v, want %s first (work placed %q, r %g)", c.name, got, c.want, w.Placed, w.Discount)
			continue
		}
		leaf := findFunc(t, res, "cmp")
		swapped := strings.Contains(w.Placed, "D123") && strings.Contains(leaf.Placed, "D123")
		if swapped != (c.want == "work") {
			t.Errorf("%s: work placed %q, cmp placed %q: want D123 to apply: %v", c.name, w.Placed, leaf.Placed, c.want == "work")
		}
	}
}

// TestLibraryWalk: a function all of whose slow-run time is memcpy under
// it (method.md §8, D124), its loop as in the normal runs, with a
// condition whose slow values hold the normal range and reach above it
// (an end that grew): scalability, where rule 3 reads wrong constraint;
// the same with a number that is neither a loop's nor a condition's (an
// argument: no rule matched before); the same function whose time is its
// own instructions, and one whose condition moved away from the normal
// values (a flag set), keep rule 3.
func TestLibraryWalk(t *testing.T) {
	for _, c := range []struct {
		name string
		lib  bool // work's samples are in memcpy under it
		flag bool // the condition takes new values when slow (a setting: two of them)
		mode bool // ... and its normal values, half of the time
		arg  bool // the number is p's pointee (args), not flag (cond)
		two  bool // the normal values, then two new ones for good, in turn
		want string
	}{
		{"an argument that grew, the walk the library's", true, false, false, true, false, PatternScalability},
		{"an end that grew, the walk the library's", true, false, false, false, false, PatternScalability},
		{"an end that grew, the walk its own", false, false, false, false, false, PatternWrong},
		{"a flag set, the walk the library's", true, true, false, false, false, PatternWrong},
		{"a mode set half of the time, the walk the library's", true, true, true, false, false, PatternWrong},
		// Only the bound of three distinct values above the normal ones
		// tells this one from a number that grew.
		{"a setting moved twice, the walk the library's", true, false, false, false, true, PatternWrong},
	} {
		a := New(DefaultOptions())
		var normal, buggy []ev
		stack, d := []uint64{P(pcWork), P(pcMain)}, uint8(0)
		if c.lib {
			stack, d = []uint64{L(pcMemcpy), P(pcWork), P(pcMain)}, 1
		}
		for range 40 {
			addEv(&normal, []uint64{P(pcMain)})
			addEv(&buggy, []uint64{P(pcMain)})
		}
		num := func(x int64) model.Value {
			if c.arg {
				return ptr(d, vP, 0x5000, x)
			}
			return val(d, vFlag, x)
		}
		// With an argument, no loop variable is read: rule 6 (a loop that
		// looks normal) would read missing constraint, which D124 leaves.
		add := func(evs *[]ev, i int, x int64) {
			if c.arg {
				addEv(evs, stack, num(x))
			} else {
				addEv(evs, stack, val(d, vI, int64(i%5)), num(x))
			}
		}
		for i := range 100 {
			add(&normal, i, int64(10+i%10))
		}
		for i := range 300 {
			end := int64(10 + i%200) // the normal range, and beyond it
			if c.flag && (!c.mode || i%2 == 0) {
				end = int64(500 + i%4/2) // changes at every sample, as the normal values
				if !c.mode {
					end = int64(500 + i%2)
				}
			} else if c.mode {
				end = int64(10 + i%10)
			}
			if c.two {
				switch {
				case i < 200:
					end = int64(10 + i%10)
				case i < 250:
					end = 500
				default:
					end = 501
				}
			}
			add(&buggy, i, end)
		}
		feed(t, a, Normal, "n", normal)
		feed(t, a, Buggy, "b", buggy)
		res := a.Result()
		w := findFunc(t, res, "work")
		if w.Pattern != c.want || (c.want == PatternScalability) != strings.Contains(w.PatternReason, "D124") {
			t.Errorf("%s: pattern %q (%s), want %q", c.name, w.Pattern, w.PatternReason, c.want)
		}
	}
}

// TestInlinedLeaf: a function of a source file inlined at every call (no
// out-of-line code), with no loop and nothing under it, inside a function
// with a loop, takes most of the slow runs' time (a predicate in a walk's
// condition): the function it is inlined into takes its place and it takes
// that function's (method.md §7, D133), though neither's variables say
// more than the other's. One with a loop of its own, an out-of-line copy, a
// program function under it, or inlined into a function with no loop keeps
// its place.
func TestInlinedLeaf(t *testing.T) {
	for _, c := range []struct {
		name      string
		leafLoop  bool   // inl's variable x is tagged loop
		outOfLine bool   // inl has an out-of-line copy too
		below     bool   // helper runs under inl
		noLoop    bool   // work has no loop variable
		want      string // first row
		swap      bool   // work and inl swapped by D133
	}{
		{"an inlined leaf in a loop", false, false, false, false, "work", true},
		{"a loop of its own", true, false, false, false, "inl", false},
		{"an out-of-line copy", false, true, false, false, "inl", false},
		{"a program function runs under it", false, false, true, false, "inl", false},
		{"inlined into a function with no loop", false, false, false, true, "inl", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := progSchema()
			s.Vars[vX].Tags = model.TagCond
			if c.leafLoop {
				s.Vars[vX].Tags = model.TagLoop
			}
			if c.outOfLine {
				s.Funcs[fInl].Ranges = []model.PCRange{{Lo: 0x1900, Hi: 0x1920}}
			}
			if c.noLoop {
				for i := range s.Vars {
					if s.Vars[i].Func == fWork {
						s.Vars[i].Tags &^= model.TagLoop
					}
				}
			}
			hdr := headerWith(s)
			a := New(DefaultOptions())
			var normal, buggy []ev
			for range 40 { // main's own work
				addEv(&normal, []uint64{P(pcMain)})
				addEv(&buggy, []uint64{P(pcMain)})
			}
			stack := []uint64{P(pcWorkInl), P(pcMain)}
			var f uint8 // inl's frame
			if c.below {
				stack = append([]uint64{P(pcHelper)}, stack...)
				f = 1
			}
			// work's loop and the predicate inlined in it, over the
			// same items in both kinds; the slow runs walk longer.
			for i := range 60 {
				addEv(&normal, []uint64{P(pcWork), P(pcMain)}, val(0, vI, int64(i%7)))
				addEv(&normal, stack, val(f, vX, int64(i%5)))
			}
			for i := range 80 {
				addEv(&buggy, []uint64{P(pcWork), P(pcMain)}, val(0, vI, int64(i%7)))
			}
			for i := range 400 {
				addEv(&buggy, stack, val(f, vX, int64(i%5)))
			}
			feedWith(t, a, Normal, "n", hdr, normal)
			feedWith(t, a, Buggy, "b", hdr, buggy)
			res := a.Result()
			got := names(res)
			if got[0] != c.want {
				t.Fatalf("ranked %v, want %s first (work placed %q)", got, c.want, findFunc(t, res, "work").Placed)
			}
			w, leaf := findFunc(t, res, "work"), findFunc(t, res, "inl")
			swapped := strings.Contains(w.Placed, "D133") && strings.Contains(leaf.Placed, "D133")
			if swapped != c.swap {
				t.Errorf("work placed %q, inl placed %q: want D133 %v", w.Placed, leaf.Placed, c.swap)
			}
		})
	}
}

// TestLibraryArgs pins decision D189: a callee with no loop and no
// program callee, whose time is a library function's (memcpy under it)
// and whose only variables that went wrong are its parameters (what it
// was given), run only in the slow runs, with a direct caller whose own
// loop went wrong (it computed the arguments over more items): the caller
// takes its place and it takes the caller's, as D123 swaps. A caller
// whose loop looks normal (D145's case), and a callee whose local (no
// parameter) went wrong, leave the callee first.
func TestLibraryArgs(t *testing.T) {
	for _, c := range []struct {
		name     string
		loopNorm bool // the caller's loop variable is not read when slow; its condition went wrong
		local    bool // the callee's variable is a local, no parameter
		want     string
	}{
		{"a wrapper given its arguments by a loop that went wrong", false, false, "work"},
		{"the caller's loop did not go wrong, its condition did", true, false, "cmp"},
		{"the callee's local went wrong", false, true, "cmp"},
	} {
		s := progSchema()
		vSrc := int32(len(s.Vars))
		s.Vars = append(s.Vars, model.Var{Name: "src", Func: fCmp, Line: 40, Type: "long", Kind: model.KindInt, Size: 8, Param: !c.local, Tags: model.TagArgs})
		hdr := headerWith(s)
		a := New(DefaultOptions())
		var normal, buggy []ev
		for range 40 { // main's own work: work is no driver frame
			addEv(&normal, []uint64{P(pcMain)})
			addEv(&buggy, []uint64{P(pcMain)})
		}
		for i := range 100 { // work's loop, and a few short copies
			addEv(&normal, []uint64{P(pcWork), P(pcMain)}, val(0, vI, int64(i%5)), val(0, vFlag, int64(i%3)))
			if i%4 == 0 {
				addEv(&normal, []uint64{L(pcMemcpy), P(pcCmp), P(pcWork), P(pcMain)}, val(1, vSrc, int64(1000+i%7)), val(2, vI, int64(i%5)), val(2, vFlag, int64(i%3)))
			}
		}
		// work's own variables when slow: its loop over more items, or
		// (loopNorm) its condition only.
		own := func(d uint8, i int) []model.Value {
			if c.loopNorm {
				return []model.Value{val(d, vFlag, int64(7+i%3))}
			}
			return []model.Value{val(d, vI, int64(50+i)), val(d, vFlag, int64(i%3))}
		}
		for i := range 90 {
			addEv(&buggy, []uint64{P(pcWork), P(pcMain)}, own(0, i)...)
		}
		for i := range 200 { // the copies, far longer when slow
			addEv(&buggy, []uint64{L(pcMemcpy), P(pcCmp), P(pcWork), P(pcMain)}, append(own(2, i), val(1, vSrc, int64(90000+i*13)))...)
		}
		feedWith(t, a, Normal, "n", hdr, normal)
		feedWith(t, a, Buggy, "b", hdr, buggy)
		res := a.Result()
		w, leaf := findFunc(t, res, "work"), findFunc(t, res, "cmp")
		if leaf.Source != SourceVariable || leaf.Discount >= DefaultOptions().DefaultDiscount {
			t.Fatalf("%s: cmp's verdict %v r %g: want its variable's", c.name, leaf.Source, leaf.Discount)
		}
		if got := names(res); got[0] != c.want {
			t.Errorf("%s: ranked %v, want %s first (work placed %q, cmp placed %q)", c.name, got, c.want, w.Placed, leaf.Placed)
			continue
		}
		swapped := strings.Contains(w.Placed, "D189") && strings.Contains(leaf.Placed, "D189")
		if swapped != (c.want == "work") {
			t.Errorf("%s: work placed %q, cmp placed %q: want D189 to apply: %v", c.name, w.Placed, leaf.Placed, c.want == "work")
		}
	}
}

// TestLibraryRan: a wrapper of a library call whose only anomaly is that
// its local was present only when slow (it ran only then: a clock read
// at every turn of a loop that spins) compared no value, and swaps with
// its direct caller whose own variables went wrong, as D123's wrapper
// with no variable verdict does (D208). A wrapper whose local was
// compared with the normal runs' values and went wrong, and one whose
// caller looks normal, keep their places.
func TestLibraryRan(t *testing.T) {
	for _, c := range []struct {
		name       string
		compared   bool // cmp runs in the normal runs too, with other values
		callerNorm bool // work's variables look normal when slow
		want       string
	}{
		{"a wrapper that ran only when slow, under a caller that went wrong", false, false, "work"},
		{"the wrapper's local compared and wrong", true, false, "cmp"},
		{"the caller's variables look normal", false, true, "cmp"},
	} {
		s := progSchema()
		vRes := int32(len(s.Vars))
		s.Vars = append(s.Vars, model.Var{Name: "result", Func: fCmp, Line: 41, Type: "int", Kind: model.KindInt, Size: 4, Tags: model.TagCond})
		hdr := headerWith(s)
		a := New(DefaultOptions())
		var normal, buggy []ev
		for range 40 { // main's own work: work is no driver frame
			addEv(&normal, []uint64{P(pcMain)})
			addEv(&buggy, []uint64{P(pcMain)})
		}
		for i := range 100 {
			addEv(&normal, []uint64{P(pcWork), P(pcMain)}, val(0, vI, int64(i%5)), val(0, vFlag, int64(i%3)))
			if c.compared && i%4 == 0 {
				addEv(&normal, []uint64{L(pcMemcpy), P(pcCmp), P(pcWork), P(pcMain)}, val(1, vRes, int64(i%7)), val(2, vI, int64(i%5)), val(2, vFlag, int64(i%3)))
			}
		}
		own := func(d uint8, i int) []model.Value {
			if c.callerNorm {
				return []model.Value{val(d, vI, int64(i%5)), val(d, vFlag, int64(i%3))}
			}
			return []model.Value{val(d, vI, int64(i%5)), val(d, vFlag, int64(7+i%3))}
		}
		for i := range 90 {
			addEv(&buggy, []uint64{P(pcWork), P(pcMain)}, own(0, i)...)
		}
		for i := range 200 { // the library call at every turn, only when slow
			res := int64(0)
			if c.compared {
				res = int64(90000 + i*13)
			}
			addEv(&buggy, []uint64{L(pcMemcpy), P(pcCmp), P(pcWork), P(pcMain)}, append(own(2, i), val(1, vRes, res))...)
		}
		feedWith(t, a, Normal, "n", hdr, normal)
		feedWith(t, a, Buggy, "b", hdr, buggy)
		res := a.Result()
		w, leaf := findFunc(t, res, "work"), findFunc(t, res, "cmp")
		if leaf.Source != SourceVariable || leaf.Discount >= DefaultOptions().DefaultDiscount {
			t.Fatalf("%s: cmp's verdict %v r %g: want its variable's", c.name, leaf.Source, leaf.Discount)
		}
		if got := names(res); got[0] != c.want {
			t.Errorf("%s: ranked %v, want %s first (work placed %q, cmp placed %q)", c.name, got, c.want, w.Placed, leaf.Placed)
			continue
		}
		swapped := strings.Contains(w.Placed, "D208") && strings.Contains(leaf.Placed, "D208")
		if swapped != (c.want == "work") {
			t.Errorf("%s: work placed %q, cmp placed %q: want D208 to apply: %v", c.name, w.Placed, leaf.Placed, c.want == "work")
		}
	}
}

// TestLibraryWalkLoopDurations pins decision D226: a function all of
// whose slow-run time is memcpy under it, with an end that grew (D124's
// scalability), keeps D124's reading when its loop's cursor (a pointer:
// only its durations, the reads of one address, are compared) differs in
// its durations alone (each iteration spans the library calls made in
// it: 1-2 ticks when normal, 2-3 when slow), and loses it when a loop
// variable's values went wrong too (its own loop went further: not the
// library's walk).
func TestLibraryWalkLoopDurations(t *testing.T) {
	for _, c := range []struct {
		name     string
		further  bool // i, a loop variable, goes beyond its normal values when slow
		wantD124 bool
	}{
		{"the cursor's durations alone differ", false, true},
		{"a loop variable went further", true, false},
	} {
		a := New(DefaultOptions())
		var normal, buggy []ev
		stack := []uint64{L(pcMemcpy), P(pcWork), P(pcMain)}
		// main's samples keep the walk's share of each kind's samples
		// equal (D75 reads none of it).
		for range 40 {
			addEv(&normal, []uint64{P(pcMain)})
		}
		for range 120 {
			addEv(&buggy, []uint64{P(pcMain)})
		}
		step := func(evs *[]ev, k int, reads int, loop, end int64) {
			for range reads {
				vals := []model.Value{val(1, vWalk, 0x9000+int64(16*k)), val(1, vFlag, end)}
				if c.further {
					vals = append(vals, val(1, vI, loop))
				}
				addEv(evs, stack, vals...)
			}
		}
		for n, k := 0, 0; n < 100; k++ {
			reads := 1 + k%2 // iterations of 1 and 2 ticks
			step(&normal, k, reads, int64(k%5), int64(10+k%10))
			n += reads
		}
		for n, k := 0, 0; n < 300; k++ {
			reads := 2 + k%2 // 2 and 3 ticks: the library's walk is longer
			loop := int64(k % 5)
			if c.further {
				loop = int64(k % 50)
			}
			step(&buggy, k, reads, loop, int64(10+k%200))
			n += reads
		}
		feed(t, a, Normal, "n", normal)
		feed(t, a, Buggy, "b", buggy)
		res := a.Result()
		w := findFunc(t, res, "work")
		walk := findVar(t, res, "work", "<walk@26>")
		if walk.R >= a.opt.DefaultDiscount || walk.Dim != DimDuration {
			t.Errorf("%s: the cursor's r %.2f (%s, dim %v): want a duration verdict below DefaultDiscount", c.name, walk.R, walk.Reason, walk.Dim)
		}
		if got := strings.Contains(w.PatternReason, "D124"); got != c.wantD124 || w.Pattern == "" {
			t.Errorf("%s: pattern %q (%s); want D124: %v", c.name, w.Pattern, w.PatternReason, c.wantD124)
		}
	}
}
