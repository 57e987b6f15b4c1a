package sampler

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/sampler/unwind"
)

// sampling is a recording's per-tick sampling (method.md §3): which
// threads a tick samples, their capture (a stop, /proc and memory, or a
// perf record: perf.go), the unwinding, the values (values.go), and the
// sample handed to the writer. Blocked threads are blocked.go's, the
// wall clock under the perf sampler wall.go's. It owns the scratch space
// every sample reuses, the perf backend, and the statistics of the
// sampling steps; the threads are the tracer's, and it stops and resumes
// them through it.
type sampling struct {
	*clock
	*warner
	cfg  *Config
	tr   *tracer
	objs *objectCache
	out  *profWriter
	perf *perfBackend // nil: the ptrace sampler
	// perfOpening delivers the rings being opened (startPerf) until
	// awaitPerf takes them.
	perfOpening chan perfOpened

	tickN    uint64
	nextTick int64
	rng      *rand.Rand

	// scratch, reused by every sample
	pregs    unix.PtraceRegs
	cur      *capture // the capture being turned into a sample
	light    *capture // for threads sampled without stopping them
	stopped  []*thread
	frames   []unwind.Frame
	tailIns  []uint64 // scratch of restoreTailFrames
	stack    []uint64
	values   []model.Value
	pend     []pending
	ptrs     []ptrRead
	freads   []fieldRead
	sreads   []strRead // string length variables being read (D140)
	sbuf     []byte    // their bytes, model.StrLenBound
	batch    *batch
	stamp    uint32
	eval     evaluator
	exprRegs unwind.Regs // a caller frame's registers, carried-over ones included
	sample   model.Sample
	tickThr  []*thread
	procBuf  [512]byte
	sys      sysState
	sched    schedStat
	still    stillCheck // a blocked thread's sample's values are kept if (checkStill)
	nlocals  int
	blk      blockedState

	steps     StepStats
	vstats    valueStats
	ustats    unwind.Stats
	targetCPU int64
	cpuAtTick time.Duration // vprof's CPU time at the first tick
	thrAtTick time.Duration // the tracer thread's CPU time then
}

// init readies sm for a recording of cfg.
func (sm *sampling) init(cfg *Config, clk *clock, w *warner, tr *tracer, objs *objectCache, out *profWriter) {
	*sm = sampling{
		clock:  clk,
		warner: w,
		cfg:    cfg,
		tr:     tr,
		objs:   objs,
		out:    out,
		frames: make([]unwind.Frame, cfg.Stack),
		stack:  make([]uint64, 0, MaxStack),
		values: make([]model.Value, 0, 1024),
		pend:   make([]pending, 0, 1024),
		batch:  newBatch(arenaBytes),
		rng:    rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0x9e3779b97f4a7c15)),
	}
	sm.light = newCapture(maxWindow)
	sm.eval.sm = sm
}

// threadAdded readies a thread the tracer now traces for sampling: its
// /proc files and CPU time (its perf events are opened by the caller).
// The perf sampler's --clock cpu reads none of them while the thread's
// events sample it: they are opened if its events cannot be (perfOpen).
func (sm *sampling) threadAdded(t *thread) {
	now := sm.now()
	t.lastNS, t.checkNS = now, now
	if sm.perf != nil && sm.cfg.Clock == model.ClockCPU {
		return
	}
	sm.openProcFiles(t)
}

// openProcFiles opens t's schedstat and syscall files and takes its CPU
// time as the base of its first tick's weight.
func (sm *sampling) openProcFiles(t *thread) {
	p := t.proc
	now := sm.now()
	t.schedFD = openTaskFile(p.pid, t.tid, "schedstat")
	t.sysFD = openTaskFile(p.pid, t.tid, "syscall")
	var sc schedStat
	if sm.readSched(t, &sc) {
		t.cpu, t.cpuSample, t.cpuStart = sc.CPU, sc.CPU, sc.CPU
		t.wall.start(now, &sc)
	}
}

