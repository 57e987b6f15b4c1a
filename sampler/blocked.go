package sampler

import (
	"bytes"
	"strconv"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/sampler/unwind"
)

// Threads blocked in system calls.
//
// A blocked thread is sampled without stopping it: /proc/PID/task/TID/syscall
// gives the call, its SP and PC, and the stack is copied from memory and
// unwound with no other register, so the variables the callers keep in
// registers (callee-saved registers hold most locals at -O2) are lost
// unless a callee saved them on the stack. With --clock wall a thread
// blocked in a call that the kernel restarts transparently after a ptrace
// stop (restartable) is stopped once per wait instead: its registers and
// stack are captured and it is resumed at once; the call, which returned
// -ERESTART* to the stop, is restarted by the kernel as if nothing happened
// (no signal is delivered). The frames are then reused while the thread
// stays in that call; the values are read again at each sample. Any other
// call (epoll_wait, sockets, sigtimedwait, ... which fail with EINTR after
// a stop: signal(7)) is never stopped.
//
// A wait is recognised by the /proc line (call, arguments, SP, PC: the same
// after a restart, but for restart_syscall in place of a call restarted
// with -ERESTART_RESTARTBLOCK) and by the thread's CPU time, which does not
// move while it waits. A stop makes it move (the restart), so the first
// tick after a stop confirms the wait by the stack instead: the restart
// runs no user code, and the stack is as copied at the stop but for the
// time left the kernel writes back; a call that ended as it restarted
// (its deadline passed, its wake-up came during the stop) and was made
// again from the same place leaves it changed (return values, registers
// saved by callees, locals), nearly always.

// BlockedStats counts the samples of threads blocked in system calls
// (--clock wall) and the stops taken to read their registers.
type BlockedStats struct {
	Samples  uint64        // samples of blocked threads
	WithRegs uint64        // of which with registers (a stop in that blocking episode)
	Stops    uint64        // blocked threads interrupted: once per blocking episode
	Returned uint64        // stops that found the call over (it returned meanwhile)
	EINTR    uint64        // stops that found the call failing with EINTR: a signal's doing, never a stop's
	Changed  uint64        // stops after which the stack had changed at the next tick: the call ended, another began
	Cached   uint64        // samples that reused the frames of their wait's first sample
	Moved    uint64        // samples without values: the thread ran while they were read (read without a stop)
	Stopped  time.Duration // total time blocked threads were held stopped
	// ByCall counts the stops per system call number.
	ByCall map[int32]uint64
}

// blockedEpisode is what the samples of a thread blocked in a system call
// reuse while it stays in that call: its registers and unwound frames,
// which cannot change while it waits. The values are read again at each
// sample from a fresh copy of its stack: memory may change meanwhile
// (globals, a variable on its stack that another thread writes).
type blockedEpisode struct {
	ok      bool
	pending bool     // after a stop: confirmed by the stack at the next tick
	key     sysState // the /proc line (restart_syscall once restarted after a stop)
	nr      int32    // the call recorded in the samples
	cpu     uint64   // the thread's CPU time (ns, schedstat) while in the call
	runs    uint64   // and its runs on a CPU (after a stop: at the stop, pending)
	gen     int      // the process's maps generation
	regs    bool     // registers from a stop (else SP and PC only)
	r       unwind.Regs
	hasFP   bool
	fp      fpRegs
	frames  []unwind.Frame
	stack   []uint64
	mem     []byte // pending: the stack window as copied at the stop
	memBase uint64
	wbLo    int // mem[wbLo:wbHi]: what the kernel writes back on a restart
	wbHi    int
	// The last call stopped, as /proc shows it once restarted: a
	// restart_syscall line that matches it is that call still.
	stopped   sysState
	stoppedNr int32
}

