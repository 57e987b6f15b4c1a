package sampler

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/vprof/vprof/runtime/model"
)

// The perf backend (Config.Sampler "perf", auto's choice for both clocks
// where the kernel allows it): the kernel samples each thread on its own
// task clock and writes its registers and a copy of its stack into ring
// buffers; vprof drains them every few milliseconds and turns each record
// into a sample with the same code as the ptrace path (finishSample). No
// thread is ever stopped for a sample. See docs/sampler.md.
//
// Events are per thread and per CPU (pid=tid, cpu=c): the kernel only lets
// events of different threads share a ring buffer (PERF_EVENT_IOC_SET_OUTPUT)
// when they are bound to the same CPU, so there is one ring per CPU, owned
// by a dummy event on the tracer thread, and every thread has one event per
// CPU redirected to it: threads x CPUs file descriptors, CPUs mappings.

// Sampler names (Config.Sampler, Header.Sampler).
const (
	SamplerAuto   = "auto"
	SamplerPerf   = "perf"
	SamplerPtrace = "ptrace"
)

const (
	// perfMinStack is the smallest stack window (sample_stack_user), perf's
	// default: the kernel copies it at each sample, about a microsecond.
	perfMinStack = 8 << 10
	// perfMaxStack is the largest the kernel accepts (a record's size is
	// a u16; it clamps the dump to what fits).
	perfMaxStack = 65528
	// perfRingBytes is the data area of one ring, halved down to
	// perfMinRing when the locked-memory limit refuses it. 1 MiB holds
	// over 100 samples of 8 KiB: 100 ms of one CPU at 1 kHz.
	perfRingBytes = 1 << 20
	perfMinRing   = 64 << 10
	// The rings are drained at the perfWakeSamples-th sample written to
	// the ring that held the most samples at the previous drain (the
	// kernel wakes vprof: wakeup_events), or perfDrainLatest after the
	// previous drain, whichever comes first (method.md §3, D195). This
	// bounds the lag between a sample and the reading of its globals and
	// heap values: at most perfDrainLatest, and for a thread that runs
	// throughout on the ring waited on, at most (perfWakeSamples-1)
	// intervals, 1 ms on average at 1 kHz, as the fixed 2 ms drains
	// before (on other rings up to perfWakeSamples intervals), with a
	// third fewer wake-ups (each costs vprof 25-30 µs of CPU).
	perfWakeSamples = 3
	perfDrainLatest = 4 * time.Millisecond
	// perfDrainEvery is how often the rings are drained when ticks run
	// too (the wall clock, threads sampled with ptrace).
	perfDrainEvery = 2 * time.Millisecond
	// perfJitterSteps is how many kernel samples stand for one with
	// --jitter (see perfPeriod).
	perfJitterSteps = 4
	// perfShrinkEvery limits how often a thread's events are re-opened
	// with a smaller window (growing is at once).
	perfShrinkEvery = int64(time.Second)
)

// perfBackend is the perf sampling state of a recording.
type perfBackend struct {
	kernel    bool // samples also while in the kernel (exclude_kernel=0)
	rings     []*perfRing
	active    []*perfRing           // the rings written since the previous drain (perfDrain)
	events    map[uint64]*perfEvent // by event id
	retired   []*perfEvent          // re-opened: their last records may still be in a ring
	gen       uint64                // drains so far
	fallback  int                   // live threads whose events could not be opened (ptrace-sampled)
	draining  bool
	drainedAt int64     // clock time of the last drain
	wake      *perfRing // the ring whose wake-ups vprof waits for (nil: none yet)
	discard   *process  // drop this process's samples (it exec'd)
	// processes whose globals this drain has read: the memory is the
	// same for all its samples, so they are read once per drain
	globalsRead []*process
	cap         *capture
	snap        snapState
	static      staticPages     // a drain's copies of static data pages
	why         map[string]bool // open failures already warned about
}

// perfRing is one CPU's ring buffer.
type perfRing struct {
	fd, cpu  int
	mem      []byte
	page     *unix.PerfEventMmapPage
	data     []byte
	mask     uint64
	head     uint64 // data_head when this drain began
	tail     uint64 // next record
	rec      perfRecord
	ok       bool // rec is the next record
	scratch  []byte
	samples  int    // sample records read in this drain
	bad      uint64 // records that did not parse
	badErr   error
	lastTime uint64
}

