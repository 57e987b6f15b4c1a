package rank

import (
	"cmp"
	"math"
	"slices"

	"github.com/vprof/vprof/runtime/model"
)

// A dispatcher above several walks (method.md §7, decision D204). A
// request handler, a command dispatcher, a feeder between the driver and
// the work, runs once per request: the loop that repeats it is outside
// it, and its own variables are what each request brings (its size, its
// kind, the client). When the slow runs' requests differ, they differ in
// every such frame by construction, and with inclusive cost each of them
// holds the extra time of everything below. A root cause that is a
// caller differs in what it repeats: its loop is its own (a loop
// variable of its own that went wrong), and that loop calls the work too
// often. So a frame A is placed below the walks under it when:
//   - A is no driver frame, ran in the normal runs too, and none of its
//     strongest evidence (the verdicts at its discount) is a repetition
//     of its own that went wrong (strongestLoop): a loop variable that
//     went wrong in value or delta and whose values went beyond the
//     normal runs' largest, or that was present only when slow;
//   - two or more walks run under A (SoleCallee of their time on the
//     stack), neither under the other: functions with a loop variable of
//     their own that went wrong (a verdict below DefaultDiscount), that
//     are no such dispatcher themselves, outermost (a walk under another
//     counts in it), and under which A does not run (recursion);
//   - each of them holds at least 1 - SoleCallee of A's extra time on the
//     stack, and together they hold at least PresentShare (1 -
//     MergeShare) of it: nothing else in A (its own instructions, callees
//     with no walk) is large enough to be another anomaly by D12's bound.
// A then goes just below the least costly of the walks that hold at least
// MergeShare of its extra time each (with none, the one that holds the
// most): which of them is the root cause is for their own costs to say,
// and the frame that only brought the requests to them outranks neither.
// D12 places a frame over two callees of MergeShare each just below the
// better one; this reaches the frame whose walks lie deeper (under
// callees with no loop of their own) or whose second walk is smaller.
// Frames are placed from the innermost out.

// dispatchers applies D204 (see above) to the rows of res.
func (a *Analyzer) dispatchers(res *Result, drivers []bool) {
	fns := res.Functions
	nb, nn := a.kindCounts()
	if nb == 0 || nn == 0 {
		return
	}
	c := &a.stk
	var walks, cands []int // rows
	for i := range fns {
		fn := &fns[i]
		f := int(a.funcIdx[fn.Key])
		if fn.Source != SourceVariable || f >= len(drivers) {
			continue
		}
		if a.loopWrong[f] && fn.Discount < a.opt.DefaultDiscount && fn.Calibrated > 0 {
			walks = append(walks, i)
		}
		if !drivers[f] && fn.Calibrated > 0 && f < len(a.stkNormal.on) && a.stkNormal.on[f] > 0 && !a.strongestLoop(res, fn) {
			cands = append(cands, i)
		}
	}
	if len(walks) < 2 || len(cands) == 0 {
		return
	}
	fOf := func(row int) int { return int(a.funcIdx[fns[row].Key]) }
	// Innermost first: a dispatcher is no walk for the frames above it,
	// and goes below its walks' final places.
	slices.SortFunc(cands, func(x, y int) int { return cmp.Or(cmp.Compare(c.on[fOf(x)], c.on[fOf(y)]), cmp.Compare(x, y)) })
	dispatcher := map[int]bool{} // rows
	for _, ia := range cands {
		A := fOf(ia)
		below, _, total := a.extraBelow(A, nb, nn)
		if total <= 0 {
			continue
		}
		var in []int // rows of the walks under A
		for _, iw := range walks {
			W := fOf(iw)
			if iw == ia || dispatcher[iw] || below[int32(W)] <= 0 {
				continue
			}
			if c.outside(A, W) < SoleCallee*c.on[W] || c.outside(W, A) > (1-SoleCallee)*c.on[A] {
				continue
			}
			in = append(in, iw)
		}
		// Outermost: a walk that runs under another counts in it.
		var outer []int
		for _, iw := range in {
			W, nested := fOf(iw), false
			for _, jw := range in {
				if jw != iw && c.outside(fOf(jw), W) >= SoleCallee*c.on[W] {
					nested = true
					break
				}
			}
			if !nested {
				outer = append(outer, iw)
			}
		}
		// The walks that count: each at least 1 - SoleCallee of A's extra
		// time. A goes below the least costly of those that hold
		// MergeShare of it, or, when none does, below the largest.
		var held, most float64
		by, big := -1, -1
		n := 0
		for _, iw := range outer {
			e := below[int32(fOf(iw))]
			if e < (1-SoleCallee)*total {
				continue
			}
			held += e
			n++
			if e >= MergeShare*total && (by < 0 || cmp.Or(cmp.Compare(fns[iw].Calibrated, fns[by].Calibrated), cmp.Compare(iw, by)) < 0) {
				by = iw
			}
			if big < 0 || cmp.Or(cmp.Compare(most, e), cmp.Compare(iw, big)) < 0 {
				big, most = iw, e
			}
		}
		if n < 2 || held < PresentShare*total {
			continue
		}
		if by < 0 {
			by = big
		}
		dispatcher[ia] = true
		fa := &fns[ia]
		if fa.Calibrated < fns[by].Calibrated {
			continue
		}
		fa.Calibrated = math.Nextafter(fns[by].Calibrated, 0)
		fa.Placed = "just below " + fns[by].Name + ", the least costly of the walks that hold its extra time: it repeats nothing of its own, and its evidence is what each request brought (D204)"
	}
}

// strongestLoop reports whether one of fn's strongest verdicts (those at
// its discount, below DefaultDiscount) is of a variable tagged loop whose
// repetition went wrong: its values (or steps) differ and went beyond the
// normal runs' largest (the loop went further), or it ran only when slow
// (presence). A loop variable's durations say that a turn of the loop
// lasted longer, which a frame gets when the calls it makes take longer
// (D51's kind), and values that stay within the normal runs' range say
// that the turns went over other items (a lookup in a table of handlers
// finds another request's kind), not that there were more.
func (a *Analyzer) strongestLoop(res *Result, fn *Function) bool {
	for vv := range a.wrongVars(res, fn) {
		if vv.R != fn.Discount {
			continue
		}
		if a.cursorField(vv.Var) {
			return true // its loop's items, whatever their range
		}
		vi := &a.vars[vv.Var]
		if vi.tags&model.TagLoop == 0 || vv.HasDim && vv.Dim == DimDuration {
			continue
		}
		// A pointer cursor's values have no order to go further in (its
		// pointees are compared, D158): a verdict on it is its walk's.
		if !vv.HasDim || vi.kind == model.KindPointer || a.goesFurther(vv.Var) {
			return true
		}
	}
	return false
}

// cursorField reports whether v is a field behind a loop variable of its
// own function (e->is_dirty behind a list walk's e): the items of the
// frame's own loop, so a verdict on it, in any dimension, speaks of that
// loop's repetition, not of what a request brought.
func (a *Analyzer) cursorField(v int32) bool {
	vi := &a.vars[v]
	if vi.derefOf <= 0 {
		return false
	}
	cur := &a.vars[vi.derefOf-1]
	return cur.fn == vi.fn && cur.fn >= 0 && cur.tags&model.TagLoop != 0
}

// goesFurther reports whether loop variable v's slow-run values reach
// beyond the largest of its normal-run values.
func (a *Analyzer) goesFurther(v int32) bool {
	vi := &a.vars[v]
	n, b := vi.sets[Normal][DimValue], vi.sets[Buggy][DimValue]
	return n != nil && b != nil && n.n > 0 && b.n > 0 && b.max > n.max
}
