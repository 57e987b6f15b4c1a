package rank

import (
	"cmp"
	"fmt"
	"iter"
	"math"
	"slices"
	"strings"
)

// Bug patterns (method.md §8).
const (
	PatternMissing     = "missing constraint"
	PatternWrong       = "wrong constraint"
	PatternScalability = "scalability"
)

// Discount sources.
const (
	SourceVariable = "variable"
	SourceHist     = "hist"
)

// Result is the ranked root-cause table and what led to it.
type Result struct {
	Functions  []Function   // ranked, best suspect first
	Variables  []VarVerdict // every variable with samples
	NormalRuns int
	BuggyRuns  int
	Warnings   []string
	// Counts are the caller/callee pairs of the leading rows whose call
	// counts were read, with what they decided (counts.go, D220); empty
	// when no profile holds counts.
	Counts []CountPair
	// NextStep, when set, says which calls to count: the first two rows
	// are a caller and its callee that no counts order.
	NextStep *NextStep
}

// Function is one row of the ranked table (method.md §7). Costs are in
// seconds, means over the buggy runs.
type Function struct {
	Rank       int
	Name       string // for people (demangled)
	Key        string // linkage name
	Calibrated float64
	Raw        float64 // raw cost in the buggy runs (method.md §4)
	Extra      float64 // Raw minus the raw cost in the normal runs (scaled to the slow runs' length when those are shorter: D56)
	PCCost     float64
	VarCost    float64
	PlainRank  int     // by self time in the buggy runs, as `vprof flat` ranks; 0: no self time
	Discount   float64 // r
	Source     string  // SourceVariable or SourceHist
	Variable   string  // v*, for a variable verdict
	Dimension  string  // d*: value, delta, duration; "hist"; "" when v* has none
	Reason     string  // how r came about
	Pattern    string  // PatternMissing, PatternWrong, PatternScalability or ""
	// PatternReason says, for the top functions (Options.PatternTop), which
	// rule of method.md §8 gave the pattern, or why none applies.
	PatternReason string
	// Placed says when a rule of method.md §7 set the calibrated cost
	// otherwise than from the function's own cost and discount: in a
	// callee's place (D10), or just below the anomalies that meet in it
	// (D12). Empty otherwise.
	Placed string
	// Sliver names the variables the placements left out of its evidence:
	// read during less than 1 - SoleCallee of the time its variables were
	// read (sliver.go, D246).
	Sliver    []string
	Tie       bool // equal on every ranking key to a neighbour: same Rank
	Locations []Location
	Via       []Via
	HistPairs int   // hist-discounter: pairs compared (n x m) ...
	HistNear  int   // ... and pairs where the ranks were within the window
	Vars      []int // indices into Result.Variables of the function's variables
	File      string
	Line      int32
}

// Location is a source line where abnormal samples of v* were read, with
// the basic block of the function that holds most of them.
type Location struct {
	File      string
	Line      int32
	Block     int    // index in the function's basic blocks, -1 unknown
	BlockAddr uint64 // link-time start address of that block
	Samples   float64
}

func (l Location) String() string {
	if l.File == "" {
		return fmt.Sprintf("%#x", l.BlockAddr)
	}
	return fmt.Sprintf("%s:%d", l.File, l.Line)
}

// Via is a library function that carried part of a function's PC cost.
type Via struct {
	Func  string
	Share float64 // of the function's PC cost, 0..1
}

