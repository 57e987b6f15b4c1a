package sampler

import (
	"fmt"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/vprof/vprof/dwarfschema"
	"github.com/vprof/vprof/runtime/proffile"
	"github.com/vprof/vprof/sampler/unwind"
)

// panicAtTick makes tick panic at that tick (tests: a recorder bug must
// not harm the program). Zero never fires.
var panicAtTick uint64

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
func (r *Recorder) tick(now int64) {
	if r.tickN == 0 {
		r.cpuAtTick = ownCPU()
	}
	r.tickN++
	if r.perf != nil {
		// Threads the perf sampler could not take: ticks numbered as its
		// samples are, by time.
		r.tickN = max(r.tickN, uint64(now/int64(r.cfg.Interval))+1)
	}
	r.steps.Ticks++
	if r.tickN == panicAtTick {
		panic("injected recorder fault")
	}
	r.stopped = r.stopped[:0]
	// --clock wall with the perf sampler: blocked threads only (wall.go).
	wallPerf := r.perf != nil && r.cfg.Clock == proffile.ClockWall
	for pi := 0; pi < len(r.procList); pi++ {
		p := r.procList[pi]
		r.tickThr = append(r.tickThr[:0], p.threads...)
		for _, t := range r.tickThr {
			if t.gone || t.listening || t.exiting || t.vfork || p.exited {
				continue
			}
			switch {
			case wallPerf:
				r.wallTick(t)
			case !t.perfSampled():
				r.tickThread(t, now)
			}
		}
	}
	if len(r.stopped) == 0 {
		return
	}
	r.stopAll()
	for _, t := range r.stopped {
		if t.captured && !t.gone {
			t.captured = false
			r.steps.Full++
			r.cur = t.cap
			r.finishSample(t, t.pendWeight, t.pendWhen, proffile.Running, -1)
		}
	}
}

// tickThread decides whether t is sampled at this tick: a blocked thread
// is sampled at once, a running one is queued for stopAll.
func (r *Recorder) tickThread(t *thread, now int64) {
	t0 := r.now()
	var weight int64
	if r.cfg.Clock == proffile.ClockCPU {
		if r.tickN < t.nextCheck {
			return
		}
		c, ok := r.readCPU(t)
		if !ok {
			return
		}
		if c <= t.cpu {
			// Idle: check less often (up to every 16 ticks); the CPU time
			// is not lost, the next sample's weight covers it.
			t.checkNS = now
			t.idle++
			t.nextCheck = r.tickN + uint64(min(1+t.idle/4, 16))
			r.steps.Decide += secs(r.now() - t0)
			return
		}
		r.targetCPU += int64(c - t.cpu)
		busy := int64(c-t.cpu) >= (now-t.checkNS)*9/10
		t.cpu, t.idle, t.nextCheck, t.checkNS = c, 0, 0, now
		weight = int64(c - t.cpuSample)
		t.cpuSample = c
		if busy {
			// On a CPU for (nearly) the whole interval: running. This
			// saves reading its state; the chance that it entered a
			// blocking call in the last tenth of the interval is small.
			t.lastNS = now
			r.steps.Decide += secs(r.now() - t0)
			t.pendWeight, t.pendWhen = weight, t0
			r.stopped = append(r.stopped, t)
			return
		}
	} else {
		weight = now - t.lastNS
	}
	t.lastNS = now
	if !r.readSys(t, &r.sys) {
		r.sys = sysState{Running: true}
	}
	r.steps.Decide += secs(r.now() - t0)
	if r.sys.Running {
		t.pendWeight, t.pendWhen = weight, t0
		r.stopped = append(r.stopped, t)
		return
	}
	var sc *schedStat
	if r.cfg.Clock == proffile.ClockWall && r.readSched(t, &r.sched) {
		sc = &r.sched
	}
	r.sampleBlocked(t, weight, t0, sc)
}

// stopAll interrupts the queued threads and captures each as it stops,
// resuming it right after (a stopped thread is held for the copy only).
// Other tracees' events are handled meanwhile: a thread may not stop
// until another moves on (a vfork parent, an exec waiting for the other
// threads' exit stops).
func (r *Recorder) stopAll() {
	pending := 0
	for _, t := range r.stopped {
		t.captured = false
		if ptraceInterrupt(t.tid) != nil {
			continue
		}
		t.intr, t.inBatch, t.tInt = true, true, r.now()
		pending++
	}
	for pending > 0 {
		wpid, ws, err := wait4(-1, 0)
		if err != nil {
			break
		}
		t := r.threads[wpid]
		if t != nil && t.inBatch && ws.Stopped() {
			switch trapCause(ws) {
			case unix.PTRACE_EVENT_EXEC, unix.PTRACE_EVENT_EXIT, unix.PTRACE_EVENT_VFORK:
			default:
				t.intr, t.inBatch = false, false
				pending--
				r.capture(t, ws)
				continue
			}
		}
		r.dispatch(wpid, ws)
		// The event may have ended the wait for some of the threads.
		pending = 0
		for _, x := range r.stopped {
			if x.inBatch && (x.gone || !x.intr) {
				x.inBatch = false
			}
			if x.inBatch {
				pending++
			}
		}
	}
	for _, t := range r.stopped {
		t.inBatch = false
	}
}

