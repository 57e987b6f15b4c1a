package rank

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// A frame whose extra time conclusive evidence below it holds (method.md
// §7, decision D185). A caller inherits its callees' cost through its
// variable-based cost (the thesis: so that a caller whose variables went
// wrong is weighed with the work it called), and a frame that dispatches
// requests, or a loop that feeds them, has evidence of its own in the slow
// runs only because the requests it handed on differed in mix and size or
// took longer: a weaker verdict (r above 0) than those of the functions
// below it where the time went, and an extra time that is theirs added up.
// On the samples where a descendant with conclusive evidence (a variable
// verdict of r 0) is on the stack under the frame, that verdict says
// where the time went; the frame's own cost is taken on the rest of its
// extra time only: calibrated = (1 - r) x e x e / raw, with e its extra
// cost times the share of its extra time on the stack that no such
// descendant holds. Applied before §7's placements (D10 may still hand
// the frame a callee's cost when its own variables were read while that
// callee ran, D51 still puts it below the part it holds). A frame with
// r 0 or with no evidence (r at least DefaultDiscount), one with no such
// descendant and a driver frame (its cost is its own instructions) keep
// their cost.
func (a *Analyzer) explainedBelow(fns []Function, drivers []bool) {
	a.explained = make([]bool, len(a.funcs))
	nb, nn := a.kindCounts()
	if nb == 0 || nn == 0 {
		return
	}
	conclusive := make([]bool, len(a.funcs))
	for i := range fns {
		if fns[i].Source == SourceVariable && fns[i].Discount <= 0 {
			conclusive[a.funcIdx[fns[i].Key]] = true
		}
	}
	for i := range fns {
		fa := &fns[i]
		A := a.funcIdx[fa.Key]
		if fa.Source != SourceVariable || fa.Discount <= 0 || fa.Discount >= a.opt.DefaultDiscount || fa.Calibrated <= 0 || int(A) >= len(drivers) || drivers[A] {
			continue
		}
		// Extra time on the stack (slow runs' mean minus normal runs',
		// D56's scale): the frame's, and per conclusive descendant (the
		// outermost one of a sample, so that none is counted twice).
		var on, held float64
		by := map[int32]float64{}
		for _, k := range [2]struct {
			c *stackCover
			w float64
		}{{&a.stk, 1 / nb}, {&a.stkNormal, -a.normalScale / nn}} {
			for _, e := range k.c.lists {
				j := slices.Index(e.funcs, A)
				if j < 0 {
					continue
				}
				on += e.w * k.w
				for m := j - 1; m >= 0; m-- { // from the frame's callee inwards
					if f := e.funcs[m]; conclusive[f] {
						held += e.w * k.w
						by[f] += e.w * k.w
						break
					}
				}
			}
		}
		if on <= 0 || held <= 0 {
			continue
		}
		u := min(1, max(0, (on-held)/on))
		e := max(0, fa.Extra) * u
		c := (1 - fa.Discount) * e * e / fa.Raw
		if c >= fa.Calibrated {
			continue
		}
		// The note names the largest holders (at most three); a map's
		// order decides nothing.
		type part struct {
			f int32
			e float64
		}
		var parts []part
		for f, x := range by {
			if x > 0 {
				parts = append(parts, part{f, x})
			}
		}
		slices.SortFunc(parts, func(x, y part) int { return cmp.Or(cmp.Compare(y.e, x.e), cmp.Compare(x.f, y.f)) })
		var names []string
		for _, p := range parts[:min(3, len(parts))] {
			names = append(names, a.funcs[p.f].display)
		}
		fa.Calibrated = c
		a.explained[A] = true
		fa.Placed = fmt.Sprintf("its own cost on %.0f%% of its extra time: the rest is held below it by functions with conclusive evidence (%s) (D185)", 100*u, strings.Join(names, ", "))
	}
}
