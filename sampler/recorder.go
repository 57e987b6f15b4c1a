package sampler

import (
	"errors"
	"fmt"

	"os"

	"os/signal"
	"regexp"
	"runtime"
	"runtime/debug"

	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vprof/vprof/dwarfschema"
	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/sampler/callcount"
	"github.com/vprof/vprof/sampler/unwind"
)

// Config is one recording.
type Config struct {
	Output     string        // profile path
	Args       []string      // launch mode: command and arguments
	Env        []string      // launch mode: environment (nil: vprof's own)
	PID        int           // attach mode: process to attach to
	Interval   time.Duration // between ticks (default 1ms)
	Jitter     bool          // exponentially distributed gaps, mean Interval
	Clock      model.Clock
	Depth      int // caller program frames with values (default 3)
	Stack      int // PC stack frames kept (default 64, at most 128)
	Components []string
	FuncRegex  *regexp.Regexp
	// AllVars samples every local and parameter DWARF describes, not only
	// the tagged ones (method.md §2): more values per sample, more cost.
	AllVars bool
	// NoFields samples no struct fields (dwarfschema.Options.NoFields):
	// for measuring what they cost.
	NoFields bool
	// StrLens samples the length of the string each monitored local or
	// parameter of type pointer to char points at, as a variable of its
	// own (dwarfschema.Options.StrLens, method.md D140).
	StrLens bool
	// TailFrames restores, while recording, the frames that tail calls
	// removed and reads their parameters' entry values there
	// (tailframes.go, method.md §3). Without it the readers restore those
	// frames, without values. Either way a function's entry values come
	// only from a call-site record that names it (values.go).
	TailFrames bool
	Duration   time.Duration // 0: until the program exits
	Recorder   string        // Header.Recorder
	// Sampler is how threads are sampled: SamplerPerf (the kernel's
	// perf events: no running thread is stopped; with --clock wall the
	// ticks sample the blocked threads), SamplerPtrace (each running
	// thread stopped at each tick, which may cut a system call it is in
	// short: see docs/sampler.md), or SamplerAuto ("": perf where the
	// kernel allows it, else ptrace with a warning saying why).
	Sampler string
	// Warn receives warnings (no DWARF, no CFI...). Nil drops them.
	Warn func(string)
	// Progress, when set, is called about every second from another
	// goroutine while recording.
	Progress func(Progress)
	// Signals replaces vprof's own SIGINT/SIGTERM/SIGHUP handling (tests
	// send on it); nil installs signal handlers for the recording.
	Signals <-chan os.Signal
	// Stdin, Stdout, Stderr of a launched program (nil: vprof's).
	Stdin, Stdout, Stderr *os.File
	// OnDetached, in launch mode with --duration, is called once the
	// profile is written and before Record waits for the program to end
	// (to print the summary while the program runs on).
	OnDetached func(*Result)
	// NoBlockedStops never stops a thread blocked in a system call
	// (blocked.go): with --clock wall its samples then carry no registers.
	NoBlockedStops bool
	// SchemaCache is the directory where program schemas are cached by
	// build-id (dwarfschema.Cache): a program recorded again is not read
	// again. "" builds every schema.
	SchemaCache string

	// Count, when set, counts the entries of its functions in every task
	// of the recording (vprof record --count, method.md D220): each
	// task's counters are opened when it is first traced, before it runs
	// an instruction, and read when it is gone; the counts go in the
	// trailer. Nil: nothing is counted, and nothing is done per task.
	Count *callcount.Set
	// CountNames are the functions asked for with --count (the header's
	// Count), and CountMissing why they cannot be counted when Count is
	// nil (no uprobe PMU): the trailer says it.
	CountNames   []string
	CountMissing string

	// test holds what only the package's tests set.
	test testOptions
}

// testOptions are faults and widenings that only tests ask for, each
// showing that a guard holds. Zero values: none.
type testOptions struct {
	// panicAtTick makes the sampling panic at that tick (perf sampler:
	// that drain): a recorder bug must not harm the program.
	panicAtTick uint64
	// interruptAnyBlocked stops every blocked thread for its registers,
	// whatever its call: the programs that check their calls then see
	// the harm a wrong allowlist would do (blocked.go).
	interruptAnyBlocked bool
}

