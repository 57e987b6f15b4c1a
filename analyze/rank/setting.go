package rank

import "github.com/vprof/vprof/runtime/model"

// A frame whose evidence is a setting, above a walk that went further
// (method.md §7, decision D160). D10 reads a caller all of whose slow-run
// time is one callee, and whose own variables went wrong while it ran,
// as the function that decided to make the costly call; a loop level
// above a loop that spins takes the loop's place (D23) for the same
// reason; and with inclusive cost the frame above ranks by its own cost
// at least as high as the work below. When the frame's strongest
// evidence (the verdicts at its discount) is only values kept through
// each run of both kinds (no thread of any run saw them change: a
// configuration setting, the input's size or mode), that evidence is the
// same at every sample of the run: it says that the run differs, not
// where in it the time went. When the callee's own loop went further (a
// loop variable of its own whose value went wrong, its slow runs' values
// holding the normal runs' range and reaching beyond it: the walk over
// more items), that loop is where the time went, and the callee ranks
// first: the caller goes just below it, and neither D10 nor D23 puts it
// above. A frame with any stronger evidence of its own (a local it
// computed, a loop of its own that went wrong, a value that changed
// within the run), and one above a callee that repeated the same step
// rather than walking further (a loop that spins on a setting: its head
// holds what makes it spin), keep their reading.

// settingOnly reports whether fn went wrong (a discount below
// DefaultDiscount) and every verdict at its discount is of a variable that
// kept one value through each run of both kinds (runValue).
func (a *Analyzer) settingOnly(res *Result, fn *Function) bool {
	if fn.Source != SourceVariable || fn.Discount >= a.opt.DefaultDiscount {
		return false
	}
	n := 0
	for _, j := range fn.Vars {
		vv := &res.Variables[j]
		if !vv.OK || vv.R != fn.Discount {
			continue
		}
		if !a.runValue(vv.Var) {
			return false
		}
		n++
	}
	return n > 0
}

// walkedFurther reports whether a loop variable of fn's own (a local or
// parameter, no global) went wrong in its values (a value verdict below
// DefaultDiscount) with its slow runs' values holding the normal runs'
// range and reaching beyond it (reachesBeyond): fn's loop ran over more
// items.
func (a *Analyzer) walkedFurther(res *Result, fn *Function) bool {
	for _, j := range fn.Vars {
		vv := &res.Variables[j]
		if vv.Global || a.vars[vv.Var].tags&model.TagLoop == 0 {
			continue
		}
		for _, dv := range vv.Dims {
			if dv.Dim == DimValue && dv.OK && dv.R < a.opt.DefaultDiscount && a.reachesBeyond(vv.Var) {
				return true
			}
		}
	}
	return false
}

// settingAbove reports whether caller A's strongest evidence is a setting
// and callee D's own loop walked further (D160): then neither D10 nor
// D23's head applies to A over D.
func (a *Analyzer) settingAbove(A, D int) bool {
	return a.setting != nil && a.setting[A] && a.further[D]
}

// settingCallers ranks a caller whose strongest evidence is a setting
// just below the callee whose loop walked further (settingAbove; the
// conditions of placeBelowSoleCallee).
func (a *Analyzer) settingCallers(fns []Function, drivers []bool) {
	a.placeBelowSoleCallee(fns, drivers, a.settingAbove,
		"its strongest evidence is a value kept through each run (a setting), and the callee's own loop went further (D160)")
}
