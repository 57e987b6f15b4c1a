package sampler

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vprof/vprof/dwarfschema"
	"github.com/vprof/vprof/runtime/proffile"
	"github.com/vprof/vprof/runtime/unwind"
)

// Config is one recording.
type Config struct {
	Output     string        // profile path
	Args       []string      // launch mode: command and arguments
	Env        []string      // launch mode: environment (nil: vprof's own)
	PID        int           // attach mode: process to attach to
	Interval   time.Duration // between ticks (default 1ms)
	Jitter     bool          // exponentially distributed gaps, mean Interval
	Clock      proffile.Clock
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
	Duration time.Duration // 0: until the program exits
	Recorder string        // Header.Recorder
	// Sampler is how threads are sampled: SamplerPerf (the kernel's
	// perf events: no running thread is stopped; with --clock wall the
	// ticks sample the blocked threads), SamplerPtrace (each running
	// thread stopped at each tick, which may cut a system call it is in
	// short: see the package doc), or SamplerAuto ("": perf where the
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
	Lag       time.Duration // from the sample to the end of its processing (globals and heap are read then)
	MaxLag    time.Duration
}

// ValueStats counts value samples and why others were not taken.
type ValueStats = valueStats

// Result is how a recording ended.
type Result struct {
	Path       string
	Sampler    string // SamplerPerf or SamplerPtrace
	Trailer    proffile.Trailer
	ExitStatus int    // vprof record's exit status: the program's, or 0
	Reason     string // why recording stopped
	Elapsed    time.Duration
	Steps      StepStats
	Values     ValueStats
	Unwind     unwind.Stats
	Blocked    BlockedStats
	TracerCPU  time.Duration // vprof's own CPU time
	SetupCPU   time.Duration // of which before the first tick (loading the program's schema and CFI)
	TargetCPU  time.Duration // CPU time of the traced threads while recorded
	Processes  int
	Threads    int
	Objects    int
	FileSize   int64
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

// tracerOf returns the pid and command name of the process tracing the
// process whose /proc directory is dir, or 0 if none (or unreadable).
func tracerOf(dir string) (int, string) {
	b, err := os.ReadFile(dir + "/status")
	if err != nil {
		return 0, ""
	}
	pid := parseTracerPid(string(b))
	if pid <= 0 {
		return 0, ""
	}
	comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	return pid, strings.TrimSpace(string(comm))
}

// parseTracerPid reads the TracerPid line of a /proc/PID/status text.
func parseTracerPid(status string) int {
	for line := range strings.Lines(status) {
		if v, ok := strings.CutPrefix(line, "TracerPid:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return 0
			}
			return n
		}
	}
	return 0
}

// ErrNoProcess is wrapped by Record's error when -p names no process.
var ErrNoProcess = errors.New("no such process")

// process is one traced process.
type process struct {
	pid, ppid   int
	exe         string
	space       *unwind.Space
	threads     []*thread
	main        *object // program object of the current image
	exited      bool
	resetMaps   bool  // the next mapping record starts a new image
	mapsAt      int64 // last maps read (ns since start)
	mapsBackoff int64
	mapsGen     int    // counts re-reads of the maps that found new mappings
	globalTick  uint64 // tick of globals
	globals     []proffile.Value
	gbuf        []byte
}

// thread is one traced thread.
type thread struct {
	tid       int
	proc      *process
	listening bool // in a group-stop, PTRACE_LISTEN'ed
	exiting   bool // PTRACE_EVENT_EXIT seen
	vfork     bool // waiting for a vfork child (uninterruptible: not stopped)
	gone      bool
	intr      bool // a PTRACE_INTERRUPT is pending
	schedFD   int
	sysFD     int
	cpu       uint64 // CPU ns at the last check
	cpuSample uint64 // CPU ns at the last sample
	cpuStart  uint64
	lastNS    int64 // wall time of the last sample
	checkNS   int64 // wall time of the last CPU check
	idle      int
	nextCheck uint64
	window    int
	// a tick's stop: the capture taken while stopped, processed after
	// every thread of the tick was resumed
	cap        *capture
	inBatch    bool
	perf       *perfThread // its perf events (perf sampler)
	captured   bool
	pendWeight int64
	pendWhen   int64
	tInt       int64          // when it was interrupted
	blk        blockedEpisode // last sample while blocked, reused until it moves (blocked.go)
	wall       wallAcct       // --clock wall with the perf sampler (wall.go)
}

