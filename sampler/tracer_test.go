package sampler

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vprof/vprof/runtime/model"
)

func TestParseTracerPid(t *testing.T) {
	for _, c := range []struct {
		status string
		want   int
	}{
		{"Name:\tvprof\nState:\tS (sleeping)\nTracerPid:\t31741\nUid:\t0\t0\t0\t0\n", 31741},
		{"Name:\tvprof\nTracerPid:\t0\n", 0},
		{"Name:\tvprof\n", 0},
		{"TracerPid:\tx\n", 0},
		{"TracerPid:\t12", 12}, // no final newline
	} {
		if got := parseTracerPid(c.status); got != c.want {
			t.Errorf("parseTracerPid(%q) = %d, want %d", c.status, got, c.want)
		}
	}
	// This test runs untraced (go test does not trace its binary).
	if pid, comm := tracerOf("/proc/self"); pid != 0 {
		t.Logf("the test itself is traced by %d (%s)", pid, comm)
	}
}

// TestPermissionErrorNewProcess: a refusal at launch names no pid 0.
func TestPermissionErrorNewProcess(t *testing.T) {
	msg := (&PermissionError{PID: 0, Err: syscall.EPERM}).Error()
	if strings.Contains(msg, "process 0") || !strings.Contains(msg, "the program vprof starts") {
		t.Errorf("PermissionError{PID: 0}: %q", msg)
	}
}

// taskLog is a traceObserver that keeps what the tracer tells it: the
// tracer on its own, with no program loaded, no profile and no sampling.
type taskLog struct {
	procs            []model.ProcEvent
	added            []int
	exited, detached map[int]bool
	loads, drains    int
}

func (l *taskLog) loadProgram(p *process) error {
	l.loads++
	p.exe = fmt.Sprintf("/proc/%d/exe", p.pid)
	return nil
}
func (l *taskLog) procEvent(ev model.ProcEvent) { l.procs = append(l.procs, ev) }
func (l *taskLog) threadAdded(t *thread)        { l.added = append(l.added, t.tid) }
func (l *taskLog) threadDropped(t *thread, exited bool) {
	if exited {
		l.exited[t.tid] = true
	} else {
		l.detached[t.tid] = true
	}
}
func (l *taskLog) mapsChanged(p *process)        {}
func (l *taskLog) drainSamples(discard *process) { l.drains++ }

// TestTracerFollowsTasks runs testdata/workers (3 threads: main and 2
// workers; 2 forked children; exit status 7) under a tracer alone: it meets every thread
// and process, sees each end, and keeps its tables in step.
func TestTracerFollowsTasks(t *testing.T) {
	exe := buildC(t, "workers", "-g", "-pthread")
	log := &taskLog{exited: map[int]bool{}, detached: map[int]bool{}}
	tr := &tracer{
		clock:       &clock{start: time.Now()},
		warner:      &warner{seen: map[string]bool{}, fn: func(string) {}},
		obs:         log,
		procs:       map[int]*process{},
		threads:     map[int]*thread{},
		swallowCont: map[int]bool{},
	}
	done := make(chan error)
	go func() {
		// Ends locked: were the test to fail midway, the kernel detaches
		// the tracees with this thread.
		runtime.LockOSThread()
		cfg := Config{Args: []string{exe, "3", "50", "2", "7"}, Stdout: devNull(t)}
		pid, err := tr.spawn(&cfg)
		if err != nil {
			done <- err
			return
		}
		p, err := tr.addProcess(pid, os.Getpid(), nil)
		if err != nil {
			done <- err
			return
		}
		tr.first = p
		tr.addThread(p, pid)
		tr.release(pid)
		for end := time.Now().Add(time.Minute); !tr.firstExited; {
			if time.Now().After(end) {
				tr.detachAll()
				done <- fmt.Errorf("the program did not end in a minute")
				return
			}
			tr.drain()
			time.Sleep(time.Millisecond)
		}
		done <- nil
	}()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if tr.firstStatus != 7 {
		t.Errorf("exit status %d, want 7", tr.firstStatus)
	}
	kinds := map[model.ProcEventKind]int{}
	for _, ev := range log.procs {
		kinds[ev.Kind]++
	}
	if kinds[model.ProcFork] != 2 || kinds[model.ProcExit] != 3 || len(log.procs) != 5 {
		t.Errorf("process events %v, want 2 forks and 3 exits", log.procs)
	}
	// The main thread, its 2 workers, the 2 children's.
	if len(log.added) != 5 || tr.nthr != 5 || tr.nproc != 3 {
		t.Errorf("threads added %v (%d counted), %d processes; want 5 threads, 3 processes", log.added, tr.nthr, tr.nproc)
	}
	for _, tid := range log.added {
		if !log.exited[tid] {
			t.Errorf("thread %d: no exit seen", tid)
		}
	}
	if len(log.detached) != 0 || len(tr.threads) != 0 || len(tr.procs) != 0 || len(tr.procList) != 0 || tr.live.Load() != 0 {
		t.Errorf("after the end: %d detached, %d threads, %d processes left, %d live", len(log.detached), len(tr.threads), len(tr.procList), tr.live.Load())
	}
	if log.loads != 1 || log.drains < 5 {
		t.Errorf("%d programs loaded (forks share their parent's), %d drains (one at least per thread's end)", log.loads, log.drains)
	}
}

