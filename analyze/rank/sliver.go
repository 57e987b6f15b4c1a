package rank

// A variable read during a sliver of its frame's time (method.md §7,
// decision D246). The placements of a frame against a callee holding a
// large part of its time (D10, D12, D26, D43, D51, D60, D70, D135, D160,
// D204, D23) read the frame's evidence as what it held while its callees
// ran: D10 asks that the caller's variables were read while the callee's
// time was spent. A local or parameter read during less than
// 1 - SoleCallee of the slow-run time in which its function's variables
// were read (the frame within --depth of the sampled one) was in scope in
// a branch or a stretch of the function that short: a value computed from
// what a callee returned (read after it returned), the index of a loop
// that fills a buffer before the call, a case of a dispatcher that other
// requests take. Whatever it says is about that twentieth of the frame's
// time, the bound at which a callee holds the rest of it (SoleCallee).
// For those placements such variables are left out of the frame's
// evidence (its verdicts, and the discount they give); the frame's own
// calibrated cost, its v* and its pattern keep them, and so do the swaps
// with a callee of any size (D74, D133, D123, D145: place).

// sliverVar reports whether variable v is a local or parameter whose
// slow-run samples (their seconds, readS) cover less than 1 - SoleCallee
// of read, the seconds in which any variable of its function was read in
// the slow runs (its variable-based cost summed over them: the frame's
// time within --depth of the sampled frame, where its variables can be
// read at all) (D246).
func (a *Analyzer) sliverVar(v int32, read float64) bool {
	if v < 0 || int(v) >= len(a.vars) || read <= 0 {
		return false
	}
	vi := &a.vars[v]
	return vi.fn >= 0 && vi.readS[Buggy] < (1-SoleCallee)*read
}

// pairView leaves the sliver variables (sliverVar) out of each function's
// verdicts and discount for the placements, and returns the function that
// puts them back (D246). A function with no verdict left keeps its source
// and goes to DefaultDiscount: nothing it held while its callees ran went
// wrong.
func (a *Analyzer) pairView(res *Result, nBuggy int) (restore func()) {
	type saved struct {
		row  int
		vars []int
		r    float64
	}
	var sv []saved
	for i := range res.Functions {
		fn := &res.Functions[i]
		fn.Sliver = nil
		if fn.Source != SourceVariable {
			continue
		}
		var kept []int
		cut := false
		f := a.funcIdx[fn.Key]
		for _, j := range fn.Vars {
			if v := res.Variables[j].Var; v >= 0 && int(v) < len(a.vars) && a.vars[v].fn == f && a.sliverVar(v, fn.VarCost*float64(nBuggy)) {
				cut = true
				if vv := &res.Variables[j]; vv.OK && vv.R < a.opt.DefaultDiscount {
					fn.Sliver = append(fn.Sliver, vv.Name)
				}
				continue
			}
			kept = append(kept, j)
		}
		if !cut {
			continue
		}
		sv = append(sv, saved{i, fn.Vars, fn.Discount})
		fn.Vars, fn.Discount = kept, a.opt.DefaultDiscount
		if best := a.vstarFor(res, f, kept); best != nil {
			fn.Discount = best.R
		}
	}
	return func() {
		for _, s := range sv {
			fn := &res.Functions[s.row]
			fn.Vars, fn.Discount = s.vars, s.r
		}
	}
}
