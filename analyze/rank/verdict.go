package rank

import (
	"math"

	"github.com/vprof/vprof/analyze/stats"
	"github.com/vprof/vprof/runtime/model"
)

// Reasons a discount ratio has the value it has.
const (
	ReasonTooFew    = "too few samples"        // no verdict in this dimension
	ReasonOneValue  = "single value"           // one distinct value pooled: DefaultDiscount
	ReasonConstants = "constant, different"    // each side constant, not equal: 0
	ReasonSame      = "same distribution"      // AD p >= alpha: DefaultDiscount
	ReasonDiffer    = "different distribution" // AD p < alpha: 1 - Hellinger
	ReasonBuggyOnly = "present only when slow" // samples in buggy runs only: 0
	ReasonNormOnly  = "absent when slow"       // samples in normal runs only: DefaultDiscount
	ReasonNoVerdict = "no dimension with verdict"
	ReasonNoChange  = "never changes"            // duration of a value no thread saw change: DefaultDiscount
	ReasonSpans     = "changes about once a run" // durations that differ, of a value that changed at most about once per (run, thread) in both kinds, and changed when slow: DefaultDiscount
	ReasonRare      = "rare when normal"         // fewer than MinSamples normal samples: r = its share ratio; more, below ValidDiscount times the slow runs' share (D339): 0
	ReasonCounter   = "counter"                  // value never decreases: value dimension skipped
	ReasonRunNoise  = "differs from run to run"  // runs of one kind differ as much as the kinds: no verdict
	ReasonByCaller  = "read through callers"     // an entry value, absent or rare when normal in a frame that ran there: no verdict (D335)
)

// DimVerdict is the variable-discounter's result for one dimension of one
// variable.
type DimVerdict struct {
	Dim           Dimension
	Normal, Buggy float64 // observations per side
	Exact         bool    // every observation was used (no reservoir)
	OK            bool    // a verdict was reached
	Tested        bool    // the Anderson-Darling test ran
	Statistic     float64 // standardized AD statistic
	P             float64 // its p-value, capped to [0.001, 0.25]
	Hellinger     float64 // computed when p < alpha
	Within        float64 // value: the largest Hellinger distance between two runs of one kind
	R             float64 // discount ratio
	Default       bool    // R is DefaultDiscount given without a test
	Reason        string
}

// dimVerdict compares the normal and buggy samples of one dimension
// (method.md §5).
func (o *Options) dimVerdict(d Dimension, ns, bs *sampleSet) DimVerdict {
	v := DimVerdict{Dim: d}
	if ns != nil {
		v.Normal = ns.n
	}
	if bs != nil {
		v.Buggy = bs.n
	}
	v.Exact = (ns == nil || ns.exact()) && (bs == nil || bs.exact())
	min := float64(o.MinSamples)
	if v.Normal < min || v.Buggy < min {
		v.Reason = ReasonTooFew
		return v
	}
	v.OK = true
	switch {
	case ns.constant() && bs.constant() && ns.min == bs.min:
		v.R, v.Default, v.Reason = o.DefaultDiscount, true, ReasonOneValue
		return v
	case ns.constant() && bs.constant():
		v.R, v.Reason = 0, ReasonConstants
		return v
	}
	nd, bd := ns.dist(), bs.dist()
	res, err := stats.AndersonKSampDist(nd, bd)
	if err != nil {
		// Only possible when NaNs hide the spread from min/max: one
		// distinct value after all.
		v.R, v.Default, v.Reason = o.DefaultDiscount, true, ReasonOneValue
		return v
	}
	v.Tested, v.Statistic, v.P = true, res.Statistic, res.P
	if floor := splitFloor(v.Normal, v.Buggy); floor >= o.Alpha {
		// Too few observations for any split of them to be told from
		// chance (D280): the approximation's p is not what they can give.
		v.P = max(v.P, floor)
	}
	if v.P >= o.Alpha {
		v.R, v.Reason = o.DefaultDiscount, ReasonSame
		return v
	}
	v.Hellinger = stats.Hellinger(nd, bd)
	v.R, v.Reason = 1-v.Hellinger, ReasonDiffer
	if v.R < o.ValidDiscount {
		v.R = 0
	}
	return v
}