// Result computes the ranking from the runs fed so far. Open runs are ended.
func (a *Analyzer) Result() *Result {
	for _, r := range a.runs {
		r.End()
	}
	o := &a.opt
	res := &Result{Warnings: slices.Clone(a.warnings)}
	var normal, buggy []*Run
	for _, r := range a.runs {
		if r.Kind == Buggy {
			buggy = append(buggy, r)
		} else {
			normal = append(normal, r)
		}
	}
	res.NormalRuns, res.BuggyRuns = len(normal), len(buggy)
	res.Warnings = append(res.Warnings, a.buildWarnings(normal, buggy)...)
	res.Warnings = append(res.Warnings, inputWarnings(normal, buggy)...) // checks.go
	res.Warnings = append(res.Warnings, a.debugInfoWarnings()...)        // checks.go
	if n := waitNote(buggy); n != "" {
		res.Warnings = append(res.Warnings, n) // contention.go
	}

	// Variable verdicts.
	var verdictOf []int // index into res.Variables + 1
	res.Variables, verdictOf = a.varVerdicts()
	// Variables of each function: its locals, and the globals sampled at
	// one of its PCs.
	funcVars := make([][]int, len(a.funcs))
	for i := range a.vars {
		vi := &a.vars[i]
		j := verdictOf[i]
		if j == 0 {
			continue
		}
		if vi.fn >= 0 {
			funcVars[vi.fn] = append(funcVars[vi.fn], j-1)
			continue
		}
		for f := range vi.funcs {
			funcVars[f] = append(funcVars[f], j-1)
		}
	}

	// Costs: means over the runs of a kind (absent: 0).
	mean := func(runs []*Run, get func(r *Run, f int) float64, f int) float64 {
		if len(runs) == 0 {
			return 0
		}
		var s float64
		for _, r := range runs {
			if f < len(r.pc) {
				s += get(r, f)
			}
		}
		return s / float64(len(runs))
	}
	pcOf := func(r *Run, f int) float64 { return r.pc[f] }
	vcOf := func(r *Run, f int) float64 { return r.vc[f] }
	selfOf := func(r *Run, f int) float64 { return r.self[f] }

	structural := a.structuralDrivers()
	drivers := a.driversOf(structural)
	a.markAboveWork(drivers, structural) // driverown.go, D313
	// A function's cost in one run (method.md §4): the larger of its PC
	// cost and its variable-based cost; a driver frame's, its PC cost.
	costOf := func(r *Run, f int) float64 {
		if drivers[f] {
			return r.pc[f]
		}
		return max(r.pc[f], r.vc[f])
	}
	plain := a.plainRanks(buggy, selfOf, mean)
	histRank := make([][]int32, len(a.runs)) // per run: rank by raw cost, 0 unranked
	for ri, r := range a.runs {
		histRank[ri] = a.rawRanks(r, costOf)
	}
	via := viaIndex(buggy)
	runIndex := map[*Run]int{}
	for i, r := range a.runs {
		runIndex[r] = i
	}

	// Normal runs longer than the slow ones are counted at the slow
	// runs' length (D56, scale.go).
	scale := normalScale(normal, buggy)
	a.normalScale = scale
	for f := range a.funcs {
		fi := &a.funcs[f]
		if !fi.program {
			continue
		}
		raw := mean(buggy, costOf, f)
		extra := raw - scale*mean(normal, costOf, f)
		if raw <= 0 {
			continue
		}
		fn := Function{
			Name: fi.display, Key: fi.key, Raw: raw, Extra: extra,
			PCCost: mean(buggy, pcOf, f), VarCost: mean(buggy, vcOf, f),
			PlainRank: plain[f], File: fi.file, Line: fi.line,
			Vars: funcVars[f],
		}
		// A driver frame above its work is judged by what it held within
		// a run (driverown.go, D313).
		if best := a.vstarFor(res, int32(f), funcVars[f]); best != nil {
			fn.Discount, fn.Source, fn.Variable, fn.Reason = best.R, SourceVariable, best.Name, best.Reason
			if best.HasDim {
				fn.Dimension = best.Dim.String()
			}
		} else if a.isAboveWork(int32(f)) && vstarOf(res, funcVars[f]) != nil {
			// Verdicts, none of what it held (D313).
			fn.Discount, fn.Source, fn.Reason = o.DefaultDiscount, SourceVariable, ReasonAboveWork
		} else {
			// Hist-discounter (method.md §6).
			rb, rn := make([]int32, len(buggy)), make([]int32, len(normal))
			for i, r := range buggy {
				rb[i] = histRank[runIndex[r]][f]
			}
			for i, r := range normal {
				rn[i] = histRank[runIndex[r]][f]
			}
			fn.HistNear, fn.HistPairs = histNear(rb, rn, o.HistWindow)
			if fn.HistPairs > 0 {
				fn.Discount = float64(fn.HistNear) / float64(fn.HistPairs)
			}
			if fn.Discount < o.ValidDiscount {
				fn.Discount = 0
			}
			fn.Source, fn.Dimension, fn.Reason = SourceHist, "hist", fmt.Sprintf("ranks near in %d of %d run pairs", fn.HistNear, fn.HistPairs)
		}
		// The cost a function explains is its cost in the slow runs
		// beyond its cost in the normal ones (method.md §4, D6).
		// Weighted by the share of its slow-run cost that is new (D8): a
		// function whose cost the slow run made is where the slowdown is
		// produced; one that grew in proportion with the rest of the run
		// (a caller doing its normal work around the root cause) less so.
		pos := max(0, fn.Extra)
		fn.Calibrated = (1 - fn.Discount) * pos * pos / fn.Raw // raw > 0 here
		fn.Via = a.viaOf(buggy, via[int32(f)], int32(f))
		res.Functions = append(res.Functions, fn)
	}
	// Where several anomalies meet (D12), then who decided (D10).
	// D10 and D12 ask what runs above functions with a variable verdict.
	a.stk.inner = make([]bool, len(a.funcs))
	for i := range res.Functions {
		if res.Functions[i].Source == SourceVariable {
			a.stk.inner[a.funcIdx[res.Functions[i].Key]] = true
		}
	}
	// The placements read a frame's evidence without the variables read
	// during a sliver of its time (sliver.go, D246).
	a.place(res, drivers, len(buggy))
	// Ties are broken by the slow runs' raw cost, then their PC cost
	// (self time), then the strength of the evidence (lower r); rows still
	// equal share a rank (Tie) and are listed by name only for a stable
	// order: a name decides nothing.
	order := func(x, y *Function) int {
		if c := cmp.Compare(y.Calibrated, x.Calibrated); c != 0 {
			return c
		}
		if c := cmp.Compare(y.Raw, x.Raw); c != 0 {
			return c
		}
		if c := cmp.Compare(y.PCCost, x.PCCost); c != 0 {
			return c
		}
		return cmp.Compare(x.Discount, y.Discount)
	}
	slices.SortFunc(res.Functions, func(x, y Function) int {
		if c := order(&x, &y); c != 0 {
			return c
		}
		return strings.Compare(x.Name, y.Name)
	})
	// Call counts order a caller and its callee among the leading rows
	// (counts.go, D220, D221); without counts, nothing here moves.
	a.takeRunCounts()
	res.Counts = a.countOrder(res.Functions, len(normal), len(buggy), drivers)
	res.NextStep = a.nextStep(res.Functions, normal, buggy, drivers)
	ab := a.abnormalIndex()
	for i := range res.Functions {
		fn := &res.Functions[i]
		fn.Rank = i + 1
		if i > 0 && order(&res.Functions[i-1], fn) == 0 {
			fn.Rank, fn.Tie, res.Functions[i-1].Tie = res.Functions[i-1].Rank, true, true
		}
		// The top PatternTop ranks, ties included: a row tied at the
		// last of them is as much a top row as the one listed before it
		// (decision D228; it had neither a pattern nor a reason).
		top := fn.Rank <= o.PatternTop
		if top {
			fn.PatternReason = noPatternHist
		}
		if fn.Source != SourceVariable {
			continue
		}
		f := a.funcIdx[fn.Key]
		vv := a.bestOf(res, fn)
		if vv == nil {
			if top {
				fn.PatternReason = PatternAboveWork
			}
			continue
		}
		if vv.HasDim {
			fn.Locations = a.locations(ab[abGroup{vv.Var, vv.Dim}], f, vv.Global, o.Locations)
		}
		if len(fn.Locations) == 0 {
			fn.Locations = a.nextLocations(res, fn, vv, f, ab)
		}
		if top {
			fn.Pattern, fn.PatternReason = a.pattern(res, fn, vv)
		}
	}
	return res
}

