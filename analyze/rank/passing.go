package rank

import (
	"cmp"
	"iter"
	"math"
	"slices"

	"github.com/vprof/vprof/runtime/model"
)

// A caller that only passes control (method.md §7, decision D26). D10
// reads a caller all of whose slow-run time is one callee, and whose own
// variables went wrong while it ran, as the function that decided to make
// the costly call. Its variables' verdicts say so only when they compare
// values: "present only when slow" and "rare when normal" (D4) say that
// the function ran (more) in the slow runs, and a caller whose time is
// all one callee's ran because that callee ran: its frame was seen only
// while the callee worked. When such a caller has no loop of its own (no
// sampled loop variable: it repeats nothing, it makes the call once per
// call of its own) and the callee's own loop went wrong (a loop variable
// with a verdict below DefaultDiscount: the callee repeated work that it
// did not repeat in the normal runs), the work multiplied in the callee,
// and the caller only passed control to it: it ranks just below the
// callee, and D10 does not put it above. Without the callee's loop
// evidence the caller keeps D10's reading (it may have been called more
// often, which it may have caused: healthcheck's hc_check, whose stale
// timestamp makes the watchdog call it again, has no evidence but
// presence in some trials, and its callee no loop variable).

// passerOf reports whether fn can only pass control (see above: a
// variable verdict, every variable verdict of presence, no value of it
// compared between the kinds, and no loop variable sampled), and whether
// one of its loop variables went wrong (a verdict below DefaultDiscount:
// it repeated work that it did not repeat, or not as much, in the normal
// runs).
func (a *Analyzer) passerOf(res *Result, fn *Function) (passer, loopWrong bool) {
	loop := false
	for _, j := range fn.Vars {
		if vv := &res.Variables[j]; a.vars[vv.Var].tags&model.TagLoop != 0 {
			loop = true
			loopWrong = loopWrong || vv.OK && vv.R < a.opt.DefaultDiscount
		}
	}
	return !loop && a.allPresence(res, fn), loopWrong
}

// markVerdicts records, per function with a variable verdict, what the
// placements of §7 ask of its verdicts, in one pass: whether it only
// passes control and whether its loop went wrong (D26, passing.go),
// whether its evidence only echoes a callee's time and it was given
// normal arguments (D43, echo.go), whether its anomalies are only of
// presence (D60, presence.go), and whether they describe its input (D70,
// runvalues.go).
func (a *Analyzer) markVerdicts(res *Result) {
	n := len(a.funcs)
	a.passer, a.loopWrong = make([]bool, n), make([]bool, n)
	a.echo, a.givenNormal = make([]bool, n), make([]bool, n)
	a.presenceOnly = make([]bool, n)
	a.runOnly, a.heldOnly = make([]bool, n), make([]bool, n)
	a.handed, a.handedOnly = make([][]string, n), make([]bool, n)
	a.setting, a.further = make([]bool, n), make([]bool, n)
	a.globalsOnly = make([]bool, n)
	for i := range res.Functions {
		fn := &res.Functions[i]
		if fn.Source != SourceVariable {
			continue
		}
		f := a.funcIdx[fn.Key]
		a.passer[f], a.loopWrong[f] = a.passerOf(res, fn)
		a.echo[f] = a.echoOnly(res, fn)
		a.givenNormal[f] = a.paramsNormal(res, fn)
		a.presenceOnly[f] = a.anomalyPresence(res, fn)
		a.runOnly[f], a.heldOnly[f] = a.inputValues(res, fn)
		a.handed[f], a.handedOnly[f] = a.givenWrong(res, fn)
		a.setting[f], a.further[f] = a.settingOnly(res, fn), a.walkedFurther(res, fn)
		a.globalsOnly[f] = a.wrongGlobalsOnly(res, fn)
	}
}

