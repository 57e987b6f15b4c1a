package rank

import (
	"cmp"
	"math"
	"slices"

	"github.com/vprof/vprof/runtime/model"
)

// stackCover measures, in the runs of one kind, how much of the time of the
// threads a function runs on it is on the stack: main, a thread's start
// routine, an event loop are on every sample of their threads. Such a
// driver frame sees every slow sample below it, and its variables (the
// input's size, the configuration, a cursor that moves as fast as the
// work below allows) differ in a slow run by construction: they say that
// the run differs, not where (method.md §4, decision D5).
type stackCover struct {
	on      []float64                   // per function: seconds with it on the stack
	onFull  []float64                   // per function: of those, seconds whose stack is whole (wholeStack)
	stamp   []uint64                    // per function: last sample counted
	last    []*threadState              // per function: thread of the last sample counted
	threads []map[*threadState]struct{} // per function: threads it was on
	// pairs: seconds with both functions on the stack, the first (high 32
	// bits) outside the second (low 32 bits): who runs under whom (buggy
	// runs only). Built once from stacks when first asked for (pairMap):
	// a sample adds its weight to its stack's entry, so the quadratic
	// work is per distinct stack, not per sample.
	pairs  map[uint64]float64
	stacks map[uint64][]int // hash of a function list -> entries with that hash
	lists  []stackEntry
	seen   []int32 // scratch: the sample's distinct functions, innermost first
	again  []int32 // scratch: pairs (f, k): f is on the stack again outside seen[:k] (recursion; outermost k)
	// inner, when set before the first pairMap, limits the pairs to those
	// whose inner function it marks (the rules ask only about callees
	// with a variable verdict).
	inner []bool
}

// stackEntry is one distinct list of functions on a stack (innermost
// first) and the seconds of the samples that had it.
type stackEntry struct {
	funcs []int32
	again []int32 // (f, k) pairs: f, first at its innermost place in funcs, is on the stack again outside funcs[:k]
	w     float64
}

// addStack adds w to the entry of the function list c.seen.
func (c *stackCover) addStack(w float64) {
	h := uint64(14695981039346656037)
	for _, f := range c.seen {
		h = (h ^ uint64(uint32(f))) * 1099511628211
	}
	for _, x := range c.again {
		h = (h ^ uint64(uint32(x)) ^ 1<<40) * 1099511628211
	}
	if c.stacks == nil {
		c.stacks = map[uint64][]int{}
	}
	for _, i := range c.stacks[h] {
		if slices.Equal(c.lists[i].funcs, c.seen) && slices.Equal(c.lists[i].again, c.again) {
			c.lists[i].w += w
			return
		}
	}
	c.stacks[h] = append(c.stacks[h], len(c.lists))
	var again []int32
	if len(c.again) > 0 {
		again = slices.Clone(c.again)
	}
	c.lists = append(c.lists, stackEntry{funcs: slices.Clone(c.seen), again: again, w: w})
}

// pairMap returns the pairs (see stackCover), built from the distinct
// stacks at the first call.
func (c *stackCover) pairMap() map[uint64]float64 {
	if c.pairs != nil {
		return c.pairs
	}
	c.pairs = map[uint64]float64{}
	for _, e := range c.lists {
		for j, in := range e.funcs {
			if int(in) < len(c.inner) && !c.inner[in] {
				continue // no rule asks what runs above it
			}
			for _, out := range e.funcs[j+1:] {
				c.pairs[uint64(out)<<32|uint64(uint32(in))] += e.w
			}
		}
	}
	return c.pairs
}

// DriverShare is the share of its threads' samples on which a function
// must be on the stack to be a driver frame.
const DriverShare = 0.99

// NormalDriverShare is the share of its threads' samples in the normal
// runs on which a driver frame must be on the stack too, if it ran there:
// lower than DriverShare because normal runs are shorter, so the work
// before and after the driver (start-up, tear-down) takes more of them.
const NormalDriverShare = 0.90

