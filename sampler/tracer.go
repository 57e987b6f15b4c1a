package sampler

import (
	"fmt"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vprof/vprof/runtime/model"
)

// loop runs ticks and handles tracee events until the recording ends.
func (r *Recorder) loop() {
	for {
		r.drain()
		r.perfDrain()
		if r.firstExited {
			r.stopReason = "the program exited"
			return
		}
		if r.checkSignals() {
			return
		}
		now := r.now()
		if r.deadline > 0 && now >= r.deadline {
			r.stopReason = fmt.Sprintf("--duration %v reached", r.cfg.Duration)
			return
		}
		switch {
		case now < r.nextTick:
		case r.perf != nil && r.perf.fallback == 0 && r.cfg.Clock == model.ClockCPU:
			// Every thread has its perf events: no tick, only drains.
			// (The wall clock's ticks sample the blocked threads.)
			r.nextTick = now + int64(perfDrainEvery)
		default:
			r.tick(now)
			r.schedule(r.now())
		}
		if now-r.lastFlush >= int64(flushEvery) {
			// A recorder killed later loses at most this much.
			r.w.Flush()
			r.lastFlush = now
		}
		next := r.nextTick
		if lim := r.now() + int64(maxSleep); next > lim {
			next = lim
		}
		if r.deadline > 0 && next > r.deadline {
			next = r.deadline
		}
		r.sleepUntil(next)
	}
}

// sleepUntil sleeps until t ns after the start (an absolute deadline, so a
// late wake-up does not shift later ticks).
func (r *Recorder) sleepUntil(t int64) {
	sleepUntilMono(r.monoBase + t)
}

// schedule sets the next tick: one interval later, or an exponentially
// distributed gap with the interval as mean (--jitter). Ticks that could not
// be taken on time are counted as lost, never taken in a burst.
func (r *Recorder) schedule(now int64) {
	iv := int64(r.cfg.Interval)
	gap := iv
	if r.cfg.Jitter {
		gap = int64(r.rng.ExpFloat64() * float64(iv))
		gap = max(gap, iv/100)
		gap = min(gap, 20*iv)
	}
	r.nextTick += gap
	if r.nextTick <= now {
		r.steps.Lost += uint64((now-r.nextTick)/iv) + 1
		r.nextTick = now + gap
	}
}

// checkSignals handles a pending SIGINT, SIGTERM or SIGHUP to vprof and
// reports whether recording must stop (see the package doc).
func (r *Recorder) checkSignals() bool {
	select {
	case s := <-r.sigs:
		switch s {
		case syscall.SIGINT:
			if r.attached {
				r.stopReason = "interrupted (SIGINT)"
				return true
			}
			if !r.terminalDelivered() {
				unix.Kill(r.first.pid, unix.SIGINT)
			}
			return false
		case syscall.SIGTERM, syscall.SIGHUP:
			r.stopReason = fmt.Sprintf("vprof got %v", s)
			r.stopSig = s.(syscall.Signal)
			return true
		}
	default:
	}
	return false
}

// terminalDelivered reports whether a SIGINT to vprof came from its
// terminal and so reached the program too: vprof and the program are in the
// terminal's foreground process group.
func (r *Recorder) terminalDelivered() bool {
	tty, err := os.Open("/dev/tty")
	if err != nil {
		return false
	}
	defer tty.Close()
	fg, err := unix.IoctlGetInt(int(tty.Fd()), unix.TIOCGPGRP)
	if err != nil {
		return false
	}
	pg, err := unix.Getpgid(r.first.pid)
	return err == nil && fg == unix.Getpgrp() && pg == fg
}

// drain handles every pending tracee event without blocking.
func (r *Recorder) drain() {
	for {
		wpid, ws, err := wait4(-1, unix.WNOHANG)
		if err != nil || wpid <= 0 {
			return
		}
		r.dispatch(wpid, ws)
	}
}