// splitFloor is the smallest p-value a two-sample test of the ranks of n
// and m observations can reach (method.md §5, decision D280): of the
// C(n+m, n) ways to split the pooled observations into groups of those
// sizes, the two that put one group wholly above the other are the
// farthest apart, so no split is rarer than 2 / C(n+m, n). The
// Anderson-Darling statistic depends only on the ranks (and is the same
// for a split and its mirror image), so its exact p-value is at least
// this; its asymptotic approximation, made for larger samples, gives
// 0.02 for 4 observations wholly apart from 3, where the floor is 2/35
// (0.057). The result is capped at 1; the loop stops once it is below
// 0.001, the p-value's own floor.
func splitFloor(n, m float64) float64 {
	a, b := math.Round(n), math.Round(m)
	if a < 1 || b < 1 {
		return 1
	}
	// C(a+b, a), built up while 2 / C is above 0.001 (it only grows).
	c := 1.0
	for i := 1.0; i <= math.Min(a, b); i++ {
		c = c * (math.Max(a, b) + i) / i
		if c > 2000 {
			break
		}
	}
	return math.Min(1, 2/c)
}

// VarVerdict is the variable-discounter's result for one variable.
type VarVerdict struct {
	Var      int32
	Name     string
	Function string // defining function; "" for globals
	Global   bool
	Tags     string
	Type     string
	Normal   float64 // value samples in normal runs
	Buggy    float64 // value samples in buggy runs
	Dims     []DimVerdict
	OK       bool      // the variable has a verdict
	R        float64   // min over its dimensions
	Dim      Dimension // the dimension that gave R
	HasDim   bool      // false for "absent when slow"
	Default  bool      // R is DefaultDiscount given without a test
	Reason   string
}

// tieOrder is the order in which dimensions win a tie (the authors' code):
// duration, delta, value.
var tieOrder = [numDims]Dimension{DimDuration, DimDelta, DimValue}

// absentByChance reports whether variable v (its index; -1: judged at the
// runs' share alone), seen in buggy samples of the slow runs and never in
// the normal runs, would have been seen fewer than MinSamples times in the
// normal runs at the same share of their samples (method.md §5, decision
// D37), or of its frame's (absentRatio, D297): its absence there is what
// their length, or its frame's time there, gives, not evidence that it
// ran only when slow.
func (a *Analyzer) absentByChance(v int32, buggy float64) bool {
	ratio, ok := a.absentRatio(v)
	return ok && buggy*ratio < float64(a.opt.MinSamples)
}

// rareByChance reports whether variable v (as absentByChance), seen
// normal times in the normal runs (1 or 2: fewer than MinSamples) and
// buggy times in the slow runs, would be seen that rarely or more rarely
// in the normal runs with a like chance at Alpha or more, if it took the
// same share of their samples as of the slow runs' (method.md §5, decision
// D61), or of its frame's (absentRatio, D297): the count of a Poisson law
// whose mean is buggy at that share, at most normal. For 0 this is D37's
// bound (absentByChance: e^-3 is 0.0498).
func (a *Analyzer) rareByChance(v int32, normal, buggy float64) bool {
	ratio, ok := a.absentRatio(v)
	if normal < 1 || !ok {
		return false
	}
	lambda := buggy * ratio
	var p, term float64 = 0, math.Exp(-lambda)
	for k := 0; float64(k) <= normal; k++ {
		if k > 0 {
			term *= lambda / float64(k)
		}
		p += term
	}
	return p >= a.opt.Alpha
}