// onStack counts the program functions on the stack of one sample
// (every frame, inlined callers included) for its thread ts.
func (r *Run) onStack(pid int32, s *model.Sample, nf int, w float64, stamp uint64, ts *threadState) {
	a := r.a
	c := &a.stk
	if r.Kind != Buggy {
		c = &a.stkNormal
	}
	for len(c.on) < len(a.funcs) {
		c.on = append(c.on, 0)
		c.onFull = append(c.onFull, 0)
		c.stamp = append(c.stamp, 0)
		c.last = append(c.last, nil)
		c.threads = append(c.threads, nil)
	}
	ts.total += w
	c.seen, c.again = c.seen[:0], c.again[:0]
	for i := 0; i < nf && i < maxWalk; i++ {
		fr := r.frame(pid, s, i, stamp)
		if !fr.prog {
			continue
		}
		for _, f := range fr.chain {
			if !a.funcs[f].program {
				continue
			}
			if c.stamp[f] == stamp {
				c.noteAgain(f)
				continue
			}
			c.stamp[f] = stamp
			c.on[f] += w
			c.seen = append(c.seen, f)
			if c.last[f] != ts {
				c.last[f] = ts
				if c.threads[f] == nil {
					c.threads[f] = map[*threadState]struct{}{}
				}
				c.threads[f][ts] = struct{}{}
			}
		}
	}
	if r.wholeStack(pid, s, nf, stamp) {
		ts.full += w
		for _, f := range c.seen {
			c.onFull[f] += w
		}
	}
	// Both kinds keep their distinct stacks: the pairs (D10, D12) are
	// of the slow runs only, a spinning loop (D23) compares the kinds.
	c.addStack(w)
}

// wholeStack reports whether the sample's stack reached its thread's
// entry: its outermost frame is outside the program's source code (the C
// runtime's _start, which the program's object holds without debug
// information, the thread library's clone or start_thread, the dynamic
// loader's entry), where every thread of a C or C++ program starts. A
// stack whose outermost frame is in a function of the program's source
// (one with a DWARF source file), or at an address in no object, was cut
// short (the unwinder stopped early, or the recorded depth ran out): it
// says nothing about which frames hold it, so a frame's driver share
// (share) does not count it (decision D291). The profile records no
// reason why an unwinding stopped; this is what the frames themselves
// say.
func (r *Run) wholeStack(pid int32, s *model.Sample, nf int, stamp uint64) bool {
	fr := r.frame(pid, s, nf-1, stamp)
	return fr.oi != nil && !(fr.oi.program && fr.chain != nil && r.a.funcs[fr.phys].file != "")
}

// outside is the time with outer on the stack outside inner, counted
// from the distinct stacks for any two functions (under counts only the
// pairs whose inner function is marked).
func (c *stackCover) outside(outer, inner int) float64 {
	var t float64
	for _, e := range c.lists {
		if i := slices.Index(e.funcs, int32(inner)); i >= 0 && slices.Contains(e.funcs[i+1:], int32(outer)) {
			t += e.w
		}
	}
	return t
}

// noteAgain records that f, already in c.seen, is on the stack again
// further out than the functions seen so far (recursion).
func (c *stackCover) noteAgain(f int32) {
	k := int32(len(c.seen))
	if c.seen[k-1] == f {
		return // the same function again right outside itself: no frame between
	}
	for i := 0; i < len(c.again); i += 2 {
		if c.again[i] == f {
			c.again[i+1] = k
			return
		}
	}
	c.again = append(c.again, f, k)
}

// around is the time with outer on the stack outside inner, counting a
// function that recurses at its outermost place: the time with inner
// inside outer's own work, whether or not outer is also called from
// inner (method.md §7, decision D35).
func (c *stackCover) around(outer, inner int) float64 {
	var t float64
	for _, e := range c.lists {
		i := slices.Index(e.funcs, int32(inner))
		if i < 0 {
			continue
		}
		j := slices.Index(e.funcs, int32(outer))
		if j < 0 {
			continue
		}
		if j > i {
			t += e.w
			continue
		}
		for x := 0; x < len(e.again); x += 2 {
			if e.again[x] == int32(outer) && int(e.again[x+1]) > i {
				t += e.w
				break
			}
		}
	}
	return t
}

// under is the time with outer on the stack outside inner.
func (c *stackCover) under(outer, inner int) float64 {
	return c.pairMap()[uint64(outer)<<32|uint64(uint32(inner))]
}

// share is the part of the time of the threads f runs on during which f
// is on their stack (0 if it never ran), counted over the samples that
// say whether f was there: every whole stack (wholeStack), and a stack
// cut short that shows f. A stack the unwinder cut short shows the
// frames it has and nothing of those above its outermost one (main
// included): counting it against f would make a driver look like one on
// part of its thread's time (decision D291). When none of those threads'
// stacks is whole (a program whose own code starts its threads, or one
// unwound nowhere to its entry), every sample counts.
func (c *stackCover) share(f int) float64 {
	if f >= len(c.on) {
		return 0
	}
	var total, full float64
	for ts := range c.threads[f] {
		total += ts.total
		full += ts.full
	}
	if full > 0 {
		if cut := c.on[f] - c.onFull[f]; cut > 0 {
			return c.on[f] / (full + cut)
		}
		return c.on[f] / full
	}
	if total <= 0 {
		return 0
	}
	return c.on[f] / total
}