// set keeps the sample just taken (sm.cur, sm.frames, sm.sample.Stack) for
// the rest of the wait.
func (e *blockedEpisode) set(sm *sampling, key *sysState, nr int32, sc *schedStat, gen int, regs bool) {
	c := sm.cur
	e.ok, e.pending, e.key, e.nr, e.cpu, e.runs, e.gen, e.regs = true, false, *key, nr, sc.CPU, sc.Runs, gen, regs
	e.r, e.hasFP = c.regs, c.hasFP
	if c.hasFP {
		e.fp = c.fp
	}
	n := len(sm.sample.Stack)
	e.frames = append(e.frames[:0], sm.frames[:n]...)
	e.stack = append(e.stack[:0], sm.sample.Stack...)
}

// noteRestartBlock remembers the call a thread stopped for a sample of a
// running thread was in, when the kernel is to restart it as
// restart_syscall (-ERESTART_RESTARTBLOCK: nanosleep, clock_nanosleep,
// poll, futex with a timeout): the thread entered it between the /proc
// read and the stop. Its later samples, blocked in restart_syscall, are
// then recorded as that call, as after a stop of a blocked thread.
func (t *thread) noteRestartBlock(pr *unix.PtraceRegs) {
	if int64(pr.Rax) != errRestartBlock || int64(pr.Orig_rax) < 0 || int64(pr.Orig_rax) == unix.SYS_RESTART_SYSCALL {
		return
	}
	e := &t.blk
	e.stopped = sysState{
		Nr:   unix.SYS_RESTART_SYSCALL,
		SP:   pr.Rsp,
		PC:   pr.Rip,
		Args: [6]uint64{pr.Rdi, pr.Rsi, pr.Rdx, pr.R10, pr.R8, pr.R9},
	}
	e.stoppedNr = int32(pr.Orig_rax)
}

func sameCall(a, b *sysState) bool {
	return !a.Running && !b.Running && a.Nr == b.Nr && a.Args == b.Args && a.SP == b.SP && a.PC == b.PC
}

// blockedState is the recorder's part for blocked threads.
type blockedState struct {
	stats BlockedStats
	path  []byte // /proc path scratch
	buf   [64]byte
}

// Kernel return values that make the kernel restart the call when no
// handler runs (arch/x86/kernel/signal.c, arch_do_signal_or_restart).
const (
	errRestartSys     = -512      // -ERESTARTSYS
	errRestartNoIntr  = -513      // -ERESTARTNOINTR
	errRestartNoHand  = -514      // -ERESTARTNOHAND
	errRestartBlock   = -516      // -ERESTART_RESTARTBLOCK: restarted as restart_syscall
	futexFlags        = 128 | 256 // FUTEX_PRIVATE_FLAG, FUTEX_CLOCK_REALTIME
	futexWait         = 0
	futexWaitBitset   = 9
	timerAbstime      = 1
	pipeBuf           = 4096      // PAGE_SIZE: a pipe write of at most this much waits before copying anything
	stickyTimeouts    = 0x4000000 // personality(2) flag: select's timeout is not updated (nor restarted)
	stackSlack        = 4096      // how far above SP a pointer counts as pointing into the caller's stack
	timespecSize      = 16        // struct timespec and struct timeval
	maxFD             = 1 << 30
	nTTY              = 0 // N_TTY line discipline
	ptySlaveMajorLow  = 136
	ptySlaveMajorHigh = 143
)

func isRestart(rax int64) bool {
	switch rax {
	case errRestartSys, errRestartNoIntr, errRestartNoHand, errRestartBlock:
		return true
	}
	return false
}