// rareBeyondTest reports whether variable v, seen normal times in the
// normal runs (MinSamples or more: enough for a test, but fewer than
// MinSamples per normal run on average: no normal run alone could have
// been tested) and buggy times in the slow runs, is rare when normal as
// D4 reads 1 or 2 normal samples with r 0 (method.md §5, decision D339):
// its share of the normal runs' samples is below ValidDiscount times its
// share of the slow runs' (D4's ratio, which ValidDiscount turns to 0),
// and a Poisson count whose mean is its slow-run samples at the normal
// runs' share (or its frame's: absentRatio, D297) is at most normal with
// chance below Alpha (D61). At 2 normal samples against a thousand D4
// gives r 0 and at 3 a test of those 3 values decided, found alike
// (DefaultDiscount) or apart (any r) by which few reads of the walk the
// sampler happened to catch: the function barely ran in the normal runs,
// and how often it was read is the evidence at 3 as at 2. A variable read
// a tenth as often or more, or read as often per normal run as a test
// needs, keeps its tests: its values are compared, as before; so does a
// global, and a variable whose frame had its variables read at
// MinSamples events per normal run or more (the frame ran there; D341).
func (a *Analyzer) rareBeyondTest(v int32, normal, buggy float64) bool {
	o := &a.opt
	if normal < float64(o.MinSamples) || buggy < float64(o.MinSamples) || a.total[Normal] <= 0 || a.total[Buggy] <= 0 {
		return false
	}
	fn := a.vars[v].fn
	if fn < 0 {
		// A global is read from whichever frame references it: no
		// frame's presence is its own.
		return false
	}
	// Its frame must have barely run in the normal runs too (fewer
	// events with its variables read than a test needs per run): a
	// value computed once in a frame that ran there as long as its
	// walk (a cut-off before a directory scan) was read rarely by
	// where it sits, not because the frame ran only when slow.
	ev, runs := a.frameEvents(fn)
	if ev[Normal] >= runs[Normal]*float64(o.MinSamples) {
		return false
	}
	if normal >= runs[Normal]*float64(o.MinSamples) {
		// As many reads per normal run as a test needs: its values say
		// what they say.
		return false
	}
	if (normal/a.total[Normal])/(buggy/a.total[Buggy]) >= o.ValidDiscount {
		return false
	}
	ratio, ok := a.absentRatio(v)
	return ok && poissonAtMost(normal, buggy*ratio) < o.Alpha
}

// absentRatio returns how many normal-run samples one slow-run sample of
// variable v stands for when its absence from the normal runs is judged:
// the normal runs' samples over the slow runs' (D37); for a sliver (a
// local or parameter read during less than 1 - SoleCallee of the
// slow-run time in which its function's variables were read, D246) whose
// frame had its variables read at MinSamples sampling events or more in
// the normal runs, the frame's events there over its events in the slow
// runs when that is smaller (decision D297). A frame that ran six times
// longer in the slow runs gives a variable in scope for a sliver of it (a
// local of two lines before a loop) a few slow samples and, at the same
// share of the frame, about none in the normal runs: its absence there is
// the frame's shorter time, not a path taken only when slow. A variable
// read over more of its frame's time carries the frame's own presence (a
// loop that ran far more often when slow), and so do the variables of a
// frame that never ran in the normal runs, or ran there at fewer events
// than a verdict needs: they keep the runs' share. ok is false when
// either kind has no samples.
func (a *Analyzer) absentRatio(v int32) (ratio float64, ok bool) {
	if a.total[Normal] <= 0 || a.total[Buggy] <= 0 {
		return 0, false
	}
	ratio = a.total[Normal] / a.total[Buggy]
	if v < 0 || int(v) >= len(a.vars) || a.vars[v].fn < 0 {
		return ratio, true
	}
	fn := a.vars[v].fn
	var read [2]float64
	for _, r := range a.runs {
		if int(fn) < len(r.vc) {
			read[r.Kind] += r.vc[fn]
		}
	}
	ev, _ := a.frameEvents(fn)
	if ev[Normal] >= float64(a.opt.MinSamples) && ev[Buggy] > 0 && a.sliverVar(v, read[Buggy]) {
		ratio = min(ratio, ev[Normal]/ev[Buggy])
	}
	return ratio, true
}