// capture copies what a sample needs from stopped thread t, then resumes
// it with handle(t, ws) (delivering the signal it stopped for, if any).
func (r *Recorder) capture(t *thread, ws unix.WaitStatus) {
	p := t.proc
	t1 := r.now()
	c, need := t.ensureCapture()
	if ptraceGetRegs(t.tid, &r.pregs) != nil {
		r.handle(t, ws)
		return
	}
	regsFromPtrace(&r.pregs, &c.regs)
	t.noteRestartBlock(&r.pregs)
	r.readFPRegs(t, c)
	t2 := r.now()
	c.mem.fill(p.pid, c.regs.SP()-redZone, need)
	t3 := r.now()
	r.handle(t, ws) // resume: PTRACE_CONT, with the signal it stopped for if any
	t4 := r.now()
	s := &r.steps
	s.Stop += secs(t1 - t.tInt)
	s.Regs += secs(t2 - t1)
	s.Read += secs(t3 - t2)
	s.Resume += secs(t4 - t3)
	s.Stopped += secs(t4 - t1)
	t.captured = true
}

// finishSample unwinds the copied stack of r.cur, reads the values and
// writes the sample.
func (r *Recorder) finishSample(t *thread, weight, when int64, state proffile.ThreadState, nr int32) {
	p := t.proc
	c := r.cur
	t0 := r.now()
	// Globals are read live: before the unwinding, which may take long
	// (the first sample in a library loads its CFI), so that they are as
	// close as can be to the registers and stack copied at the tick.
	r.readGlobalsOnce(p)
	n := p.space.Walk(&c.regs, &c.mem, r.frames, &r.ustats)
	if r.unknownPC(n) && r.mapsDue(p) {
		if r.refreshMaps(p) {
			n = p.space.Walk(&c.regs, &c.mem, r.frames, &r.ustats)
		}
	}
	stack := r.stack[:0]
	for i := 0; i < n; i++ {
		stack = append(stack, r.frames[i].PC)
	}
	t1 := r.now()
	r.readFrameValues(p, r.frames[:n])
	r.appendGlobals(p)
	r.checkStill(t)
	r.fitWindow(t, c, n)
	t2 := r.now()
	r.emit(t, weight, when, state, nr, stack)
	r.steps.Unwind += secs(t1 - t0)
	r.steps.Values += secs(t2 - t1)
}