func (r *Recorder) dispatch(wpid int, ws unix.WaitStatus) {
	t := r.threads[wpid]
	if t == nil {
		if !ws.Stopped() {
			return // a task vprof already forgot
		}
		if t = r.adopt(wpid); t == nil {
			ptraceDetach(wpid, 0) // cannot tell what it is: let it run
			return
		}
	}
	r.handle(t, ws)
}

func isStopSignal(s syscall.Signal) bool {
	return s == unix.SIGSTOP || s == unix.SIGTSTP || s == unix.SIGTTIN || s == unix.SIGTTOU
}

// handle processes one state change of a traced thread and resumes it
// (except from a group-stop, which it leaves in place with PTRACE_LISTEN).
func (r *Recorder) handle(t *thread, ws unix.WaitStatus) {
	switch {
	case ws.Exited() || ws.Signaled():
		r.exited(t, ws)
		return
	case !ws.Stopped():
		return
	}
	sig := ws.StopSignal()
	t.intr = false // every stop consumes a pending interrupt
	switch trapCause(ws) {
	case 0: // signal-delivery-stop: deliver the signal unchanged
		if sig == unix.SIGCONT && r.swallowCont[t.tid] {
			delete(r.swallowCont, t.tid)
			ptraceCont(t.tid, 0)
			return
		}
		ptraceCont(t.tid, int(sig))
	case unix.PTRACE_EVENT_STOP:
		if isStopSignal(sig) { // group-stop: stay stopped, like untraced
			t.listening = true
			ptraceListen(t.tid)
			return
		}
		t.listening = false // an interrupt trap, a new task's first stop, or SIGCONT
		ptraceCont(t.tid, 0)
	case unix.PTRACE_EVENT_CLONE, unix.PTRACE_EVENT_FORK, unix.PTRACE_EVENT_VFORK:
		if msg, err := ptraceEventMsg(t.tid); err == nil && msg > 0 {
			if r.threads[int(msg)] == nil {
				r.adopt(int(msg))
			}
		}
		// A vfork parent sleeps uninterruptibly until its child execs or
		// exits (PTRACE_EVENT_VFORK_DONE): it is not stopped meanwhile.
		t.vfork = trapCause(ws) == unix.PTRACE_EVENT_VFORK
		ptraceCont(t.tid, 0)
	case unix.PTRACE_EVENT_VFORK_DONE:
		t.vfork = false
		ptraceCont(t.tid, 0)
	case unix.PTRACE_EVENT_EXEC:
		t = r.execed(t)
		ptraceCont(t.tid, 0)
	case unix.PTRACE_EVENT_EXIT:
		t.exiting = true
		r.perfDrain() // its last samples, while its memory is there
		ptraceCont(t.tid, 0)
	default:
		ptraceCont(t.tid, 0)
	}
}

// adopt registers a task vprof meets for the first time: a new thread, or
// the first thread of a new process (fork, vfork, clone).
func (r *Recorder) adopt(tid int) *thread {
	tgid, ppid, err := taskStatus(tid)
	if err != nil {
		return nil
	}
	p := r.procs[tgid]
	if p == nil {
		parent := r.procs[ppid]
		if p, err = r.newProcess(tgid, ppid, parent); err != nil {
			r.warn(fmt.Sprintf("new process %d: %v", tgid, err))
			return nil
		}
		r.startProcess(p, model.ProcFork)
		if parent == nil {
			r.refreshMaps(p)
		}
	}
	return r.newThread(p, tid)
}

// execed handles PTRACE_EVENT_EXEC: the process has a new image and one
// thread, whose id is now the process id.
func (r *Recorder) execed(t *thread) *thread {
	p := t.proc
	if r.perf != nil {
		// Samples of the old image: its memory is gone.
		r.perf.discard = p
		r.perfDrain()
	}
	for _, x := range append([]*thread(nil), p.threads...) {
		if x.tid != p.pid {
			r.dropThread(x, true)
		}
	}
	leader := r.threads[p.pid]
	if leader != nil {
		// Its /proc files may describe the thread that was replaced.
		r.dropThread(leader, false)
	}
	p.space.Reset()
	p.resetMaps = true
	p.globals, p.globalTick = p.globals[:0], 0
	if err := r.loadMain(p); err != nil {
		r.warn(fmt.Sprintf("process %d after exec: %v", p.pid, err))
	}
	r.w.AddProc(model.ProcEvent{Kind: model.ProcExec, PID: int32(p.pid), TimeNS: r.now(), Path: p.exe})
	leader = r.newThread(p, p.pid)
	r.refreshMaps(p)
	return leader
}

