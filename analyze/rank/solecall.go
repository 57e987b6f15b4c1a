package rank

import (
	"cmp"
	"math"
	"slices"
)

// A caller that D10 does not place first ranks just below its callee
// (method.md §7, decision D206). In D10's piece of work (callee D runs
// under caller A for SoleCallee of D's slow-run time on the stack, and D
// holds SoleCallee of A's) A's inclusive cost holds D's by construction:
// what A adds is its own instructions and its other callees, under 5% of
// its time, and the extra time of that 5% is what load stretches. Which
// of the two ranks first then turns on that remainder (overlap_sort's
// caller 1.172 s against its callee's 1.160 s in one trial, below it in
// the others). D10 says when the caller decided the call (its own
// variables went wrong and were read while the callee ran); a caller it
// does not place there (no such evidence, or one of D26, D43, D60, D70,
// D135, D160's exceptions) holds nothing the callee does not, and goes
// just below it. The callee must have its own evidence (a variable
// verdict below DefaultDiscount). Pairs that hold both ways (recursion:
// each on the stack under the other) are left alone: neither is the
// other's caller only.

// soleCallers applies D206 (see above) to fns, after D10 and the rules
// that place callers; placed holds the rows D10 put first.
func (a *Analyzer) soleCallers(fns []Function, drivers []bool, placed map[int]bool) {
	c := &a.stk
	type pair struct{ ia, id int }
	var ps []pair
	both := map[[2]int]bool{}
	for p := range a.rankedPairs(fns, drivers) {
		A, D := p.outer, p.inner
		if p.t < SoleCallee*c.on[D] || c.on[D] < PresentShare*c.on[A] || c.on[D] <= 0 {
			continue
		}
		both[[2]int{p.outerRow, p.innerRow}] = true
		fa, fd := &fns[p.outerRow], &fns[p.innerRow]
		if placed[p.outerRow] || a.loopWrong[A] || fa.Placed != "" || fd.Placed != "" || fd.Source != SourceVariable || fd.Discount >= a.opt.DefaultDiscount || fd.Discount > fa.Discount || fd.Calibrated <= 0 || fd.Calibrated < SoleCallee*fa.Calibrated {
			continue
		}
		ps = append(ps, pair{p.outerRow, p.innerRow})
	}
	// The innermost callee first, so that a chain of such callers ends
	// below its innermost frame.
	slices.SortFunc(ps, func(x, y pair) int {
		return cmp.Or(cmp.Compare(c.on[a.funcIdx[fns[x.id].Key]], c.on[a.funcIdx[fns[y.id].Key]]), cmp.Compare(x.id, y.id), cmp.Compare(x.ia, y.ia))
	})
	for _, p := range ps {
		if both[[2]int{p.id, p.ia}] {
			continue // recursion: each under the other
		}
		if hi := fns[p.id].Calibrated; fns[p.ia].Calibrated >= hi {
			fns[p.ia].Calibrated = math.Nextafter(hi, 0)
			fns[p.ia].Placed = "just below " + fns[p.id].Name + ", all of its time and run under it, which it did not decide to call (D206)"
		}
	}
}