// threadDropped releases what sampling t held: its perf events and /proc
// files.
func (sm *sampling) threadDropped(t *thread) {
	sm.perfClose(t)
	if t.schedFD >= 0 {
		unix.Close(t.schedFD)
	}
	if t.sysFD >= 0 {
		unix.Close(t.sysFD)
	}
}

// schedule sets the next tick: one interval later, or an exponentially
// distributed gap with the interval as mean (--jitter). Ticks that could not
// be taken on time are counted as lost, never taken in a burst.
func (sm *sampling) schedule(now int64) {
	iv := int64(sm.cfg.Interval)
	gap := iv
	if sm.cfg.Jitter {
		gap = int64(sm.rng.ExpFloat64() * float64(iv))
		gap = max(gap, iv/100)
		gap = min(gap, 20*iv)
	}
	sm.nextTick += gap
	if sm.nextTick <= now {
		sm.steps.Lost += uint64((now-sm.nextTick)/iv) + 1
		sm.nextTick = now + gap
	}
}

// readCPU returns t's CPU time (ns).
func (sm *sampling) readCPU(t *thread) (uint64, bool) {
	var s schedStat
	ok := sm.readSched(t, &s)
	return s.CPU, ok
}

// readSched reads t's schedstat.
func (sm *sampling) readSched(t *thread, s *schedStat) bool {
	if t.schedFD < 0 {
		return false
	}
	n, err := pread(t.schedFD, sm.procBuf[:])
	if err != nil || n == 0 {
		return false
	}
	return parseSchedstatAll(sm.procBuf[:n], s)
}

func (sm *sampling) readSys(t *thread, s *sysState) bool {
	if t.sysFD < 0 {
		return false
	}
	n, err := pread(t.sysFD, sm.procBuf[:])
	if err != nil || n == 0 {
		return false
	}
	return parseSyscall(sm.procBuf[:n], s)
}

// capture is what a sample needs from a thread: its registers and a copy
// of its stack window, taken while it is stopped (or, for a thread blocked
// in the kernel, its SP and PC and the stack, which does not move).
type capture struct {
	regs  unwind.Regs
	fp    fpRegs
	hasFP bool
	mem   stackMem
}

func newCapture(window int) *capture {
	c := &capture{}
	c.mem.buf = make([]byte, window+redZone)
	return c
}

// tick samples the threads due at this tick (method.md §3). Under the
// ptrace sampler, threads that are running are all interrupted first and
// captured as each stops, then resumed at once: a runnable thread waiting
// for a CPU stops as soon as the stopping of the others frees one, instead
// of after a time slice. Threads blocked in the kernel are read without
// being stopped (but for blocked.go's allowlist, wall clock). Under the
// perf sampler the ticks sample blocked threads (wall clock, wall.go), or
// the threads whose perf events could not be opened (cpu clock).
func (sm *sampling) tick(now int64) {
	if sm.tickN == 0 {
		sm.cpuAtTick, sm.thrAtTick = ownCPU(), threadCPU()
	}
	sm.tickN++
	if sm.perf != nil {
		// Threads the perf sampler could not take: ticks numbered as its
		// samples are, by time.
		sm.tickN = max(sm.tickN, uint64(now/int64(sm.cfg.Interval))+1)
	}
	sm.steps.Ticks++
	if sm.tickN == sm.cfg.test.panicAtTick {
		panic("injected recorder fault")
	}
	sm.stopped = sm.stopped[:0]
	// --clock wall with the perf sampler: blocked threads only (wall.go).
	wallPerf := sm.perf != nil && sm.cfg.Clock == model.ClockWall
	for pi := 0; pi < len(sm.tr.procList); pi++ {
		p := sm.tr.procList[pi]
		sm.tickThr = append(sm.tickThr[:0], p.threads...)
		for _, t := range sm.tickThr {
			if t.gone || t.listening || t.exiting || t.vfork || p.exited {
				continue
			}
			switch {
			case wallPerf:
				sm.wallTick(t)
			case !t.perfSampled():
				sm.tickThread(t, now)
			}
		}
	}
	if len(sm.stopped) == 0 {
		return
	}
	sm.stopAll()
	for _, t := range sm.stopped {
		if t.captured && !t.gone {
			t.captured = false
			sm.steps.Full++
			sm.cur = t.cap
			sm.finishSample(t, t.pendWeight, t.pendWhen, model.Running, -1)
		}
	}
}

