package rank

// A driver frame above its work is judged by what it held (method.md §4,
// decision D313). D5 gives a driver frame (on the stack of nearly all of
// its threads' samples) its own instructions as its cost, because the
// work below it makes its variables differ; their discount still came
// from those variables. When the driver's loop does not spin (D23) and
// the work below it holds most of its slow-run stack time, its variables
// are read mostly while that work runs, and two kinds of verdict then say
// nothing of the driver's own instructions:
//
//   - a value kept through each run of both kinds (a setting: the size
//     of the input, a mode) says that the run differs, not where in it
//     the time went (D160, D299);
//   - the durations and deltas of its variables are how long it held
//     each value while the work below it ran (D43's reading of a caller
//     suspended in its callee), that work's time seen from above.
//
// What stays is what it held within a run (a value verdict of a variable
// that changed in some run: its loop's cursor, what it computed) and its
// presence (a variable present only when slow or rare when normal: a
// path taken only then). A driver with no such verdict has
// DefaultDiscount: its variables look as in the normal runs as far as
// they say anything of it. A driver that is itself most of the work (its
// own part at least half of its stack time, such as a thread's routine
// whose walk is inlined in it) keeps every verdict: its variables are
// read while its own instructions run.

// ReasonAboveWork is the reason of a driver frame's DefaultDiscount when
// no verdict of what it held remains (D313); PatternAboveWork says why it
// has no pattern.
const (
	ReasonAboveWork  = "driver above its work (D313)"
	PatternAboveWork = "a driver frame above its work: its settings and the durations and deltas of its variables are that work's, and nothing it held within a run went wrong (D313)"
)

// markAboveWork sets a.aboveWork: per function, whether it is a driver
// frame (drivers: structural, not spinning) whose own part (the driver
// frames' instructions, as D23 measures it) is less than half of its
// slow-run stack time. structural is structuralDrivers' answer.
func (a *Analyzer) markAboveWork(drivers, structural []bool) {
	a.aboveWork = make([]bool, len(drivers))
	nb, _ := a.kindCounts()
	if nb == 0 {
		return
	}
	p := driverParts(&a.stk, structural, nb)
	for f, d := range drivers {
		if d && f < len(p.on) && p.on[f] > 0 && p.own[f] < p.on[f]-p.own[f] {
			a.aboveWork[f] = true
		}
	}
}

// heldWithin reports whether verdict vv, or its dimension dv (nil: a
// verdict without dimensions), is one a driver above its work is judged
// by: presence, or the values of a variable that changed in some run.
func (a *Analyzer) heldWithin(vv *VarVerdict, dv *DimVerdict) bool {
	if vv.Reason == ReasonBuggyOnly || vv.Reason == ReasonRare || vv.Reason == ReasonNormOnly {
		return dv == nil || dv.Dim == vv.Dim // presence
	}
	return dv != nil && dv.Dim == DimValue && !a.runValue(vv.Var)
}

// ownVerdict returns the verdict among vars that gives a driver frame
// above its work its discount (D313): the strongest verdict of what it
// held within a run, as vstarOf picks one; nil when there is none. A
// variable whose own strongest dimension is not one of those is
// represented by a copy holding its value dimension's verdict.
func (a *Analyzer) ownVerdict(res *Result, vars []int) *VarVerdict {
	var best *VarVerdict
	for _, j := range vars {
		vv := &res.Variables[j]
		if !vv.OK {
			continue
		}
		var cand *VarVerdict
		switch {
		case len(vv.Dims) == 0 || vv.Reason == ReasonBuggyOnly || vv.Reason == ReasonRare || vv.Reason == ReasonNormOnly:
			if a.heldWithin(vv, nil) {
				cand = vv
			}
		case vv.HasDim && vv.Dim == DimValue && a.heldWithin(vv, &DimVerdict{Dim: DimValue}):
			cand = vv
		default:
			for k := range vv.Dims {
				dv := &vv.Dims[k]
				if dv.OK && a.heldWithin(vv, dv) {
					c := *vv
					c.R, c.Dim, c.HasDim, c.Default, c.Reason = dv.R, dv.Dim, true, dv.Default, dv.Reason
					cand = &c
				}
			}
		}
		if cand != nil && (best == nil || better(cand, best)) {
			best = cand
		}
	}
	return best
}

// isAboveWork reports whether function f is a driver frame above its
// work (markAboveWork).
func (a *Analyzer) isAboveWork(f int32) bool {
	return int(f) < len(a.aboveWork) && a.aboveWork[f]
}

// vstarFor returns the verdict among vars that gives function f its
// discount: ownVerdict for a driver above its work, vstarOf otherwise.
func (a *Analyzer) vstarFor(res *Result, f int32, vars []int) *VarVerdict {
	if a.isAboveWork(f) {
		return a.ownVerdict(res, vars)
	}
	return vstarOf(res, vars)
}