// MaxStack caps Config.Stack.
const MaxStack = 128

// Progress is a snapshot of a running recording.
type Progress struct {
	Elapsed      time.Duration
	Threads      int
	Samples      int64
	ValueSamples int64
}

// StepStats is where the sampling time went: totals over all samples.
type StepStats struct {
	Ticks, Lost  uint64        // ticks taken, ticks skipped because a tick ran late
	Full, Light  uint64        // samples of stopped threads, of blocked threads (see Result.Blocked)
	Decide       time.Duration // reading /proc to choose the threads of a tick
	Stop         time.Duration // PTRACE_INTERRUPT until the thread is stopped
	Regs         time.Duration // PTRACE_GETREGS (and GETFPREGS when needed)
	Read         time.Duration // the stack window and globals copies
	Resume       time.Duration // PTRACE_CONT
	Unwind       time.Duration
	Globals      time.Duration // reading the program's globals: once per process per tick, or per drain
	GlobalReads  uint64
	Values       time.Duration // evaluating locations, batched reads, normalising
	Write        time.Duration // encoding into the profile
	Stopped      time.Duration // total time threads were held stopped
	MapsRefresh  uint64
	WindowMisses uint64 // stack reads outside the copied window
	// The perf sampler (Ticks counts its samples, Lost the samples the
	// kernel could not write because a ring was full):
	Perf      uint64        // samples the kernel took
	Dropped   uint64        // of which dropped: thread no longer followed, or its process exec'd
	Throttled uint64        // times the kernel throttled an event
	Reopened  uint64        // events re-opened with another stack window
	Ring      time.Duration // reading a sample's record from its ring
	Drains    uint64        // times the rings were drained
	Poll      time.Duration // draining the rings besides their samples: heads, merge by time, tails
	Lag       time.Duration // from the sample to the end of its processing (globals and heap are read then)
	MaxLag    time.Duration
	// Reads of the program's static data while draining (staticpages.go):
	StaticPages uint64 // pages copied whole, once per drain
	StaticReads uint64 // reads answered from those copies without a system call
	// Samples whose stack copy the kernel cut short (at a page never
	// touched, or the stack's end), of which some frame was read past
	// the copy's end live (its end intact) or refused (changed since the
	// tick: the stack is cut there); FaultIns, the reads of such holes
	// that let the next copies go past them (perfmem.go).
	CutShort, CutLive, CutRefused, FaultIns uint64
}

// LaunchStats is where the wall time went while vprof launched the
// program, before its first instruction (the steps, in order; the time
// to Record's call is the command's own start), and after the program
// ended: what vprof adds to a program's run besides sampling
// (sampler/bench -lifecycle prints them).
type LaunchStats struct {
	Setup    time.Duration // from Record's call to the launch: signal handlers, the tracer thread, the perf rings set opening
	Spawn    time.Duration // fork and exec under ptrace, to the program's stop before its first instruction
	Program  time.Duration // loading the program: its schema (through the cache) and CFI
	Perf     time.Duration // waiting for the perf rings opened meanwhile
	Profile  time.Duration // checking perf on the program, creating the profile (header, objects)
	Thread   time.Duration // the first thread: its perf events and /proc files
	Maps     time.Duration // reading the program's mappings, loading what they map (the dynamic loader, the vDSO)
	Released time.Duration // from Record's call to the program's release: the above and the rest
	Finish   time.Duration // from the recording's end (the program's exit seen) to the profile closed
	// FDTable is how long growing the file descriptor table took (an RCU
	// grace period: fdtable.go), from Record's call; FDTableOpen, that it
	// was still under way when the profile closed, for FDTable so far:
	// vprof's exit then waits for it (a thread in the kernel's grace
	// period cannot exit).
	FDTable     time.Duration
	FDTableOpen bool
	// CalledMono and ReleasedMono are CLOCK_MONOTONIC (ns) at Record's
	// call and at the program's release: with the command's start and the
	// program's own clock readings they split the time to the program's
	// main into vprof's start before Record, the launch, and the program's
	// start after its release (its first stops wait for the tracer).
	CalledMono, ReleasedMono int64
}

// ValueStats counts value samples and why others were not taken.
type ValueStats = valueStats

