package rank

// A caller whose evidence describes its input (method.md §7, decision
// D70). D10 reads a caller all of whose slow-run time is one callee, and
// whose own variables went wrong while it ran, as the function that
// decided to make the costly call. A variable abnormal at every sample of
// a run in an outer frame cannot say that: it differs whatever the work
// below. Two kinds of caller have only such evidence.
//
//   - Every variable of it that went wrong kept one value through each
//     run, normal and slow (no thread of any run saw it change): a file's
//     length, a configuration value, the input's first byte. It describes
//     the run, not a moment of it, and no call in particular.
//   - It was above other work in the normal runs (the callee took less
//     than NormalCallee of its normal-run time on the stack), and every
//     variable of it that went wrong did so in what it held (the verdict's
//     dimension is value or delta) or in the durations of a value that
//     changed about once per slow run at most (D20: its durations are
//     pieces of the run's span). In the normal runs its frame held other
//     work; in the slow runs the callee's work grew until it filled the
//     frame, and the frame's values (key lengths, a nesting depth, the
//     object it fills) differ because the input differs, at every sample.
//
// Such a caller decides nothing for D10. What still qualifies a caller
// above other work: a variable present only when slow or rare when
// normal (a path taken only then), or the durations of values it held
// per call (each lasted longer while the callee ran).

// NormalCallee is the share of a caller's normal-run time on the stack
// that its callee must take for the two to be one piece of work in the
// normal runs too (method.md §7, decision D70).
const NormalCallee = 0.5

// runValue reports whether variable v kept one value through each run of
// both kinds: no thread of any run saw it change.
func (a *Analyzer) runValue(v int32) bool {
	vi := &a.vars[v]
	return !vi.changed[Normal] && !vi.changed[Buggy]
}

// heldThroughout reports whether verdict vv is one that a frame above
// varied work has at every sample whatever runs below: its values (or
// their steps) differ, or its durations are pieces of the run's span.
func (a *Analyzer) heldThroughout(vv *VarVerdict) bool {
	if !vv.HasDim || vv.Reason == ReasonBuggyOnly || vv.Reason == ReasonRare {
		return false // presence: a path taken only when slow
	}
	switch vv.Dim {
	case DimValue, DimDelta:
		return true
	case DimDuration:
		return !a.vars[vv.Var].changed[Buggy] || a.fewChanges(vv.Var)
	}
	return false
}

// inputValues reports whether every variable of fn that went wrong kept
// one value through each run (runOnly), and whether each is held
// throughout (heldOnly); both false when none went wrong.
func (a *Analyzer) inputValues(res *Result, fn *Function) (runOnly, heldOnly bool) {
	n, run, held := 0, 0, 0
	for vv := range a.wrongVars(res, fn) {
		n++
		if a.runValue(vv.Var) {
			run++
		}
		if a.heldThroughout(vv) {
			held++
		}
	}
	return n > 0 && run == n, n > 0 && held == n
}

// describesInput reports whether caller A's evidence describes its input
// rather than a decision to call D (D70): then D10 does not apply.
func (a *Analyzer) describesInput(A, D int) bool {
	if a.runOnly == nil {
		return false
	}
	if a.runOnly[A] {
		return true
	}
	c := &a.stkNormal
	if !a.heldOnly[A] || A >= len(c.on) || c.on[A] <= 0 {
		return false // a caller seen only when slow keeps D10's reading
	}
	// D under A for no sample of the normal runs counts as other work:
	// a call too short to be sampled there (md4c) reads as one that was
	// not made (decision D70, tried).
	return c.outside(A, D) < NormalCallee*c.on[A]
}