// nextLocations locates fn's row when v* (vv) has no located sample: a
// verdict of presence with normal samples (rare when normal, D4 and D75)
// counts none as abnormal. The row then names where the next strongest of
// fn's anomalous variables (r below DefaultDiscount, in the order better
// ranks them) was read abnormally, if any was.
func (a *Analyzer) nextLocations(res *Result, fn *Function, vv *VarVerdict, f int32, ab map[abGroup][]abEntry) []Location {
	var cand []*VarVerdict
	for _, j := range fn.Vars {
		if x := &res.Variables[j]; x != vv && x.OK && x.HasDim && x.R < a.opt.DefaultDiscount {
			cand = append(cand, x)
		}
	}
	slices.SortFunc(cand, func(x, y *VarVerdict) int {
		switch {
		case better(x, y):
			return -1
		case better(y, x):
			return 1
		}
		return 0
	})
	for _, x := range cand {
		if l := a.locations(ab[abGroup{x.Var, x.Dim}], f, x.Global, a.opt.Locations); len(l) > 0 {
			return l
		}
	}
	return nil
}

// bestOf returns the verdict that gave fn its discount.
func (a *Analyzer) bestOf(res *Result, fn *Function) *VarVerdict {
	return a.vstarFor(res, a.funcIdx[fn.Key], fn.Vars)
}

