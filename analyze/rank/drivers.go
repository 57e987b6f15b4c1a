package rank

import (
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
	// inner, when set before the first pairMap, limits the pairs to those
	// whose inner function it marks (the rules ask only about callees
	// with a variable verdict).
	inner []bool
}

// stackEntry is one distinct list of functions on a stack (innermost
// first) and the seconds of the samples that had it.
type stackEntry struct {
	funcs []int32
	w     float64
}

// addStack adds w to the entry of the function list c.seen.
func (c *stackCover) addStack(w float64) {
	h := uint64(14695981039346656037)
	for _, f := range c.seen {
		h = (h ^ uint64(uint32(f))) * 1099511628211
	}
	if c.stacks == nil {
		c.stacks = map[uint64][]int{}
	}
	for _, i := range c.stacks[h] {
		if slices.Equal(c.lists[i].funcs, c.seen) {
			c.lists[i].w += w
			return
		}
	}
	c.stacks[h] = append(c.stacks[h], len(c.lists))
	c.lists = append(c.lists, stackEntry{funcs: slices.Clone(c.seen), w: w})
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

// onStack counts the program functions on the stack of one buggy sample
// (every frame, inlined callers included) for its thread ts.
func (r *Run) onStack(pid int32, s *model.Sample, nf int, w float64, stamp uint64, ts *threadState) {
	a := r.a
	c := &a.stk
	if r.Kind != Buggy {
		c = &a.stkNormal
	}
	for len(c.on) < len(a.funcs) {
		c.on = append(c.on, 0)
		c.stamp = append(c.stamp, 0)
		c.last = append(c.last, nil)
		c.threads = append(c.threads, nil)
	}
	ts.total += w
	c.seen = c.seen[:0]
	for i := 0; i < nf && i < maxWalk; i++ {
		fr := r.frame(pid, s, i, stamp)
		if !fr.prog {
			continue
		}
		for _, f := range fr.chain {
			if c.stamp[f] == stamp || !a.funcs[f].program {
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
	if r.Kind != Buggy {
		return // pairs are used for the slow runs only (callerDecides)
	}
	c.addStack(w)
}

// under is the time with outer on the stack outside inner.
func (c *stackCover) under(outer, inner int) float64 {
	return c.pairMap()[uint64(outer)<<32|uint64(uint32(inner))]
}

// share is the part of the time of the threads f runs on during which f
// is on their stack (0 if it never ran).
func (c *stackCover) share(f int) float64 {
	if f >= len(c.on) {
		return 0
	}
	var total float64
	for ts := range c.threads[f] {
		total += ts.total
	}
	if total <= 0 {
		return 0
	}
	return c.on[f] / total
}

// drivers returns, per function, whether it is a driver frame: on the
// stack of DriverShare of its threads' samples in the buggy runs and, if
// it ran in the normal runs, of NormalDriverShare of its threads' samples
// there. A driver is one by the program's structure, whatever the input;
// a function that covers its thread only in the slow runs (a monitor
// thread's routine that the bug makes take all of its time) is where the
// time went, not what drives it (decision D9).
func (a *Analyzer) drivers() []bool {
	out := make([]bool, len(a.funcs))
	c := &a.stk
	for f := range c.on {
		if c.share(f) < DriverShare {
			continue
		}
		n := a.stkNormal.share(f)
		out[f] = n == 0 || n >= NormalDriverShare
	}
	return out
}