// perfEvent is one thread's event on one CPU.
type perfEvent struct {
	fd      int
	id      uint64
	t       *thread
	last    uint64 // task clock at its previous sample
	retired uint64 // drain generation at which it was replaced (0: live)
}

// perfThread is a thread's events, one per ring.
type perfThread struct {
	ptrace   bool // its events could not be opened: sampled with ptrace
	ev       []*perfEvent
	stack    int    // their stack window
	lastTick uint64 // tick of its last sample (ticks of a thread increase)
	shrunkAt int64
	// faultedCut is the last end of a stack copy cut short that the
	// stack was read past (stackMem.faultIn).
	faultedCut uint64
}

// perfUnavailable is why the perf backend cannot be used.
type perfUnavailable struct {
	op  string
	err error
}

func (e *perfUnavailable) Error() string {
	msg := fmt.Sprintf("perf_event_open not usable (%s: %v)", e.op, e.err)
	switch {
	case errors.Is(e.err, unix.EACCES) || errors.Is(e.err, unix.EPERM):
		if b, err := os.ReadFile("/proc/sys/kernel/perf_event_paranoid"); err == nil {
			msg += fmt.Sprintf(": kernel.perf_event_paranoid is %s (2 or less lets you sample your own processes)", strings.TrimSpace(string(b)))
		}
		msg += ", or a seccomp filter forbids it (containers: docker's default profile does; run with --cap-add=PERFMON or a profile allowing perf_event_open)"
	case errors.Is(e.err, unix.ENOSYS):
		msg += ": the kernel has no perf events (CONFIG_PERF_EVENTS), or a seccomp filter hides the system call"
	case errors.Is(e.err, unix.ENOENT) || errors.Is(e.err, unix.EOPNOTSUPP) || errors.Is(e.err, unix.EINVAL):
		msg += ": the kernel lacks the task-clock software event or user register and stack sampling"
	case errors.Is(e.err, unix.EMFILE) || errors.Is(e.err, unix.ENFILE):
		msg += ": too many open files (raise ulimit -n)"
	}
	return msg
}

func (e *perfUnavailable) Unwrap() error { return e.err }

// onlineCPUs lists the CPUs the kernel can run threads on.
func onlineCPUs() ([]int, error) {
	b, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		return nil, err
	}
	return parseCPUList(strings.TrimSpace(string(b)))
}

// parseCPUList parses a kernel CPU list ("0-3,8,10-11").
func parseCPUList(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return nil, fmt.Errorf("CPU list %q: bad CPU %q", s, lo)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a || b-a > 1<<16 {
				return nil, fmt.Errorf("CPU list %q: bad range %q", s, part)
			}
		}
		for c := a; c <= b; c++ {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("CPU list %q: no CPU", s)
	}
	return out, nil
}

// perfAttr is the attribute of a thread's sampling event.
func perfAttr(period uint64, stack int, kernel bool) unix.PerfEventAttr {
	a := unix.PerfEventAttr{
		Type:              unix.PERF_TYPE_SOFTWARE,
		Config:            unix.PERF_COUNT_SW_TASK_CLOCK,
		Sample:            period,
		Sample_type:       perfSampleType,
		Bits:              unix.PerfBitDisabled | unix.PerfBitExcludeHv | unix.PerfBitSampleIDAll | unix.PerfBitUseClockID,
		Sample_regs_user:  perfRegsMask,
		Sample_stack_user: uint32(stack),
		Clockid:           unix.CLOCK_MONOTONIC,
	}
	if !kernel {
		a.Bits |= unix.PerfBitExcludeKernel
	}
	a.Size = uint32(unsafe.Sizeof(a))
	return a
}

// perfStackFor is the window of a thread's events for its fitted window:
// a power of two, so refitting rarely re-opens them.
func perfStackFor(window int) int {
	s := perfMinStack
	for s < window && s < perfMaxStack {
		s *= 2
	}
	return min(s, perfMaxStack)
}

// setupPerf decides the sampler before the program starts: ptrace when
// asked, else the perf backend if the kernel allows it (auto falls back to
// ptrace with a warning, perf fails), for either clock: with --clock wall
// the perf events sample running threads and the ticks blocked ones
// (wall.go).
func (sm *sampling) setupPerf() error {
	if err := sm.startPerf(); err != nil {
		return err
	}
	return sm.awaitPerf()
}

// perfOpened is openPerf's result.
type perfOpened struct {
	pb  *perfBackend
	err error
}