// Recorder is the state of one recording; it lives on the tracer thread.
type Recorder struct {
	cfg      Config
	w        *proffile.Writer
	start    time.Time
	monoBase int64 // CLOCK_MONOTONIC at start, ns

	procs    map[int]*process
	procList []*process
	threads  map[int]*thread
	objects  map[string]*object
	objList  []*object
	first    *process
	attached bool
	perf     *perfBackend // nil: the ptrace sampler

	firstStatus  int
	firstExited  bool
	swallowCont  map[int]bool // a SIGCONT vprof sent while starting the program
	tickN        uint64
	nextTick     int64
	rng          *rand.Rand
	stopReason   string
	stopSig      syscall.Signal
	targetCPU    int64
	lastFlush    int64
	cpuAtStart   time.Duration // vprof's CPU time when the recording began
	cpuAtTick    time.Duration // and at the first tick
	sigs         <-chan os.Signal
	deadline     int64
	loadOpt      loadOptions
	warned       map[string]bool
	mapsCooldown int64

	// sampling scratch, reused by every sample
	pregs    unix.PtraceRegs
	cur      *capture // the capture being turned into a sample
	light    *capture // for threads sampled without stopping them
	stopped  []*thread
	frames   []unwind.Frame
	stack    []uint64
	values   []proffile.Value
	pend     []pending
	ptrs     []ptrRead
	freads   []fieldRead
	batch    *batch
	stamp    uint32
	eval     evaluator
	exprRegs unwind.Regs // a caller frame's registers, carried-over ones included
	sample   proffile.Sample
	tickThr  []*thread
	procBuf  [512]byte
	sys      sysState
	sched    schedStat
	still    stillCheck // a blocked thread's sample's values are kept if (checkStill)
	nlocals  int
	blk      blockedState

	steps  StepStats
	vstats valueStats
	ustats unwind.Stats
	nproc  int
	nthr   int

	// read by the progress goroutine
	started  atomic.Pointer[time.Time]
	samples  atomic.Int64
	vsamples atomic.Int64
	live     atomic.Int64
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

// Record runs a recording to its end (see the package doc) and returns how
// it ended. The profile is complete when err is nil; on an error after
// recording started, the partial profile is kept and named in the error.
func Record(cfg Config) (*Result, error) {
	if cfg.Interval <= 0 {
		cfg.Interval = time.Millisecond
	}
	if cfg.Clock == "" {
		cfg.Clock = proffile.ClockCPU
	}
	if cfg.Clock != proffile.ClockCPU && cfg.Clock != proffile.ClockWall {
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
	r := &Recorder{
		cfg:         cfg,
		procs:       map[int]*process{},
		threads:     map[int]*thread{},
		objects:     map[string]*object{},
		swallowCont: map[int]bool{},
		warned:      map[string]bool{},
		sigs:        sigs,
		frames:      make([]unwind.Frame, cfg.Stack),
		stack:       make([]uint64, 0, MaxStack),
		values:      make([]proffile.Value, 0, 1024),
		pend:        make([]pending, 0, 1024),
		batch:       newBatch(arenaBytes),
		rng:         rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0x9e3779b97f4a7c15)),
	}
	r.light = newCapture(maxWindow)
	r.eval.r = r
	r.loadOpt = loadOptions{
		schema: dwarfschema.Options{Components: cfg.Components, FuncRegex: cfg.FuncRegex, All: cfg.AllVars, NoFields: cfg.NoFields},
		cache:  &dwarfschema.Cache{Dir: cfg.SchemaCache, Warn: r.warn},
		warn:   r.warn,
	}

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
					cfg.Progress(Progress{Elapsed: time.Since(*st), Threads: int(r.live.Load()),
						Samples: r.samples.Load(), ValueSamples: r.vsamples.Load()})
				}
			}
		}
	} else {
		<-done
	}
	return res, err
}

