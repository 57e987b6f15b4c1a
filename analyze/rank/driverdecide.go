package rank

import (
	"cmp"
	"math"
	"slices"
)

// A driver frame that is called again and again (method.md §7, decision
// D251). D5 counts no variable-based cost for a driver frame: it is on the
// stack of every slow sample, so its variables differ by construction and
// cannot say where the time went. The driver frames D5 has in mind are
// entered once (main, a thread's start routine, an event loop): their
// parameters keep one value through a run. A function that covers its
// threads' samples only because the program does little else than call
// it (a library's match entry point, a per-item step) is entered again for
// every item, and its parameters take each call's value. When such a
// driver is the direct caller of a callee D that is all of its slow-run
// time (SoleCallee both ways) and D's strongest evidence is what it was
// given (a parameter of D or a field behind one), the argument that went
// wrong was computed in the driver at each call: it decided how much D
// does, as D10 reads a caller that decided, and takes D's place, D just
// below it. A driver entered once (no parameter of its own that
// changed within a slow run), a callee whose strongest evidence is a
// local of its own (its own loop went wrong), and a driver that is not
// D's direct caller keep their places.
func (a *Analyzer) driverCallers(res *Result, drivers []bool) {
	fns := res.Functions
	c := &a.stk
	row := a.rowOf(fns)
	entered := a.enteredAgain()
	var pairs []placePair
	for id := range fns {
		fd := &fns[id]
		if fd.Source != SourceVariable || fd.Discount >= a.opt.DefaultDiscount || fd.Calibrated <= 0 {
			continue
		}
		vv := a.bestOf(res, fd)
		if vv == nil || vv.Global || !a.vars[vv.Var].param {
			continue // D's strongest evidence is not what it was given
		}
		D := int(a.funcIdx[fd.Key])
		for A, t := range c.directCallersOf(D) {
			ia, ok := row[int32(A)]
			if !ok || A >= len(drivers) || !drivers[A] || !entered[A] || t < SoleCallee*c.on[D] || c.on[D] < SoleCallee*c.on[A] {
				continue
			}
			pairs = append(pairs, placePair{ia, id})
		}
	}
	// The driver takes D's place and D goes just below it: a driver's own
	// calibrated cost is that of its few instructions (D5), no measure of
	// the piece of work, so D keeps its evidence next to it.
	slices.SortFunc(pairs, func(x, y placePair) int {
		return cmp.Or(cmp.Compare(fns[y.id].Calibrated, fns[x.id].Calibrated), cmp.Compare(x.id, y.id))
	})
	for _, p := range pairs {
		hi := fns[p.id].Calibrated
		if hi <= fns[p.ia].Calibrated {
			continue // the driver already ranks above
		}
		fns[p.ia].Calibrated, fns[p.id].Calibrated = hi, math.Nextafter(hi, 0)
		fns[p.ia].Placed = "in the place of " + fns[p.id].Name + ", all of its time, which it called with the argument that went wrong, computed at each of its own calls (a driver frame entered again and again, D251)"
		fns[p.id].Placed = "just below its caller " + fns[p.ia].Name + ", a driver frame entered at each call that gave it the argument that went wrong (D251)"
	}
}

// enteredAgain returns, per function, whether one of its own parameters
// changed value on some thread of a slow run: the function was entered
// more than once there, each call given its own arguments (D251).
func (a *Analyzer) enteredAgain() []bool {
	out := make([]bool, len(a.funcs))
	for i := range a.vars {
		vi := &a.vars[i]
		if vi.fn >= 0 && int(vi.fn) < len(out) && vi.param && vi.derefOf == 0 && vi.changed[Buggy] {
			out[vi.fn] = true
		}
	}
	return out
}