// fitWindow sizes t's stack window to what its stacks use: the copy costs
// by the page, and most stacks are shallow. It grows at once (doubling on
// reads outside the window) and shrinks slowly.
func (r *Recorder) fitWindow(t *thread, c *capture, n int) {
	if c.mem.misses > 0 {
		r.steps.WindowMisses += uint64(c.mem.misses)
		t.window = min(2*t.window, maxWindow)
		return
	}
	if n == 0 || !r.frames[n-1].HasCFA {
		return
	}
	used := int(r.frames[n-1].CFA - c.mem.base)
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
func (r *Recorder) emit(t *thread, weight, when int64, state proffile.ThreadState, nr int32, stack []uint64) {
	t0 := r.now()
	s := &r.sample
	s.Tick, s.TimeNS, s.WeightNS = r.tickN, when, weight
	s.State, s.Syscall = state, nr
	s.Stack, s.Values = stack, r.values
	r.w.AddSample(int32(t.proc.pid), int32(t.tid), s)
	r.samples.Add(1)
	r.vsamples.Add(int64(len(r.values)))
	r.steps.Write += secs(r.now() - t0)
}

func (r *Recorder) unknownPC(n int) bool {
	for i := 0; i < n; i++ {
		if r.frames[i].Map == nil {
			return true
		}
	}
	return false
}

// mapsDue rate-limits re-reading /proc/PID/maps for PCs in no known
// mapping (a library loaded since, or JIT code that no re-read will find).
func (r *Recorder) mapsDue(p *process) bool {
	return r.now()-p.mapsAt >= max(p.mapsBackoff, 2_000_000)
}

// maxMapsBackoff bounds the wait between re-reads of /proc/PID/maps for
// PCs in no known mapping.
const maxMapsBackoff = 100_000_000

// needFP reports whether a variable accessible at pc lives in an SSE
// register (reading it needs PTRACE_GETFPREGS, done only then).
func (r *Recorder) needFP(p *process, pc uint64) bool {
	m := p.space.Find(pc)
	if m == nil {
		return false
	}
	o := r.objList[m.Obj]
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
func (r *Recorder) appendGlobals(p *process) {
	r.readGlobalsOnce(p)
	r.values = append(r.values, p.globals...)
}

// readGlobalsOnce reads p's globals unless this tick already did.
func (r *Recorder) readGlobalsOnce(p *process) {
	if p.globalTick != r.tickN {
		r.readGlobals(p)
		p.globalTick = r.tickN
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
func (r *Recorder) readFPRegs(t *thread, c *capture) {
	c.hasFP = false
	if r.needFP(t.proc, c.regs.PC()) {
		c.hasFP = ptraceGetFPRegs(t.tid, &c.fp) == nil
	}
}

// readGlobals reads every global of p's program with one batched read of
// address clusters.
func (r *Recorder) readGlobals(p *process) {
	p.globals = p.globals[:0]
	o := p.main
	if o == nil || o.index == nil || len(o.globals) == 0 {
		return
	}
	bias, ok := p.bias(o)
	if !ok {
		return
	}
	b := r.batch
	b.reset()
	if cap(o.clSlot) < len(o.clusters) {
		o.clSlot = make([]int, len(o.clusters))
		o.clOff = make([]int, len(o.clusters))
	}
	for i, c := range o.clusters {
		o.clSlot[i], o.clOff[i] = b.add(c.lo+bias, int(c.hi-c.lo))
	}
	b.run(p.pid)
	r.ptrs = r.ptrs[:0]
	r.freads = r.freads[:0]
	nf := 0
	for i := range o.globals {
		g := &o.globals[i]
		v := &o.schema.Vars[g.v]
		var bits uint64
		switch {
		case g.cl >= 0:
			slot := o.clSlot[g.cl]
			if slot < 0 || !b.ok[slot] {
				r.vstats.Faulted++
				continue
			}
			c := o.clusters[g.cl]
			off := o.clOff[g.cl] + int(g.addr-c.lo)
			bits = normalise(v.Kind, b.bytesOf(off, g.size))
		case g.kind == dwarfschema.LocConst:
			var raw [8]byte
			for k := range raw {
				raw[k] = byte(uint64(o.schema.Locs[g.loc].Offset) >> (8 * k))
			}
			bits = normalise(v.Kind, raw[:min(g.size, 8)])
		default:
			r.vstats.Unsupported++ // TLS and computed globals
			continue
		}
		p.globals = append(p.globals, proffile.Value{Obj: o.id, Var: g.v, Bits: bits})
		r.vstats.Read++
		if v.Kind == dwarfschema.KindPointer && v.PointeeKind != 0 && o.schema.Locs[g.loc].BasicTypePtr && bits != 0 {
			r.ptrs = append(r.ptrs, ptrRead{idx: len(p.globals) - 1, kind: v.PointeeKind, size: int(v.PointeeSize)})
		}
		if o.fieldStart != nil && v.Kind == dwarfschema.KindPointer {
			r.queueFields(o, len(p.globals)-1, &p.globals[len(p.globals)-1], &nf)
		}
	}
	r.readBehind(p.pid, &p.globals, false)
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

// refreshMaps reads /proc/PID/maps and adds the executable mappings not
// known yet, loading their objects. It reports whether any was added.
func (r *Recorder) refreshMaps(p *process) bool {
	r.steps.MapsRefresh++
	p.mapsAt = r.now()
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
			o = r.vdso(p, e)
		case strings.HasPrefix(e.Path, "["):
			continue
		case p.main != nil && e.Path == p.exe:
			o = p.main
		default:
			var err error
			o, err = r.object(e.Path, e.Path, false)
			if err != nil {
				r.warn(fmt.Sprintf("cannot read %s: %v (its frames stay unresolved)", e.Path, err))
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
		r.w.AddMapping(proffile.Mapping{PID: int32(p.pid), Start: e.Start, End: e.End, Bias: bias, Obj: o.id, Reset: p.resetMaps})
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

// vdso returns the vDSO object, read from the process's memory once (every
// process of one kernel maps the same image).
func (r *Recorder) vdso(p *process, e *mapEntry) *object {
	if o := r.objects["[vdso]"]; o != nil {
		return o
	}
	size := int(e.End - e.Start)
	if size <= 0 || size > 1<<20 {
		return nil
	}
	img := make([]byte, size)
	local := []unix.Iovec{{Base: &img[0]}}
	local[0].SetLen(size)
	remote := []unix.RemoteIovec{{Base: uintptr(e.Start), Len: size}}
	if n, err := readv(p.pid, local, remote); err != nil || n != size {
		return nil
	}
	o, err := loadImage("[vdso]", img)
	if err != nil {
		return nil
	}
	r.addObject("[vdso]", o)
	return o
}

// readFrameValues reads the values of the locals accessible in frames into
// r.values (r.nlocals of them): a new read stamp (a variable is read once
// per sample, in the shallowest frame), one batched memory read.
func (r *Recorder) readFrameValues(p *process, frames []unwind.Frame) {
	r.stamp++
	if r.stamp == 0 {
		r.stamp = 1
		for _, o := range r.objList {
			clear(o.seen)
		}
	}
	r.values, r.pend = r.values[:0], r.pend[:0]
	r.batch.reset()
	r.readLocals(p, frames)
	r.finishValues(p.pid)
	r.nlocals = len(r.values)
}
