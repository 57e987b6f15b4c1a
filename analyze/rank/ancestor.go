package rank

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/vprof/vprof/runtime/model"
)

// A frame above more of the same work (method.md §7, decision D51). With
// inclusive cost every frame above the work is at least as costly as the
// work, and when the slow run has a bigger input such a frame has
// evidence by construction too: its loop index or the input's size takes
// the normal runs' values and more (more items), a value it holds across
// the calls below lasts longer when they take longer (a duration), it was
// seen only while the work below ran (presence of a variable that is no
// loop's). Evidence of these kinds says that there was more work below
// the frame, not where it went. Such a frame ranks just below the
// descendant that holds the largest part of its extra time when:
//   - its time is split: the largest part is less than SoleCallee of its
//     slow-run time on the stack (else the two are D10's one piece of
//     work), and the time outside that part is more in other callees than
//     in its own instructions (else it is where its own loop works);
//   - that part is larger than the extra time of its own instructions;
//   - it took a like share of its threads' time in both kinds (at most
//     ShareGrowth times the normal runs' share): more of the same work. A
//     loop that barely ran in the normal runs and takes most of the slow
//     ones is where the slowdown is made, whatever runs inside it. A frame
//     with no loop variable in its schema is no such loop and is not asked
//     (D230): its share grew because its calls lasted longer (in its
//     callees: the split) or came more often (its callers' doing).
// Driver frames are left alone (their cost is their own instructions).

// ShareGrowth is how many times its normal runs' share of its threads'
// time a frame above more of the same work may take in the slow runs.
const ShareGrowth = 1.5

// abovePart applies D51 (see above) to the rows of res. Frames are placed from the
// innermost out, so that a chain of them goes below the part that its
// innermost member holds.
func (a *Analyzer) abovePart(res *Result, drivers []bool) {
	fns := res.Functions
	nb, nn := a.kindCounts()
	if nb == 0 || nn == 0 {
		return
	}
	row := make(map[int32]int, len(fns))
	for i := range fns {
		row[a.funcIdx[fns[i].Key]] = i
	}
	c := &a.stk
	type capTo struct {
		row, by int // the frame's row, the row of the part it goes below
		on      float64
		kind    string
	}
	var caps []capTo
	for ia := range fns {
		fa := &fns[ia]
		A := int(a.funcIdx[fa.Key])
		if A >= len(drivers) || drivers[A] || fa.Calibrated <= 0 || !a.likeShare(A) && (a.hasLoop(A) || a.stkNormal.share(A) <= 0) {
			continue
		}
		kind := a.byConstruction(res, fa)
		if kind == "" {
			continue
		}
		below, self, _ := a.extraBelow(A, nb, nn)
		// The largest part; at equal parts (a callee and the one that is
		// all of its time) the outer one, then the row: a map's order
		// decides nothing.
		best, bestE := -1, 0.0
		for f, e := range below {
			id, ok := row[f]
			if !ok || e <= 0 || best >= 0 && cmp.Or(cmp.Compare(e, bestE), cmp.Compare(c.on[f], c.on[a.funcIdx[fns[best].Key]]), cmp.Compare(best, id)) <= 0 {
				continue
			}
			// A descendant's cost is part of the frame's only when it
			// runs under it.
			if c.outside(A, int(f)) < SoleCallee*c.on[f] {
				continue
			}
			best, bestE = id, e
		}
		if best < 0 || bestE <= self {
			continue
		}
		inD, own := c.outside(A, int(a.funcIdx[fns[best].Key])), a.selfSlow(A)
		if inD >= SoleCallee*c.on[A] || c.on[A]-inD-own <= own {
			continue
		}
		caps = append(caps, capTo{ia, best, c.on[A], kind})
	}
	slices.SortFunc(caps, func(x, y capTo) int { return cmp.Or(cmp.Compare(x.on, y.on), cmp.Compare(x.row, y.row)) })
	for _, x := range caps {
		fa, fd := &fns[x.row], &fns[x.by]
		if fa.Calibrated < fd.Calibrated || fd.Calibrated <= 0 {
			continue
		}
		fa.Calibrated = math.Nextafter(fd.Calibrated, 0)
		fa.Placed = "just below " + fd.Name + ", which holds the largest part of its extra time: its own evidence (" + x.kind + ") says only that there was more of the same work below it (D51)"
	}
}

