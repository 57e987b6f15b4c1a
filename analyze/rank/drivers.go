package rank

import "github.com/vprof/vprof/runtime/model"

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
