package analyze

import (
	"github.com/vprof/vprof/dwarfschema"
	"github.com/vprof/vprof/runtime/proffile"
)

// Charging (method.md §4, "charged cost"): every sample of a slow run is
// charged to one function of its stack, the innermost whose own evidence
// at that sample says its values went wrong; a sample with no such frame
// goes to its innermost program function, as a PC profile charges it.
//
// Which variables were read in which frame of a sample is known while the
// sample streams by, but which variables are evidence is known only at
// the end, from their verdicts. So samples are kept as stack signatures:
// the logical frames of the sample (innermost first), each with its
// function and the variables read in it, and the weight of the samples of
// each kind that had that signature. Signatures are few (they follow the
// program's code: the PCs where values are read and their callers), not
// samples: memory grows with the code that ran, not with the run's length.

// sigFrame is one logical frame of a signature.
type sigFrame struct {
	fn   int32
	vars []int32
}

// sigInfo is one distinct signature and its weight per kind of run.
type sigInfo struct {
	frames []sigFrame // innermost first; frames[0] is the PC cost's function
	w      [2]float64 // seconds per kind, summed over the runs
}

// sigEnt is one value read in the current sample, for its signature: the
// logical frame (physical frame index and place on that frame's inline
// chain, innermost first), the owning function and the variable (-1: a
// frame where nothing was read).
type sigEnt struct {
	at uint32 // frame index << 8 | place on the inline chain
	fn int32
	gv int32
}

// sigTable holds the distinct signatures of every run.
type sigTable struct {
	idx  map[uint64]int32
	sigs []sigInfo
}

// addSig adds the current sample (weight w) to its signature: base is the
// innermost program frame's logical frame and function, ents the values
// read in it. ents is reordered.
func (a *Analyzer) addSig(k Kind, w float64, base sigEnt, ents []sigEnt) {
	t := &a.sig
	if t.idx == nil {
		t.idx = map[uint64]int32{}
	}
	// Values come in frame order mostly; an insertion sort keeps the
	// sample's order within a frame (read order, deduplicated).
	for i := 1; i < len(ents); i++ {
		for j := i; j > 0 && ents[j].at < ents[j-1].at; j-- {
			ents[j], ents[j-1] = ents[j-1], ents[j]
		}
	}
	h := uint64(14695981039346656037)
	mix := func(x uint64) {
		h ^= x
		h *= 1099511628211
		h ^= h >> 29
	}
	mix(uint64(base.at)<<32 | uint64(uint32(base.fn)))
	for _, e := range ents {
		mix(uint64(e.at)<<32 | uint64(uint32(e.fn)))
		mix(uint64(uint32(e.gv)))
	}
	if i, ok := t.idx[h]; ok {
		t.sigs[i].w[k] += w
		return
	}
	s := sigInfo{}
	s.w[k] = w
	s.frames = append(s.frames, sigFrame{fn: base.fn})
	last := base.at
	for _, e := range ents {
		// A value read at or inside the base frame is the base frame's
		// (with a component, code of another file inlined into it).
		if e.at > last {
			s.frames = append(s.frames, sigFrame{fn: e.fn})
			last = e.at
		}
		if e.gv >= 0 {
			f := &s.frames[len(s.frames)-1]
			f.vars = append(f.vars, e.gv)
		}
	}
	t.idx[h] = int32(len(t.sigs))
	t.sigs = append(t.sigs, s)
}

// evidence says, per variable (index into Analyzer.vars), whether it can
// claim samples (method.md §4): its verdict says its values went wrong
// (r < DefaultDiscount) and it is a loop's induction variable or read by a
// condition (tags loop, cond): the variables whose values decide how long
// a loop runs and which way a branch goes, which is where a slow run's
// extra time is decided. An untagged global or a call's argument that
// went wrong follows from such a decision (a counter counts more, a
// callee gets another argument) and keeps its verdict for its function's
// discount, but claims nothing. The hash of an aggregate is never
// evidence: it says that some byte changed, not which value went wrong.
type evidence struct {
	ev []bool
	r  []float64
}

