package sampler

import (
	"fmt"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/vprof/vprof/dwarfschema"
	"github.com/vprof/vprof/runtime/proffile"
	"github.com/vprof/vprof/runtime/unwind"
)

// tick samples the threads due at this tick (method.md §3).
func (r *Recorder) tick(now int64) {
	r.tickN++
	r.steps.Ticks++
	for pi := 0; pi < len(r.procList); pi++ {
		p := r.procList[pi]
		r.tickThr = append(r.tickThr[:0], p.threads...)
		for _, t := range r.tickThr {
			if t.gone || t.listening || t.exiting || t.vfork || p.exited {
				continue
			}
			r.tickThread(t, now)
		}
	}
}

// tickThread decides whether t is sampled at this tick and samples it:
// stopped if it is running, read from memory if it is blocked.
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
			t.idle++
			t.nextCheck = r.tickN + uint64(min(1+t.idle/4, 16))
			r.steps.Decide += secs(r.now() - t0)
			return
		}
		r.targetCPU += int64(c - t.cpu)
		t.cpu, t.idle, t.nextCheck = c, 0, 0
		weight = int64(c - t.cpuSample)
		t.cpuSample = c
	} else {
		weight = now - t.lastNS
	}
	t.lastNS = now
	if !r.readSys(t, &r.sys) {
		r.sys = sysState{Running: true}
	}
	r.steps.Decide += secs(r.now() - t0)
	if r.sys.Running {
		r.sampleStopped(t, weight, t0)
	} else {
		r.sampleBlocked(t, weight, t0)
	}
}

// sampleStopped samples a running thread: stop, registers, stack window,
// resume; the rest is done while it runs.
func (r *Recorder) sampleStopped(t *thread, weight, when int64) {
	p := t.proc
	t0 := r.now()
	var ws unix.WaitStatus
	if !r.stopThread(t, &ws) {
		return
	}
	t1 := r.now()
	if ptraceGetRegs(t.tid, &r.pregs) != nil {
		r.handle(t, ws)
		return
	}
	regsFromPtrace(&r.pregs, &r.regs)
	r.hasFP = false
	if r.needFP(p, r.regs.PC()) {
		r.hasFP = ptraceGetFPRegs(t.tid, &r.fp) == nil
	}
	t2 := r.now()
	r.mem.fill(p.pid, r.regs.SP()-redZone, t.window+redZone)
	t3 := r.now()
	r.handle(t, ws) // resume: PTRACE_CONT, with the signal it stopped for if any
	t4 := r.now()
	s := &r.steps
	s.Stop += secs(t1 - t0)
	s.Regs += secs(t2 - t1)
	s.Read += secs(t3 - t2)
	s.Resume += secs(t4 - t3)
	s.Stopped += secs(t4 - t0)
	s.Full++
	r.finishSample(t, weight, when, proffile.Running, -1)
}

// sampleBlocked samples a thread blocked in the kernel without stopping it:
// /proc gave its SP and PC; the stack is read from memory.
func (r *Recorder) sampleBlocked(t *thread, weight, when int64) {
	p := t.proc
	st := &r.sys
	state, nr := proffile.Running, int32(-1)
	if r.cfg.Clock == proffile.ClockWall {
		state, nr = proffile.Blocked, st.Nr
	}
	r.steps.Light++
	if r.cfg.Clock == proffile.ClockWall && t.lightStack != nil && st.SP == t.lightSP && st.PC == t.lightPC && st.Nr == t.lightNr {
		// Still blocked at the same place: same stack and stack values.
		t0 := r.now()
		r.values = append(r.values[:0], t.lightVals...)
		r.appendGlobals(p)
		t1 := r.now()
		r.emit(t, weight, when, state, nr, t.lightStack)
		r.steps.Values += secs(t1 - t0)
		return
	}
	r.regs = unwind.Regs{}
	r.regs.Set(unwind.RSP, st.SP)
	r.regs.Set(unwind.RIP, st.PC)
	r.hasFP = false
	t0 := r.now()
	r.mem.fill(p.pid, st.SP-redZone, t.window+redZone)
	r.steps.Read += secs(r.now() - t0)
	r.finishSample(t, weight, when, state, nr)
	if r.cfg.Clock == proffile.ClockWall {
		t.lightSP, t.lightPC, t.lightNr = st.SP, st.PC, st.Nr
		t.lightStack = append(t.lightStack[:0], r.sample.Stack...)
		t.lightVals = append(t.lightVals[:0], r.values[:r.nlocals]...)
	}
}

// finishSample unwinds the copied stack, reads the values and writes the
// sample.
func (r *Recorder) finishSample(t *thread, weight, when int64, state proffile.ThreadState, nr int32) {
	p := t.proc
	t0 := r.now()
	n := p.space.Walk(&r.regs, &r.mem, r.frames, &r.ustats)
	if r.unknownPC(n) && r.mapsDue(p) {
		if r.refreshMaps(p) {
			n = p.space.Walk(&r.regs, &r.mem, r.frames, &r.ustats)
		}
	}
	if r.mem.misses > 0 {
		r.steps.WindowMisses += uint64(r.mem.misses)
		if t.window < maxWindow {
			t.window *= 2
		}
	}
	stack := r.stack[:0]
	for i := 0; i < n; i++ {
		stack = append(stack, r.frames[i].PC)
	}
	t1 := r.now()
	r.stamp++
	if r.stamp == 0 {
		r.stamp = 1
		for _, o := range r.objList {
			clear(o.seen)
		}
	}
	r.values, r.pend = r.values[:0], r.pend[:0]
	r.batch.reset()
	r.readLocals(p, r.frames[:n])
	r.finishValues(p.pid)
	r.nlocals = len(r.values)
	r.appendGlobals(p)
	t2 := r.now()
	r.emit(t, weight, when, state, nr, stack)
	r.steps.Unwind += secs(t1 - t0)
	r.steps.Values += secs(t2 - t1)
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
	return r.now()-p.mapsAt >= max(p.mapsBackoff, 5_000_000)
}

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
	if p.globalTick != r.tickN {
		r.readGlobals(p)
		p.globalTick = r.tickN
	}
	r.values = append(r.values, p.globals...)
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
	}
	if len(r.ptrs) == 0 {
		return
	}
	b.reset()
	for k := range r.ptrs {
		pr := &r.ptrs[k]
		pr.slot, pr.off = b.add(p.globals[pr.idx].Bits, pr.size)
	}
	b.run(p.pid)
	for _, pr := range r.ptrs {
		if pr.slot >= 0 && b.ok[pr.slot] {
			v := &p.globals[pr.idx]
			v.Pointee, v.HasPointee = normalise(pr.kind, b.bytesOf(pr.off, pr.size)), true
			r.vstats.Pointees++
		}
	}
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
	} else {
		p.mapsBackoff = min(max(2*p.mapsBackoff, 20_000_000), 1_000_000_000)
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
