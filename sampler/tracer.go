package sampler

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/sampler/unwind"
)

// tracer is a recording's process control: the processes and threads it
// traces and the ptrace protocol (launch, attach, the tracees' events,
// stops for samples, detach). It must be used from one OS thread, the
// tracees' tracer.
//
// Invariants: threads holds every thread traced and not yet dropped, each
// in its process's threads; procList holds the processes not yet ended,
// in the order they were met, as procs does by pid; a thread or process
// dropped is never seen again. Everything outside the tables (loading
// programs, the profile, the samples) it leaves to its observer.
type tracer struct {
	*clock
	*warner
	obs traceObserver

	procs       map[int]*process
	procList    []*process
	threads     map[int]*thread
	first       *process     // the process launched or attached to
	attached    bool         // attach mode
	swallowCont map[int]bool // a SIGCONT vprof sent while starting the program
	firstStatus int          // first's shell-style exit status, once firstExited
	firstExited bool

	nproc, nthr int          // processes and threads met
	lifecycle   int          // task creations, execs and exits handled
	live        atomic.Int64 // threads traced now (read by the progress goroutine)
}

// traceObserver is told what the tracer meets; the Recorder is one.
type traceObserver interface {
	// loadProgram loads the program of p's current image (p.exe, p.main).
	loadProgram(p *process) error
	// procEvent records a process's start, fork, exec, exit or detach.
	procEvent(ev model.ProcEvent)
	// threadAdded is called once t is traced and in the tables.
	threadAdded(t *thread)
	// threadDropped is called once t is out of the tables: it exited, or
	// it is detached (exited false).
	threadDropped(t *thread, exited bool)
	// mapsChanged is called when p's mappings are new (a new process, an
	// exec).
	mapsChanged(p *process)
	// drainSamples takes the samples pending (perf rings) while the
	// memory they read is there, before a thread ends or an image is
	// replaced; those of process discard's old image, if not nil, are
	// dropped.
	drainSamples(discard *process)
}

// process is one traced process. The tracer owns its identity, threads
// and end (pid, ppid, exe, threads, exited) and sets its image at its
// start and at exec (main, space, resetMaps); the maps and globals fields
// are the sampling's.
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
	globals     []model.Value
	gbuf        []byte
}

// thread is one traced thread. The tracer owns its identity and ptrace
// state (tid, proc, listening, exiting, vfork, gone, intr); the rest is
// the sampling's.
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

// spawn starts the program of cfg (Args, Env, Stdin...) under ptrace and
// seizes it, stopped before its first instruction. On an error nothing
// is left running.
func (tr *tracer) spawn(cfg *Config) (int, error) {
	argv := cfg.Args
	path, err := lookPath(argv[0])
	if err != nil {
		return 0, err
	}
	files := []*os.File{cfg.Stdin, cfg.Stdout, cfg.Stderr}
	std := []*os.File{os.Stdin, os.Stdout, os.Stderr}
	fds := make([]uintptr, 3)
	for i, f := range files {
		if f == nil {
			f = std[i]
		}
		fds[i] = f.Fd()
	}
	env := cfg.Env
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
				return 0, fmt.Errorf("cannot trace %s: vprof itself is traced by process %d (%s), which traces the processes vprof starts too; run vprof outside it, or start the program and attach with -p", path, tpid, comm)
			}
			return 0, &PermissionError{PID: 0, Err: err}
		}
		return 0, fmt.Errorf("cannot execute %s: %w", path, err)
	}
	_, ws, err := wait4(pid, 0)
	if err != nil || !ws.Stopped() {
		return 0, fmt.Errorf("%s did not start under ptrace: %w", path, notStopped(ws, err))
	}
	// Hand the child over from TRACEME to SEIZE (needed for
	// PTRACE_INTERRUPT and PTRACE_LISTEN): detach into a SIGSTOP stop,
	// seize, and continue it. It has not run an instruction of its own.
	if err := ptraceDetach(pid, int(unix.SIGSTOP)); err != nil {
		unix.Kill(pid, unix.SIGKILL)
		return 0, fmt.Errorf("ptrace detach of new process %d: %w", pid, err)
	}
	if _, ws, err = wait4(pid, unix.WUNTRACED); err != nil || !ws.Stopped() {
		unix.Kill(pid, unix.SIGKILL)
		return 0, fmt.Errorf("new process %d did not stop: %w", pid, notStopped(ws, err))
	}
	if err := ptraceSeize(pid); err != nil {
		unix.Kill(pid, unix.SIGKILL)
		if errors.Is(err, unix.EPERM) {
			return 0, &PermissionError{PID: pid, Err: err}
		}
		return 0, fmt.Errorf("ptrace seize of new process %d: %w", pid, err)
	}
	if _, ws, err = wait4(pid, 0); err != nil || !ws.Stopped() {
		unix.Kill(pid, unix.SIGKILL)
		return 0, fmt.Errorf("new process %d: no stop after seize: %w", pid, notStopped(ws, err))
	}
	return pid, nil
}

