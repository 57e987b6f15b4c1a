package rank

// A caller whose evidence is its callee's time (method.md §7, decision
// D43). D10 reads a caller all of whose slow-run time is one callee, and
// whose own variables went wrong while it ran, as the function that
// decided to make the costly call. While the callee runs, the caller's
// frame is suspended: each of its variables holds one value per call. How
// long that value lasts (duration) and how it moved from one sample to the
// next (delta: zero within a call, a step between calls) then measure how
// long one call of the callee took, which is the callee's slowness seen
// from above, not a decision of the caller. Only the values themselves
// (what it held, what it passed) or its presence say something of the
// caller. When every variable of the caller that went wrong had its
// values compared and found as in the normal runs (only their durations
// or deltas went wrong: the caller held the values it always holds, for
// longer; a counter, whose values are not compared, may have advanced
// differently, as a loop of the caller's that ran the callee more often
// would make it), the callee was
// given what it is given in the normal runs (none of its parameters, or
// fields behind them, went wrong in any dimension), and the callee's own
// loop went wrong (a loop variable with a verdict below DefaultDiscount),
// the work multiplied in the callee over state that nobody passed it: the
// callee is where the slowdown was decided, and D10 does not put the
// caller above it. A callee whose parameter went wrong (the caller passed
// a bigger table, a longer list) keeps D10's reading: the caller chose
// what to hand it.

// echoOnly reports whether fn has an anomalous verdict, and every variable
// of fn with one (a dimension below DefaultDiscount) had its values
// compared and found normal (a value verdict of DefaultDiscount or more):
// only their durations or deltas went wrong, how long they were held.
func (a *Analyzer) echoOnly(res *Result, fn *Function) bool {
	n := 0
	for vv := range a.wrongVars(res, fn) {
		valueNormal := false
		for _, dv := range vv.Dims {
			if dv.Dim == DimValue {
				valueNormal = dv.OK && dv.R >= a.opt.DefaultDiscount
			}
		}
		if !valueNormal {
			// Its values went wrong, were not compared (a counter, too
			// few samples) or it has only presence (D26's case): what it
			// held may have differed.
			return false
		}
		n++
	}
	return n > 0
}

// paramsNormal reports whether no parameter of fn, nor a field behind one,
// has a verdict below DefaultDiscount in any dimension: fn was given what
// it is given in the normal runs.
func (a *Analyzer) paramsNormal(res *Result, fn *Function) bool {
	for _, j := range fn.Vars {
		vv := &res.Variables[j]
		if a.vars[vv.Var].param && vv.OK && vv.R < a.opt.DefaultDiscount {
			return false
		}
	}
	return true
}

// echoesCallee reports whether caller A's evidence is only an echo of
// callee D's time and D's own loop went wrong on arguments that look
// normal (D43): then D10 does not apply to the pair.
func (a *Analyzer) echoesCallee(A, D int) bool {
	return a.echo != nil && a.echo[A] && a.givenNormal[D] && a.loopWrong[D]
}

// echoingCallers ranks a caller whose evidence echoes its callee just
// below that callee (D43; echoesCallee and the conditions of
// placeBelowSoleCallee). Without a placement the two can tie at equal
// cost (a caller with delta evidence at r = 0), and the caller's raw
// cost, which holds the callee's, would put it first.
func (a *Analyzer) echoingCallers(fns []Function, drivers []bool) {
	a.placeBelowSoleCallee(fns, drivers, a.echoesCallee,
		"its evidence is how long its values were held while the callee ran, the callee's arguments look normal and its own loop went wrong (D43)")
}