// tickThread decides whether t is sampled at this tick: a blocked thread
// is sampled at once, a running one is queued for stopAll.
func (sm *sampling) tickThread(t *thread, now int64) {
	t0 := sm.now()
	var weight int64
	if sm.cfg.Clock == model.ClockCPU {
		if sm.tickN < t.nextCheck {
			return
		}
		c, ok := sm.readCPU(t)
		if !ok {
			return
		}
		if c <= t.cpu {
			// Idle: check less often (up to every 16 ticks); the CPU time
			// is not lost, the next sample's weight covers it.
			t.checkNS = now
			t.idle++
			t.nextCheck = sm.tickN + uint64(min(1+t.idle/4, 16))
			sm.steps.Decide += secs(sm.now() - t0)
			return
		}
		sm.targetCPU += int64(c - t.cpu)
		busy := int64(c-t.cpu) >= (now-t.checkNS)*9/10
		t.cpu, t.idle, t.nextCheck, t.checkNS = c, 0, 0, now
		weight = int64(c - t.cpuSample)
		t.cpuSample = c
		if busy {
			// On a CPU for (nearly) the whole interval: running. This
			// saves reading its state; the chance that it entered a
			// blocking call in the last tenth of the interval is small.
			t.lastNS = now
			sm.steps.Decide += secs(sm.now() - t0)
			t.pendWeight, t.pendWhen = weight, t0
			sm.stopped = append(sm.stopped, t)
			return
		}
	} else {
		weight = now - t.lastNS
	}
	t.lastNS = now
	if !sm.readSys(t, &sm.sys) {
		sm.sys = sysState{Running: true}
	}
	sm.steps.Decide += secs(sm.now() - t0)
	if sm.sys.Running {
		t.pendWeight, t.pendWhen = weight, t0
		sm.stopped = append(sm.stopped, t)
		return
	}
	var sc *schedStat
	if sm.cfg.Clock == model.ClockWall && sm.readSched(t, &sm.sched) {
		sc = &sm.sched
	}
	sm.sampleBlocked(t, weight, t0, sc)
}

// stopAll interrupts the queued threads and captures each as it stops,
// resuming it right after (a stopped thread is held for the copy only).
// Other tracees' events are handled meanwhile: a thread may not stop
// until another moves on (a vfork parent, an exec waiting for the other
// threads' exit stops).
func (sm *sampling) stopAll() {
	pending := 0
	for _, t := range sm.stopped {
		t.captured = false
		if ptraceInterrupt(t.tid) != nil {
			continue
		}
		t.intr, t.inBatch, t.tInt = true, true, sm.now()
		pending++
	}
	for pending > 0 {
		wpid, ws, err := wait4(-1, 0)
		if err != nil {
			break
		}
		t := sm.tr.threads[wpid]
		if t != nil && t.inBatch && ws.Stopped() {
			switch trapCause(ws) {
			case unix.PTRACE_EVENT_EXEC, unix.PTRACE_EVENT_EXIT, unix.PTRACE_EVENT_VFORK:
			default:
				t.intr, t.inBatch = false, false
				pending--
				sm.capture(t, ws)
				continue
			}
		}
		sm.tr.dispatch(wpid, ws)
		// The event may have ended the wait for some of the threads.
		pending = 0
		for _, x := range sm.stopped {
			if x.inBatch && (x.gone || !x.intr) {
				x.inBatch = false
			}
			if x.inBatch {
				pending++
			}
		}
	}
	for _, t := range sm.stopped {
		t.inBatch = false
	}
}