// exited handles the end of a thread; the leader's end (reported after
// all its threads') is the process's.
func (r *Recorder) exited(t *thread, ws unix.WaitStatus) {
	p := t.proc
	r.perfDrain()
	r.dropThread(t, true)
	if p == nil || t.tid != p.pid || p.exited {
		return
	}
	ev := model.ProcEvent{Kind: model.ProcExit, PID: int32(p.pid), TimeNS: r.now()}
	status := 0
	if ws.Exited() {
		ev.Status = int32(ws.ExitStatus())
		status = ws.ExitStatus()
	} else {
		ev.Signal = int32(ws.Signal())
		status = 128 + int(ws.Signal())
	}
	r.w.AddProc(ev)
	r.endProcess(p)
	if p == r.first {
		r.firstExited, r.firstStatus = true, status
	}
}

func (r *Recorder) endProcess(p *process) {
	p.exited = true
	for _, x := range append([]*thread(nil), p.threads...) {
		r.dropThread(x, true)
	}
	delete(r.procs, p.pid)
	for i, x := range r.procList {
		if x == p {
			r.procList = append(r.procList[:i], r.procList[i+1:]...)
			break
		}
	}
}

// stopThread interrupts a running thread and waits until it stops. Any
// ptrace-stop satisfies the interrupt (the kernel clears a pending
// PTRACE_INTERRUPT trap at every stop), so the thread may report a signal
// or an event instead: it is sampled there all the same, and the caller
// resumes it with handle(t, *ws), which delivers the signal or processes the
// event. It returns false if the thread did not come to a stop that can be
// sampled (it exited, exec'd, or is exiting).
func (r *Recorder) stopThread(t *thread, ws *unix.WaitStatus) bool {
	if err := ptraceInterrupt(t.tid); err != nil {
		return false
	}
	t.intr = true
	for {
		// Wait for any tracee, not just t: t may be unable to stop until
		// another tracee moves on (a vfork parent waits for its child, an
		// exec waits for the other threads' exit stops), so the others'
		// events are handled meanwhile.
		wpid, st, err := wait4(-1, 0)
		if err != nil {
			t.intr = false
			return false
		}
		if wpid != t.tid {
			r.dispatch(wpid, st)
			if t.gone || r.threads[t.tid] != t || !t.intr {
				return false
			}
			continue
		}
		if !st.Stopped() {
			r.handle(t, st) // exited
			return false
		}
		switch trapCause(st) {
		case unix.PTRACE_EVENT_EXEC, unix.PTRACE_EVENT_EXIT, unix.PTRACE_EVENT_VFORK:
			r.handle(t, st)
			return false
		}
		t.intr = false
		*ws = st
		return true
	}
}

// detachAll stops tracing every thread: each is interrupted, then detached
// at its next stop, delivering the signal it was stopped for, so nothing
// is lost. Tasks born meanwhile are detached at their first stop.
func (r *Recorder) detachAll() {
	pending := map[int]*thread{}
	for tid, t := range r.threads {
		if err := ptraceInterrupt(tid); err != nil {
			r.dropThread(t, false)
			continue
		}
		pending[tid] = t
	}
	deadline := time.Now().Add(detachTimeout)
	for len(pending) > 0 && time.Now().Before(deadline) {
		wpid, ws, err := wait4(-1, unix.WNOHANG)
		if err != nil {
			break // no tracee left
		}
		if wpid == 0 {
			time.Sleep(50 * time.Microsecond)
			continue
		}
		t := pending[wpid]
		delete(pending, wpid)
		if ws.Exited() || ws.Signaled() {
			if t != nil && t.proc != nil {
				r.exited(t, ws)
			}
			continue
		}
		if !ws.Stopped() {
			continue
		}
		sig := 0
		switch trapCause(ws) {
		case 0:
			sig = int(ws.StopSignal())
			if sig == int(unix.SIGCONT) && r.swallowCont[wpid] {
				sig = 0
			}
		case unix.PTRACE_EVENT_CLONE, unix.PTRACE_EVENT_FORK, unix.PTRACE_EVENT_VFORK:
			if msg, err := ptraceEventMsg(wpid); err == nil && msg > 0 {
				pending[int(msg)] = nil // born traced: detach at its first stop
			}
		}
		ptraceDetach(wpid, sig)
		if t != nil {
			r.dropThread(t, false)
		}
	}
	for _, t := range pending {
		if t != nil {
			r.dropThread(t, false) // stuck: the kernel detaches it when this thread exits
		}
	}
	if r.w != nil {
		for _, p := range r.procList {
			if !p.exited {
				r.w.AddProc(model.ProcEvent{Kind: model.ProcDetach, PID: int32(p.pid), TimeNS: r.now()})
			}
		}
	}
}