// notStopped says why a wait for a stop saw none: the wait's error, or
// what the status says instead.
func notStopped(ws unix.WaitStatus, err error) error {
	switch {
	case err != nil:
		return err
	case ws.Exited():
		return fmt.Errorf("it exited with status %d", ws.ExitStatus())
	case ws.Signaled():
		return fmt.Errorf("it was killed by %s", unix.SignalName(ws.Signal()))
	}
	return fmt.Errorf("wait status %#x", uint32(ws))
}

// release lets a spawned program run: out of the SIGSTOP group-stop by a
// SIGCONT whose delivery is swallowed (the program never sees it), then
// continued from the seize stop.
func (tr *tracer) release(pid int) {
	tr.swallowCont[pid] = true
	unix.Kill(pid, unix.SIGCONT)
	ptraceCont(pid, 0)
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

// checkAttachable says why process pid cannot be attached to, if it
// cannot.
func checkAttachable(pid int) error {
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
	return nil
}

// seize seizes every thread of process pid and returns their ids, in
// order. On an error none is left seized.
func (tr *tracer) seize(pid int) ([]int, error) {
	tids, err := listTasks(pid)
	if err != nil {
		return nil, fmt.Errorf("process %d: %w", pid, ErrNoProcess)
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
				tr.detachSeized(slices.Collect(maps.Keys(seized)))
				if errors.Is(err, unix.EPERM) {
					return nil, &PermissionError{PID: pid, Err: err}
				}
				return nil, fmt.Errorf("ptrace seize of thread %d of process %d: %w", tid, pid, err)
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
		return nil, fmt.Errorf("process %d: %w (it exited)", pid, ErrNoProcess)
	}
	return slices.Sorted(maps.Keys(seized)), nil
}

// detachSeized undoes a partial attach (threads are running: seize does
// not stop them, so interrupt each before detaching).
func (tr *tracer) detachSeized(seized []int) {
	for _, tid := range seized {
		tr.threads[tid] = &thread{tid: tid, schedFD: -1, sysFD: -1}
	}
	tr.detachAll()
}

// addProcess registers process pid: a fork of parent shares its image
// (its mappings copied), any other has its program loaded.
func (tr *tracer) addProcess(pid, ppid int, parent *process) (*process, error) {
	p := &process{pid: pid, ppid: ppid, resetMaps: true}
	if parent != nil {
		p.space = parent.space.Clone()
		p.main, p.exe = parent.main, parent.exe
		p.resetMaps = false
	} else {
		p.space = &unwind.Space{}
		if err := tr.obs.loadProgram(p); err != nil {
			return nil, err
		}
	}
	tr.procs[pid] = p
	tr.procList = append(tr.procList, p)
	tr.nproc++
	return p, nil
}

// addThread registers thread tid of p.
func (tr *tracer) addThread(p *process, tid int) *thread {
	t := &thread{tid: tid, proc: p, window: 8 << 10, schedFD: -1, sysFD: -1}
	tr.threads[tid] = t
	p.threads = append(p.threads, t)
	tr.nthr++
	tr.live.Add(1)
	tr.obs.threadAdded(t)
	return t
}

// dropThread forgets a thread that exited or was detached.
func (tr *tracer) dropThread(t *thread, exited bool) {
	if t.gone {
		return
	}
	t.gone = true
	delete(tr.threads, t.tid)
	tr.live.Add(-1)
	if p := t.proc; p != nil {
		for i, x := range p.threads {
			if x == t {
				p.threads = append(p.threads[:i], p.threads[i+1:]...)
				break
			}
		}
	}
	tr.obs.threadDropped(t, exited)
}

// drain handles every pending tracee event without blocking.
func (tr *tracer) drain() {
	for {
		wpid, ws, err := wait4(-1, unix.WNOHANG)
		if err != nil || wpid <= 0 {
			return
		}
		tr.dispatch(wpid, ws)
	}
}

func (tr *tracer) dispatch(wpid int, ws unix.WaitStatus) {
	t := tr.threads[wpid]
	if t == nil {
		if !ws.Stopped() {
			return // a task vprof already forgot
		}
		if t = tr.adopt(wpid, nil); t == nil {
			ptraceDetach(wpid, 0) // cannot tell what it is: let it run
			return
		}
	}
	tr.handle(t, ws)
}

func isStopSignal(s syscall.Signal) bool {
	return s == unix.SIGSTOP || s == unix.SIGTSTP || s == unix.SIGTTIN || s == unix.SIGTTOU
}

// handle processes one state change of a traced thread and resumes it
// (except from a group-stop, which it leaves in place with PTRACE_LISTEN).
func (tr *tracer) handle(t *thread, ws unix.WaitStatus) {
	switch {
	case ws.Exited() || ws.Signaled():
		tr.lifecycle++
		tr.exited(t, ws)
		return
	case !ws.Stopped():
		return
	}
	sig := ws.StopSignal()
	t.intr = false // every stop consumes a pending interrupt
	switch trapCause(ws) {
	case 0: // signal-delivery-stop: deliver the signal unchanged
		if sig == unix.SIGCONT && tr.swallowCont[t.tid] {
			delete(tr.swallowCont, t.tid)
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
		tr.lifecycle++
		msg, err := ptraceEventMsg(t.tid)
		// A vfork parent sleeps uninterruptibly until its child execs or
		// exits (PTRACE_EVENT_VFORK_DONE): it is not stopped meanwhile.
		t.vfork = trapCause(ws) == unix.PTRACE_EVENT_VFORK
		// The creator goes on at once; the new task waits in its first
		// stop, which it reaches before running an instruction, until it
		// is adopted (its perf events opened: one per CPU) and resumed.
		ptraceCont(t.tid, 0)
		if err == nil && msg > 0 && tr.threads[int(msg)] == nil {
			tr.adopt(int(msg), t.proc)
		}
	case unix.PTRACE_EVENT_VFORK_DONE:
		t.vfork = false
		ptraceCont(t.tid, 0)
	case unix.PTRACE_EVENT_EXEC:
		tr.lifecycle++
		t = tr.execed(t)
		ptraceCont(t.tid, 0)
	case unix.PTRACE_EVENT_EXIT:
		tr.lifecycle++
		t.exiting = true
		tr.obs.drainSamples(nil) // its last samples, while its memory is there
		ptraceCont(t.tid, 0)
	default:
		ptraceCont(t.tid, 0)
	}
}

// adopt registers a task vprof meets for the first time: a new thread, or
// the first thread of a new process (fork, vfork, clone). creator, if
// known, is the process of the task that created it.
func (tr *tracer) adopt(tid int, creator *process) *thread {
	if p := tr.threadOf(tid, creator); p != nil {
		return tr.addThread(p, tid)
	}
	tgid, ppid, err := taskStatus(tid)
	if err != nil {
		return nil
	}
	p := tr.procs[tgid]
	if p == nil {
		parent := tr.procs[ppid]
		if p, err = tr.addProcess(tgid, ppid, parent); err != nil {
			tr.warn(fmt.Sprintf("new process %d: %v", tgid, err))
			return nil
		}
		tr.obs.procEvent(model.ProcEvent{Kind: model.ProcFork, PID: int32(p.pid), PPID: int32(p.ppid), TimeNS: tr.now(), Path: p.exe})
		if parent == nil {
			tr.obs.mapsChanged(p)
		}
	}
	return tr.addThread(p, tid)
}

// threadOf returns the traced process that task tid is a thread of, if it
// finds it cheaply: the creator's, or one of a few processes traced (a
// new thread may report its first stop before its creator's clone event).
// Nil: ask /proc for its process (a new process, or many traced).
func (tr *tracer) threadOf(tid int, creator *process) *process {
	if creator != nil && !creator.exited && tr.procs[creator.pid] == creator {
		if isTaskOf(creator.pid, tid) {
			return creator
		}
		return nil
	}
	if len(tr.procList) > 4 {
		return nil
	}
	for _, p := range tr.procList {
		if isTaskOf(p.pid, tid) {
			return p
		}
	}
	return nil
}

// execed handles PTRACE_EVENT_EXEC: the process has a new image and one
// thread, whose id is now the process id.
func (tr *tracer) execed(t *thread) *thread {
	p := t.proc
	// Samples of the old image: its memory is gone.
	tr.obs.drainSamples(p)
	for _, x := range append([]*thread(nil), p.threads...) {
		if x.tid != p.pid {
			tr.dropThread(x, true)
		}
	}
	leader := tr.threads[p.pid]
	if leader != nil {
		// Its /proc files may describe the thread that was replaced.
		tr.dropThread(leader, false)
	}
	p.space.Reset()
	p.resetMaps = true
	p.globals, p.globalTick = p.globals[:0], 0
	if err := tr.obs.loadProgram(p); err != nil {
		tr.warn(fmt.Sprintf("process %d after exec: %v", p.pid, err))
	}
	tr.obs.procEvent(model.ProcEvent{Kind: model.ProcExec, PID: int32(p.pid), TimeNS: tr.now(), Path: p.exe})
	leader = tr.addThread(p, p.pid)
	tr.obs.mapsChanged(p)
	return leader
}

// exited handles the end of a thread; the leader's end (reported after
// all its threads') is the process's.
func (tr *tracer) exited(t *thread, ws unix.WaitStatus) {
	p := t.proc
	tr.obs.drainSamples(nil)
	tr.dropThread(t, true)
	if p == nil || t.tid != p.pid || p.exited {
		return
	}
	ev := model.ProcEvent{Kind: model.ProcExit, PID: int32(p.pid), TimeNS: tr.now()}
	status := 0
	if ws.Exited() {
		ev.Status = int32(ws.ExitStatus())
		status = ws.ExitStatus()
	} else {
		ev.Signal = int32(ws.Signal())
		status = 128 + int(ws.Signal())
	}
	tr.obs.procEvent(ev)
	tr.endProcess(p)
	if p == tr.first {
		tr.firstExited, tr.firstStatus = true, status
	}
}

func (tr *tracer) endProcess(p *process) {
	p.exited = true
	for _, x := range append([]*thread(nil), p.threads...) {
		tr.dropThread(x, true)
	}
	delete(tr.procs, p.pid)
	for i, x := range tr.procList {
		if x == p {
			tr.procList = append(tr.procList[:i], tr.procList[i+1:]...)
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
func (tr *tracer) stopThread(t *thread, ws *unix.WaitStatus) bool {
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
			tr.dispatch(wpid, st)
			if t.gone || tr.threads[t.tid] != t || !t.intr {
				return false
			}
			continue
		}
		if !st.Stopped() {
			tr.handle(t, st) // exited
			return false
		}
		switch trapCause(st) {
		case unix.PTRACE_EVENT_EXEC, unix.PTRACE_EVENT_EXIT, unix.PTRACE_EVENT_VFORK:
			tr.handle(t, st)
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
func (tr *tracer) detachAll() {
	pending := map[int]*thread{}
	for tid, t := range tr.threads {
		if err := ptraceInterrupt(tid); err != nil {
			tr.dropThread(t, false)
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
				tr.exited(t, ws)
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
			if sig == int(unix.SIGCONT) && tr.swallowCont[wpid] {
				sig = 0
			}
		case unix.PTRACE_EVENT_CLONE, unix.PTRACE_EVENT_FORK, unix.PTRACE_EVENT_VFORK:
			if msg, err := ptraceEventMsg(wpid); err == nil && msg > 0 {
				pending[int(msg)] = nil // born traced: detach at its first stop
			}
		}
		ptraceDetach(wpid, sig)
		if t != nil {
			tr.dropThread(t, false)
		}
	}
	for _, t := range pending {
		if t != nil {
			tr.dropThread(t, false) // stuck: the kernel detaches it when this thread exits
		}
	}
	for _, p := range tr.procList {
		if !p.exited {
			tr.obs.procEvent(model.ProcEvent{Kind: model.ProcDetach, PID: int32(p.pid), TimeNS: tr.now()})
		}
	}
}