const noPatternHist = "no variable verdict (hist-discounter): nothing to classify"

// histNear counts the (buggy, normal) run pairs in which a function is
// ranked in both runs (rank > 0) with ranks at most window apart.
func histNear(buggyRanks, normalRanks []int32, window int) (near, pairs int) {
	for _, b := range buggyRanks {
		for _, n := range normalRanks {
			pairs++
			if b > 0 && n > 0 && abs(float64(b-n)) <= float64(window) {
				near++
			}
		}
	}
	return near, pairs
}

// rawRanks ranks the program functions of one run by raw cost (costOf),
// descending, ties by name; functions with zero cost are not ranked (rank 0).
func (a *Analyzer) rawRanks(r *Run, costOf func(*Run, int) float64) []int32 {
	type fc struct {
		f    int
		cost float64
	}
	var fs []fc
	for f := range r.pc {
		if !a.funcs[f].program {
			continue
		}
		if c := costOf(r, f); c > 0 {
			fs = append(fs, fc{f, c})
		}
	}
	slices.SortFunc(fs, func(x, y fc) int {
		if c := cmp.Compare(y.cost, x.cost); c != 0 {
			return c
		}
		return strings.Compare(a.funcs[x.f].key, a.funcs[y.f].key)
	})
	ranks := make([]int32, len(a.funcs))
	for i, x := range fs {
		ranks[x.f] = int32(i + 1)
	}
	return ranks
}

// plainRanks ranks every symbol by mean self time over the buggy runs, as
// `vprof flat` does.
func (a *Analyzer) plainRanks(buggy []*Run, selfOf func(*Run, int) float64, mean func([]*Run, func(*Run, int) float64, int) float64) []int {
	flat := a.flatEntries(buggy, selfOf, mean)
	ranks := make([]int, len(a.funcs))
	for i, e := range flat {
		ranks[e.fn] = i + 1
	}
	return ranks
}

// viaIndex groups the library functions that carried each program
// function's PC cost in the buggy runs: function -> library function -> s.
func viaIndex(buggy []*Run) map[int32]map[int32]float64 {
	m := map[int32]map[int32]float64{}
	for _, r := range buggy {
		for k, w := range r.via {
			lib := m[k[0]]
			if lib == nil {
				lib = map[int32]float64{}
				m[k[0]] = lib
			}
			lib[k[1]] += w
		}
	}
	return m
}