// sampleBlocked samples a thread blocked in the kernel (sm.sys is its
// /proc syscall line; sc its schedstat, read after that line, or nil):
// from its episode's cached sample, by a stop when its call is restartable
// (wall clock), or from memory with no registers.
func (sm *sampling) sampleBlocked(t *thread, weight, when int64, sc *schedStat) {
	st := sm.sys // a stop handles other tracees' events meanwhile
	e := &t.blk
	cpuOK := sc != nil
	var now schedStat
	if cpuOK {
		now = *sc
	}
	if sm.cfg.Clock != model.ClockWall {
		// Sampled for the CPU it used before blocking: a stop would make
		// it use more, and sample it again at the next tick.
		sm.lightSample(t, &st, weight, when, model.Running, -1)
		return
	}
	p := t.proc
	bs := &sm.blk.stats
	if p.space.Find(st.PC) == nil && sm.mapsDue(p) && sm.refreshMaps(p) {
		// Its call is in a library not known yet (the C library, at the
		// first samples): loading its CFI takes a while, tens of ms on a
		// loaded machine, better spent before a stop than between the
		// stop and the reading of the values, which may be read live.
		// Look again: a thread that has moved on is sampled at a later
		// tick.
		st0 := st
		if !sm.readSys(t, &st) || !sameCall(&st, &st0) || (cpuOK && !sm.readSched(t, &now)) {
			return
		}
	}
	if e.ok && cpuOK && e.gen == p.mapsGen && sameCall(&st, &e.key) {
		switch {
		case !e.pending && now.CPU == e.cpu && now.Runs == e.runs:
			sm.still = stillCheck{kind: stillUnchanged, sched: now}
			sm.sampleEpisode(t, e, weight, when, false)
			return
		case e.pending:
			// First tick after the stop: the same wait if the thread ran
			// once since (the restart; a wake-up takes a run more, unless
			// the call ended as it restarted) and the stack is as the
			// stop left it (a new identical call changes it, nearly
			// always). The runs tell a late tick (a loaded machine) that
			// finds the thread back in an identical call, with an
			// identical stack, from the same wait.
			if now.Runs <= e.runs+1 && sm.stackUnchanged(t, e) {
				e.pending, e.cpu, e.runs, e.mem = false, now.CPU, now.Runs, e.mem[:0]
				sm.still = stillCheck{kind: stillUnchanged, sched: now}
				sm.sampleEpisode(t, e, weight, when, true)
				return
			}
			bs.Changed++
		}
	}
	e.ok, e.pending = false, false
	// The call: restart_syscall after a stop of ours is the call stopped.
	call := st
	if st.Nr == unix.SYS_RESTART_SYSCALL && sameCall(&st, &e.stopped) {
		call.Nr = e.stoppedNr
	}

	if cpuOK && !sm.cfg.NoBlockedStops && sm.restartable(t, &call) {
		sm.stopBlocked(t, &st, call.Nr, weight, when)
		return
	}
	if cpuOK {
		sm.still = stillCheck{kind: stillUnchanged, sched: now}
	}
	sm.lightSample(t, &st, weight, when, model.Blocked, call.Nr)
	bs.Samples++
	if cpuOK && !sm.unknownPC(len(sm.sample.Stack)) {
		// Reuse it while the thread stays there, unless some frame was
		// in an unknown mapping (the next sample may know it).
		e.set(sm, &st, call.Nr, &now, p.mapsGen, false)
	}
}

// sampleEpisode samples t, still in the call of episode e: its frames
// as unwound then, the values read again from a fresh stack copy (in
// sm.light.mem already when filled).
func (sm *sampling) sampleEpisode(t *thread, e *blockedEpisode, weight, when int64, filled bool) {
	p := t.proc
	c := sm.light
	c.regs, c.hasFP = e.r, e.hasFP
	if e.hasFP {
		c.fp = e.fp
	}
	t0 := sm.now()
	if !filled {
		c.mem.fill(p.pid, c.regs.SP()-redZone, t.window+redZone)
	}
	t1 := sm.now()
	sm.cur = c
	sm.readFrameValues(p, e.frames)
	sm.appendGlobals(p)
	sm.checkStill(t)
	t2 := sm.now()
	sm.steps.Light++
	sm.emit(t, weight, when, model.Blocked, e.nr, e.stack)
	sm.steps.Read += secs(t1 - t0)
	sm.steps.Values += secs(t2 - t1)
	bs := &sm.blk.stats
	bs.Samples++
	bs.Cached++
	if e.regs {
		bs.WithRegs++
	}
}