// Result is how a recording ended.
type Result struct {
	Path       string
	Sampler    string // SamplerPerf or SamplerPtrace
	Trailer    model.Trailer
	ExitStatus int    // vprof record's exit status: the program's, or 0
	Reason     string // why recording stopped
	Elapsed    time.Duration
	Steps      StepStats
	Values     ValueStats
	Unwind     unwind.Stats
	Blocked    BlockedStats
	Launch     LaunchStats   // where the time to the program's first instruction and after its end went (launch mode)
	TracerCPU  time.Duration // vprof's own CPU time
	SetupCPU   time.Duration // of which before the first tick (loading the program's schema and CFI)
	// LoopCPU is the tracer thread's own CPU time from the first tick to
	// the end (its waits, tracee events, the samples): TracerCPU less
	// SetupCPU less LoopCPU is what vprof's other threads used meanwhile
	// (the Go runtime's sysmon, threads that run the tracer's P while it
	// is preempted, libraries loaded in the background).
	LoopCPU   time.Duration
	TargetCPU time.Duration // CPU time of the traced threads while recorded
	Processes int
	Threads   int
	Objects   int
	FileSize  int64
}

// PermissionError is a ptrace refusal; its message explains why.
type PermissionError struct {
	PID int
	Err error
}

func (e *PermissionError) Error() string {
	who := fmt.Sprintf("process %d", e.PID)
	if e.PID == 0 {
		who = "the program vprof starts"
	}
	msg := fmt.Sprintf("not permitted to trace %s (%v).\n", who, e.Err)
	// Another user's process: the capability is what is missing, whatever
	// the Yama setting.
	if st, err := os.Stat(fmt.Sprintf("/proc/%d", e.PID)); err == nil && e.PID > 0 {
		if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Geteuid() {
			return msg + fmt.Sprintf("  It belongs to uid %d and vprof runs as uid %d: tracing another user's process\n"+
				"  needs CAP_SYS_PTRACE (and CAP_PERFMON for the perf sampler). Run it as that user or root\n"+
				"  (sudo vprof record -p %d ...), or give the binary the capabilities once:\n"+
				"  sudo setcap cap_sys_ptrace,cap_perfmon+ep \"$(command -v vprof)\"", sys.Uid, os.Geteuid(), e.PID)
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/yama/ptrace_scope"); err == nil {
		msg += fmt.Sprintf("  /proc/sys/kernel/yama/ptrace_scope is %s", b[:len(b)-1])
		msg += ": 0 lets you trace your own processes, 1 only your descendants (so -p PID needs\n" +
			"  the capability), 2 needs CAP_SYS_PTRACE, 3 forbids ptrace altogether.\n" +
			"  Try: sudo sysctl kernel.yama.ptrace_scope=0, or run vprof with CAP_SYS_PTRACE\n" +
			"  (sudo, or sudo setcap cap_sys_ptrace+ep \"$(command -v vprof)\")"
	} else {
		msg += "  A process that changed its credentials (setuid) or made itself undumpable needs\n" +
			"  CAP_SYS_PTRACE (run vprof with sudo); inside a container, add --cap-add=SYS_PTRACE\n" +
			"  (and a seccomp profile allowing ptrace)"
	}
	return msg
}

func (e *PermissionError) Unwrap() error { return e.Err }

// ErrNoProcess is wrapped by Record's error when -p names no process.
var ErrNoProcess = errors.New("no such process")

// Recorder is one recording. It lives on the tracer thread and wires the
// parts that each own a share of the state:
//
//   - tracer (tracer.go): process control. The traced processes and
//     threads and the ptrace protocol: launch, attach, the tracees'
//     events, stops, detach. It tells the Recorder what it sees
//     (traceObserver).
//   - sampling (sample.go, blocked.go, wall.go, perf.go, values.go): the
//     per-tick sampling. Which threads a tick samples, their capture,
//     the unwinding, the values, the sample handed to the writer.
//   - profWriter (write.go): the profile file and the counts of what it
//     holds; the trailer and Result at the end.
//   - objectCache (objects.go): the objects loaded, each once.
//
// The Recorder runs the loop (ticks, tracee events, signals, flushes) and
// decides when and how the recording ends.
type Recorder struct {
	cfg  Config
	clk  clock
	warn warner
	objs objectCache
	tr   tracer
	smp  sampling
	out  profWriter

	sigs       <-chan os.Signal
	deadline   int64
	stopReason string
	stopSig    syscall.Signal
	cpuAtStart time.Duration // vprof's CPU time when the recording began

	started atomic.Pointer[time.Time] // read by the progress goroutine
	gc      *gcPause                  // collections paused while starting

	called      time.Time // Record's call
	launchStats LaunchStats
	// growFDTable's start, and its duration once done (fdtable.go)
	fdStart time.Time
	fdGrown atomic.Int64
	// countErr is why the counts stopped (a counter that could not be
	// opened or read): the counts are then left out, not given short.
	countErr string
}

// clock is a recording's time base, set when the profile begins.
type clock struct {
	start    time.Time
	monoBase int64 // CLOCK_MONOTONIC at start, ns
}

// now is the time since the recording started, in ns (monotonic).
func (c *clock) now() int64 { return int64(time.Since(c.start)) }

// begin sets the time base to now.
func (c *clock) begin() { c.beginWith(monoNanos, time.Now) }

// beginWith sets the time base from readings of CLOCK_MONOTONIC (mono)
// and of Go's clock (now, whose monotonic part is CLOCK_MONOTONIC too).
// monoBase must be the first at the instant of the second: perf samples'
// times (CLOCK_MONOTONIC) become the profile's with it, and their lag is
// measured against now. Read once one after the other, a tracer preempted
// between the two readings (tens of ms on a loaded machine) put every
// sample that much later than the recording's own clock: samples after
// the recording's end, a mean lag of -14 ms. So the Go reading is
// bracketed by two CLOCK_MONOTONIC ones, taken again when they are far
// apart, and the bracket's middle kept.
func (c *clock) beginWith(mono func() int64, now func() time.Time) {
	const tight = 20 * time.Microsecond
	best := int64(-1)
	for i := 0; i < 20; i++ {
		a := mono()
		t := now()
		b := mono()
		if best < 0 || b-a < best {
			best = b - a
			c.monoBase, c.start = a+(b-a)/2, t
		}
		if best <= int64(tight) {
			break
		}
	}
}

// sleepUntil sleeps until t ns after the start (an absolute deadline, so
// a late wake-up does not shift later ticks).
func (c *clock) sleepUntil(t int64) {
	sleepUntilMono(c.monoBase + t)
}

// pollUntil waits until fd is readable, a signal comes, or t ns after the
// start.
func (c *clock) pollUntil(fd int, t int64) {
	if d := t - c.now(); d > 0 {
		pollFor(fd, d)
	}
}

// warner passes each distinct warning on once.
type warner struct {
	seen map[string]bool
	fn   func(string)
}

func (w *warner) warn(msg string) {
	if !w.seen[msg] {
		w.seen[msg] = true
		w.fn(msg)
	}
}

const (
	redZone       = 128     // below %rsp, used by leaf functions
	minWindow     = 1 << 10 // stack bytes copied per sample: fitted to the stacks met
	maxWindow     = 64 << 10
	windowSlack   = 1 << 10 // beyond the deepest frame seen
	maxSleep      = 2 * time.Millisecond
	arenaBytes    = 256 << 10
	detachTimeout = 5 * time.Second
	flushEvery    = time.Second
	tracerNice    = -10
)

// After a task creation, exec or exit, vprof looks for more tracee events
// every eventPoll for eventBurst: a program starting threads waits for
// vprof at each
// (measured: 2.5 ms per thread with maxSleep alone, 16 threads on 16
// CPUs); a burst costs vprof about ten short wake-ups.
const (
	eventPoll  = 50 * time.Microsecond
	eventBurst = 500 * time.Microsecond
)

// Record runs a recording to its end (docs/sampler.md) and returns how
// it ended. The profile is complete when err is nil; on an error after
// recording started, the partial profile is kept and named in the error.
func Record(cfg Config) (*Result, error) {
	called, calledMono := time.Now(), monoNanos()
	if cfg.Interval <= 0 {
		cfg.Interval = time.Millisecond
	}
	if cfg.Clock == "" {
		cfg.Clock = model.ClockCPU
	}
	if cfg.Clock != model.ClockCPU && cfg.Clock != model.ClockWall {
		return nil, fmt.Errorf("unknown clock %q (cpu or wall)", cfg.Clock)
	}
	if cfg.Stack <= 0 {
		cfg.Stack = 64
	}
	if cfg.Stack > MaxStack {
		cfg.Stack = MaxStack
	}
	if cfg.Depth < 0 {
		cfg.Depth = 0
	}
	if cfg.Output == "" {
		cfg.Output = "vprof.data"
	}
	if cfg.Sampler == "" {
		cfg.Sampler = SamplerAuto
	}
	if (len(cfg.Args) == 0) == (cfg.PID == 0) {
		return nil, errors.New("give either a command to launch or a process id to attach to")
	}
	if cfg.Warn == nil {
		cfg.Warn = func(string) {}
	}
	sigs := cfg.Signals
	if sigs == nil {
		ch := make(chan os.Signal, 4)
		// A signal ignored when vprof started (SIGHUP under nohup, SIGINT
		// for a background job of a script) stays ignored, for vprof and
		// for the program it launches: handling it would end a recording
		// that the user asked to survive a hangup, and reset the
		// program's disposition to the default at exec.
		for _, s := range []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
			if !signal.Ignored(s) {
				signal.Notify(ch, s)
			}
		}
		defer signal.Stop(ch)
		sigs = ch
	}
	r := newRecorder(cfg, sigs)
	r.called = called
	r.launchStats.CalledMono = calledMono
	r.gc = pauseGC(startHeapLimit) // while recording (gc.go)
	// After Record returns: vprof record exits without a collection.
	defer r.gc.resumeAfter(startGCDelay)
	fdStart := time.Now()
	go func() { // meanwhile: no grace period to wait for at thread creations
		growFDTable()
		r.fdGrown.Store(int64(time.Since(fdStart)))
	}()
	r.fdStart = fdStart

	done := make(chan struct{})
	var res *Result
	var err error
	go func() {
		defer close(done)
		// The goroutine ends locked: its OS thread exits with it, and with
		// the thread any tracee still attached is detached by the kernel.
		runtime.LockOSThread()
		res, err = r.run()
	}()
	if cfg.Progress != nil {
		tk := time.NewTicker(time.Second)
		defer tk.Stop()
	wait:
		for {
			select {
			case <-done:
				break wait
			case <-tk.C:
				if st := r.started.Load(); st != nil {
					cfg.Progress(Progress{Elapsed: time.Since(*st), Threads: int(r.tr.live.Load()),
						Samples: r.out.samples.Load(), ValueSamples: r.out.vsamples.Load()})
				}
			}
		}
	} else {
		<-done
	}
	return res, err
}