// varVerdict computes r(v), method.md §5.
func (a *Analyzer) varVerdict(i int32) VarVerdict {
	o := &a.opt
	vi := &a.vars[i]
	vv := VarVerdict{Var: i, Name: vi.name, Global: vi.fn < 0, Tags: vi.tags.String(), Type: vi.typ,
		Normal: vi.count[Normal], Buggy: vi.count[Buggy]}
	if vi.fn >= 0 {
		vv.Function = a.funcs[vi.fn].display
	}
	switch {
	case vv.Normal < float64(o.MinSamples) && vv.Buggy >= float64(o.MinSamples) && a.presenceByCaller(i):
		// Read through its callers' records, in a frame that ran in the
		// normal runs: how often it was read says which caller called,
		// not a path taken only when slow (D335). No verdict.
		vv.Reason = ReasonByCaller
		return vv
	case vv.Normal == 0 && vv.Buggy >= float64(o.MinSamples) && a.absentByChance(i, vv.Buggy):
		vv.Reason = ReasonTooFew // D37
		return vv
	case vv.Normal == 0 && vv.Buggy >= float64(o.MinSamples):
		vv.OK, vv.R, vv.Dim, vv.HasDim, vv.Reason = true, 0, DimValue, true, ReasonBuggyOnly
		return vv
	case vv.Buggy == 0 && vv.Normal > 0:
		vv.OK, vv.R, vv.Default, vv.Reason = true, o.DefaultDiscount, true, ReasonNormOnly
		return vv
	case vv.Normal < float64(o.MinSamples) && vv.Buggy >= float64(o.MinSamples) && a.rareByChance(i, vv.Normal, vv.Buggy):
		// Rare when normal only as rare as chance makes it at the normal
		// runs' length (D61): no verdict.
		vv.Reason = ReasonTooFew
		return vv
	case vv.Normal < float64(o.MinSamples) && vv.Buggy >= float64(o.MinSamples) && a.total[Normal] > 0 && a.total[Buggy] > 0:
		// Too few normal samples for a test, but a share of the slow runs'
		// samples: "present only when slow" made continuous. r is the
		// ratio of the variable's shares of the samples of each kind, so
		// 0 normal samples give the cliff's 0 and a variable that takes
		// the same share of both kinds gets no evidence from it.
		share := (vv.Normal / a.total[Normal]) / (vv.Buggy / a.total[Buggy])
		vv.OK, vv.R, vv.Dim, vv.HasDim, vv.Reason = true, min(share, o.DefaultDiscount), DimValue, true, ReasonRare
		if vv.R < o.ValidDiscount {
			vv.R = 0
		}
		vv.Default = share >= o.DefaultDiscount
		return vv
	case vv.Normal == 0 || vv.Buggy == 0:
		vv.Reason = ReasonTooFew
		return vv
	}
	var best *DimVerdict
	counter := vi.counter()
	for _, d := range tieOrder {
		if !vi.analyses(d) {
			continue
		}
		if d == DimValue && counter {
			vv.Dims = append(vv.Dims, DimVerdict{Dim: d, Normal: vi.sets[Normal][d].count(), Buggy: vi.sets[Buggy][d].count(), Reason: ReasonCounter})
			continue
		}
		dv := o.dimVerdict(d, vi.sets[Normal][d], vi.sets[Buggy][d])
		if d == DimValue && dv.Tested && dv.R < o.DefaultDiscount {
			if w, ok := a.runNoise(i, dv.Hellinger); ok {
				dv = DimVerdict{Dim: d, Normal: dv.Normal, Buggy: dv.Buggy, Exact: dv.Exact, Tested: true,
					Statistic: dv.Statistic, P: dv.P, Hellinger: dv.Hellinger, Within: w, Reason: ReasonRunNoise}
			}
		}
		if d == DimDuration && dv.OK && !vi.changed[Normal] && !vi.changed[Buggy] {
			// No thread of any run saw the value change: every duration
			// is one thread's whole span of samples of v, which measures
			// how long the thread ran, not how long v's values last.
			dv = DimVerdict{Dim: d, Normal: dv.Normal, Buggy: dv.Buggy, Exact: dv.Exact, OK: true,
				R: o.DefaultDiscount, Default: true, Reason: ReasonNoChange}
		} else if d == DimDuration && dv.OK && dv.R < o.DefaultDiscount && vi.changed[Buggy] && a.fewChangesIn(i, Normal) && a.fewChangesIn(i, Buggy) {
			// It changed about once per (run, thread) at most, in both
			// kinds, and did change in the slow runs: its durations are
			// the threads' spans cut in one or two pieces, which a
			// longer run makes longer by construction (D20 for
			// patterns; decision D111), so that they differ is no
			// evidence; that they look alike stays what it was. A
			// value that kept one value through every slow (run,
			// thread) where the normal runs changed it keeps its
			// durations: held longer is the hang.
			dv = DimVerdict{Dim: d, Normal: dv.Normal, Buggy: dv.Buggy, Exact: dv.Exact, OK: true,
				R: o.DefaultDiscount, Default: true, Reason: ReasonSpans}
		}
		vv.Dims = append(vv.Dims, dv)
	}
	for j := range vv.Dims {
		if dv := &vv.Dims[j]; dv.OK && (best == nil || dv.R < best.R) {
			best = dv
		}
	}
	if a.rareBeyondTest(i, vv.Normal, vv.Buggy) {
		// Read less than a tenth as often in the normal runs, for their
		// length, beyond chance (D339): D4's verdict at 1 or 2 normal
		// samples, kept at 3 and more, where a test of those few values
		// would otherwise decide (the cliff between 2 and 3 samples).
		// The dimensions stay for --explain.
		vv.OK, vv.R, vv.Dim, vv.HasDim, vv.Default, vv.Reason = true, 0, DimValue, true, false, ReasonRare
		return vv
	}
	if best == nil {
		vv.Reason = ReasonNoVerdict
		return vv
	}
	vv.OK, vv.R, vv.Dim, vv.HasDim, vv.Default, vv.Reason = true, best.R, best.Dim, true, best.Default, best.Reason
	if vi.tags&model.TagLoop != 0 && (best.Default || vi.mode == modePtrNull && best.R >= o.DefaultDiscount) {
		a.rareWalk(&vv, vi.mode == modePtrNull)
	}
	return vv
}