// viaOf lists the library functions that carried f's PC cost in the buggy
// runs, largest share first.
func (a *Analyzer) viaOf(buggy []*Run, lib map[int32]float64, f int32) []Via {
	var pc float64
	for _, r := range buggy {
		if int(f) < len(r.pc) {
			pc += r.pc[f]
		}
	}
	if pc <= 0 || len(lib) == 0 {
		return nil
	}
	var out []Via
	for l, w := range lib {
		out = append(out, Via{Func: a.funcs[l].display, Share: w / pc})
	}
	slices.SortFunc(out, func(x, y Via) int {
		if c := cmp.Compare(y.Share, x.Share); c != 0 {
			return c
		}
		return strings.Compare(x.Func, y.Func)
	})
	return out
}

type abGroup struct {
	v   int32
	dim Dimension
}

// abEntry is one abnormal-sample counter.
type abEntry struct {
	key abKey
	n   float64
}

// abnormalIndex groups the abnormal-sample counters by variable and
// dimension.
func (a *Analyzer) abnormalIndex() map[abGroup][]abEntry {
	m := map[abGroup][]abEntry{}
	for _, t := range a.ab {
		for k, i := range t.idx {
			g := abGroup{k.v, k.dim}
			m[g] = append(m[g], abEntry{k, t.count[i]})
		}
	}
	return m
}

// locations maps the abnormal samples of one variable and dimension to the
// source lines with the most of them, and each line to the basic block of
// function f that holds most of its samples. Only samples read inside f
// count, unless none were: for a local, at a PC on whose inline chain f is
// (its logical frame); for a global, at a PC where f is the innermost
// function (the code it counts for).
func (a *Analyzer) locations(keys []abEntry, f int32, global bool, top int) []Location {
	type lineKey struct {
		file string
		line int32
	}
	type acc struct {
		n      float64
		blocks map[int]float64
		addrs  map[int]uint64
	}
	collect := func(inF bool) map[lineKey]*acc {
		lines := map[lineKey]*acc{}
		for _, e := range keys {
			k := e.key
			oi := a.objs[k.obj]
			at := 0 // f's place on the PC's inline chain
			if inF {
				c := oi.chainAt(k.pc)
				if c == nil {
					continue
				}
				if at = slices.Index(c, f); global && at != 0 || at < 0 {
					continue
				}
			}
			n := e.n
			blk, addr := -1, uint64(0)
			if of, ok := oi.ix.OuterFunc(k.pc); ok && int(of) < len(oi.schema.Funcs) {
				blk, addr = blockAt(&oi.schema.Funcs[of], k.pc)
			}
			file, line := oi.lineAt(k.pc)
			if file == "" && blk >= 0 {
				file, line = oi.lineFrom(k.pc, addr)
			}
			if cf, cl, ok := oi.callLine(k.pc, at); ok {
				file, line = cf, cl
			}
			lk := lineKey{file, line}
			if file == "" {
				lk = lineKey{"", 0}
			}
			x := lines[lk]
			if x == nil {
				x = &acc{blocks: map[int]float64{}, addrs: map[int]uint64{}}
				lines[lk] = x
			}
			x.n += n
			if file == "" && blk < 0 {
				addr = k.pc
			}
			x.blocks[blk] += n
			// The lowest address: the same whatever order the PCs come in.
			if a0, ok := x.addrs[blk]; !ok || addr < a0 {
				x.addrs[blk] = addr
			}
		}
		return lines
	}
	lines := collect(true)
	if len(lines) == 0 {
		lines = collect(false)
	}
	var out []Location
	for lk, x := range lines {
		l := Location{File: lk.file, Line: lk.line, Samples: x.n, Block: -1}
		best := -2.0
		for b, n := range x.blocks {
			if n > best || (n == best && b < l.Block) {
				best, l.Block, l.BlockAddr = n, b, x.addrs[b]
			}
		}
		out = append(out, l)
	}
	slices.SortFunc(out, func(x, y Location) int {
		if c := cmp.Compare(y.Samples, x.Samples); c != 0 {
			return c
		}
		if c := strings.Compare(x.File, y.File); c != 0 {
			return c
		}
		return cmp.Compare(x.Line, y.Line)
	})
	if len(out) > top {
		out = out[:top]
	}
	return out
}