// newRecorder wires the parts of a recording of cfg (defaults filled in).
func newRecorder(cfg Config, sigs <-chan os.Signal) *Recorder {
	r := &Recorder{cfg: cfg, sigs: sigs}
	r.warn = warner{seen: map[string]bool{}, fn: cfg.Warn}
	r.out.warn, r.out.now = r.warn.warn, r.clk.now
	r.objs = objectCache{
		byKey: map[string]*object{},
		out:   &r.out,
		opt: loadOptions{
			schema: dwarfschema.Options{Components: cfg.Components, FuncRegex: cfg.FuncRegex, All: cfg.AllVars, NoFields: cfg.NoFields, StrLens: cfg.StrLens},
			cache:  &dwarfschema.Cache{Dir: cfg.SchemaCache, Warn: r.warn.warn},
			warn:   r.warn.warn,
			tails:  cfg.TailFrames,
		},
	}
	r.tr = tracer{
		clock:       &r.clk,
		warner:      &r.warn,
		obs:         r,
		procs:       map[int]*process{},
		threads:     map[int]*thread{},
		swallowCont: map[int]bool{},
	}
	r.smp.init(&r.cfg, &r.clk, &r.warn, &r.tr, &r.objs, &r.out)
	return r
}

func secs(ns int64) time.Duration { return time.Duration(ns) }

