package rank

import (
	"slices"
	"strings"
)

// A library call paid for a sibling's decision (method.md §7, decision
// D145). A callee with variables, no loop of its own, whose time on the
// stack is its own instructions and whose PC cost library functions carry
// for at least SoleCallee of it (a wrapper of memmove, sendmsg, write)
// does what the library routine does, once per call: how often it runs is
// decided in the loop of its direct caller, and when that loop's own
// variables look normal (no loop variable went wrong: it did not run over
// more items), the loop turned again on what another of its callees
// returned or left (a short read, a partial buffer consumed, a "not done"
// status: a decision paid after its function returned, by the next call
// its caller makes). The candidates are the caller's other direct
// callees whose variable verdict is below DefaultDiscount on a variable
// of their own (no global) tagged cond (a condition they tested went
// wrong, not only the data they saw); the one with the largest calibrated cost, below the wrapper's,
// takes the wrapper's place, and the wrapper takes its (just below it when
// they are equal), as D123's swap does. The direct caller is the program
// function right outside the wrapper for more than half of its time (the
// loop that makes most of its calls), no driver frame. It runs after
// D123, which gives a wrapper with no variable verdict to its caller.

// siblingDeciders applies D145 (see above) to res.Functions.
func (a *Analyzer) siblingDeciders(res *Result, drivers []bool) {
	fns := res.Functions
	c := &a.stk
	row := a.rowOf(fns)
	var pairs []placePair
	for id := range fns {
		S := &fns[id]
		if S.Source != SourceVariable || S.Calibrated <= 0 {
			continue
		}
		D, ok := a.libraryWrapper(S)
		if !ok {
			continue
		}
		for A, t := range c.directCallersOf(D) {
			if _, ok := row[int32(A)]; !ok || t <= c.on[D]/2 || A >= len(drivers) || drivers[A] || a.loopWrong[A] {
				continue
			}
			best := -1
			for R := range c.directCalleesOf(A) {
				ir, ok := row[int32(R)]
				if !ok || R == D || (R < len(drivers) && drivers[R]) {
					continue
				}
				f := &fns[ir]
				if f.Source != SourceVariable || f.Discount >= a.opt.DefaultDiscount || f.Calibrated <= 0 || f.Calibrated >= S.Calibrated || !condVerdict(res, f) {
					continue
				}
				if best < 0 || f.Calibrated > fns[best].Calibrated || (f.Calibrated == fns[best].Calibrated && ir < best) {
					best = ir
				}
			}
			if best >= 0 {
				pairs = append(pairs, placePair{best, id})
			}
		}
	}
	swapPlaces(fns, pairs,
		", a library call its caller made next, on what this function returned or left (D145)",
		"in the place of ", ", whose result decided that its caller call it again (D145)")
}

// condVerdict reports whether fn's variable verdict (v*) is one of its own
// variables (no global: a counter or setting of the whole program) tagged
// cond: what went wrong in it is a condition it tested on what it was
// given or computed.
func condVerdict(res *Result, fn *Function) bool {
	vv := vstarOf(res, fn.Vars)
	return vv != nil && !vv.Global && strings.Contains(vv.Tags, "cond")
}

// directCalleesOf returns, for function A, the seconds (summed over the
// slow runs, as on) that each program function was on the stack right
// inside it: its callees, inlined ones included.
func (c *stackCover) directCalleesOf(A int) map[int]float64 {
	out := map[int]float64{}
	for _, e := range c.lists {
		if i := slices.Index(e.funcs, int32(A)); i > 0 {
			out[int(e.funcs[i-1])] += e.w
		}
	}
	return out
}
