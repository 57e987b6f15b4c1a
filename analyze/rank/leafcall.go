package rank

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/vprof/vprof/runtime/model"
)

// A callee that holds nothing, repeats nothing and calls nothing
// (method.md §7, decision D74). A function with no variable verdict is
// judged by the hist-discounter (§6): one that ran only in the slow runs,
// or far more prominently there, gets r = 0, and all of its extra time
// counts. When that function has no loop of its own (no variable of it is
// tagged loop), and all of its time on the stack is its own instructions
// (no program function runs under it, no library function carries its
// cost), each call of it does a bounded piece of work: an accessor, a
// predicate, a type test behind a virtual call. How much of that work the
// slow runs did is how many times it was called, and nothing in it can
// have decided that. What decided is the loop that called it: a caller
// under which it runs (SoleCallee of its time on the stack), no driver
// frame, whose own loop went wrong (a loop variable with a verdict below
// DefaultDiscount: it repeated work it did not repeat in the normal
// runs). The caller takes the callee's calibrated cost if it is larger,
// and the callee takes the caller's (just below it when they are equal),
// as D10 places a caller that decided. Of several such callers (nested
// loops) the innermost, with the least time on the stack: the loop that
// makes the call. A callee with a loop of its own, with program callees
// or with library time (a flush or rebuild, a scan through memcmp) can do
// any amount of work per call, and keeps its place: its cost may be
// where the slowdown is made.

// leafCallers applies D74 (see above) to fns; it runs before D10, so that
// a caller that takes a leaf's place may pass it on to the caller that
// decided to call it.
func (a *Analyzer) leafCallers(fns []Function, drivers []bool) {
	c := &a.stk
	row := a.rowOf(fns)
	var pairs []placePair
	for id := range fns {
		fd := &fns[id]
		if fd.Source != SourceHist || fd.Discount >= a.opt.DefaultDiscount || fd.Calibrated <= 0 {
			continue
		}
		D := int(a.funcIdx[fd.Key])
		if D >= len(c.on) || c.on[D] <= 0 || a.hasLoop(D) {
			continue
		}
		if a.selfSlow(D) < SoleCallee*c.on[D] {
			continue // a program function runs under it
		}
		if libraryShare(fd) > 1-SoleCallee {
			continue // a library function carries its cost
		}
		best := -1
		for A, t := range c.callersOf(D) {
			ia, ok := row[int32(A)]
			if !ok || A >= len(drivers) || drivers[A] || fns[ia].Source != SourceVariable || !a.loopWrong[A] {
				continue
			}
			if t < SoleCallee*c.on[D] {
				continue
			}
			// The innermost caller; the name only makes the choice the
			// same from run to run.
			if best < 0 || cmp.Or(cmp.Compare(c.on[A], c.on[a.funcIdx[fns[best].Key]]), strings.Compare(fns[ia].Name, fns[best].Name)) < 0 {
				best = ia
			}
		}
		if best >= 0 {
			pairs = append(pairs, placePair{best, id})
		}
	}
	swapPlaces(fns, pairs,
		", which holds no variable, has no loop and calls nothing, and which its loop called (D74)",
		"in the place of its caller ", ", whose loop called it (D74)")
}

// hasLoop reports whether function f has a variable tagged loop in its
// schema, sampled or not.
func (a *Analyzer) hasLoop(f int) bool {
	for _, v := range a.funcs[f].locals {
		if a.vars[v].tags&model.TagLoop != 0 {
			return true
		}
	}
	return false
}

// callersOf returns, for function D, the seconds (summed over the slow
// runs, as on) that each program function was on the stack outside it.
func (c *stackCover) callersOf(D int) map[int]float64 {
	out := map[int]float64{}
	for _, e := range c.lists {
		i := slices.Index(e.funcs, int32(D))
		if i < 0 {
			continue
		}
		for _, f := range e.funcs[i+1:] {
			out[int(f)] += e.w
		}
	}
	return out
}

// An inlined leaf is the loop it is inlined into (method.md §7, decision
// D133). A function of the program's sources that the compiler inlined at
// every call (no out-of-line code: no symbol, no frame of its own), with
// no loop of its own (no variable of it tagged loop) and nothing under it
// (no program callee, library functions carrying at most 1 - SoleCallee
// of its PC cost), is a piece of the function it is inlined into: a
// predicate in a walk's condition, an accessor in a loop's body. Its
// samples are that function's iterations, split off only because the
// line table names another function for those instructions, and its
// variables (its parameters) hold the loop's current item. When the
// function it is inlined into (the program function right outside it on
// the stack for SoleCallee of its time), no driver frame, has a loop of
// its own, the two swap as D74's do: the loop takes the leaf's calibrated
// cost if it is larger, and the leaf takes the loop's (just below when
// equal). Unlike D74 nothing is asked of either's evidence: the leaf
// holds no evidence of its own, and the loop's is what it is. Header
// helpers have no row at all (D17); a source-file function with a loop,
// a callee or library time, or one whose enclosing function has no loop,
// keeps its place. It runs after D74 and before D10, so that D10 may
// hand the loop's place on to the caller that decided to run it.