// drivers returns, per function, whether it is a driver frame: a
// structural driver (structuralDrivers) whose loop does not spin
// (spinning, decision D23). A spinning driver is judged as any function.
func (a *Analyzer) drivers() []bool {
	return a.driversOf(a.structuralDrivers())
}

// driversOf is drivers given the structural drivers (left unchanged).
func (a *Analyzer) driversOf(structural []bool) []bool {
	out := slices.Clone(structural)
	for f, spins := range a.spinning(structural) {
		if spins {
			out[f] = false
		}
	}
	return out
}

// structuralDrivers returns, per function, whether it is on the stack of
// DriverShare of its threads' samples in the buggy runs and, if it ran in
// the normal runs, of NormalDriverShare of its threads' samples there. A
// driver is one by the program's structure, whatever the input; a
// function that covers its thread only in the slow runs (a monitor
// thread's routine that the bug makes take all of its time) is where the
// time went, not what drives it (decision D9).
func (a *Analyzer) structuralDrivers() []bool {
	out := make([]bool, len(a.funcs))
	c := &a.stk
	for f := range c.on {
		if c.share(f) < DriverShare {
			continue
		}
		n := a.stkNormal.share(f)
		out[f] = n >= NormalDriverShare || n == 0 && !a.aroundRanNormal(f)
	}
	return out
}

// aroundRanNormal reports whether the work f covers in the slow runs ran
// in the normal runs without f, inside the same frames: a frame around f
// (on the stack outside f for DriverShare of f's slow-run time: main, its
// thread's routine, the loop that calls it) was, in the normal runs, on
// the stack outside a function that is under f for half of f's slow-run
// time or more. f never ran there; if its work did, inside the frames
// that now hold f, its thread did that work without f, which covers it
// only in the slow runs: f is where the time went (decision D73), as D9
// says of a function that covers its thread only when slow. When its
// work did not run there (a thread idle in the normal runs, or one only
// the slow runs start), nothing says that f is not structural, and it
// stays a driver (D9).
func (a *Analyzer) aroundRanNormal(f int) bool {
	c, cn := &a.stk, &a.stkNormal
	var around, work []int
	for g := range c.on {
		if g == f || c.on[g] < DriverShare*c.on[f] {
			continue
		}
		if g < len(cn.on) && cn.on[g] > 0 && c.outside(g, f) >= DriverShare*c.on[f] {
			around = append(around, g)
		}
	}
	if len(around) == 0 {
		return false
	}
	for h := range c.on {
		if h != f && h < len(cn.on) && cn.on[h] > 0 && c.on[h] >= 0.5*c.on[f] && c.outside(f, h) >= 0.5*c.on[f] {
			work = append(work, h)
		}
	}
	for _, g := range around {
		for _, h := range work {
			if cn.outside(g, h) > 0 {
				return true
			}
		}
	}
	return false
}

// SpinShare is the share of the slow runs' whole extra time that the
// driver frames' own instructions under a driver must take for its loop
// to spin (decisions D23, D88, D298): 0.18, the middle (geometric) of the
// gap measured between spinning loops (0.21 and up: a loop whose every
// turn's work grows too, set 17's keepalive_spin) and every other driver
// whose own part grows at least 1.5 times faster than its work (0.153 at
// most: set 20's cascade_delete `main`, odds 2.03). D88's quarter sat in
// the middle of the gap as it was then measured (0.075 to 0.40).
const SpinShare = 0.18

// SpinOdds is how many times more the driver frames' own time under a
// driver must grow, slow runs against normal runs, than the time of the
// work below them for its loop to spin (decisions D23, D88): a loop that
// does more of the same work grows both alike (odds about 1); twice as
// fast leaves room for a spinning thread that starves the threads
// consuming its work, whose backlog grows the work below it too.
const SpinOdds = 2