// capture copies what a sample needs from stopped thread t, then resumes
// it with handle(t, ws) (delivering the signal it stopped for, if any).
func (sm *sampling) capture(t *thread, ws unix.WaitStatus) {
	p := t.proc
	t1 := sm.now()
	c, need := t.ensureCapture()
	if ptraceGetRegs(t.tid, &sm.pregs) != nil {
		sm.tr.handle(t, ws)
		return
	}
	regsFromPtrace(&sm.pregs, &c.regs)
	t.noteRestartBlock(&sm.pregs)
	sm.readFPRegs(t, c)
	t2 := sm.now()
	c.mem.fill(p.pid, c.regs.SP()-redZone, need)
	t3 := sm.now()
	sm.tr.handle(t, ws) // resume: PTRACE_CONT, with the signal it stopped for if any
	t4 := sm.now()
	s := &sm.steps
	s.Stop += secs(t1 - t.tInt)
	s.Regs += secs(t2 - t1)
	s.Read += secs(t3 - t2)
	s.Resume += secs(t4 - t3)
	s.Stopped += secs(t4 - t1)
	t.captured = true
}

// finishSample unwinds the copied stack of sm.cur, reads the values and
// writes the sample.
func (sm *sampling) finishSample(t *thread, weight, when int64, state model.ThreadState, nr int32) {
	p := t.proc
	c := sm.cur
	t0 := sm.now()
	// Globals are read live: before the unwinding, which may take long
	// (the first sample in a library loads its CFI), so that they are as
	// close as can be to the registers and stack copied at the tick.
	sm.readGlobalsOnce(p)
	tg := sm.now()
	n := p.space.Walk(&c.regs, &c.mem, sm.frames, &sm.ustats)
	if sm.unknownPC(n) && sm.mapsDue(p) {
		if sm.refreshMaps(p) {
			n = p.space.Walk(&c.regs, &c.mem, sm.frames, &sm.ustats)
		}
	}
	n = sm.restoreTailFrames(sm.frames, n)
	stack := sm.stack[:0]
	for i := 0; i < n; i++ {
		stack = append(stack, sm.frames[i].PC)
	}
	t1 := sm.now()
	sm.readFrameValues(p, sm.frames[:n])
	sm.appendGlobals(p)
	sm.checkStill(t)
	sm.fitWindow(t, c, n)
	t2 := sm.now()
	sm.emit(t, weight, when, state, nr, stack)
	sm.steps.Globals += secs(tg - t0)
	sm.steps.Unwind += secs(t1 - tg)
	sm.steps.Values += secs(t2 - t1)
}

// fitWindow sizes t's stack window to what its stacks use: the copy costs
// by the page, and most stacks are shallow. It grows at once (doubling on
// reads outside the window) and shrinks slowly.
func (sm *sampling) fitWindow(t *thread, c *capture, n int) {
	if c.mem.misses > 0 {
		sm.steps.WindowMisses += uint64(c.mem.misses)
		t.window = min(2*t.window, maxWindow)
		return
	}
	if n == 0 || !sm.frames[n-1].HasCFA {
		return
	}
	used := int(sm.frames[n-1].CFA - c.mem.base)
	if used <= 0 || used > maxWindow {
		return
	}
	target := min((used+windowSlack+1023)&^1023, maxWindow)
	switch {
	case target > t.window:
		t.window = target
	case target < t.window:
		t.window -= (t.window - target + 7) / 8
	}
	t.window = max(t.window, minWindow)
}

// emit writes the sample.
func (sm *sampling) emit(t *thread, weight, when int64, state model.ThreadState, nr int32, stack []uint64) {
	t0 := sm.now()
	s := &sm.sample
	s.Tick, s.TimeNS, s.WeightNS = sm.tickN, when, weight
	s.State, s.Syscall = state, nr
	s.Stack, s.Values = stack, sm.values
	sm.out.sample(t.proc.pid, t.tid, s)
	sm.steps.Write += secs(sm.now() - t0)
}

func (sm *sampling) unknownPC(n int) bool {
	for i := 0; i < n; i++ {
		if sm.frames[i].Map == nil {
			return true
		}
	}
	return false
}

