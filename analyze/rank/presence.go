package rank

// Nested frames that ran only in the slow runs (method.md §7, decision
// D60). Presence ("present only when slow", "rare when normal": D4) says
// that a frame ran, or ran far more, in the slow runs; it compares none of
// its values. A caller is on the stack at every sample of its callee, so
// when the callee ran only in the slow runs the caller's presence follows
// from the callee's: it is not evidence of the caller's own. When the
// evidence of both a caller and its callee is only presence, and the
// callee's own loop went wrong (a loop variable with a verdict below
// DefaultDiscount), nothing the caller held was compared, and nothing says
// that it decided (D10 asks for its own variables to have gone wrong); what
// is left is where the time went: the callee, which holds the largest part
// of the caller's time, and whose loop repeated the work. The caller ranks
// just below it, as D26 places a caller with no loop. Unlike D26, the
// caller may have a loop of its own (its loop variables too are present
// only when slow: the loop ran because the frame ran) and some time of its
// own (the callee holds PresentShare of its time, not all of it), and
// variables compared with the normal runs' and found normal; in exchange,
// the callee's anomalies must be only presence too: a callee whose values
// were compared and found wrong leaves the pair to D10 and D26.

// PresentShare is the share of a caller's slow-run stack time that its
// callee holds for D60 to place the caller below it: all but less than
// D12's MergeShare, so that nothing else in the caller (its own
// instructions, another callee) is large enough to count as a second
// anomaly meeting there.
const PresentShare = 1 - MergeShare

// anomalyPresence reports whether fn has a variable verdict below
// DefaultDiscount and every such verdict is of presence (present only when
// slow, rare when normal), loop variables included: what went wrong in it
// is that it ran, not what it held. Variables compared with the normal
// runs' values and found normal do not count against it.
func (a *Analyzer) anomalyPresence(res *Result, fn *Function) bool {
	n := 0
	for vv := range a.wrongVars(res, fn) {
		if vv.Reason != ReasonBuggyOnly && vv.Reason != ReasonRare {
			return false
		}
		n++
	}
	return n > 0
}

// bothPresent reports whether caller A and callee D have only presence
// verdicts and D's loop went wrong (D60).
func (a *Analyzer) bothPresent(A, D int) bool {
	return a.presenceOnly != nil && a.presenceOnly[A] && a.presenceOnly[D] && a.loopWrong[D]
}

// presentCallers ranks a caller whose presence is its callee's just below
// that callee (D60; bothPresent, and the callee holds PresentShare of the
// caller's slow-run stack time).
func (a *Analyzer) presentCallers(fns []Function, drivers []bool) {
	a.placeBelowCallee(fns, drivers, PresentShare, a.bothPresent,
		"both ran only in the slow runs (their variables compare no values), and the callee's loop went wrong (D60)")
}