// monoNanos is CLOCK_MONOTONIC in ns.
func monoNanos() int64 {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return ts.Nano()
}

// ownCPU is this process's CPU time so far.
func ownCPU() time.Duration {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// threadCPU is the calling thread's CPU time.
func threadCPU() time.Duration {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_THREAD, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// run is the tracer thread's body.
func (r *Recorder) run() (res *Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			// The program never pays for a recorder bug.
			func() {
				defer func() { recover() }()
				r.tr.detachAll()
				r.smp.closePerf()
			}()
			r.out.abort()
			err = fmt.Errorf("internal error: %v (the program was detached and left running)\n%s", p, debug.Stack())
		}
	}()
	// Precise sleeps between ticks (the default slack is 50µs).
	unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
	start := r.smp.setupPerf // attach: before seizing any thread
	if len(r.cfg.Args) > 0 {
		start = r.smp.startPerf // awaited by launch, after loading the program
	}
	if err := start(); err != nil {
		return nil, err
	}
	if len(r.cfg.Args) > 0 {
		err = r.launch()
	} else {
		err = r.attach(r.cfg.PID)
	}
	if err != nil {
		r.smp.closePerf()
		return nil, err
	}
	r.gc.hold(runHeadroom) // the program runs (gc.go)
	// Run this thread ahead of the program's: a stopped thread waits for
	// the tracer to be scheduled, so a tracer waiting for a CPU holds the
	// program up. Only now, after the launch: a child inherits the nice
	// value of the thread that forks it. Raising the priority needs
	// CAP_SYS_NICE (or root); without it the nice value stays as it is.
	unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), tracerNice)
	blockPreemptSignal() // after the launch: see there
	r.loop()
	return r.finish()
}