// stillCheck is what checkStill compares a blocked thread with.
type stillCheck struct {
	kind  int8
	sched schedStat // its schedstat when found blocked, or at the stop
	call  sysState  // stillRestarted: its /proc line in the restarted call
}

const (
	stillNone      = iota
	stillUnchanged // sampled without a stop: it has not run since
	stillRestarted // stopped and resumed: it ran once, to restart the call, and is in it
)

// checkStill keeps the values just read for a sample of blocked thread t
// only if t has not left its call since it was found blocked or stopped
// (sm.still): values read live (globals, heap, the stack of a thread not
// stopped) after it woke may be of another moment than the sample's
// registers and stack (a loaded machine can hold vprof off the CPU for
// milliseconds between two steps), and would mislead. The sample keeps
// its stack and state, true at the tick.
func (sm *sampling) checkStill(t *thread) {
	c := sm.still
	sm.still = stillCheck{}
	var now schedStat
	switch c.kind {
	case stillNone:
		return
	case stillUnchanged:
		if sm.readSched(t, &now) && now == c.sched {
			return
		}
	case stillRestarted:
		// Not on a CPU since the stop (waiting for one: no instruction
		// run), or once, restarting the call, and back in it (a wake-up
		// takes a run more; the restart ending the call at once and an
		// identical call made in the same run go unseen, as in the
		// episode's check).
		if !sm.readSched(t, &now) {
			break
		}
		if now.Runs == c.sched.Runs {
			return
		}
		var sys sysState
		if now.Runs == c.sched.Runs+1 && sm.readSys(t, &sys) && sameCall(&sys, &c.call) {
			return
		}
	}
	sm.values = sm.values[:0]
	sm.nlocals = 0
	sm.blk.stats.Moved++
}

// lightSample samples blocked thread t without stopping it: SP and PC from
// st, the stack from memory.
func (sm *sampling) lightSample(t *thread, st *sysState, weight, when int64, state model.ThreadState, nr int32) {
	c := sm.light
	c.regs = unwind.Regs{}
	c.regs.Set(unwind.RSP, st.SP)
	c.regs.Set(unwind.RIP, st.PC)
	c.hasFP = false
	t0 := sm.now()
	c.mem.fill(t.proc.pid, st.SP-redZone, t.window+redZone)
	sm.steps.Read += secs(sm.now() - t0)
	sm.steps.Light++
	sm.cur = c
	sm.finishSample(t, weight, when, state, nr)
}