func (a *Analyzer) evidenceOf(vars []VarVerdict, verdictOf []int) evidence {
	n := len(a.vars)
	e := evidence{ev: make([]bool, n), r: make([]float64, n)}
	for i := range a.vars {
		j := verdictOf[i]
		if j == 0 {
			continue
		}
		vv := &vars[j-1]
		vi := &a.vars[i]
		e.ev[i] = vv.OK && vv.R < a.opt.DefaultDiscount && vi.kind != dwarfschema.KindAggregate &&
			vi.tags&(dwarfschema.TagLoop|dwarfschema.TagCond) != 0
		e.r[i] = vv.R
	}
	return e
}

// claim is what charging gave one function.
type claim struct {
	w     [2]float64 // seconds charged per kind, summed over the runs
	v     int32      // the variable of the strongest evidence that claimed samples for it, -1 none
	r     float64    // its r
	other bool       // v is a callee's parameter (the caller passed the value)
}

// charge charges every signature's weight to one function (method.md §4):
// the innermost logical frame with a variable that is evidence, where a
// parameter's evidence is its caller's (the frame that passed the value;
// the outermost frame of the signature keeps its own); else the innermost
// frame.
func (a *Analyzer) charge(e evidence, driver []bool) []claim {
	out := make([]claim, len(a.funcs))
	for i := range out {
		out[i].v = -1
	}
	for i := range a.sig.sigs {
		s := &a.sig.sigs[i]
		to, by, other := s.frames[0].fn, int32(-1), false
		for d := range s.frames {
			if d > 0 && driver[s.frames[d].fn] {
				// A driver frame claims only its own instructions.
				continue
			}
			// Evidence for frame d: its own variables but its parameters
			// (unless no caller is known), and the parameters of the
			// frame it called.
			for _, src := range [2]int{d - 1, d} {
				if src < 0 {
					continue
				}
				for _, v := range s.frames[src].vars {
					if !e.ev[v] {
						continue
					}
					if param := a.vars[v].param; src == d && param && d+1 < len(s.frames) || src == d-1 && !param {
						continue
					}
					if by < 0 || e.r[v] < e.r[by] {
						by, other = v, src != d
					}
				}
			}
			if by >= 0 {
				to = s.frames[d].fn
				break
			}
		}
		c := &out[to]
		c.w[Normal] += s.w[Normal]
		c.w[Buggy] += s.w[Buggy]
		if by >= 0 && s.w[Buggy] > 0 && (c.v < 0 || e.r[by] < c.r) {
			c.v, c.r, c.other = by, e.r[by], other
		}
	}
	return out
}

// stackCover measures, in the buggy runs, how much of the time of the
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
}

// DriverShare is the share of its threads' samples on which a function
// must be on the stack to be a driver frame.
const DriverShare = 0.99

// onStack counts the program functions on the stack of one buggy sample
// (every frame, inlined callers included) for its thread ts.
func (r *Run) onStack(pid int32, s *proffile.Sample, nf int, w float64, stamp uint64, ts *threadState) {
	a := r.a
	c := &a.stk
	for len(c.on) < len(a.funcs) {
		c.on = append(c.on, 0)
		c.stamp = append(c.stamp, 0)
		c.last = append(c.last, nil)
		c.threads = append(c.threads, nil)
	}
	ts.total += w
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
			if c.last[f] != ts {
				c.last[f] = ts
				if c.threads[f] == nil {
					c.threads[f] = map[*threadState]struct{}{}
				}
				c.threads[f][ts] = struct{}{}
			}
		}
	}
}

// drivers returns, per function, whether it is a driver frame.
func (a *Analyzer) drivers() []bool {
	out := make([]bool, len(a.funcs))
	c := &a.stk
	for f := range c.on {
		var total float64
		for ts := range c.threads[f] {
			total += ts.total
		}
		out[f] = total > 0 && c.on[f] >= DriverShare*total
	}
	return out
}