// loop runs ticks and handles tracee events until the recording ends.
func (r *Recorder) loop() {
	sm := &r.smp
	// When task creations, execs or exits were last handled. A launched
	// program starts with a burst too: right after its release it stops
	// for the tracer (the SIGCONT that release sends is delivered through
	// a ptrace stop, with its CLD_CONTINUED and CLD_STOPPED notices), and
	// it waits there until the tracer's next wait4; the SIGCHLD of each
	// stop ends the tracer's wait, but one that lands between the wait4
	// and the wait leaves the program stopped until the wait's end (4 ms
	// with D195's drains, 2 ms before).
	var eventAt int64 = -1
	if len(r.cfg.Args) > 0 {
		eventAt = r.clk.now()
	}
	for {
		n := r.tr.lifecycle
		r.tr.drain()
		if r.tr.lifecycle != n {
			eventAt = r.clk.now()
		}
		sm.perfDrain()
		if r.tr.firstExited {
			r.stopReason = "the program exited"
			return
		}
		if r.checkSignals() {
			return
		}
		now := r.clk.now()
		if r.deadline > 0 && now >= r.deadline {
			r.stopReason = fmt.Sprintf("--duration %v reached", r.cfg.Duration)
			return
		}
		// Every thread has its perf events: no tick, only drains, at a
		// ring's wake-up. (The wall clock's ticks sample the blocked
		// threads.)
		onlyDrains := sm.perf != nil && sm.perf.fallback == 0 && r.cfg.Clock == model.ClockCPU
		switch {
		case onlyDrains:
			// Kept current: should a thread fall back to ptrace ticks,
			// they start from now, with no lost ticks counted.
			sm.nextTick = now + int64(perfDrainEvery)
		case now < sm.nextTick:
		default:
			sm.tick(now)
			sm.schedule(r.clk.now())
		}
		r.out.flushDue(now)
		next := sm.nextTick
		sleep := int64(maxSleep)
		burst := eventAt >= 0 && r.clk.now()-eventAt < int64(eventBurst)
		if burst {
			// They come in bursts (a thread created: the parent's clone
			// stop, the new thread's first stop, the next creation), each
			// task stopped until vprof answers.
			sleep = int64(eventPoll)
		}
		if onlyDrains {
			next = sm.perf.drainedAt + int64(perfDrainLatest)
		}
		if lim := r.clk.now() + sleep; next > lim && (burst || !onlyDrains) {
			next = lim
		}
		if r.deadline > 0 && next > r.deadline {
			next = r.deadline
		}
		if onlyDrains && !burst && sm.perf.wake != nil {
			// Woken by the ring, by a tracee's event (SIGCHLD, which
			// the kernel sends to this thread: its tracer) or at next.
			r.clk.pollUntil(sm.perf.wake.fd, next)
			continue
		}
		r.clk.sleepUntil(next)
	}
}