// mapsDue rate-limits re-reading /proc/PID/maps for PCs in no known
// mapping (a library loaded since, or JIT code that no re-read will find).
func (sm *sampling) mapsDue(p *process) bool {
	return sm.now()-p.mapsAt >= max(p.mapsBackoff, 2_000_000)
}

// maxMapsBackoff bounds the wait between re-reads of /proc/PID/maps for
// PCs in no known mapping.
const maxMapsBackoff = 100_000_000

// needFP reports whether a variable accessible at pc lives in an SSE
// register (reading it needs PTRACE_GETFPREGS, done only then).
func (sm *sampling) needFP(p *process, pc uint64) bool {
	m := p.space.Find(pc)
	if m == nil {
		return false
	}
	o := sm.objs.list[m.Obj]
	if o.index == nil {
		return false
	}
	for _, li := range o.index.Lookup(pc - m.Bias) {
		if o.needFP[li] {
			return true
		}
	}
	return false
}

// appendGlobals appends the globals of p's program, read once per process
// per tick.
func (sm *sampling) appendGlobals(p *process) {
	sm.readGlobalsOnce(p)
	sm.values = append(sm.values, p.globals...)
}

// readGlobalsOnce reads p's globals unless this tick already did.
func (sm *sampling) readGlobalsOnce(p *process) {
	if p.globalTick != sm.tickN {
		sm.steps.GlobalReads++
		sm.readGlobals(p)
		p.globalTick = sm.tickN
	}
}

// ensureCapture returns t's capture buffers, grown to its stack window
// plus the red zone, and that size.
func (t *thread) ensureCapture() (*capture, int) {
	need := t.window + redZone
	if t.cap == nil || cap(t.cap.mem.buf) < need {
		t.cap = newCapture(t.window)
	}
	return t.cap, need
}

// readFPRegs copies stopped thread t's SSE registers into c when a
// variable at c's PC lives in one.
func (sm *sampling) readFPRegs(t *thread, c *capture) {
	c.hasFP = false
	if sm.needFP(t.proc, c.regs.PC()) {
		c.hasFP = ptraceGetFPRegs(t.tid, &c.fp) == nil
	}
}

// readGlobals reads every global of p's program with one batched read of
// address clusters.
func (sm *sampling) readGlobals(p *process) {
	p.globals = p.globals[:0]
	o := p.main
	if o == nil || o.index == nil || len(o.globals) == 0 {
		return
	}
	bias, ok := p.bias(o)
	if !ok {
		return
	}
	b := sm.batch
	b.reset()
	if cap(o.clSlot) < len(o.clusters) {
		o.clSlot = make([]int, len(o.clusters))
		o.clOff = make([]int, len(o.clusters))
	}
	for i, c := range o.clusters {
		o.clSlot[i], o.clOff[i] = b.add(c.lo+bias, int(c.hi-c.lo))
	}
	b.run(p.pid)
	sm.ptrs = sm.ptrs[:0]
	sm.freads = sm.freads[:0]
	nf := 0
	for i := range o.globals {
		g := &o.globals[i]
		v := &o.schema.Vars[g.v]
		var bits uint64
		switch {
		case g.cl >= 0:
			slot := o.clSlot[g.cl]
			if slot < 0 || !b.ok[slot] {
				sm.vstats.Faulted++
				continue
			}
			c := o.clusters[g.cl]
			off := o.clOff[g.cl] + int(g.addr-c.lo)
			bits = normalise(v.Kind, b.bytesOf(off, g.size))
		case g.kind == model.LocConst:
			var raw [8]byte
			for k := range raw {
				raw[k] = byte(uint64(o.schema.Locs[g.loc].Offset) >> (8 * k))
			}
			bits = normalise(v.Kind, raw[:min(g.size, 8)])
		default:
			sm.vstats.Unsupported++ // TLS and computed globals
			continue
		}
		p.globals = append(p.globals, model.Value{Obj: o.id, Var: g.v, Bits: bits})
		sm.vstats.Read++
		if v.Kind == model.KindPointer && v.PointeeKind != 0 && o.schema.Locs[g.loc].BasicTypePtr && bits != 0 {
			sm.ptrs = append(sm.ptrs, ptrRead{idx: len(p.globals) - 1, kind: v.PointeeKind, size: int(v.PointeeSize)})
		}
		if o.fieldStart != nil && v.Kind == model.KindPointer {
			sm.queueFields(o, len(p.globals)-1, &p.globals[len(p.globals)-1], &nf)
		}
	}
	sm.readBehind(p.pid, &p.globals, false)
}

