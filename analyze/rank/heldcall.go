package rank

// What a caller all of whose time is one callee gets by construction
// (method.md §7, decision D35). D10 gives such a caller its callee's place
// when its own variables went wrong while the callee ran: it decided to
// make the costly call, and the sign that tells it from a caller where
// anomalies meet is its time on the stack, all of it the callee's. Two
// callers have that time by construction, whatever they decided:
//
//   - a caller that runs inside the callee's own work (the callee called
//     it further out: recursion) is a step of that work: the callee, at
//     its outer level, decided to take it, and the caller's values (the
//     row being cascaded, held across the inner calls) last as long as
//     the calls below;
//   - a frame restored from a tail call (§3) is on the stack only while
//     the function it jumped to runs, so all of its time is that callee's
//     by construction, and what is read there is its parameters' values
//     at entry and the fields behind them, held for the whole call. A
//     recursive function whose own frames are on the stack too (jq's
//     jv_setpath, whose innermost level jumps to jv_set while the outer
//     levels wait for it) is there by its own calls, and counts so.
//
// Neither depends on the depth at which variables were read: a deeper
// depth reads such callers' values during more of the callee's time.

// InsideShare is the share of a caller's slow-run stack time from which
// it runs inside its callee's work, or on the stack through a tail call,
// for D10 to leave it alone (D35).
const InsideShare = 0.5

// decidesByConstruction reports whether D10's sign (all of caller A's
// time is callee D's) holds for A by construction (see above): A ran
// inside D's work (D on the stack outside it) for InsideShare of its
// time or more, or was on the stack only through a tail call (no frame of
// its own there) for InsideShare of its time or more.
func (a *Analyzer) decidesByConstruction(A, D int) bool {
	c := &a.stk
	if c.around(D, A) >= InsideShare*c.on[A] {
		return true
	}
	var tail float64
	for _, r := range a.runs {
		if r.Kind == Buggy {
			tail += r.tailOnly[int32(A)]
		}
	}
	return tail >= InsideShare*c.on[A]
}