// stopBlocked samples t, blocked in restartable call call (st is its /proc
// line), with a stop: it is interrupted, its registers and stack captured,
// and it is resumed at once; the kernel restarts the call. The sample is
// kept for the rest of the episode once the thread is seen back in the
// call.
func (sm *sampling) stopBlocked(t *thread, st *sysState, call int32, weight, when int64) {
	p := t.proc
	bs := &sm.blk.stats
	var ws unix.WaitStatus
	if !sm.tr.stopThread(t, &ws) {
		return // exited, exec'd or exiting: nothing to sample
	}
	t1 := sm.now()
	c, need := t.ensureCapture()
	if ptraceGetRegs(t.tid, &sm.pregs) != nil {
		sm.tr.handle(t, ws)
		sm.lightSample(t, st, weight, when, model.Blocked, call)
		bs.Samples++
		return
	}
	pr := &sm.pregs
	regsFromPtrace(pr, &c.regs)
	// At the stop the thread is on its way out of the call: IP after the
	// syscall instruction (the PC /proc reported), and %rax holds the
	// call's return value: -ERESTART* when the kernel is to restart it.
	inCall := pr.Orig_rax == uint64(int64(st.Nr)) && pr.Rip == st.PC && pr.Rsp == st.SP
	ret := int64(pr.Rax)
	restart := inCall && isRestart(ret)
	if restart {
		// Not a value of the program's: the call's result is to come.
		c.regs.Valid &^= 1 << unwind.RAX
	}
	sm.readFPRegs(t, c)
	c.mem.fill(p.pid, c.regs.SP()-redZone, need)
	// Its runs on a CPU so far, to confirm the wait at the next tick.
	var at schedStat
	atOK := sm.readSched(t, &at)
	// The call as /proc shows it once restarted.
	want := *st
	if ret == errRestartBlock {
		want.Nr = unix.SYS_RESTART_SYSCALL
	}
	if restart {
		// Resumed at once: the kernel restarts the call. The globals are
		// read while it is still stopped (one batched read), the values
		// that need the unwinding after, kept if it is still in the
		// restarted call then (checkStill).
		sm.readGlobalsOnce(p)
		sm.tr.handle(t, ws) // PTRACE_CONT (with the signal it stopped for, if any)
		bs.Stopped += secs(sm.now() - t1)
		if atOK {
			sm.still = stillCheck{kind: stillRestarted, sched: at, call: want}
		}
	}
	bs.Stops++
	if bs.ByCall == nil {
		bs.ByCall = map[int32]uint64{}
	}
	bs.ByCall[call]++

	state, nr := model.Blocked, call
	switch {
	case !inCall: // it returned and ran on: a sample of a running thread
		state, nr = model.Running, -1
		bs.Returned++
	case ret == -int64(unix.EINTR):
		bs.EINTR++
	case !restart:
		bs.Returned++
	}
	sm.steps.Light++
	sm.cur = c
	sm.finishSample(t, weight, when, state, nr)
	if !restart {
		// The call is over (it ended as it was stopped): the thread runs
		// on once resumed, so its sample is finished first (a rare stop,
		// made a little longer).
		sm.tr.handle(t, ws)
		bs.Stopped += secs(sm.now() - t1)
	}
	if state == model.Blocked {
		bs.Samples++
		bs.WithRegs++
	}
	e := &t.blk
	if restart {
		// Whether or not the episode is kept, the restarted call is
		// this one: later samples in restart_syscall are recorded so.
		e.stopped, e.stoppedNr = want, call
	}
	if !restart || !atOK || sm.unknownPC(len(sm.sample.Stack)) {
		e.ok = false
		return
	}
	e.set(sm, &want, call, &at, p.mapsGen, true)
	e.pending = true
	e.mem = append(e.mem[:0], c.mem.buf[:c.mem.n]...)
	e.memBase = c.mem.base
	e.cleanWrittenBack(&want, call)
}

// cleanWrittenBack marks, in the stop's stack copy, the struct timespec or
// timeval that the kernel writes (the time left) when it restarts call
// (arguments in st): stackUnchanged does not compare it.
func (e *blockedEpisode) cleanWrittenBack(st *sysState, call int32) {
	a := &st.Args
	var p uint64
	switch call {
	case unix.SYS_NANOSLEEP:
		p = a[1]
	case unix.SYS_CLOCK_NANOSLEEP:
		if a[1]&timerAbstime == 0 {
			p = a[3]
		}
	case unix.SYS_PPOLL:
		p = a[2]
	case unix.SYS_SELECT, unix.SYS_PSELECT6:
		p = a[4]
	}
	if p == 0 || p < e.memBase || p >= e.memBase+uint64(len(e.mem)) {
		e.wbLo, e.wbHi = 0, 0
		return
	}
	e.wbLo = int(p - e.memBase)
	e.wbHi = min(e.wbLo+timespecSize, len(e.mem))
}

// stackUnchanged copies t's stack window afresh (into sm.light.mem) and
// reports whether it holds what it held at the stop of episode e, but for
// the time left the kernel writes back.
func (sm *sampling) stackUnchanged(t *thread, e *blockedEpisode) bool {
	m := &sm.light.mem
	if len(e.mem) == 0 || m.fill(t.proc.pid, e.memBase, len(e.mem)) != nil || m.n != len(e.mem) {
		return false
	}
	a, b := e.mem, m.buf[:m.n]
	return bytes.Equal(a[:e.wbLo], b[:e.wbLo]) && bytes.Equal(a[e.wbHi:], b[e.wbHi:])
}