func secs(ns int64) time.Duration { return time.Duration(ns) }

// ownCPU is this process's CPU time so far.
func ownCPU() time.Duration {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func (r *Recorder) warn(msg string) {
	if !r.warned[msg] {
		r.warned[msg] = true
		r.cfg.Warn(msg)
	}
}

// now is the time since the recording started, in ns (monotonic).
func (r *Recorder) now() int64 { return int64(time.Since(r.start)) }

// run is the tracer thread's body.
func (r *Recorder) run() (res *Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			// The program never pays for a recorder bug.
			func() {
				defer func() { recover() }()
				r.detachAll()
				r.closePerf()
			}()
			if r.w != nil {
				r.w.Abort()
			}
			err = fmt.Errorf("internal error: %v (the program was detached and left running)\n%s", p, debug.Stack())
		}
	}()
	// Precise sleeps between ticks (the default slack is 50µs).
	unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
	if err := r.setupPerf(); err != nil {
		return nil, err
	}
	if len(r.cfg.Args) > 0 {
		err = r.launch()
	} else {
		err = r.attach(r.cfg.PID)
	}
	if err != nil {
		r.closePerf()
		return nil, err
	}
	// Run this thread ahead of the program's: a stopped thread waits for
	// the tracer to be scheduled, so a tracer waiting for a CPU holds the
	// program up. Only now, after the launch: a child inherits the nice
	// value of the thread that forks it. Raising the priority needs
	// CAP_SYS_NICE (or root); without it the nice value stays as it is.
	unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), tracerNice)
	r.loop()
	return r.finish()
}

// header is the profile header of the first process.
func (r *Recorder) header(p *process) proffile.Header {
	h := proffile.Header{
		Target:      p.exe,
		Args:        r.cfg.Args,
		Attached:    r.attached,
		PID:         int32(p.pid),
		IntervalNS:  int64(r.cfg.Interval),
		Clock:       r.cfg.Clock,
		Depth:       r.cfg.Depth,
		Stack:       r.cfg.Stack,
		StartUnixNS: time.Now().UnixNano(),
		Recorder:    r.cfg.Recorder,
		Sampler:     r.samplerName(),
	}
	if p.main != nil {
		h.BuildID = p.main.schema.BuildID
	}
	h.Hostname, _ = os.Hostname()
	return h
}

// begin starts the profile once the first process is known and stopped or
// seized.
func (r *Recorder) begin(p *process) error {
	if r.perf != nil {
		if err := r.checkPerf(p.pid); err != nil {
			return err
		}
	}
	w, err := proffile.Create(r.cfg.Output, r.header(p))
	if err != nil {
		return err
	}
	r.w = w
	for _, o := range r.objList { // loaded before the profile existed
		w.AddObject(o.record())
	}
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	r.monoBase = ts.Nano()
	r.start = time.Now()
	start := r.start
	r.started.Store(&start)
	r.cpuAtStart = ownCPU()
	r.nextTick = int64(r.cfg.Interval)
	if r.cfg.Duration > 0 {
		r.deadline = int64(r.cfg.Duration)
	}
	return nil
}