// rareWalk gives loop variable vv, every dimension of which got
// DefaultDiscount without a test (one value pooled, or a value that never
// changed: a pointer iterator, always non-null, each address held for a
// tick), the verdict "rare when normal" (D4) with r its share ratio when
// its share of the normal runs' samples is below DefaultDiscount times its
// share of the slow runs' beyond chance: a Poisson count whose mean is its
// slow-run samples at the normal runs' share is at most its normal samples
// with chance below Alpha (method.md §5, decision D75). Its values cannot
// say that the loop went further; how often it was read can. With
// presence (a pointer compared only on null / non-null and its address), a
// dimension tested and found alike counts as such a default too (D159):
// one address read at two ticks turns one value into a test, and a test
// that finds nothing says no more. So does one that finds a difference
// by less than DefaultDiscount's margin (D275): its null share is where
// its walks ended, a little rarer when each walk goes further, which is
// how often it was read seen from the other side. It reports whether it
// gave the verdict.
func (a *Analyzer) rareWalk(vv *VarVerdict, presence bool) bool {
	o := &a.opt
	for j := range vv.Dims {
		if dv := &vv.Dims[j]; dv.OK && !dv.Default && !(presence && dv.R >= o.DefaultDiscount) {
			return false
		}
	}
	if a.total[Normal] <= 0 || a.total[Buggy] <= 0 || vv.Normal <= 0 || vv.Buggy <= 0 {
		return false
	}
	share := (vv.Normal / a.total[Normal]) / (vv.Buggy / a.total[Buggy])
	if share >= o.DefaultDiscount || poissonAtMost(vv.Normal, vv.Buggy*a.total[Normal]/a.total[Buggy]) >= o.Alpha {
		return false
	}
	vv.R, vv.Dim, vv.HasDim, vv.Default, vv.Reason = share, DimValue, true, false, ReasonRare
	if vv.R < o.ValidDiscount {
		vv.R = 0
	}
	return true
}

// poissonAtMost is P(X <= k) for X Poisson with mean lambda, summed in
// logarithms so that large means do not underflow.
func poissonAtMost(k, lambda float64) float64 {
	if lambda <= 0 {
		return 1
	}
	var p float64
	for i := 0.0; i <= k; i++ {
		lg, _ := math.Lgamma(i + 1)
		p += math.Exp(i*math.Log(lambda) - lambda - lg)
	}
	return min(p, 1)
}