// extraBelow returns, for frame A, the extra time (the slow runs' mean
// seconds minus the normal runs', those counted at the slow runs' length
// when they are the longer ones: D56) that each function spent on the
// stack under A, the extra time of A's own instructions (A innermost),
// and A's whole extra time on the stack.
func (a *Analyzer) extraBelow(A int, nb, nn float64) (below map[int32]float64, self, total float64) {
	below = map[int32]float64{}
	for _, k := range [2]struct {
		c *stackCover
		w float64
	}{{&a.stk, 1 / nb}, {&a.stkNormal, -a.normalScale / nn}} {
		for _, e := range k.c.lists {
			i := slices.Index(e.funcs, int32(A))
			if i < 0 {
				continue
			}
			total += e.w * k.w
			if i == 0 {
				self += e.w * k.w
			}
			for _, f := range e.funcs[:i] {
				below[f] += e.w * k.w
			}
		}
	}
	return below, self, total
}

// selfSlow is the slow runs' time (summed over them, as stackCover.on)
// with A the innermost program frame: its own instructions.
func (a *Analyzer) selfSlow(A int) float64 {
	var t float64
	for _, e := range a.stk.lists {
		if len(e.funcs) > 0 && int(e.funcs[0]) == A {
			t += e.w
		}
	}
	return t
}

// likeShare reports whether f ran in the normal runs and took at most
// ShareGrowth times its share of its threads' time there in the slow runs.
func (a *Analyzer) likeShare(f int) bool {
	n := a.stkNormal.share(f)
	return n > 0 && a.stk.share(f) <= ShareGrowth*n
}

// byConstruction returns the kinds of fn's strongest evidence (the
// verdicts at its discount) when each is one that a frame above more of
// the same work gets by construction: "presence" (present only when
// slow, rare when normal) of a variable that is no loop's, "duration",
// "more items" (the value dimension of a variable whose slow runs' values
// hold the normal runs' range and reach beyond it), "a clock's steps" (the
// deltas of a variable that differs between runs by nature, a time stamp:
// a step is the time the work between two samples took; D230), "fewer items per call"
// (a loop variable found different in value whose slow runs' values stay
// below the normal runs' largest: each turn of the loop did less, so its
// extra time is below it; D165) or "the input" (a value constant in each
// kind and different: what the run was given; D165). A function whose
// discount is DefaultDiscount or more went wrong nowhere: "none". "" when
// one verdict is of another kind, a loop variable is present only when
// slow (the loop ran only then: its own repetition), or fn has no
// variable verdict.
func (a *Analyzer) byConstruction(res *Result, fn *Function) string {
	if fn.Source != SourceVariable {
		return ""
	}
	if fn.Discount >= a.opt.DefaultDiscount {
		return "none"
	}
	var kinds []string
	for _, j := range fn.Vars {
		vv := &res.Variables[j]
		if !vv.OK || vv.R != fn.Discount {
			continue
		}
		var k string
		switch {
		case vv.Reason == ReasonBuggyOnly || vv.Reason == ReasonRare:
			if a.vars[vv.Var].tags&model.TagLoop != 0 {
				return ""
			}
			k = "presence"
		case vv.HasDim && vv.Dim == DimDuration:
			k = "duration"
		case vv.HasDim && vv.Dim == DimDelta && a.vars[vv.Var].natural:
			k = "a clock's steps"
		case vv.HasDim && vv.Dim == DimValue && a.reachesBeyond(vv.Var):
			k = "more items"
		case vv.HasDim && vv.Dim == DimValue && vv.Reason == ReasonDiffer && a.vars[vv.Var].tags&model.TagLoop != 0 && a.staysWithin(vv.Var):
			k = "fewer items per call"
		case vv.HasDim && vv.Dim == DimValue && vv.Reason == ReasonConstants:
			k = "the input"
		default:
			return ""
		}
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	return strings.Join(kinds, ", ")
}

// reachesBeyond reports whether variable v's slow-run values hold the
// range of its normal-run values and reach beyond it.
func (a *Analyzer) reachesBeyond(v int32) bool {
	vi := &a.vars[v]
	n, b := vi.sets[Normal][DimValue], vi.sets[Buggy][DimValue]
	if n == nil || b == nil || n.n == 0 || b.n == 0 {
		return false
	}
	return b.min <= n.min && b.max >= n.max && (b.min < n.min || b.max > n.max)
}

// staysWithin reports whether variable v's slow-run values stay below the
// largest of its normal-run values (D165). Only the top is asked: a loop
// index starts low in both kinds, and a few normal samples may miss its
// smallest values.
func (a *Analyzer) staysWithin(v int32) bool {
	vi := &a.vars[v]
	n, b := vi.sets[Normal][DimValue], vi.sets[Buggy][DimValue]
	if n == nil || b == nil || n.n == 0 || b.n == 0 {
		return false
	}
	return b.max < n.max
}