// launch starts the program under ptrace, stopped at its first
// instruction, and seizes it.
func (r *Recorder) launch() error {
	argv := r.cfg.Args
	path, err := lookPath(argv[0])
	if err != nil {
		return err
	}
	files := []*os.File{r.cfg.Stdin, r.cfg.Stdout, r.cfg.Stderr}
	std := []*os.File{os.Stdin, os.Stdout, os.Stderr}
	fds := make([]uintptr, 3)
	for i, f := range files {
		if f == nil {
			f = std[i]
		}
		fds[i] = f.Fd()
	}
	env := r.cfg.Env
	if env == nil {
		env = os.Environ()
	}
	// PTRACE_TRACEME stops the child at exec; this thread is its tracer.
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{Env: env, Files: fds, Sys: &syscall.SysProcAttr{Ptrace: true}})
	if err != nil {
		if errors.Is(err, syscall.EPERM) {
			// The child's PTRACE_TRACEME was refused. When vprof is
			// itself traced (a debugger, strace -f, vprof) following
			// forks, its tracer took the child first: no capability
			// would help.
			if tpid, comm := tracerOf("/proc/self"); tpid > 0 {
				return fmt.Errorf("cannot trace %s: vprof itself is traced by process %d (%s), which traces the processes vprof starts too; run vprof outside it, or start the program and attach with -p", path, tpid, comm)
			}
			return &PermissionError{PID: 0, Err: err}
		}
		return fmt.Errorf("cannot execute %s: %w", path, err)
	}
	_, ws, err := wait4(pid, 0)
	if err != nil || !ws.Stopped() {
		return fmt.Errorf("%s did not start under ptrace (status %v, %v)", path, ws, err)
	}
	// Hand the child over from TRACEME to SEIZE (needed for
	// PTRACE_INTERRUPT and PTRACE_LISTEN): detach into a SIGSTOP stop,
	// seize, and continue it. It has not run an instruction of its own.
	if err := ptraceDetach(pid, int(unix.SIGSTOP)); err != nil {
		unix.Kill(pid, unix.SIGKILL)
		return fmt.Errorf("ptrace detach of new process %d: %v", pid, err)
	}
	if _, ws, err = wait4(pid, unix.WUNTRACED); err != nil || !ws.Stopped() {
		unix.Kill(pid, unix.SIGKILL)
		return fmt.Errorf("new process %d did not stop (status %v, %v)", pid, ws, err)
	}
	if err := ptraceSeize(pid); err != nil {
		unix.Kill(pid, unix.SIGKILL)
		if errors.Is(err, unix.EPERM) {
			return &PermissionError{PID: pid, Err: err}
		}
		return fmt.Errorf("ptrace seize of new process %d: %v", pid, err)
	}
	if _, ws, err = wait4(pid, 0); err != nil || !ws.Stopped() {
		unix.Kill(pid, unix.SIGKILL)
		return fmt.Errorf("new process %d: no stop after seize (status %v, %v)", pid, ws, err)
	}
	p, err := r.newProcess(pid, os.Getpid(), nil)
	if err == nil {
		err = checkComponents(r.cfg.Components, p)
	}
	if err != nil {
		unix.Kill(pid, unix.SIGKILL) // it has not run a single instruction of its own yet
		return err
	}
	if err := r.begin(p); err != nil {
		unix.Kill(pid, unix.SIGKILL)
		return err
	}
	r.first = p
	r.startProcess(p, proffile.ProcStart)
	r.newThread(p, pid)
	r.refreshMaps(p)
	r.w.Flush() // the header and layout on disk at once: readable even if vprof dies now
	// Leave the SIGSTOP group-stop: SIGCONT, whose delivery is swallowed
	// (the program never sees it), then continue from the seize stop.
	r.swallowCont[pid] = true
	unix.Kill(pid, unix.SIGCONT)
	ptraceCont(pid, 0)
	return nil
}

// lookPath resolves a command like a shell would, with errors that say
// what is wrong.
func lookPath(name string) (string, error) {
	path := name
	if !containsSlash(name) {
		p, err := exec.LookPath(name)
		if err != nil {
			return "", fmt.Errorf("%s: command not found in $PATH", name)
		}
		path = p
	}
	st, err := os.Stat(path)
	if err != nil {
		if os.IsNotExist(err) {
			return "", fmt.Errorf("%s: no such file", name)
		}
		return "", err
	}
	if st.IsDir() {
		return "", fmt.Errorf("%s: is a directory, not a program", name)
	}
	if st.Mode()&0o111 == 0 || unix.Access(path, unix.X_OK) != nil {
		return "", fmt.Errorf("%s: not executable (permission denied)", name)
	}
	return path, nil
}

func containsSlash(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '/' {
			return true
		}
	}
	return false
}