// buildWarnings notes runs of different builds of the program: functions
// and variables are then matched by name.
func (a *Analyzer) buildWarnings(normal, buggy []*Run) []string {
	var out []string
	ref := ""
	refName := ""
	for _, r := range append(slices.Clone(normal), buggy...) {
		b := r.programBuild
		if b == "" {
			b = r.hdr.BuildID
		}
		if b == "" {
			continue
		}
		if ref == "" {
			ref, refName = b, r.Name
			continue
		}
		if b != ref {
			out = append(out, fmt.Sprintf("%s (build-id %s) and %s (build-id %s) are different builds: functions and variables are matched by name", refName, short(ref), r.Name, short(b)))
		}
	}
	for _, r := range a.runs {
		if r.badValues > 0 {
			out = append(out, fmt.Sprintf("%s: %d value samples name an unknown object or variable and were skipped", r.Name, r.badValues))
		}
	}
	return out
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// place runs §7's placements of a frame against the frames above and
// below it, in their order. The placements that judge a frame against a
// callee holding a large part of its time read its evidence without the
// variables read during a sliver of it; the swaps with a callee of any
// size (D74, D133, D123, D145) keep them: a sliver of the frame's time
// can be where such a callee runs (sliver.go, D246).
func (a *Analyzer) place(res *Result, drivers []bool, nBuggy int) {
	view := func(f func()) {
		restore := a.pairView(res, nBuggy)
		a.markVerdicts(res) // passing.go
		f()
		restore()
	}
	whole := func(f func()) {
		a.markVerdicts(res)
		f()
	}
	view(func() { a.mergingCallers(res.Functions, drivers) })
	whole(func() {
		a.leafCallers(res.Functions, drivers) // leafcall.go, D74
		a.inlinedLeaves(res.Functions)        // leafcall.go, D133
	})
	view(func() { a.callerDecides(res.Functions, drivers, nBuggy) })
	whole(func() {
		a.libraryCallers(res, drivers)  // leafcall.go, D123, D189
		a.siblingDeciders(res, drivers) // sibling.go, D145
	})
	view(func() {
		a.presentCallers(res.Functions, drivers) // presence.go, D60
		a.passingCallers(res.Functions, drivers)
		a.echoingCallers(res.Functions, drivers) // echo.go, D43
		a.handingCallers(res.Functions, drivers) // handon.go, D135
		a.abovePart(res, drivers)                // ancestor.go, D51
		a.dispatchers(res, drivers)              // dispatch.go, D204
		a.settingCallers(res.Functions, drivers) // setting.go, D160
		a.spinningLoop(res.Functions)            // drivers.go, D23
	})
	// D251 reads the callee's v* (a parameter it was given), which the
	// sliver view leaves as it is: every variable.
	whole(func() { a.driverCallers(res, drivers) }) // driverdecide.go, D251
}

// SoleCallee is the share of a callee's slow-run stack time spent under
// its caller, and of the caller's stack time spent in that callee, from
// which the two are one piece of work (method.md §7, decision D10).
const SoleCallee = 0.95

// CallerEvidence is the share of the callee's slow-run stack time during
// which the caller's own variables must have been read for the caller to
// take the callee's place (method.md §7, decision D10).
const CallerEvidence = 0.9

// callerDecides gives a caller the place of a callee that is all of its
// time (method.md §7, decision D10). In the slow runs callee D runs under
// caller A (SoleCallee of D's stack time), A spends its time in D
// (SoleCallee of A's stack time), A is no driver frame, its own variables
// went wrong (a variable verdict below DefaultDiscount) and were read
// during CallerEvidence of D's time, and D has a variable verdict: then
// D's cost and evidence are what A decided to do, and A takes D's
// calibrated cost if it is larger, D taking A's. A caller that spends part
// of its time elsewhere (its own instructions, other callees: where
// several anomalies meet) is left alone, and so is one whose time is the
// callee's by construction (recursion, a tail call: heldcall.go, D35). Of
// several such callers of one callee the outermost (most stack time) is
// taken; a caller that took its callee's place keeps it against its own
// caller (D318).
func (a *Analyzer) callerDecides(fns []Function, drivers []bool, nBuggy int) {
	c := &a.stk
	best := map[int]int{} // callee row -> outermost qualifying caller row
	for p := range a.rankedPairs(fns, drivers) {
		A, D, ia, id, t := p.outer, p.inner, p.outerRow, p.innerRow, p.t
		fa, fd := &fns[ia], &fns[id]
		if fa.Source != SourceVariable || fa.Discount >= a.opt.DefaultDiscount || fd.Source != SourceVariable || a.passesTo(A, D) || a.echoesCallee(A, D) || a.handsOn(A, D) || a.bothPresent(A, D) || a.describesInput(A, D) || a.settingAbove(A, D) {
			continue // a caller that only passes control (D26), echoes its callee's time (D43), hands on what it was given (D135), is only present as its callee is (D60), describes its input (D70) or holds a setting above a walk that went further (D160) decides nothing
		}
		if t < SoleCallee*c.on[D] || c.on[D] < SoleCallee*c.on[A] {
			continue
		}
		if a.decidesByConstruction(A, D) {
			continue // its time is the callee's by construction (D35)
		}
		// c.on sums the buggy runs; VarCost is their mean.
		if fa.VarCost*float64(nBuggy) < CallerEvidence*c.on[D] {
			continue
		}
		// The outermost caller; then the stronger evidence; the name only
		// makes the choice the same from run to run.
		if j, ok := best[id]; !ok || cmp.Or(cmp.Compare(c.on[A], c.on[a.funcIdx[fns[j].Key]]),
			cmp.Compare(fns[j].Discount, fa.Discount), strings.Compare(fns[j].Name, fa.Name)) > 0 {
			best[id] = ia
		}
	}
	ids := make([]int, 0, len(best))
	for id := range best {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(x, y int) int {
		return cmp.Or(cmp.Compare(fns[y].Calibrated, fns[x].Calibrated), cmp.Compare(x, y))
	})
	took := map[int]bool{} // rows that took a callee's place here
	for _, id := range ids {
		ia := best[id]
		if took[id] {
			// It took its own callee's place, for which its caller did
			// not qualify (else that caller, further out, would have
			// been the callee's choice): it keeps it (D318).
			continue
		}
		hi, lo := fns[id].Calibrated, fns[ia].Calibrated
		if hi < lo || hi <= 0 {
			continue // the caller already ranks above
		}
		// Equal costs (one piece of work, seen alike from both frames)
		// rank the caller first too: the callee goes just below it, so
		// that no name decides between the two.
		if lo == hi {
			lo = math.Nextafter(hi, 0)
		}
		fns[ia].Calibrated, fns[id].Calibrated = hi, lo
		fns[ia].Placed = "in the place of " + fns[id].Name + ", all of its time and run under it, which it decided to call (D10)"
		took[ia] = true
		fns[id].Placed = "in the place of its caller " + fns[ia].Name + ", which decided to call it (D10)"
	}
}

// soleCallees returns the functions that run under A for SoleCallee of
// A's slow-run stack time (A's whole work, one level or more down).
func (c *stackCover) soleCallees(A int) []int {
	var out []int
	for M := range c.on {
		if M != A && c.on[M] >= SoleCallee*c.on[A] && c.on[M] <= c.on[A] && c.on[A] > 0 && c.outside(A, M) >= SoleCallee*c.on[A] {
			out = append(out, M)
		}
	}
	return out
}

// meetIn reports whether x and y both run under one of the functions ms
// for SoleCallee of their stack time: where they meet (method.md §7,
// D317).
func (c *stackCover) meetIn(ms []int, x, y int) bool {
	for _, M := range ms {
		if M != x && M != y && c.outside(M, x) >= SoleCallee*c.on[x] && c.outside(M, y) >= SoleCallee*c.on[y] {
			return true
		}
	}
	return false
}

// stackPair is one (caller, callee) pair of the slow runs' stacks whose
// functions are both ranked, the caller no driver frame: the functions,
// their rows in the ranking, and the seconds the caller was on the stack
// outside the callee.
type stackPair struct {
	outer, inner       int
	outerRow, innerRow int
	t                  float64
}

// rankedPairs yields the pairs D10 and D12 look at (see stackPair).
func (a *Analyzer) rankedPairs(fns []Function, drivers []bool) iter.Seq[stackPair] {
	return func(yield func(stackPair) bool) {
		row := make(map[int32]int, len(fns))
		for i := range fns {
			row[a.funcIdx[fns[i].Key]] = i
		}
		for k, t := range a.stk.pairMap() {
			A, D := int(k>>32), int(uint32(k))
			ia, okA := row[int32(A)]
			id, okD := row[int32(D)]
			if !okA || !okD || drivers[A] {
				continue
			}
			if !yield(stackPair{A, D, ia, id, t}) {
				return
			}
		}
	}
}

// MergeShare is the share of a caller's slow-run stack time that each of
// two anomalous callees must take for the caller to be where they meet
// (method.md §7, decision D12).
const MergeShare = 0.25

// mergingCallers ranks a caller where several anomalies meet just below
// the best of them (method.md §7, decision D12). Callee D counts for
// caller A when, in the slow runs, D runs under A (SoleCallee of D's
// stack time), takes MergeShare or more of A's stack time but not all of
// it (less than SoleCallee: else D10 applies), and has a variable verdict
// below DefaultDiscount. When two such callees of A are neither under the
// other, A's inclusive cost is the sum of two anomalies and larger than
// either by construction, whatever its own evidence: A's calibrated cost
// is capped just below the larger of theirs. Two callees that already
// meet in a callee M of A that is all of A's time (SoleCallee both ways
// down) meet in M, not in A: M is capped, and A, one piece of work with
// M, is left to D10 (D317).
func (a *Analyzer) mergingCallers(fns []Function, drivers []bool) {
	c := &a.stk
	under := map[int][]int{} // caller row -> callee rows that count
	for p := range a.rankedPairs(fns, drivers) {
		A, D, ia, id, t := p.outer, p.inner, p.outerRow, p.innerRow, p.t
		fd := &fns[id]
		if fd.Source != SourceVariable || fd.Discount >= a.opt.DefaultDiscount || fd.Calibrated <= 0 {
			continue
		}
		if t < SoleCallee*c.on[D] || c.on[D] < MergeShare*c.on[A] || c.on[D] >= SoleCallee*c.on[A] {
			continue
		}
		under[ia] = append(under[ia], id)
	}
	// The caps are computed on the calibrated costs before any cap.
	type capTo struct {
		row int
		to  float64
		by  int // the row whose cost it is capped below
	}
	var caps []capTo
	for ia, ds := range under {
		best, by := -1.0, -1
		var sole []int // A's callees that hold SoleCallee of its time (D317)
		soleDone := false
		for i, x := range ds {
			fx := int(a.funcIdx[fns[x].Key])
			for _, y := range ds[i+1:] {
				fy := int(a.funcIdx[fns[y].Key])
				if c.under(fx, fy) < (1-SoleCallee)*c.on[fy] && c.under(fy, fx) < (1-SoleCallee)*c.on[fx] {
					if !soleDone {
						sole, soleDone = c.soleCallees(int(a.funcIdx[fns[ia].Key])), true
					}
					if c.meetIn(sole, fx, fy) {
						continue // they meet in a callee that is all of A's time: that one is capped (D317)
					}
					for _, z := range [2]int{x, y} {
						if fns[z].Calibrated > best || fns[z].Calibrated == best && fns[z].Name < fns[by].Name {
							best, by = fns[z].Calibrated, z
						}
					}
				}
			}
		}
		if best > 0 && fns[ia].Calibrated >= best {
			caps = append(caps, capTo{ia, math.Nextafter(best, 0), by})
		}
	}
	for _, x := range caps {
		fns[x.row].Calibrated = x.to
		fns[x.row].Placed = "just below " + fns[x.by].Name + ": two anomalous callees meet in it (D12)"
	}
}