// startPerf opens the rings in the background (awaitPerf takes them):
// 16 CPUs' rings take about 5 ms (a megabyte each to map and clear, and
// an RCU grace period for the kernel's first task event), which a launch
// spends loading the program's schema meanwhile. A no-op for the ptrace
// sampler.
func (sm *sampling) startPerf() error {
	switch sm.cfg.Sampler {
	case "", SamplerAuto, SamplerPerf:
	case SamplerPtrace:
		return nil
	default:
		return fmt.Errorf("unknown sampler %q (auto, perf or ptrace)", sm.cfg.Sampler)
	}
	ch := make(chan perfOpened, 1)
	sm.perfOpening = ch
	tid := unix.Gettid() // the rings belong to the tracer thread
	go func() {
		pb, err := openPerf(sm.cfg.Interval, tid)
		ch <- perfOpened{pb, err}
	}()
	return nil
}

// awaitPerf takes the rings startPerf opened, or falls back to ptrace.
func (sm *sampling) awaitPerf() error {
	ch := sm.perfOpening
	if ch == nil {
		return nil
	}
	sm.perfOpening = nil
	res := <-ch
	if res.err != nil {
		return sm.perfFallback(res.err)
	}
	sm.perf = res.pb
	return nil
}

// perfFallback handles a perf backend that cannot be used: an error when
// it was asked for, else a warning and ptrace sampling.
func (sm *sampling) perfFallback(err error) error {
	if sm.perf != nil {
		sm.closePerf()
	}
	if sm.cfg.Sampler == SamplerPerf {
		return err
	}
	sm.warn(err.Error() + "; sampling with ptrace instead: each running thread is stopped at each tick, more overhead, and a thread stopped inside a system call may see it cut short (EINTR, a short read or write; see 'vprof record --help')")
	return nil
}

// probePerf says why the perf sampler cannot sample here (nil: it can),
// at interval iv: it opens and closes what a recording would.
func probePerf(iv time.Duration) error {
	pb, err := openPerf(iv, unix.Gettid())
	if err != nil {
		return err
	}
	pb.close()
	return nil
}

// openPerf opens the rings of tracer thread tid and checks that a sampling
// event can be opened (on that thread itself; the target is checked by
// checkPerf), at interval iv. It may run on another thread.
func openPerf(interval time.Duration, tid int) (*perfBackend, error) {
	cpus, err := onlineCPUs()
	if err != nil {
		return nil, &perfUnavailable{"reading the online CPUs", err}
	}
	pb := &perfBackend{events: map[uint64]*perfEvent{}, why: map[string]bool{}}
	pb.cap = &capture{}
	// Samples while in the kernel (system calls, page faults) carry the
	// user registers at the kernel entry: allowed by perf_event_paranoid
	// <= 1 or CAP_PERFMON. Without it those samples are dropped by the
	// kernel and their CPU time goes to the next sample's weight.
	iv := uint64(interval)
	self := tid
	for _, kernel := range []bool{true, false} {
		a := perfAttr(iv, perfMinStack, kernel)
		fd, err := unix.PerfEventOpen(&a, self, cpus[0], -1, unix.PERF_FLAG_FD_CLOEXEC)
		if err == nil {
			unix.Close(fd)
			pb.kernel = kernel
			break
		}
		if !kernel || !(errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM)) {
			return nil, &perfUnavailable{"task-clock sampling event", err}
		}
	}
	for _, c := range cpus {
		g, err := openRing(c, tid)
		if err != nil {
			for _, x := range pb.rings {
				x.close()
			}
			return nil, err
		}
		pb.rings = append(pb.rings, g)
	}
	return pb, nil
}