// spansOnly reports whether d is a duration dimension whose durations
// were not compared because they are the threads' spans of samples (the
// value never changed, or changed about once per run: D111): it says
// nothing about how long the variable's values last.
func (d *DimVerdict) spansOnly() bool {
	return d.Dim == DimDuration && (d.Reason == ReasonNoChange || d.Reason == ReasonSpans)
}

// runSetLimit bounds a run's value set of one variable (Run.vsets).
const runSetLimit = 512

// runNoise reports whether two runs of the same kind differ in variable
// v's values as much as the normal and the buggy runs differ (between, the
// Hellinger distance of the pooled kinds): then the difference between
// the kinds may be the runs' own (a value left on the stack, address bits,
// a time of day) and carries no verdict (method.md §5, decision D7). It
// returns the largest distance within a kind. Runs with fewer than
// MinSamples values of v are not compared, and a pair of runs counts only
// when its distance is beyond what their sizes give by chance (a
// permutation test at NoiseLevel, decision D16): two runs with three
// values of a loop index each are at distance 1 whatever the loop does.
func (a *Analyzer) runNoise(v int32, between float64) (float64, bool) {
	min := float64(a.opt.MinSamples)
	var within float64
	noise := false
	for i, x := range a.runs {
		xs := x.vset(v)
		if xs == nil || xs.n < min {
			continue
		}
		for _, y := range a.runs[i+1:] {
			ys := y.vset(v)
			if y.Kind != x.Kind || ys == nil || ys.n < min {
				continue
			}
			dx, dy := xs.dist(), ys.dist()
			h := stats.Hellinger(dx, dy)
			within = max(within, h)
			if !noise && h >= between && stats.HellingerChance(dx, dy, NoisePermutations) < NoiseLevel {
				noise = true
			}
		}
	}
	return within, noise
}

// NoiseLevel is the permutation p-value below which two runs of one kind
// differ beyond chance (runNoise), and NoisePermutations the re-splits it
// is estimated from.
const (
	NoiseLevel        = 0.05
	NoisePermutations = 199
)

func (r *Run) vset(v int32) *sampleSet {
	if int(v) < len(r.vsets) {
		return r.vsets[v]
	}
	return nil
}

// counter reports whether v counts something: no thread of any run saw
// its value decrease, some saw it increase, and it is no loop's induction
// variable. Its value measures how much work the process has done so far
// (requests served, pages read, a clock), which a longer run makes larger
// by construction: like a clock's, it is compared by its deltas (the rate)
// and durations, not by value. An induction variable keeps its value
// dimension: a loop that runs further is the evidence of a scalability bug.
func (vi *varInfo) counter() bool {
	return vi.up && !vi.down && vi.tags&model.TagLoop == 0
}

// analyses reports whether variable vi is analysed in dimension d.
func (vi *varInfo) analyses(d Dimension) bool {
	switch {
	case vi.mode == modeDurOnly:
		return d == DimDuration
	case d == DimValue:
		return !vi.natural
	}
	return true
}

// vstarOf returns the verdict among vars (indices into res.Variables)
// that gives a function its variable discount, v* (method.md §5): the
// better of those with a verdict (better), nil when none has one.
func vstarOf(res *Result, vars []int) *VarVerdict {
	var best *VarVerdict
	for _, j := range vars {
		if vv := &res.Variables[j]; vv.OK && (best == nil || better(vv, best)) {
			best = vv
		}
	}
	return best
}

// better reports whether verdict x should represent a function rather than
// y: the lower r; on a tie, one from evidence over a default, then by name.
func better(x, y *VarVerdict) bool {
	if x.R != y.R {
		return x.R < y.R
	}
	if x.Default != y.Default {
		return !x.Default
	}
	return x.Name < y.Name
}

// frameEvents returns, per kind of run, the sampling events at which
// function fn had its variables read (the runs' vn, D297), and the number
// of runs of that kind.
func (a *Analyzer) frameEvents(fn int32) (ev, runs [2]float64) {
	for _, r := range a.runs {
		runs[r.Kind]++
		if fn >= 0 && int(fn) < len(r.vn) {
			ev[r.Kind] += r.vn[fn]
		}
	}
	return ev, runs
}