// finish ends the recording: detach what is still traced, write the
// trailer, and decide vprof's exit status.
func (r *Recorder) finish() (*Result, error) {
	end := r.now()
	r.perfDrain()
	if len(r.threads) > 0 {
		r.detachAll()
	}
	sampler := r.samplerName()
	r.closePerf()
	detached := !r.firstExited
	tr := model.Trailer{
		EndNS:           end,
		Samples:         r.samples.Load(),
		ValueSamples:    r.vsamples.Load(),
		UnreadableReads: int64(r.vstats.Faulted + r.vstats.Unavailable + r.vstats.EntryValue + r.vstats.Unsupported),
		LostTicks:       int64(r.steps.Lost),
		BlockedSamples:  int64(r.blk.stats.Samples),
		BlockedRegs:     int64(r.blk.stats.WithRegs),
		ExitStatus:      int32(r.firstStatus),
		Detached:        detached,
	}
	res := &Result{
		Path:      r.cfg.Output,
		Sampler:   sampler,
		Trailer:   tr,
		Reason:    r.stopReason,
		Elapsed:   time.Duration(end),
		Steps:     r.steps,
		Values:    r.vstats,
		Unwind:    r.ustats,
		Blocked:   r.blk.stats,
		Processes: r.nproc,
		Threads:   r.nthr,
		Objects:   len(r.objList),
	}
	res.TracerCPU = ownCPU() - r.cpuAtStart
	if r.cpuAtTick > 0 {
		res.SetupCPU = r.cpuAtTick - r.cpuAtStart
	}
	res.TargetCPU = time.Duration(r.targetCPU)
	if err := r.w.Close(tr); err != nil {
		return res, err
	}
	if st, err := os.Stat(r.cfg.Output); err == nil {
		res.FileSize = st.Size()
	}
	switch {
	case r.firstExited:
		res.ExitStatus = r.firstStatus
	case r.attached:
		res.ExitStatus = 0
	case r.stopSig != 0:
		res.ExitStatus = 128 + int(r.stopSig)
	default:
		// --duration in launch mode: the program goes on; pass its status
		// through when it ends.
		if r.cfg.OnDetached != nil {
			r.cfg.OnDetached(res)
		}
		res.ExitStatus = r.waitExit(r.first.pid)
	}
	return res, nil
}

// waitExit waits for an untraced child and returns its shell-style status.
// SIGTERM or SIGHUP to vprof stops the wait (status 128+n).
func (r *Recorder) waitExit(pid int) int {
	for {
		var ws unix.WaitStatus
		wpid, err := unix.Wait4(pid, &ws, unix.WNOHANG, nil)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0
		case wpid == pid && ws.Exited():
			return ws.ExitStatus()
		case wpid == pid && ws.Signaled():
			return 128 + int(ws.Signal())
		}
		select {
		case s := <-r.sigs:
			if s == syscall.SIGTERM || s == syscall.SIGHUP {
				return 128 + int(s.(syscall.Signal))
			}
		case <-time.After(10 * time.Millisecond):
		}
	}
}