// restartable reports whether t, blocked in call st, may be stopped: the
// kernel restarts the call after a ptrace stop with no signal delivered
// (it returns -ERESTARTSYS, -ERESTARTNOINTR, -ERESTARTNOHAND or
// -ERESTART_RESTARTBLOCK to the stop and keeps its deadline), and nothing
// the program sees changes: no EINTR, no short read or write, no early
// timeout, no user memory written that the program could notice.
// docs/sampler.md lists the calls and why each is safe.
func (sm *sampling) restartable(t *thread, st *sysState) bool {
	if sm.cfg.test.interruptAnyBlocked {
		return st.Nr >= 0
	}
	a := &st.Args
	switch st.Nr {
	case unix.SYS_FUTEX:
		op := a[1] &^ futexFlags
		return op == futexWait || op == futexWaitBitset
	case unix.SYS_NANOSLEEP:
		// Stopped, it writes the time left to rmtp: it must be writable.
		return onStack(st, a[1])
	case unix.SYS_CLOCK_NANOSLEEP:
		switch a[0] {
		case unix.CLOCK_REALTIME, unix.CLOCK_MONOTONIC, unix.CLOCK_BOOTTIME:
		default:
			return false
		}
		return a[1]&timerAbstime != 0 || onStack(st, a[3])
	case unix.SYS_WAIT4, unix.SYS_WAITID, unix.SYS_PAUSE, unix.SYS_RT_SIGSUSPEND, unix.SYS_POLL:
		return true
	case unix.SYS_PPOLL:
		// The time left is written back to the timeout, which must be
		// writable, and without STICKY_TIMEOUTS (else EINTR).
		return a[2] == 0 || (onStack(st, a[2]) && !sm.sticky(t))
	case unix.SYS_SELECT, unix.SYS_PSELECT6:
		return a[4] == 0 || (onStack(st, a[4]) && !sm.sticky(t))
	case unix.SYS_READ, unix.SYS_READV:
		var fst unix.Stat_t
		if !sm.statFD(t, a[0], &fst) {
			return false
		}
		switch {
		case fst.Mode&unix.S_IFMT == unix.S_IFIFO:
			return true
		case fst.Mode&unix.S_IFMT == unix.S_IFCHR && isTTY(fst.Rdev):
			return sm.ttyReadRestarts(t, a[0], &fst)
		}
	case unix.SYS_WRITE:
		var fst unix.Stat_t
		return a[2] <= pipeBuf && sm.statFD(t, a[0], &fst) && fst.Mode&unix.S_IFMT == unix.S_IFIFO
	}
	return false
}

// onStack reports whether user pointer ptr is null or points just above
// the thread's SP (into its own stack, writable: where glibc's wrappers
// keep the timeouts they pass).
func onStack(st *sysState, ptr uint64) bool {
	return ptr == 0 || (ptr >= st.SP && ptr < st.SP+stackSlack)
}

// isTTY reports whether device rdev is a terminal whose reads n_tty serves
// and on which TCGETS is safe to issue: virtual consoles and serial ports
// (major 4), /dev/tty and /dev/console (5:0, 5:1), pty slaves (136-143).
// Not pty masters (5:2): TCGETS there reports the slave's settings.
func isTTY(rdev uint64) bool {
	maj, min := unix.Major(rdev), unix.Minor(rdev)
	switch {
	case maj == 4:
		return true
	case maj == 5:
		return min == 0 || min == 1
	}
	return maj >= ptySlaveMajorLow && maj <= ptySlaveMajorHigh
}