// checkSignals handles a pending SIGINT, SIGTERM or SIGHUP to vprof and
// reports whether recording must stop (docs/sampler.md, "Ending a
// recording").
func (r *Recorder) checkSignals() bool {
	select {
	case s := <-r.sigs:
		switch s {
		case syscall.SIGINT:
			if r.tr.attached {
				r.stopReason = "interrupted (SIGINT)"
				return true
			}
			if !r.terminalDelivered() {
				unix.Kill(r.tr.first.pid, unix.SIGINT)
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
	pg, err := unix.Getpgid(r.tr.first.pid)
	return err == nil && fg == unix.Getpgrp() && pg == fg
}

// launch starts the program under ptrace, stopped at its first
// instruction, loads it, begins the profile, and lets it run.
func (r *Recorder) launch() error {
	ls := &r.launchStats
	t := time.Now()
	ls.Setup = t.Sub(r.called)
	lap := func(d *time.Duration) {
		now := time.Now()
		*d, t = now.Sub(t), now
	}
	pid, err := r.tr.spawn(&r.cfg)
	if err != nil {
		return err
	}
	lap(&ls.Spawn)
	env := r.cfg.Env
	if env == nil {
		env = os.Environ()
	}
	r.objs.preloadNeeded(fmt.Sprintf("/proc/%d/exe", pid), env) // meanwhile: the program's schema
	p, err := r.tr.addProcess(pid, os.Getpid(), nil)
	if err == nil {
		err = checkComponents(r.cfg.Components, p)
	}
	lap(&ls.Program)
	if err == nil {
		err = r.smp.awaitPerf()
	}
	lap(&ls.Perf)
	if err != nil {
		unix.Kill(pid, unix.SIGKILL) // it has not run a single instruction of its own yet
		return err
	}
	if err := r.begin(p); err != nil {
		unix.Kill(pid, unix.SIGKILL)
		return err
	}
	r.tr.first = p
	r.out.proc(model.ProcEvent{Kind: model.ProcStart, PID: int32(p.pid), PPID: int32(p.ppid), TimeNS: r.clk.now(), Path: p.exe})
	lap(&ls.Profile)
	r.tr.addThread(p, pid)
	lap(&ls.Thread)
	r.smp.refreshMaps(p)
	lap(&ls.Maps)
	r.out.flush() // the header and layout on disk at once: readable even if vprof dies now
	ls.ReleasedMono = monoNanos()
	r.tr.release(pid)
	ls.Released = time.Since(r.called)
	return nil
}

// attach loads process pid's program, seizes every thread of it, and
// begins the profile.
func (r *Recorder) attach(pid int) error {
	r.tr.attached = true
	if err := checkAttachable(pid); err != nil {
		return err
	}
	// Load the program before stopping anything.
	p, err := r.tr.addProcess(pid, 0, nil)
	if err == nil {
		err = checkComponents(r.cfg.Components, p)
	}
	if err != nil {
		return err
	}
	seized, err := r.tr.seize(pid)
	if err != nil {
		return err
	}
	if err := r.begin(p); err != nil {
		r.tr.detachSeized(seized)
		return err
	}
	r.tr.first = p
	r.out.proc(model.ProcEvent{Kind: model.ProcStart, PID: int32(p.pid), PPID: int32(p.ppid), TimeNS: r.clk.now(), Path: p.exe})
	for _, tid := range seized {
		r.tr.addThread(p, tid)
	}
	r.smp.refreshMaps(p)
	r.out.flush()
	return nil
}

// checkComponents fails when one of comps matches none of the source files
// of the first program recorded (model.ComponentError): the
// recording would hold no value of it. A program without DWARF is not
// checked (it was warned about); nor are the programs it starts, which a
// component may be meant for.
func checkComponents(comps []string, p *process) error {
	if len(comps) == 0 || p.main == nil || p.main.schema == nil || !p.main.schema.HasDWARF {
		return nil
	}
	return model.CheckComponents(comps, p.exe, p.main.schema.Files)
}

// begin starts the profile once the first process is known and stopped or
// seized.
func (r *Recorder) begin(p *process) error {
	if r.smp.perf != nil {
		if err := r.smp.checkPerf(p.pid); err != nil {
			return err
		}
	}
	if err := r.out.create(r.cfg.Output, r.header(p), r.objs.list); err != nil {
		return err
	}
	r.clk.begin()
	start := r.clk.start
	r.started.Store(&start)
	r.cpuAtStart = ownCPU()
	r.smp.nextTick = int64(r.cfg.Interval)
	if r.cfg.Duration > 0 {
		r.deadline = int64(r.cfg.Duration)
	}
	return nil
}

// finish ends the recording: detach what is still traced, write the
// trailer, and decide vprof's exit status.
func (r *Recorder) finish() (*Result, error) {
	t := time.Now()
	end := r.clk.now()
	r.smp.perfDrain()
	if len(r.tr.threads) > 0 {
		r.tr.detachAll()
	}
	sampler := r.smp.samplerName()
	r.smp.closePerf()
	res, err := r.result(end, sampler)
	if err != nil {
		return res, err
	}
	res.Launch = r.launchStats
	res.Launch.Finish = time.Since(t)
	if d := r.fdGrown.Load(); d > 0 {
		res.Launch.FDTable = time.Duration(d)
	} else if !r.fdStart.IsZero() {
		res.Launch.FDTable, res.Launch.FDTableOpen = time.Since(r.fdStart), true
	}
	switch {
	case r.tr.firstExited:
		res.ExitStatus = r.tr.firstStatus
	case r.tr.attached:
		res.ExitStatus = 0
	case r.stopSig != 0:
		res.ExitStatus = 128 + int(r.stopSig)
	default:
		// --duration in launch mode: the program goes on; pass its status
		// through when it ends.
		if r.cfg.OnDetached != nil {
			r.cfg.OnDetached(res)
		}
		res.ExitStatus = r.waitExit(r.tr.first.pid)
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

// The Recorder is the tracer's observer: it connects what the tracer sees
// to the other parts.

func (r *Recorder) loadProgram(p *process) error { return r.objs.loadMain(p) }

func (r *Recorder) procEvent(ev model.ProcEvent) { r.out.proc(ev) }

func (r *Recorder) threadAdded(t *thread) {
	if c := r.cfg.Count; c != nil && r.countErr == "" {
		if !c.Bound() && t.proc != nil {
			c.Bind(t.proc.exe) // a lazy set: the first program with the functions
		}
		if err := c.Open(t.tid); err != nil {
			r.countFailed(err)
		}
	}
	r.smp.threadAdded(t)
	p := t.proc
	r.out.thread(model.ThreadEvent{PID: int32(p.pid), TID: int32(t.tid), TimeNS: r.clk.now(), Name: taskComm(p.pid, t.tid)})
	if r.smp.perf != nil {
		r.smp.perfOpen(t)
	}
}

func (r *Recorder) threadDropped(t *thread, exited bool) {
	if c := r.cfg.Count; c != nil && r.countErr == "" {
		if err := c.Close(t.tid); err != nil {
			r.countFailed(err)
		}
	}
	r.smp.threadDropped(t)
	if p := t.proc; p != nil && exited {
		r.out.thread(model.ThreadEvent{PID: int32(p.pid), TID: int32(t.tid), TimeNS: r.clk.now(), Exit: true})
	}
}

func (r *Recorder) mapsChanged(p *process) { r.smp.refreshMaps(p) }

func (r *Recorder) drainSamples(discard *process) { r.smp.drainBefore(discard) }

// countFailed stops counting: counts that miss a task's calls would read
// as fewer calls, which is what the report compares.
func (r *Recorder) countFailed(err error) {
	r.countErr = err.Error()
	r.cfg.Count.Discard()
	r.warn.warn("the calls are not counted: " + r.countErr)
}

// counts are the trailer's counts, or why there are none.
func (r *Recorder) counts() ([]model.CallCount, string) {
	c := r.cfg.Count
	switch {
	case len(r.cfg.CountNames) == 0:
		return nil, ""
	case c == nil:
		return nil, r.cfg.CountMissing
	case !c.Bound():
		return nil, c.Unbound()
	case r.countErr == "":
		if err := c.CloseAll(); err != nil {
			r.countFailed(err)
		}
	}
	if r.countErr != "" {
		return nil, r.countErr
	}
	out := make([]model.CallCount, len(c.Targets))
	for i, t := range c.Targets {
		out[i] = model.CallCount{Function: t.Name, Symbol: t.Symbol, Calls: t.Calls, Inlined: t.Inlined, Unsure: t.Unsure}
	}
	return out, ""
}