// openRing opens the ring of one CPU: a dummy event on tracer thread tid
// that the threads' events are redirected to.
func openRing(cpu, tid int) (*perfRing, error) {
	a := unix.PerfEventAttr{
		Type:    unix.PERF_TYPE_SOFTWARE,
		Config:  unix.PERF_COUNT_SW_DUMMY,
		Bits:    unix.PerfBitExcludeKernel | unix.PerfBitExcludeHv | unix.PerfBitUseClockID,
		Clockid: unix.CLOCK_MONOTONIC, // the threads' events must use the same clock
	}
	a.Size = uint32(unsafe.Sizeof(a))
	fd, err := unix.PerfEventOpen(&a, tid, cpu, -1, unix.PERF_FLAG_FD_CLOEXEC)
	if err != nil {
		return nil, &perfUnavailable{fmt.Sprintf("ring buffer of CPU %d", cpu), err}
	}
	page := os.Getpagesize()
	for size := perfRingBytes; ; size /= 2 {
		mem, err := unix.Mmap(fd, 0, page+size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
		if err == nil {
			g := &perfRing{fd: fd, cpu: cpu, mem: mem, page: (*unix.PerfEventMmapPage)(unsafe.Pointer(&mem[0])), scratch: make([]byte, 1<<16)}
			off, n := g.page.Data_offset, g.page.Data_size
			if off == 0 || n == 0 { // kernels before 4.1
				off, n = uint64(page), uint64(size)
			}
			g.data = mem[off : off+n]
			g.mask = n - 1
			g.tail = atomic.LoadUint64(&g.page.Data_tail)
			return g, nil
		}
		if size/2 < perfMinRing || !(errors.Is(err, unix.EPERM) || errors.Is(err, unix.ENOMEM)) {
			unix.Close(fd)
			return nil, &perfUnavailable{fmt.Sprintf("mapping the ring buffer of CPU %d (%d KiB; locked memory: ulimit -l, kernel.perf_event_mlock_kb)", cpu, size>>10), err}
		}
	}
}

func (g *perfRing) close() {
	if g.mem != nil {
		unix.Munmap(g.mem)
		g.mem = nil
	}
	if g.fd >= 0 {
		unix.Close(g.fd)
		g.fd = -1
	}
}

// checkPerf opens and closes an event on the program's first thread: what
// the kernel allows for the tracer's own thread it may refuse for another
// process. It runs before the profile's header is written.
func (sm *sampling) checkPerf(pid int) error {
	pb := sm.perf
	a := perfAttr(uint64(sm.cfg.Interval), perfMinStack, pb.kernel)
	fd, err := unix.PerfEventOpen(&a, pid, pb.rings[0].cpu, -1, unix.PERF_FLAG_FD_CLOEXEC)
	if err != nil {
		return sm.perfFallback(&perfUnavailable{fmt.Sprintf("event on process %d", pid), err})
	}
	err = unix.IoctlSetInt(fd, unix.PERF_EVENT_IOC_SET_OUTPUT, pb.rings[0].fd)
	unix.Close(fd)
	if err != nil {
		return sm.perfFallback(&perfUnavailable{"redirecting an event to a shared ring buffer", err})
	}
	return nil
}

// samplerName is the sampler of this recording.
func (sm *sampling) samplerName() string {
	if sm.perf != nil {
		return SamplerPerf
	}
	return SamplerPtrace
}

// perfOpen opens t's events (one per CPU), started at once. A thread
// whose events cannot be opened is sampled with ptrace.
func (sm *sampling) perfOpen(t *thread) {
	pb := sm.perf
	stack := perfStackFor(t.window)
	pt, err := sm.perfEvents(t, stack)
	if err != nil {
		if errors.Is(err, unix.ESRCH) {
			return // gone already
		}
		pb.fallback++
		t.perf = &perfThread{ptrace: true}
		if t.schedFD < 0 {
			sm.openProcFiles(t) // for its ticks (threadAdded skipped them)
		}
		if msg := err.Error(); !pb.why[msg] {
			pb.why[msg] = true
			if sm.cfg.Clock == model.ClockWall {
				// Never stopped while running (a stop could cut a system
				// call short): only its blocked time is sampled.
				sm.warn(fmt.Sprintf("thread %d: %v; its running time is not sampled, only its blocked time (raise ulimit -n, or record with --sampler ptrace)", t.tid, err))
			} else {
				sm.warn(fmt.Sprintf("thread %d: %v; it is sampled with ptrace", t.tid, err))
			}
		}
		return
	}
	t.perf = pt
}

// perfEvents opens t's events with the given stack window.
func (sm *sampling) perfEvents(t *thread, stack int) (*perfThread, error) {
	pb := sm.perf
	pt := &perfThread{stack: stack, ev: make([]*perfEvent, 0, len(pb.rings))}
	if t.perf != nil {
		pt.lastTick, pt.shrunkAt, pt.faultedCut = t.perf.lastTick, t.perf.shrunkAt, t.perf.faultedCut
	}
	fail := func(what string, err error) (*perfThread, error) {
		for _, e := range pt.ev {
			unix.Close(e.fd)
		}
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	a := perfAttr(sm.perfPeriod(), stack, pb.kernel)
	// Enabled at once, which saves an ioctl per CPU: a sample taken before
	// its event is redirected to the ring has nowhere to go and is dropped,
	// and its CPU time goes to the next sample's weight (the count since
	// the event opened), as a sample lost to a full ring's would. A thread
	// just created or exec'd is stopped here and takes none.
	a.Bits &^= unix.PerfBitDisabled
	a.Wakeup = perfWakeup(sm.cfg.Jitter)
	for _, g := range pb.rings {
		fd, err := unix.PerfEventOpen(&a, t.tid, g.cpu, -1, unix.PERF_FLAG_FD_CLOEXEC)
		if err != nil {
			return fail("perf_event_open", err)
		}
		pt.ev = append(pt.ev, &perfEvent{fd: fd, t: t})
		if err := unix.IoctlSetInt(fd, unix.PERF_EVENT_IOC_SET_OUTPUT, g.fd); err != nil {
			return fail("PERF_EVENT_IOC_SET_OUTPUT", err)
		}
		var id uint64
		if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.PERF_EVENT_IOC_ID, uintptr(unsafe.Pointer(&id))); e != 0 {
			return fail("PERF_EVENT_IOC_ID", e)
		}
		pt.ev[len(pt.ev)-1].id = id
	}
	for _, e := range pt.ev {
		pb.events[e.id] = e
	}
	return pt, nil
}

// perfPeriod is the sampling period of the events: the interval, or with
// --jitter a perfJitterSteps-th of it, of which perfSample keeps one sample
// in perfJitterSteps at random: the gaps between kept samples are then
// geometric (the discrete exponential) with the interval as mean. The
// kernel cannot draw a period per sample itself, and a period changed
// after each sample (PERF_EVENT_IOC_PERIOD) lags by the drain's delay: a
// short draw repeats until then, which biases the gaps short.
func (sm *sampling) perfPeriod() uint64 {
	iv := uint64(sm.cfg.Interval)
	if sm.cfg.Jitter {
		iv = max(iv/perfJitterSteps, 10_000)
	}
	return iv
}

// perfSampled reports whether the perf sampler samples t (else the
// ptrace path's ticks do).
func (t *thread) perfSampled() bool { return t.perf != nil && !t.perf.ptrace }

// perfClose closes t's events (it exited, exec'd or is being detached).
// Records of them still in a ring are dropped: callers drain first where
// those matter.
func (sm *sampling) perfClose(t *thread) {
	pb := sm.perf
	if pb == nil {
		return
	}
	if t.perf == nil {
		return
	}
	if t.perf.ptrace {
		pb.fallback--
		t.perf = nil
		return
	}
	for _, e := range t.perf.ev {
		unix.Close(e.fd)
		delete(pb.events, e.id)
	}
	t.perf = nil
}

// closePerf closes every event and ring (the end of the recording, or a
// fall back to ptrace).
func (sm *sampling) closePerf() {
	sm.awaitPerf() // rings still opening: close them too
	pb := sm.perf
	if pb == nil {
		return
	}
	for _, t := range sm.tr.threads {
		if t.perf != nil {
			sm.perfClose(t)
		}
	}
	pb.close()
	sm.perf = nil
}

// close closes the events retired and the rings (the threads' events are
// closed by perfClose).
func (pb *perfBackend) close() {
	for _, e := range pb.retired {
		unix.Close(e.fd)
	}
	for _, g := range pb.rings {
		g.close()
	}
}

// drainBefore takes the samples in the rings before a thread ends or an
// image is replaced (traceObserver.drainSamples); discard's are dropped.
func (sm *sampling) drainBefore(discard *process) {
	if sm.perf == nil {
		return
	}
	if discard != nil {
		sm.perf.discard = discard
	}
	sm.perfDrain()
}

// perfDrain turns every record in the rings into samples, oldest first
// across the rings (a thread's samples may be in several: it moves between
// CPUs).
func (sm *sampling) perfDrain() {
	pb := sm.perf
	if pb == nil || pb.draining {
		return
	}
	pb.gen++
	if pb.gen == sm.cfg.test.panicAtTick {
		panic("injected recorder fault") // tests: drains stand for ticks
	}
	pb.draining = true
	s := &sm.steps
	t0, staged := sm.now(), s.Ring+s.Globals+s.Unwind+s.Values+s.Write
	pb.globalsRead = pb.globalsRead[:0]
	pb.static.begin()
	sm.batch.static = &pb.static
	// Only the rings written since the previous drain are merged and
	// handed back: at one thread on 16 CPUs, one or two of 16, and the
	// merge visited every ring at each record.
	pb.active = pb.active[:0]
	for _, g := range pb.rings {
		g.head = atomic.LoadUint64(&g.page.Data_head)
		g.samples = 0
		if g.head == g.tail {
			g.ok = false
			continue
		}
		g.next()
		pb.active = append(pb.active, g)
	}
	for {
		var best *perfRing
		for _, g := range pb.active {
			if g.ok && (best == nil || g.rec.time < best.rec.time) {
				best = g
			}
		}
		if best == nil {
			break
		}
		if best.rec.typ == perfRecordSample {
			best.samples++
		}
		sm.perfRecord(&best.rec)
		best.next()
	}
	pb.static.end()
	sm.batch.static = nil
	s.StaticPages, s.StaticReads = pb.static.copied, pb.static.answered
	for _, g := range pb.active {
		atomic.StoreUint64(&g.page.Data_tail, g.tail)
		if g.bad > 0 {
			sm.warn(fmt.Sprintf("perf ring of CPU %d: %d records did not parse (%v); they were skipped", g.cpu, g.bad, g.badErr))
		}
	}
	pb.wake = busiestRing(pb.rings, pb.wake) // wait for its wake-ups next
	// Events replaced before the previous drain have no record left.
	keep := pb.retired[:0]
	for _, e := range pb.retired {
		if e.retired+1 < pb.gen {
			delete(pb.events, e.id)
			continue
		}
		keep = append(keep, e)
	}
	pb.retired = keep
	pb.discard = nil
	pb.draining = false
	pb.drainedAt = sm.now()
	s.Drains++
	s.Poll += max(secs(sm.now()-t0)-(s.Ring+s.Globals+s.Unwind+s.Values+s.Write-staged), 0)
}

// perfWakeup is the events' wakeup_events: the kernel counts samples per
// ring, and each perfWakeup-th written to a ring wakes its poller:
// perfWakeSamples kept samples (with --jitter the kernel takes
// perfJitterSteps for each one kept).
func perfWakeup(jitter bool) uint32 {
	if jitter {
		return perfWakeSamples * perfJitterSteps
	}
	return perfWakeSamples
}

// busiestRing is the ring with the most samples in this drain (the first
// of equals), or prev when no ring had any: the ring whose wake-ups vprof
// waits for next (D195).
func busiestRing(rings []*perfRing, prev *perfRing) *perfRing {
	best := prev
	n := 0
	for _, g := range rings {
		if g.samples > n {
			best, n = g, g.samples
		}
	}
	return best
}

// next reads the ring's next record into g.rec (g.ok false at the end of
// what the kernel had written when the drain began). A record that wraps
// around the end of the ring is copied whole into scratch.
func (g *perfRing) next() {
	g.ok = false
	for g.tail < g.head {
		off := g.tail & g.mask
		_, size, _ := perfRecordHeader(g.data[off:]) // 8-byte aligned: a header never wraps
		if size < 8 || uint64(size) > g.head-g.tail {
			// Out of step with the kernel: skip what it had written.
			g.bad++
			g.badErr = fmt.Errorf("record of %d bytes at %d with %d written", size, g.tail, g.head-g.tail)
			g.tail = g.head
			return
		}
		var b []byte
		if end := off + uint64(size); end <= uint64(len(g.data)) {
			b = g.data[off:end]
		} else {
			n := copy(g.scratch, g.data[off:])
			copy(g.scratch[n:size], g.data)
			b = g.scratch[:size]
		}
		g.tail += uint64(size)
		if err := parsePerfRecord(b, &g.rec); err != nil {
			g.bad++
			g.badErr = err
			continue
		}
		switch g.rec.typ {
		case perfRecordSample, perfRecordLost, perfRecordLostSamples, perfRecordThrottle:
			g.ok = true
			return
		}
	}
}

// perfRecord handles one record.
func (sm *sampling) perfRecord(rec *perfRecord) {
	switch rec.typ {
	case perfRecordSample:
		sm.perfSample(rec)
	case perfRecordLost, perfRecordLostSamples:
		sm.steps.Lost += rec.lost
	case perfRecordThrottle:
		sm.steps.Throttled++
	}
}

// perfSample turns one sample record into a profile sample: the record's
// registers and stack copy make the capture finishSample unwinds and reads
// values from, as the ptrace path's stop does.
func (sm *sampling) perfSample(rec *perfRecord) {
	t0 := sm.now()
	pb := sm.perf
	e := pb.events[rec.id]
	// Perf counts the samples taken (but those --jitter thins out),
	// Dropped those of them not turned into samples: the summary's
	// per-sample figures divide by the difference.
	if e == nil || e.t.gone || e.t.tid != int(rec.tid) || e.t.proc == nil || e.t.proc.exited || e.t.proc == pb.discard {
		sm.steps.Perf++
		sm.steps.Dropped++
		return
	}
	if sm.cfg.Jitter && sm.rng.IntN(perfJitterSteps) != 0 {
		return // thinned out: the next sample kept weighs this one's CPU time too
	}
	sm.steps.Perf++
	t := e.t
	weight := int64(rec.count - e.last)
	if rec.count < e.last {
		weight = int64(rec.period)
	}
	e.last = rec.count
	sm.targetCPU += weight
	if sm.cfg.Clock == model.ClockWall {
		// Its time waiting for a CPU since its previous sample counts as
		// running (wall.go).
		weight += t.wall.takeDelay()
	}
	if rec.abi != perfRegsABI64 {
		sm.steps.Dropped++ // no user registers (the thread was exiting)
		return
	}
	if sm.cpuAtTick == 0 {
		sm.cpuAtTick, sm.thrAtTick = ownCPU(), threadCPU()
	}
	sm.steps.Ticks++
	c := pb.cap
	for i, v := range rec.regs {
		c.regs.R[perfRegDWARF[i]] = v
	}
	c.regs.Valid, c.regs.Weak = 1<<17-1, 0
	c.hasFP = false // the kernel does not dump SSE registers for user-space sampling
	c.mem.snapshot(t.proc.pid, c.regs.SP(), rec.stack, uint64(len(rec.stack)) == rec.asked, &pb.snap)
	c.mem.static = &pb.static
	pb.static.use(t.proc)
	when := int64(rec.time) - sm.monoBase
	tick := uint64(max(when, 0)/int64(sm.cfg.Interval)) + 1
	pt := t.perf
	if pt != nil {
		pb.snap.lastCut = &pt.faultedCut
		tick = max(tick, pt.lastTick+1)
		pt.lastTick = tick
	}
	p := t.proc
	read := false
	for _, x := range pb.globalsRead {
		if x == p {
			read = true
			p.globalTick = tick // appendGlobals reuses what this drain read
			break
		}
	}
	sm.steps.Ring += secs(sm.now() - t0)
	saved := sm.tickN
	sm.tickN = tick
	sm.cur = c
	sm.finishSample(t, weight, when, model.Running, -1)
	sm.tickN = saved
	if !pb.snap.full {
		sm.steps.CutShort++
		if pb.snap.live > 0 {
			sm.steps.CutLive++
		}
		if pb.snap.refused > 0 {
			sm.steps.CutRefused++
		}
	}
	sm.steps.FaultIns += uint64(pb.snap.faultIns)
	pb.snap.faultIns = 0
	if !read {
		pb.globalsRead = append(pb.globalsRead, p)
	}
	lag := sm.now() - when
	sm.steps.Lag += secs(lag)
	sm.steps.MaxLag = max(sm.steps.MaxLag, secs(lag))
	if pt != nil && !t.gone {
		sm.perfRefit(t, pt)
	}
}

// perfRefit re-opens t's events when its fitted window (fitWindow) has
// outgrown theirs, or fits in a quarter of it for a while.
func (sm *sampling) perfRefit(t *thread, pt *perfThread) {
	want := perfStackFor(t.window)
	if want == pt.stack {
		return
	}
	if want < pt.stack {
		now := sm.now()
		if want*4 > pt.stack || now-pt.shrunkAt < perfShrinkEvery {
			return
		}
		pt.shrunkAt = now
	}
	npt, err := sm.perfEvents(t, want)
	if err != nil {
		return // keep the old window
	}
	sm.steps.Reopened++
	pb := sm.perf
	for _, e := range pt.ev {
		unix.Close(e.fd)
		e.retired = pb.gen
		pb.retired = append(pb.retired, e)
	}
	t.perf = npt
}