// inlinedLeaves applies D133 (see above) to fns.
func (a *Analyzer) inlinedLeaves(fns []Function) {
	c := &a.stk
	row := a.rowOf(fns)
	var pairs []placePair
	for id := range fns {
		fd := &fns[id]
		if fd.Calibrated <= 0 {
			continue
		}
		D := int(a.funcIdx[fd.Key])
		if D >= len(c.on) || c.on[D] <= 0 || !a.funcs[D].inlineOnly || a.hasLoop(D) {
			continue
		}
		if a.selfSlow(D) < SoleCallee*c.on[D] || libraryShare(fd) > 1-SoleCallee {
			continue // a program function runs under it, or a library function carries it
		}
		best := -1
		for A, t := range c.directCallersOf(D) {
			ia, ok := row[int32(A)]
			if !ok || t < SoleCallee*c.on[D] || !a.hasLoop(A) {
				continue
			}
			best = ia
		}
		if best >= 0 {
			pairs = append(pairs, placePair{best, id})
		}
	}
	swapPlaces(fns, pairs,
		", inlined into its loop with no loop and no call of its own (D133)",
		"in the place of ", ", whose loop it is inlined into (D133)")
}

// A callee whose work is a library call (method.md §7, decision D123). A
// function with no variable verdict, no loop of its own and no program
// callee, whose PC cost library functions carry for at least SoleCallee
// of it (a wrapper of strlen, memchr, std::find or basic_string::find),
// does what the library routine does with the arguments it was given: how
// far the routine walks is decided where those arguments come from, and
// nothing of the wrapper could be compared to say otherwise. Unlike D74's
// leaf, its work per call is not bounded, so the loop that called it is
// not the place: its direct caller is, the program function right outside
// it on the stack for SoleCallee of its time, no driver frame, whose
// own variables went wrong (a variable verdict below DefaultDiscount).
// The two swap as D74's do. It runs after D10, so that the caller that
// computed the call keeps it: D10 has already handed that caller's own
// cost to the caller that decided to call it.
//
// A library call whose arguments a loop computed (decision D189): a
// wrapper with a variable verdict, every variable of which that went
// wrong is a parameter of it (or a field behind one), says only that it
// was given other arguments; when its direct caller's own loop went
// wrong, that loop computed them over other items, and the two swap as
// above. A caller whose loop looks normal is D145's case.
//
// A library call that says only that it ran (decision D208): a wrapper
// every variable of which that went wrong did so by presence (present
// only when slow, rare when normal: D60's anomalyPresence) compared no
// value; what its verdict says is what the hist-discounter says of a
// function with none (it ran, or ran far more, in the slow runs), so it
// swaps with its direct caller as D123's wrapper with no variable verdict
// does. A clock read (clock_gettime through the vDSO) made at every turn
// of a loop that spins is the typical case: its result variable is
// present only because the slow runs called it.

// libraryCallers applies D123, D189 and D208 (see above) to res.Functions.
func (a *Analyzer) libraryCallers(res *Result, drivers []bool) {
	fns := res.Functions
	c := &a.stk
	row := a.rowOf(fns)
	var pairs, argPairs, ranPairs []placePair
	for id := range fns {
		fd := &fns[id]
		if fd.Discount >= a.opt.DefaultDiscount || fd.Calibrated <= 0 {
			continue
		}
		// A wrapper with a variable verdict whose anomalies are all its
		// arguments (D189) was given them too: its caller qualifies
		// only where its own loop went wrong (it computed them).
		given := fd.Source == SourceVariable && a.givenOnly(res, fd)
		D, ok := a.libraryWrapper(fd)
		if !ok {
			continue
		}
		// A wrapper whose anomalies are all of presence (D208) compared
		// nothing: it is read as one with no variable verdict.
		ran := fd.Source == SourceVariable && !given && a.presenceOnly[D]
		if fd.Source != SourceHist && !given && !ran {
			continue
		}
		// Its direct caller: the program function right outside it on
		// the stack for SoleCallee of its time.
		best := -1
		for A, t := range c.directCallersOf(D) {
			ia, ok := row[int32(A)]
			if !ok || t < SoleCallee*c.on[D] || A >= len(drivers) || drivers[A] || fns[ia].Source != SourceVariable || fns[ia].Discount >= a.opt.DefaultDiscount || (given && !a.loopWrong[A]) {
				continue
			}
			best = ia
		}
		if best >= 0 && given {
			argPairs = append(argPairs, placePair{best, id})
		} else if best >= 0 && ran {
			ranPairs = append(ranPairs, placePair{best, id})
		} else if best >= 0 {
			pairs = append(pairs, placePair{best, id})
		}
	}
	swapPlaces(fns, pairs,
		", which holds no variable and whose time is a library call it made with what this function gave it (D123)",
		"in the place of its caller ", ", which made the library call that is its time (D123)")
	swapPlaces(fns, ranPairs,
		", whose variables say only that it ran when slow and whose time is a library call it made with what this function gave it (D208)",
		"in the place of its caller ", ", which made the library call that is its time; its own variables say only that it ran (D208)")
	swapPlaces(fns, argPairs,
		", whose time is a library call it made with arguments that this function computed in a loop that went wrong (D189)",
		"in the place of its caller ", ", whose loop computed the arguments of the library call that is its time (D189)")
}

