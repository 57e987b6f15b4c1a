package sampler

// --clock wall with the perf sampler: no thread that runs is ever stopped.
//
// A thread's wall time is split three ways, each measured by the kernel:
//
//   - CPU time: the perf task-clock events sample it as in --clock cpu
//     (perfSample), each sample weighing the CPU time since the thread's
//     previous one, state running;
//   - time runnable but waiting for a CPU (schedstat's run_delay): counted
//     as running, added to the weight of the thread's next perf sample.
//     /proc shows such a thread "running", the program is not waiting for
//     anything of its own, and the ptrace sampler counts it so too (it
//     stops the thread when it gets a CPU and weighs the sample by the wall
//     time since the previous one); the code it waits in is the code that
//     runs when it gets the CPU;
//   - blocked time: at each tick, a thread that /proc shows blocked in the
//     kernel is sampled from /proc and its memory (sampleBlocked: the
//     allowlisted stops for registers, else no stop), state blocked and
//     the system call, weighing the wall time it spent neither on a CPU nor
//     waiting for one since its previous blocked sample: wall time since
//     it was first seen, less its CPU time and run delay (exact while it
//     is off the CPU: the scheduler updates both as it leaves and joins a
//     CPU), less the blocked time already given to samples.
//
// So a thread's weights add up to its wall time while recorded, but for
// the remainders at its end (CPU time since its last perf sample, blocked
// time since its last tick). Blocked time between two ticks that both
// found it running (a sleep shorter than the interval) goes to its next
// blocked sample, as CPU time between two samples goes to the next.

// wallAcct is a thread's wall-time split (see above).
type wallAcct struct {
	ok        bool
	t0        int64  // when first seen (ns since the start)
	cpu0      uint64 // its CPU time then (ns)
	delay0    uint64 // its run delay then (ns)
	blocked   int64  // blocked time given to samples so far
	delay     uint64 // run delay at the last reading
	pend      int64  // run delay not yet in a perf sample's weight
	blockedAt bool   // blocked at its last tick
}

func (w *wallAcct) start(now int64, s *schedStat) {
	*w = wallAcct{ok: true, t0: now, cpu0: s.CPU, delay0: s.Delay, delay: s.Delay}
}

// addDelay takes a reading of the run delay.
func (w *wallAcct) addDelay(delay uint64) {
	if delay > w.delay {
		w.pend += int64(delay - w.delay)
		w.delay = delay
	}
}

// takeDelay returns the run delay not yet weighed, for a perf sample.
func (w *wallAcct) takeDelay() int64 {
	d := w.pend
	w.pend = 0
	return d
}

// blockedWeight returns the weight of a blocked sample at now, the
// thread's CPU time being cpu (and its run delay the last one read).
func (w *wallAcct) blockedWeight(now int64, cpu uint64) int64 {
	total := now - w.t0 - int64(cpu-w.cpu0) - int64(w.delay-w.delay0)
	d := max(total-w.blocked, 0)
	w.blocked += d
	return d
}

// wallTick is a tick of --clock wall for thread t under the perf sampler:
// a blocked thread is sampled, a running one is left to its perf events.
func (sm *sampling) wallTick(t *thread) {
	t0 := sm.now()
	sc := &sm.sched
	w := &t.wall
	if w.blockedAt {
		// Blocked at its last tick, likely still: its state first, then
		// its schedstat, exact while it is off the CPU (two reads, not
		// three).
		if !sm.readSys(t, &sm.sys) || sm.sys.Running || !sm.readSched(t, sc) {
			w.blockedAt = false
			sm.steps.Decide += secs(sm.now() - t0)
			return
		}
		w.addDelay(sc.Delay)
		t.cpu, t.checkNS = sc.CPU, t0
	} else {
		if !sm.readSched(t, sc) {
			return
		}
		if !w.ok {
			w.start(t0, sc)
			t.cpu, t.checkNS = sc.CPU, t0
			return
		}
		w.addDelay(sc.Delay)
		// On a CPU for nearly the whole interval: running, no need to
		// read its state. (A running thread's schedstat lags by up to a
		// scheduler tick, so this saves the read only on some ticks.)
		busy := sc.CPU > t.cpu && int64(sc.CPU-t.cpu) >= (t0-t.checkNS)*9/10
		t.cpu, t.checkNS = sc.CPU, t0
		if busy || !sm.readSys(t, &sm.sys) || sm.sys.Running {
			sm.steps.Decide += secs(sm.now() - t0)
			return
		}
		// Blocked: read the CPU time and run delay again, exact now.
		if sm.readSched(t, sc) {
			w.addDelay(sc.Delay)
			t.cpu = sc.CPU
		}
		w.blockedAt = true
	}
	when := sm.now()
	weight := w.blockedWeight(when, t.cpu)
	t.lastNS = when
	sm.steps.Decide += secs(when - t0)
	// A thread's ticks increase: a perf sample of this interval may have
	// taken this tick's number.
	saved := sm.tickN
	if pt := t.perf; pt != nil {
		sm.tickN = max(sm.tickN, pt.lastTick+1)
		pt.lastTick = sm.tickN
	}
	sm.sampleBlocked(t, weight, when, sc)
	sm.tickN = saved
}