// allPresence reports whether every variable verdict of fn is of
// presence: present only when slow, or rare when normal.
func (a *Analyzer) allPresence(res *Result, fn *Function) bool {
	n := 0
	for _, j := range fn.Vars {
		if vv := &res.Variables[j]; vv.OK {
			if vv.Reason != ReasonBuggyOnly && vv.Reason != ReasonRare {
				return false
			}
			n++
		}
	}
	return n > 0
}

// passesTo reports whether caller A only passes control to callee D as
// far as their variables tell (D26): A can only pass control, and D's
// loop went wrong.
func (a *Analyzer) passesTo(A, D int) bool {
	return a.passer[A] && a.loopWrong[D]
}

// passingCallers ranks a caller that only passes control just below the
// callee it passes it to (passesTo; the conditions of placeBelowSoleCallee).
func (a *Analyzer) passingCallers(fns []Function, drivers []bool) {
	a.placeBelowSoleCallee(fns, drivers, a.passesTo,
		"it ran only for it (its variables compare no values), has no loop, and the callee's loop went wrong (D26)")
}

// placeBelowSoleCallee ranks a caller A just below a callee D for which
// holds(A, D) (D26, D43): in the slow runs the callee runs under the
// caller (SoleCallee of its stack time), the caller spends SoleCallee of
// its stack time in it, and the callee has a variable verdict below
// DefaultDiscount. Of several such callees (a chain: the callee's callee
// is all of the caller's time too) the outermost, with the most stack
// time, is the one the caller called. why ends the row's Placed note.
func (a *Analyzer) placeBelowSoleCallee(fns []Function, drivers []bool, holds func(A, D int) bool, why string) {
	a.placeBelowCallee(fns, drivers, SoleCallee, holds, why)
}

// placeBelowCallee is placeBelowSoleCallee with the callee's share of the
// caller's stack time at least share instead of SoleCallee (D60).
func (a *Analyzer) placeBelowCallee(fns []Function, drivers []bool, share float64, holds func(A, D int) bool, why string) {
	c := &a.stk
	to := map[int]int{} // caller row -> callee row
	for p := range a.rankedPairs(fns, drivers) {
		A, D, ia, id, t := p.outer, p.inner, p.outerRow, p.innerRow, p.t
		if !holds(A, D) {
			continue
		}
		fd := &fns[id]
		if fd.Source != SourceVariable || fd.Discount >= a.opt.DefaultDiscount || fd.Calibrated <= 0 {
			continue
		}
		if t < SoleCallee*c.on[D] || c.on[D] < share*c.on[A] {
			continue
		}
		if j, ok := to[ia]; !ok || cmp.Or(cmp.Compare(c.on[D], c.on[a.funcIdx[fns[j].Key]]), cmp.Compare(fns[j].Name, fd.Name)) > 0 {
			to[ia] = id
		}
	}
	// Innermost callers first: in a chain of them each goes below its
	// callee's final place.
	rows := make([]int, 0, len(to))
	for ia := range to {
		rows = append(rows, ia)
	}
	slices.SortFunc(rows, func(x, y int) int {
		return cmp.Or(cmp.Compare(c.on[a.funcIdx[fns[x].Key]], c.on[a.funcIdx[fns[y].Key]]), cmp.Compare(x, y))
	})
	for _, ia := range rows {
		id := to[ia]
		if fns[ia].Calibrated < fns[id].Calibrated {
			continue
		}
		fns[ia].Calibrated = math.Nextafter(fns[id].Calibrated, 0)
		most := "all of its time"
		if share < SoleCallee {
			most = "most of its time"
		}
		fns[ia].Placed = "just below " + fns[id].Name + ", " + most + " and run under it: " + why
	}
}

// wrongVars yields fn's variables that went wrong: a verdict below
// DefaultDiscount (the evidence §7's placements read).
func (a *Analyzer) wrongVars(res *Result, fn *Function) iter.Seq[*VarVerdict] {
	return func(yield func(*VarVerdict) bool) {
		for _, j := range fn.Vars {
			vv := &res.Variables[j]
			if vv.OK && vv.R < a.opt.DefaultDiscount && !yield(vv) {
				return
			}
		}
	}
}