// ttyReadRestarts reports whether a read blocked on terminal fd of t has
// read nothing yet, which is when n_tty_read returns -ERESTARTSYS to a
// stop: canonical mode (a whole line or nothing), or raw mode with VMIN
// at most 1 and no VTIME (a partial VMIN count, or a VTIME timer started
// again, would change what the program sees). The settings are read
// through a copy of the program's descriptor (pidfd_getfd).
func (sm *sampling) ttyReadRestarts(t *thread, fd uint64, want *unix.Stat_t) bool {
	pidfd, err := unix.PidfdOpen(t.proc.pid, 0)
	if err != nil {
		return false
	}
	defer unix.Close(pidfd)
	tfd, err := unix.PidfdGetfd(pidfd, int(fd), 0)
	if err != nil {
		return false
	}
	defer unix.Close(tfd)
	var fst unix.Stat_t
	// The same file as the thread's (a thread may have its own table).
	if unix.Fstat(tfd, &fst) != nil || fst.Rdev != want.Rdev || fst.Ino != want.Ino || fst.Dev != want.Dev {
		return false
	}
	if ld, err := unix.IoctlGetInt(tfd, unix.TIOCGETD); err != nil || ld != nTTY {
		return false
	}
	tio, err := unix.IoctlGetTermios(tfd, unix.TCGETS)
	if err != nil {
		return false
	}
	if tio.Lflag&unix.ICANON != 0 {
		return true
	}
	return tio.Cc[unix.VMIN] <= 1 && tio.Cc[unix.VTIME] == 0
}

// statFD stats the file of t's descriptor fd.
func (sm *sampling) statFD(t *thread, fd uint64, st *unix.Stat_t) bool {
	if fd >= maxFD {
		return false
	}
	b := sm.procPath(t, "fd/")
	b = strconv.AppendUint(b, fd, 10)
	b = append(b, 0)
	sm.blk.path = b
	_, _, e := unix.RawSyscall6(unix.SYS_NEWFSTATAT, 0, uintptr(unsafe.Pointer(&b[0])), uintptr(unsafe.Pointer(st)), 0, 0, 0)
	return e == 0
}

// sticky reports whether t's process runs with the STICKY_TIMEOUTS
// personality, under which select's and ppoll's timeouts are not updated
// and an interrupted call fails with EINTR.
func (sm *sampling) sticky(t *thread) bool {
	b := sm.procPath(t, "personality")
	b = append(b, 0)
	sm.blk.path = b
	fd, _, e := unix.RawSyscall(unix.SYS_OPEN, uintptr(unsafe.Pointer(&b[0])), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if e != 0 {
		return true // unknown: assume the worst
	}
	n, err := pread(int(fd), sm.blk.buf[:])
	unix.RawSyscall(unix.SYS_CLOSE, fd, 0, 0)
	if err != nil || n == 0 {
		return true
	}
	v, ok := parsePersonality(sm.blk.buf[:n])
	return !ok || v&stickyTimeouts != 0
}

// parsePersonality parses /proc/PID/personality: 8 hex digits and a newline.
func parsePersonality(b []byte) (uint64, bool) {
	var v uint64
	n := 0
	for i, c := range b {
		var d uint64
		switch {
		case c >= '0' && c <= '9':
			d = uint64(c - '0')
		case c >= 'a' && c <= 'f':
			d = uint64(c-'a') + 10
		case c == '\n' && n > 0 && i == len(b)-1:
			return v, true
		default:
			return 0, false
		}
		if n == 16 {
			return 0, false
		}
		v = v<<4 | d
		n++
	}
	return v, n > 0
}

// procPath is /proc/PID/task/TID/ followed by name, in scratch space.
func (sm *sampling) procPath(t *thread, name string) []byte {
	b := append(sm.blk.path[:0], "/proc/"...)
	b = strconv.AppendInt(b, int64(t.proc.pid), 10)
	b = append(b, "/task/"...)
	b = strconv.AppendInt(b, int64(t.tid), 10)
	b = append(b, '/')
	return append(b, name...)
}