// attach seizes every thread of process pid.
func (r *Recorder) attach(pid int) error {
	r.attached = true
	if pid <= 0 {
		return fmt.Errorf("invalid process id %d", pid)
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err != nil {
		return fmt.Errorf("process %d: %w", pid, ErrNoProcess)
	}
	if tgid, _, err := taskStatus(pid); err == nil && tgid != pid {
		return fmt.Errorf("%d is a thread of process %d: give the process id", pid, tgid)
	}
	if pid == os.Getpid() {
		return errors.New("vprof cannot record itself")
	}
	// Load the program before stopping anything.
	p, err := r.newProcess(pid, 0, nil)
	if err == nil {
		err = checkComponents(r.cfg.Components, p)
	}
	if err != nil {
		return err
	}
	tids, err := listTasks(pid)
	if err != nil {
		return fmt.Errorf("process %d: %w", pid, ErrNoProcess)
	}
	seized := map[int]bool{}
	// Threads created while attaching by a thread not yet seized are not
	// auto-attached: list again until nothing new appears.
	for len(tids) > 0 {
		var fresh []int
		for _, tid := range tids {
			if seized[tid] {
				continue
			}
			if err := ptraceSeize(tid); err != nil {
				if errors.Is(err, unix.ESRCH) {
					continue // exited meanwhile
				}
				r.detachSeized(seized)
				if errors.Is(err, unix.EPERM) {
					return &PermissionError{PID: pid, Err: err}
				}
				return fmt.Errorf("ptrace seize of thread %d of process %d: %v", tid, pid, err)
			}
			seized[tid] = true
			fresh = append(fresh, tid)
		}
		if len(fresh) == 0 {
			break
		}
		tids, _ = listTasks(pid)
	}
	if len(seized) == 0 {
		return fmt.Errorf("process %d: %w (it exited)", pid, ErrNoProcess)
	}
	if err := r.begin(p); err != nil {
		r.detachSeized(seized)
		return err
	}
	r.first = p
	r.startProcess(p, proffile.ProcStart)
	ids := make([]int, 0, len(seized))
	for tid := range seized {
		ids = append(ids, tid)
	}
	sort.Ints(ids)
	for _, tid := range ids {
		r.newThread(p, tid)
	}
	r.refreshMaps(p)
	r.w.Flush()
	return nil
}

// detachSeized undoes a partial attach (threads are running: seize does
// not stop them, so interrupt each before detaching).
func (r *Recorder) detachSeized(seized map[int]bool) {
	for tid := range seized {
		r.threads[tid] = &thread{tid: tid, schedFD: -1, sysFD: -1}
	}
	r.detachAll()
}

// newProcess creates a process record and loads its program (not yet
// written to the profile).
func (r *Recorder) newProcess(pid, ppid int, parent *process) (*process, error) {
	p := &process{pid: pid, ppid: ppid, resetMaps: true}
	if parent != nil {
		p.space = parent.space.Clone()
		p.main, p.exe = parent.main, parent.exe
		p.resetMaps = false
	} else {
		p.space = &unwind.Space{}
		if err := r.loadMain(p); err != nil {
			return nil, err
		}
	}
	r.procs[pid] = p
	r.procList = append(r.procList, p)
	r.nproc++
	return p, nil
}

// checkComponents fails when one of comps matches none of the source files
// of the first program recorded (dwarfschema.ComponentError): the
// recording would hold no value of it. A program without DWARF is not
// checked (it was warned about); nor are the programs it starts, which a
// component may be meant for.
func checkComponents(comps []string, p *process) error {
	if len(comps) == 0 || p.main == nil || p.main.schema == nil || !p.main.schema.HasDWARF {
		return nil
	}
	return dwarfschema.CheckComponents(comps, p.exe, p.main.schema.Files)
}

// loadMain loads the program object of p's current image.
func (r *Recorder) loadMain(p *process) error {
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", p.pid))
	if errors.Is(err, fs.ErrPermission) {
		// The process exists (attach saw /proc/PID) but is not ours to read.
		return &PermissionError{PID: p.pid, Err: err}
	}
	if err != nil {
		return fmt.Errorf("process %d: %w", p.pid, ErrNoProcess)
	}
	p.exe = trimDeleted(exe)
	o, err := r.object(fmt.Sprintf("/proc/%d/exe", p.pid), p.exe, true)
	if err != nil {
		return err
	}
	p.main = o
	return nil
}

func trimDeleted(s string) string {
	const d = " (deleted)"
	if len(s) > len(d) && s[len(s)-len(d):] == d {
		return s[:len(s)-len(d)]
	}
	return s
}

// object returns the object at display path, loading it on first use from
// file (which may be a /proc path).
func (r *Recorder) object(file, display string, program bool) (*object, error) {
	key := display
	if program {
		key = "prog:" + display
	}
	if o := r.objects[key]; o != nil {
		return o, nil
	}
	var o *object
	var err error
	if program {
		o, err = loadProgram(file, display, r.loadOpt)
	} else {
		o, err = loadLibrary(file, display)
	}
	if err != nil {
		return nil, err
	}
	r.addObject(key, o)
	return o, nil
}

func (r *Recorder) addObject(key string, o *object) {
	o.id = uint16(len(r.objList))
	r.objects[key] = o
	r.objList = append(r.objList, o)
	if r.w != nil {
		r.w.AddObject(o.record())
	}
}

// startProcess writes p's start (or fork) to the profile.
func (r *Recorder) startProcess(p *process, kind proffile.ProcEventKind) {
	r.w.AddProc(proffile.ProcEvent{Kind: kind, PID: int32(p.pid), PPID: int32(p.ppid), TimeNS: r.now(), Path: p.exe})
}

// newThread registers thread tid of p.
func (r *Recorder) newThread(p *process, tid int) *thread {
	now := r.now()
	t := &thread{tid: tid, proc: p, window: 8 << 10, lastNS: now, checkNS: now}
	t.schedFD = openTaskFile(p.pid, tid, "schedstat")
	t.sysFD = openTaskFile(p.pid, tid, "syscall")
	var sc schedStat
	if r.readSched(t, &sc) {
		t.cpu, t.cpuSample, t.cpuStart = sc.CPU, sc.CPU, sc.CPU
		t.wall.start(now, &sc)
	}
	r.threads[tid] = t
	p.threads = append(p.threads, t)
	r.nthr++
	r.live.Add(1)
	r.w.AddThread(proffile.ThreadEvent{PID: int32(p.pid), TID: int32(tid), TimeNS: r.now(), Name: taskComm(p.pid, tid)})
	if r.perf != nil {
		r.perfOpen(t)
	}
	return t
}

// dropThread forgets a thread that exited or was detached.
func (r *Recorder) dropThread(t *thread, exited bool) {
	if t.gone {
		return
	}
	r.perfClose(t)
	t.gone = true
	delete(r.threads, t.tid)
	if t.schedFD >= 0 {
		unix.Close(t.schedFD)
	}
	if t.sysFD >= 0 {
		unix.Close(t.sysFD)
	}
	r.live.Add(-1)
	if p := t.proc; p != nil {
		for i, x := range p.threads {
			if x == t {
				p.threads = append(p.threads[:i], p.threads[i+1:]...)
				break
			}
		}
		if exited && r.w != nil {
			r.w.AddThread(proffile.ThreadEvent{PID: int32(p.pid), TID: int32(t.tid), TimeNS: r.now(), Exit: true})
		}
	}
}

// readCPU returns t's CPU time (ns).
func (r *Recorder) readCPU(t *thread) (uint64, bool) {
	var s schedStat
	ok := r.readSched(t, &s)
	return s.CPU, ok
}

// readSched reads t's schedstat.
func (r *Recorder) readSched(t *thread, s *schedStat) bool {
	if t.schedFD < 0 {
		return false
	}
	n, err := pread(t.schedFD, r.procBuf[:])
	if err != nil || n == 0 {
		return false
	}
	return parseSchedstatAll(r.procBuf[:n], s)
}

func (r *Recorder) readSys(t *thread, s *sysState) bool {
	if t.sysFD < 0 {
		return false
	}
	n, err := pread(t.sysFD, r.procBuf[:])
	if err != nil || n == 0 {
		return false
	}
	return parseSyscall(r.procBuf[:n], s)
}