// bias is the load bias of object o in p.
func (p *process) bias(o *object) (uint64, bool) {
	for _, m := range p.space.Mappings() {
		if m.Obj == int32(o.id) {
			return m.Bias, true
		}
	}
	return 0, false
}

// execPending reports whether p runs another image than the one its
// program object was loaded from: an exec done, its ptrace event not yet
// handled.
func execPending(p *process) bool {
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", p.pid))
	return err == nil && trimDeleted(exe) != p.exe
}

// refreshMaps reads /proc/PID/maps and adds the executable mappings not
// known yet, loading their objects. It reports whether any was added.
func (sm *sampling) refreshMaps(p *process) bool {
	sm.steps.MapsRefresh++
	p.mapsAt = sm.now()
	if p.main != nil && execPending(p) {
		// The maps already show the new image of an exec whose event the
		// tracer has not handled yet: its program would be loaded as a
		// library, without a schema. execed loads it as the program and
		// reads the maps again.
		return false
	}
	ents, err := readMaps(p.pid)
	if err != nil {
		return false
	}
	added := false
	for i := range ents {
		e := &ents[i]
		if !e.exec() || e.Path == "" || e.Path == "[vsyscall]" {
			continue
		}
		if m := p.space.Find(e.Start); m != nil && m.Start == e.Start && m.End == e.End {
			continue
		}
		var o *object
		switch {
		case e.Path == "[vdso]":
			o = sm.objs.vdso(p, e)
		case strings.HasPrefix(e.Path, "["):
			continue
		case p.main != nil && e.Path == p.exe:
			o = p.main
		default:
			var err error
			o, err = sm.objs.get(e.Path, e.Path, false)
			if err != nil {
				sm.warn(fmt.Sprintf("cannot read %s: %v (its frames stay unresolved)", e.Path, err))
				continue
			}
		}
		if o == nil {
			continue
		}
		bias, ok := o.bias(e.Start, e.Offset)
		if !ok {
			continue
		}
		p.space.Add(unwind.Mapped{Start: e.Start, End: e.End, Bias: bias, Table: o.table, Obj: int32(o.id)})
		sm.out.mapping(model.Mapping{PID: int32(p.pid), Start: e.Start, End: e.End, Bias: bias, Obj: o.id, Reset: p.resetMaps})
		p.resetMaps = false
		added = true
	}
	if added {
		p.mapsBackoff = 0
		p.mapsGen++
	} else {
		// Unknown PCs that a re-read does not explain (JIT code, or a
		// library not mapped yet): look again later, but not much later.
		p.mapsBackoff = min(max(2*p.mapsBackoff, 10_000_000), maxMapsBackoff)
	}
	return added
}

// readFrameValues reads the values of the locals accessible in frames into
// sm.values (sm.nlocals of them): a new read stamp (a variable is read once
// per sample, in the shallowest frame), one batched memory read.
func (sm *sampling) readFrameValues(p *process, frames []unwind.Frame) {
	sm.stamp++
	if sm.stamp == 0 {
		sm.stamp = 1
		for _, o := range sm.objs.list {
			clear(o.seen)
		}
	}
	sm.values, sm.pend = sm.values[:0], sm.pend[:0]
	sm.batch.reset()
	sm.readLocals(p, frames)
	sm.finishValues(p.pid)
	sm.nlocals = len(sm.values)
}