// givenOnly reports whether every variable of fn that went wrong (a
// verdict below DefaultDiscount) is a parameter of it or a field behind
// one: what its caller passed (false when none went wrong; D189).
func (a *Analyzer) givenOnly(res *Result, fn *Function) bool {
	n := 0
	for vv := range a.wrongVars(res, fn) {
		if !a.vars[vv.Var].param {
			return false
		}
		n++
	}
	return n > 0
}

// libraryWrapper reports whether fn is a wrapper of a library call (D123,
// D145): on the stack in the slow runs, with no loop, its time there its
// own instructions (no program function under it), and library functions
// carrying at least SoleCallee of its PC cost. D is fn's index in a.funcs.
func (a *Analyzer) libraryWrapper(fn *Function) (D int, ok bool) {
	c := &a.stk
	D = int(a.funcIdx[fn.Key])
	if D >= len(c.on) || c.on[D] <= 0 || a.hasLoop(D) || a.selfSlow(D) < SoleCallee*c.on[D] {
		return D, false
	}
	return D, libraryShare(fn) >= SoleCallee // else its own instructions do part of the work
}

// libraryShare is the share of fn's PC cost that library functions
// carried in the slow runs.
func libraryShare(fn *Function) float64 {
	var lib float64
	for _, v := range fn.Via {
		lib += v.Share
	}
	return lib
}

// directCallersOf returns, for function D, the seconds (summed over the
// slow runs, as on) that each program function was on the stack right
// outside it: its caller, inlined callers included.
func (c *stackCover) directCallersOf(D int) map[int]float64 {
	out := map[int]float64{}
	for _, e := range c.lists {
		if i := slices.Index(e.funcs, int32(D)); i >= 0 && i+1 < len(e.funcs) {
			out[int(e.funcs[i+1])] += e.w
		}
	}
	return out
}

// rowOf maps each function index of the analysis to its row in fns.
func (a *Analyzer) rowOf(fns []Function) map[int32]int {
	row := make(map[int32]int, len(fns))
	for i := range fns {
		row[a.funcIdx[fns[i].Key]] = i
	}
	return row
}

// placePair is a swap of places: ia (the caller or the enclosing loop)
// takes the place of id (the callee) and id takes ia's.
type placePair struct{ ia, id int }

// swapPlaces makes the swaps of D74, D123 and D133, the costliest callee
// first (a caller of several takes the largest cost): the caller takes
// the callee's calibrated cost if it is larger, and the callee takes the
// caller's, just below it when the two are equal. A pair whose caller
// already ranks above is left. The callee's Placed is calleeWas + the
// caller's name + calleeWhy; the caller's, "in the place of " + the
// callee's name + callerWhy.
func swapPlaces(fns []Function, pairs []placePair, callerWhy, calleeWas, calleeWhy string) {
	slices.SortFunc(pairs, func(x, y placePair) int {
		return cmp.Or(cmp.Compare(fns[y.id].Calibrated, fns[x.id].Calibrated), cmp.Compare(x.id, y.id))
	})
	for _, p := range pairs {
		hi, lo := fns[p.id].Calibrated, fns[p.ia].Calibrated
		if hi < lo || hi <= 0 {
			continue // the caller already ranks above
		}
		if lo == hi {
			lo = math.Nextafter(hi, 0)
		}
		fns[p.ia].Calibrated, fns[p.id].Calibrated = hi, lo
		fns[p.ia].Placed = "in the place of " + fns[p.id].Name + callerWhy
		fns[p.id].Placed = calleeWas + fns[p.ia].Name + calleeWhy
	}
}