func TestNotStopped(t *testing.T) {
	for _, c := range []struct {
		ws   unix.WaitStatus
		err  error
		want string
	}{
		{0, unix.ECHILD, unix.ECHILD.Error()},
		{3 << 8, nil, "it exited with status 3"},
		{unix.WaitStatus(unix.SIGKILL), nil, "it was killed by SIGKILL"},
		{0xffff, nil, "wait status 0xffff"}, // continued
	} {
		got := notStopped(c.ws, c.err)
		if got.Error() != c.want || (c.err != nil && !errors.Is(got, c.err)) {
			t.Errorf("notStopped(%#x, %v) = %v, want %s", uint32(c.ws), c.err, got, c.want)
		}
	}
}

// TestThreadOf: a task is found to be a thread of its creator's process,
// or of one of a few processes traced, by a lookup of /proc/PID/task/TID;
// another process's task is not (adopt then reads its status).
func TestThreadOf(t *testing.T) {
	self := &process{pid: os.Getpid()}
	tids := make(chan int)
	go func() {
		runtime.LockOSThread() // a thread of this process other than the test's
		tids <- unix.Gettid()
		<-tids
	}()
	tid := <-tids
	defer func() { tids <- 0 }()
	child := exec.Command("sleep", "10")
	if err := child.Start(); err != nil {
		t.Skip("cannot start sleep:", err)
	}
	defer child.Process.Kill()
	other := &process{pid: child.Process.Pid}
	tr := &tracer{procs: map[int]*process{self.pid: self, other.pid: other}, procList: []*process{other, self}}
	for _, c := range []struct {
		name    string
		tid     int
		creator *process
		many    bool // more processes traced than threadOf looks through
		want    *process
	}{
		{"creator's thread", tid, self, false, self},
		{"thread, creator unknown", tid, nil, false, self},
		{"creator's main thread", self.pid, self, false, self},
		{"a new process", other.pid, self, false, nil},
		{"thread, another creator", tid, other, false, nil},
		{"thread, creator unknown, many processes", tid, nil, true, nil},
	} {
		tr.procList = []*process{other, self}
		if c.many {
			for i := 0; i < 4; i++ {
				tr.procList = append(tr.procList, &process{pid: other.pid})
			}
		}
		if got := tr.threadOf(c.tid, c.creator); got != c.want {
			t.Errorf("%s: threadOf(%d) = %v, want %v", c.name, c.tid, got, c.want)
		}
	}
}

// TestClockBase checks that the CLOCK_MONOTONIC base of a recording is
// read at the instant of its Go start time, even when the tracer is
// preempted between the readings (perf samples' times are converted with
// the one and their lag measured with the other: a 30 ms gap made every
// sample 30 ms later than the recording's clock, its lag negative).
func TestClockBase(t *testing.T) {
	for _, stall := range []int64{0, 30e6} {
		var at int64 = 5e9 // the fake CLOCK_MONOTONIC, ns
		calls := 0
		mono := func() int64 { at += 1000; return at }
		now := func() time.Time {
			calls++
			if calls == 1 {
				at += stall // preempted before this reading
			}
			at += 1000
			return time.Unix(0, at)
		}
		var c clock
		c.beginWith(mono, now)
		if d := c.start.UnixNano() - c.monoBase; d < -2000 || d > 2000 {
			t.Errorf("preempted %v: start is %v off the CLOCK_MONOTONIC base", time.Duration(stall), time.Duration(d))
		}
	}
}