// spinning returns, per function, whether the driver frame's loop itself
// spins. Its time on the stack is of two parts: the instructions of
// driver frames, its own or those of the drivers it calls (the sample's
// innermost program frame is a driver: their code and the library calls
// they make directly, such as a poll or select that returns at once),
// and the work below them (every other sample). The loop spins when, in
// the slow runs against the normal runs (means over the runs of each
// kind), the first part grows by at least SpinShare of the whole extra
// time (every thread) and SpinOdds times more than the second (odds
// ratio; the normal runs had work below it). A driver is exempt from its
// variable-based cost because the work below it makes its variables
// differ (§4, D5); when the loop's own part grows and the work below it
// does not, the loop is where the time went, and what the loop was
// given (a timeout, a mode) is evidence about it. A loop that does more
// of the same work (its own part and the work below grow alike: a
// larger input), a driver that is itself all the work (nothing below
// it), and a loop whose own growth is a small part of a slowdown
// elsewhere stay driver frames.
func (a *Analyzer) spinning(drv []bool) []bool {
	out := make([]bool, len(drv))
	nb, nn := a.kindCounts()
	if nb == 0 || nn == 0 {
		return out
	}
	b, n := driverParts(&a.stk, drv, nb), driverParts(&a.stkNormal, drv, nn)
	extra := b.total - n.total
	for f := range drv {
		if !drv[f] {
			continue
		}
		ownB, ownN := b.own[f], n.own[f]
		belowB, belowN := b.on[f]-ownB, n.on[f]-ownN
		out[f] = extra > 0 && ownB-ownN >= SpinShare*extra &&
			belowN > 0 && ownB*belowN >= SpinOdds*ownN*belowB
	}
	return out
}

// parts is a kind's stack time around the driver frames, means over its
// runs: on, seconds with the driver on the stack; own, of those, seconds
// whose innermost program frame is a driver frame (the instructions of
// drivers and the library calls they make); total, every sample.
type parts struct {
	on, own []float64
	total   float64
}

// driverParts measures parts in stack cover c of runs runs, for the
// driver frames drv.
func driverParts(c *stackCover, drv []bool, runs float64) parts {
	p := parts{on: make([]float64, len(drv)), own: make([]float64, len(drv))}
	for _, e := range c.lists {
		p.total += e.w / runs
		if len(e.funcs) == 0 {
			continue
		}
		self := int(e.funcs[0]) < len(drv) && drv[e.funcs[0]]
		for _, f := range e.funcs {
			if int(f) >= len(drv) || !drv[f] {
				continue
			}
			p.on[f] += e.w / runs
			if self {
				p.own[f] += e.w / runs
			}
		}
	}
	return p
}

// spinningLoop gives the head of a spinning loop the place of its
// costliest frame (decision D23). The spinning driver frames that run
// one under the other, each all of the other's slow-run time on the
// stack (SoleCallee both ways, as D10's pairs), are the levels of one
// loop. The outermost of them whose own variables went wrong (a variable
// verdict below DefaultDiscount) gave the loop what makes it spin (a
// timeout, a mode); the inner levels' anomalies are what they were given
// (their parameters). It takes the largest calibrated cost of the loop's
// levels, the level that had it taking its cost (just below it when
// equal, as is any other level of the same cost), as D10 does, but
// without D10's evidence share: every sample of the loop is under the head, whose variables are read only where its
// frame is within the recorded depth.
func (a *Analyzer) spinningLoop(fns []Function) {
	spin := a.spinning(a.structuralDrivers())
	c := &a.stk
	var levels []int // rows of spinning drivers
	var heads []int  // rows of the loops' heads (D299)
	for i := range fns {
		if f := int(a.funcIdx[fns[i].Key]); f < len(spin) && spin[f] {
			levels = append(levels, i)
		}
	}
	fn := func(i int) int { return int(a.funcIdx[fns[i].Key]) }
	// above reports whether row x's function runs above row y's, y all of
	// x's time: one loop, x the outer level. A level's evidence does not
	// matter here (a level with no variable verdict is a level too), so
	// the time is counted from the stacks, not from the pairs D10 and D12
	// keep for callees with a verdict.
	above := func(x, y int) bool {
		fx, fy := fn(x), fn(y)
		return fx != fy && c.outside(fx, fy) >= SoleCallee*c.on[fy] && c.on[fy] >= SoleCallee*c.on[fx]
	}
	for _, head := range levels {
		if slices.ContainsFunc(levels, func(o int) bool { return above(o, head) }) {
			continue // not the outermost level
		}
		loop := []int{head}
		for _, x := range levels {
			if above(head, x) {
				loop = append(loop, x)
			}
		}
		// Outer levels first: a level is inner to the levels above it.
		depth := func(x int) int {
			n := 0
			for _, o := range loop {
				if above(o, x) {
					n++
				}
			}
			return n
		}
		slices.SortStableFunc(loop, func(x, y int) int { return cmp.Compare(depth(x), depth(y)) })
		pick := -1
		for _, x := range loop {
			// A level whose strongest evidence is a setting, above a
			// level whose own loop went further, gave the loop nothing
			// that makes it spin (D160).
			setting := slices.ContainsFunc(loop, func(y int) bool { return above(x, y) && a.settingAbove(fn(x), fn(y)) })
			// A level whose only anomalies are globals holds nothing
			// of its own that went wrong: a global is the program's,
			// read from whichever frame references it (D209).
			globals := fn(x) < len(a.globalsOnly) && a.globalsOnly[fn(x)]
			if fns[x].Source == SourceVariable && fns[x].Discount < a.opt.DefaultDiscount && !setting && !globals {
				pick = x
				break
			}
		}
		if pick < 0 {
			continue
		}
		heads = append(heads, pick)
		top := pick
		for _, x := range loop {
			if fns[x].Calibrated > fns[top].Calibrated {
				top = x
			}
		}
		if top == pick || fns[top].Calibrated <= 0 {
			continue
		}
		hi, lo := fns[top].Calibrated, fns[pick].Calibrated
		if lo == hi {
			lo = math.Nextafter(hi, 0)
		}
		fns[pick].Calibrated, fns[top].Calibrated = hi, lo
		// Another level at the same cost (the body that holds all of the
		// loop's time, measured alike) goes just below the head too: the
		// loop ranks at its head, not by the tie-break among its levels.
		for _, x := range loop {
			if x != pick && fns[x].Calibrated >= hi {
				fns[x].Calibrated = math.Nextafter(hi, 0)
			}
		}
		fns[pick].Placed = "in the place of " + fns[top].Name + ": the outermost level of a loop that spins, whose own variables went wrong (D23)"
		fns[top].Placed = "in the place of " + fns[pick].Name + ", the outermost level of the loop that spins (D23)"
	}
	a.settingTurns(fns, heads, spin)
}

// settingTurns puts a callee of a spinning loop whose strongest evidence
// is a setting just below the loop's head (decision D299). The loop spins
// (D23): it turns more often, and the work it does at every turn (a
// periodic check, a scan of a list it keeps) runs more often with it. A
// function that runs under the loop's head (SoleCallee of its slow-run
// time on the stack), no driver frame and no level of a spinning loop,
// whose strongest evidence is only values kept through each run of both
// kinds (a setting, D160's kind), says with that evidence that the run
// differs, not where; its extra time is the loop's extra turns, which
// the head decided (it holds what makes the loop spin). When its
// calibrated cost is above the head's (the loop's levels also hold the
// work of their turns that did not grow, which their calibration
// counts), it goes just below the head (the next smaller floating-point
// number). A callee with stronger evidence of its own (a value that
// changed within a run, a loop that went further) keeps its place. heads
// are the rows of the loops' heads (spinningLoop), spin the spinning
// drivers.
func (a *Analyzer) settingTurns(fns []Function, heads []int, spin []bool) {
	if a.setting == nil || len(heads) == 0 {
		return
	}
	c := &a.stk
	structural := a.structuralDrivers()
	fn := func(i int) int { return int(a.funcIdx[fns[i].Key]) }
	for _, head := range heads {
		fh := fn(head)
		hc := fns[head].Calibrated
		for x := range fns {
			fx := fn(x)
			if fx == fh || fx >= len(a.setting) || !a.setting[fx] || fns[x].Calibrated <= hc {
				continue
			}
			if fx < len(structural) && structural[fx] || fx < len(spin) && spin[fx] {
				continue // a driver frame, or a level of a spinning loop
			}
			if fx >= len(c.on) || c.on[fx] <= 0 || c.outside(fh, fx) < SoleCallee*c.on[fx] {
				continue // not under the loop
			}
			fns[x].Calibrated = math.Nextafter(hc, 0)
			fns[x].Placed = "just below " + fns[head].Name + ", the head of the loop that spins above it: its strongest evidence is a value kept through each run (a setting), and its extra time is the loop's extra turns (D299)"
		}
	}
}

// wrongGlobalsOnly reports whether every variable of fn that went wrong
// (a verdict below DefaultDiscount) is a global or a field behind one
// (false when none went wrong; D209).
func (a *Analyzer) wrongGlobalsOnly(res *Result, fn *Function) bool {
	n := 0
	for vv := range a.wrongVars(res, fn) {
		if !vv.Global {
			return false
		}
		n++
	}
	return n > 0
}
