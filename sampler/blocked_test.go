package sampler

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/proffile"
	"github.com/vprof/vprof/sampler/unwind"
)

// blockedCase is one mode of testdata/blocking.c: its blocked thread sits
// in one of calls, called from blocked_loop.
type blockedCase struct {
	mode  string
	calls []int32
	stop  bool // vprof may stop the thread there (restartable)
	iters int  // 0: blockedIters
}

const blockedIters = 25

var blockedCases = []blockedCase{
	{"mutex", []int32{unix.SYS_FUTEX}, true, 0},
	{"mutex-timed", []int32{unix.SYS_FUTEX}, true, 0},
	{"cond", []int32{unix.SYS_FUTEX}, true, 0},
	{"cond-timed", []int32{unix.SYS_FUTEX}, true, 0},
	{"join", []int32{unix.SYS_FUTEX}, true, 0},
	{"sem", []int32{unix.SYS_FUTEX}, true, 0},
	{"sem-timed", []int32{unix.SYS_FUTEX}, true, 0},
	{"futex", []int32{unix.SYS_FUTEX}, true, 0},
	{"futex-timed", []int32{unix.SYS_FUTEX}, true, 0},
	{"futex-abs", []int32{unix.SYS_FUTEX}, true, 0},
	{"futex-expire", []int32{unix.SYS_FUTEX}, true, 0},
	{"nanosleep", []int32{unix.SYS_CLOCK_NANOSLEEP, unix.SYS_NANOSLEEP}, true, 0},
	{"nanosleep-null", []int32{unix.SYS_CLOCK_NANOSLEEP, unix.SYS_NANOSLEEP}, true, 0},
	{"clock-rel", []int32{unix.SYS_CLOCK_NANOSLEEP}, true, 0},
	{"clock-abs", []int32{unix.SYS_CLOCK_NANOSLEEP}, true, 0},
	{"clock-abs-realtime", []int32{unix.SYS_CLOCK_NANOSLEEP}, true, 0},
	{"wait4", []int32{unix.SYS_WAIT4}, true, 0},
	{"waitid", []int32{unix.SYS_WAITID}, true, 0},
	{"pause", []int32{unix.SYS_PAUSE}, true, 0},
	{"sigsuspend", []int32{unix.SYS_RT_SIGSUSPEND}, true, 0},
	{"poll", []int32{unix.SYS_POLL}, true, 0},
	{"poll-timed", []int32{unix.SYS_POLL}, true, 0},
	{"poll-expire", []int32{unix.SYS_POLL}, true, 0},
	{"ppoll", []int32{unix.SYS_PPOLL}, true, 0},
	{"ppoll-timed", []int32{unix.SYS_PPOLL}, true, 0},
	{"ppoll-expire", []int32{unix.SYS_PPOLL}, true, 0},
	{"select", []int32{unix.SYS_PSELECT6, unix.SYS_SELECT}, true, 0},
	{"select-timed", []int32{unix.SYS_PSELECT6, unix.SYS_SELECT}, true, 0},
	{"select-expire", []int32{unix.SYS_PSELECT6, unix.SYS_SELECT}, true, 0},
	{"sys-select", []int32{unix.SYS_SELECT}, true, 0},
	{"sys-select-expire", []int32{unix.SYS_SELECT}, true, 0},
	{"pselect", []int32{unix.SYS_PSELECT6}, true, 0},
	{"pselect-timed", []int32{unix.SYS_PSELECT6}, true, 0},
	{"pselect-expire", []int32{unix.SYS_PSELECT6}, true, 0},
	{"pipe-read", []int32{unix.SYS_READ}, true, 0},
	{"pipe-write", []int32{unix.SYS_WRITE}, true, 0},
	{"tty-read", []int32{unix.SYS_READ}, true, 0},
	{"tty-raw", []int32{unix.SYS_READ}, true, 0},
	// Never stopped here: a stop would make them fail with EINTR
	// (signal(7)), return a short count, or restart a partial one. Under
	// the ptrace sampler they are as exposed as any call to the tick's
	// stop of the threads /proc shows running, which may come while the
	// thread runs in the kernel inside the call (entering it, or just
	// woken); the perf sampler stops no running thread (TestWallNoHarm).
	{"pipe-write-big", []int32{unix.SYS_WRITE}, false, 6},
	{"tty-vmin", []int32{unix.SYS_READ}, false, 10},
	{"epoll", []int32{unix.SYS_EPOLL_WAIT, unix.SYS_EPOLL_PWAIT}, false, 0},
	{"epoll-timed", []int32{unix.SYS_EPOLL_WAIT, unix.SYS_EPOLL_PWAIT}, false, 0},
	{"epoll-expire", []int32{unix.SYS_EPOLL_WAIT, unix.SYS_EPOLL_PWAIT}, false, 0},
	{"recv-timeo", []int32{unix.SYS_RECVFROM}, false, 0},
	{"sigtimedwait", []int32{unix.SYS_RT_SIGTIMEDWAIT}, false, 0},
}

func buildBlocking(t testing.TB) string {
	return buildC(t, "blocking", "-g", "-pthread")
}

// recordBlocking records blocking MODE ITERS at 1 kHz, wall clock, and
// returns the result, the profile and what the program wrote on stderr.
func recordBlocking(t *testing.T, exe string, c blockedCase, cfg Config) (*Result, *blockedProfile, string) {
	t.Helper()
	iters := c.iters
	if iters == 0 {
		iters = blockedIters
	}
	errw, stderr := pipeStdout(t)
	cfg.Args = []string{exe, c.mode, strconv.Itoa(iters)}
	cfg.Clock = model.ClockWall
	cfg.Interval = time.Millisecond
	cfg.Depth = 3
	cfg.AllVars = true // blocked_loop's accumulators too
	cfg.Output = t.TempDir() + "/blocking.vprof"
	cfg.Stderr = errw
	cfg.Stdout = devNull(t)
	cfg.Signals = make(chan os.Signal)
	cfg.Warn = func(s string) { t.Logf("warning: %s", s) }
	res, err := recordErr(cfg)
	out := stderr()
	if err != nil {
		t.Fatalf("Record: %v", err)
	}
	return res, readBlockedProfile(t, cfg.Output), out
}

// blockedSample is a sample of blocking's blocked thread, in blocked_loop's
// call to the mode's operation.
type blockedSample struct {
	s     model.Sample
	frame int    // blocked_loop's frame
	link  uint64 // its return address, link-time
	i     int64  // blocked_loop's i, when the sample has it
	hasI  bool
	last  int64 // the global last (iterations done - 1), when the sample has it
	hasL  bool
	loop  map[model.VarID]uint64 // blocked_loop's variables in the sample
}

type blockedProfile struct {
	schema  *model.Schema
	loopFn  model.FuncID
	iVar    model.VarID
	lastVar model.VarID
	samples []blockedSample // of the thread that runs blocked_loop
	trailer *model.Trailer
	others  map[string]int // the other samples of the first process, by innermost program function (for failure messages)
	// blockedIn counts the first process's samples blocked in each call.
	blockedIn map[int32]int
}

// readBlockedProfile reads the samples of the first process's thread that
// runs blocked_loop.
func readBlockedProfile(t *testing.T, path string) *blockedProfile {
	t.Helper()
	r, err := proffile.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	h := r.Header()
	bp := &blockedProfile{iVar: -1, lastVar: -1, loopFn: model.NoFunc, others: map[string]int{}, blockedIn: map[int32]int{}}
	space := proffile.NewAddrSpace()
	objs := map[uint16]*model.Object{}
	loopTID := int32(-1)
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		space.Observe(rec)
		switch x := rec.(type) {
		case *model.Object:
			objs[x.ID] = x
			if x.Program && bp.schema == nil {
				bp.schema = x.Schema
				for id, v := range x.Schema.Vars {
					if v.Func == model.NoFunc && v.Name == "last" {
						bp.lastVar = model.VarID(id)
					}
					if v.Func != model.NoFunc && x.Schema.Funcs[v.Func].Name == "blocked_loop" {
						bp.loopFn = v.Func
						if v.Name == "i" {
							bp.iVar = model.VarID(id)
						}
					}
				}
			}
		case *model.Block:
			if x.PID != h.PID {
				continue // forked children
			}
			for _, s := range x.Samples {
				if s.State == model.Blocked {
					bp.blockedIn[s.Syscall]++
				}
				frame, link, inner := -1, uint64(0), ""
				for k, pc := range s.Stack {
					if k > 0 {
						pc--
					}
					id, l, ok := space.Resolve(x.PID, pc)
					if !ok || objs[id] == nil {
						continue
					}
					name := symName(objs[id], l)
					if inner == "" && objs[id].Program {
						inner = name
					}
					if name == "blocked_loop" {
						frame, link = k, l
						break
					}
				}
				if frame < 0 {
					bp.others[fmt.Sprintf("%s (%d frames, %v %d)", inner, len(s.Stack), s.State, s.Syscall)]++
					continue
				}
				if loopTID < 0 {
					loopTID = x.TID
				}
				if x.TID != loopTID {
					t.Fatalf("blocked_loop in threads %d and %d", loopTID, x.TID)
				}
				b := blockedSample{s: s, frame: frame, link: link, loop: map[model.VarID]uint64{}}
				b.s.Stack = append([]uint64(nil), s.Stack...)
				for _, v := range s.Values {
					if v.Var == bp.lastVar && objs[v.Obj] != nil && objs[v.Obj].Program {
						b.last, b.hasL = int64(v.Bits), true
					}
					if int(v.Frame) != frame || objs[v.Obj] == nil || !objs[v.Obj].Program || bp.schema.Vars[v.Var].Func != bp.loopFn {
						continue
					}
					b.loop[v.Var] = v.Bits
					if v.Var == bp.iVar {
						b.i, b.hasI = int64(v.Bits), true
					}
				}
				bp.samples = append(bp.samples, b)
			}
		case *model.Trailer:
			bp.trailer = x
		}
	}
	if bp.schema == nil || bp.iVar < 0 || bp.lastVar < 0 {
		t.Fatal("no schema with blocked_loop's i and the global last in the profile")
	}
	return bp
}

// inCalls returns the blocked samples in one of calls.
func (bp *blockedProfile) inCalls(calls []int32) []blockedSample {
	var out []blockedSample
	for _, b := range bp.samples {
		if b.s.State != model.Blocked {
			continue
		}
		for _, c := range calls {
			if b.s.Syscall == c {
				out = append(out, b)
				break
			}
		}
	}
	return out
}

// regVars returns blocked_loop's variables that the schema places in a
// callee-saved register at link-time return address ra (as `vprof schema`
// prints them): values a blocked thread's stack copy has only where a
// callee saved the register, and a stop has always.
func (bp *blockedProfile) regVars(ra uint64) map[model.VarID]string {
	out := map[model.VarID]string{}
	for _, l := range bp.schema.Locs {
		if bp.schema.Vars[l.Var].Func != bp.loopFn || l.Kind != model.LocReg || l.PCStart > ra-1 || ra-1 >= l.PCEnd {
			continue
		}
		switch int(l.Reg) {
		case unwind.RBX, unwind.RBP, unwind.R12, unwind.R13, unwind.R14, unwind.R15:
			out[l.Var] = bp.schema.Vars[l.Var].Name + " in " + regName(l.Reg)
		}
	}
	return out
}

// presence counts, per variable of vars, the samples that have it.
func presence(in []blockedSample, vars map[model.VarID]string) map[string]int {
	n := map[string]int{}
	for _, b := range in {
		for id, name := range vars {
			if _, ok := b.loop[id]; ok {
				n[name]++
			}
		}
	}
	return n
}

func callNames(calls []int32) string { return fmt.Sprint(calls) }

// TestBlockedStopsHarmless records every mode of testdata/blocking.c with
// --clock wall at 1 kHz. In each, the program checks every blocking call's
// result itself (no EINTR, no early wake-up or timeout, no short read or
// write, no lost wake-up: its exit status says). The restartable calls
// must have been stopped and their samples must carry blocked_loop's loop
// counter, which lives in a register; the others must never have been
// stopped.
func TestBlockedStopsHarmless(t *testing.T) {
	exe := buildBlocking(t)
	for _, c := range blockedCases {
		t.Run(c.mode, func(t *testing.T) {
			t.Parallel()
			var (
				res *Result
				bp  *blockedProfile
				in  []blockedSample
			)
			// A loaded machine loses ticks: record again (up to 3 times)
			// when too few samples to judge; every run must be harmless.
			for attempt := 1; ; attempt++ {
				var stderr string
				res, bp, stderr = recordBlocking(t, exe, c, Config{})
				stops := uint64(0)
				for _, nr := range c.calls {
					stops += res.Blocked.ByCall[nr]
				}
				if !c.stop && stops != 0 {
					t.Fatalf("the thread was stopped %d times in %s (stops by call: %v)", stops, callNames(c.calls), res.Blocked.ByCall)
				}
				if bs := res.Blocked; bs.EINTR != 0 {
					t.Errorf("%d stops found a call failing with EINTR", bs.EINTR)
				}
				if res.ExitStatus != 0 {
					if c.stop || res.Sampler == SamplerPerf {
						t.Fatalf("blocking %s exited %d (%s sampler): %s", c.mode, res.ExitStatus, res.Sampler, stderr)
					}
					t.Logf("blocking %s exited %d (the ptrace sampler stopped it while running in the kernel, not this file): %s", c.mode, res.ExitStatus, stderr)
					return
				}
				in = bp.inCalls(c.calls)
				if len(in) >= 10 {
					break
				}
				if attempt == 3 {
					t.Fatalf("%d samples of the blocked thread in %s (of %d in blocked_loop; others: %v; lost ticks %d)",
						len(in), callNames(c.calls), len(bp.samples), bp.others, res.Steps.Lost)
				}
				t.Logf("%d samples in %s, %d ticks lost: recording again", len(in), callNames(c.calls), res.Steps.Lost)
			}
			if !c.stop {
				return
			}
			stops := uint64(0)
			for _, nr := range c.calls {
				stops += res.Blocked.ByCall[nr]
			}
			if stops == 0 {
				t.Fatalf("never stopped in %s (stops by call: %v)", callNames(c.calls), res.Blocked.ByCall)
			}
			regs := bp.regVars(in[0].link)
			iters := c.iters
			if iters == 0 {
				iters = blockedIters
			}
			if len(regs) < 3 {
				t.Fatalf("blocked_loop's variables in callee-saved registers at its call: %v, want its six values", regs)
			}
			if _, ok := regs[bp.iVar]; !ok {
				t.Fatalf("blocked_loop's i is not in a callee-saved register at its call (%v)", regs)
			}
			for name, n := range presence(in, regs) {
				if n < len(in)*8/10 {
					t.Errorf("%d of %d samples in %s have blocked_loop's %s: want nearly all", n, len(in), callNames(c.calls), name)
				}
			}
			// i comes from the registers of the episode's stop, last
			// (the iterations done, less one) is read at each sample: in
			// the call of iteration i, last is i-1. A sample taken as the
			// call ends may see last = i already; a sample that kept the
			// registers of a call that had ended would see it again at
			// the next tick.
			withI, checked := 0, 0
			var prev *blockedSample
			for k := range in {
				b := &in[k]
				if !b.hasI {
					continue
				}
				withI++
				if b.i < 0 || b.i >= int64(iters) {
					t.Fatalf("i = %d, outside the loop", b.i)
				}
				if !b.hasL {
					continue
				}
				checked++
				switch {
				case b.i != b.last+1 && b.i != b.last:
					t.Errorf("sample at %v: i = %d, last = %d", time.Duration(b.s.TimeNS), b.i, b.last)
				case b.i == b.last && prev != nil && prev.i == b.i && prev.last == b.last:
					t.Errorf("samples at %v and %v: i = %d, last = %d: the registers of an ended call reused",
						time.Duration(prev.s.TimeNS), time.Duration(b.s.TimeNS), b.i, b.last)
				}
				prev = b
			}
			if checked < len(in)/2 {
				t.Errorf("%d of %d samples have both i and last", checked, len(in))
			}
			if tr := bp.trailer; tr == nil || tr.BlockedSamples == 0 || tr.BlockedRegs == 0 || tr.BlockedRegs > tr.BlockedSamples {
				t.Errorf("trailer %+v: want blocked samples, some with registers", tr)
			}
			bs := res.Blocked
			t.Logf("%d samples in %s, %d with i; stops %d (returned %d, changed %d); blocked samples %d, %d with registers, %d cached, %d without values (moved); lost ticks %d",
				len(in), callNames(c.calls), withI, bs.Stops, bs.Returned, bs.Changed, bs.Samples, bs.WithRegs, bs.Cached, bs.Moved, res.Steps.Lost)
		})
	}
}

func regName(r int16) string {
	names := map[int16]string{unwind.RBX: "rbx", unwind.RBP: "rbp", unwind.R12: "r12", unwind.R13: "r13", unwind.R14: "r14", unwind.R15: "r15"}
	if n, ok := names[r]; ok {
		return n
	}
	return fmt.Sprintf("register %d", r)
}

// TestBlockedValuesNeedStops shows what the stops are for: without them
// (NoBlockedStops) blocked_loop's i, held in a register no callee saves on
// these paths, is missing from the blocked samples.
func TestBlockedValuesNeedStops(t *testing.T) {
	exe := buildBlocking(t)
	for _, c := range []blockedCase{blockedCases[0], blockedCases[11], blockedCases[20]} { // mutex, nanosleep, poll
		t.Run(c.mode, func(t *testing.T) {
			t.Parallel()
			res, bp, stderr := recordBlocking(t, exe, c, Config{NoBlockedStops: true})
			if res.ExitStatus != 0 {
				t.Fatalf("blocking %s exited %d: %s", c.mode, res.ExitStatus, stderr)
			}
			if res.Blocked.Stops != 0 || res.Blocked.WithRegs != 0 {
				t.Fatalf("stops %d, samples with registers %d: want none", res.Blocked.Stops, res.Blocked.WithRegs)
			}
			in := bp.inCalls(c.calls)
			if len(in) == 0 {
				// Some C libraries cannot even be unwound from SP and PC
				// alone: blocked_loop is not on the stack at all.
				n := 0
				for _, nr := range c.calls {
					n += bp.blockedIn[nr]
				}
				if n < 20 {
					t.Fatalf("%d samples blocked in %s", n, callNames(c.calls))
				}
				t.Logf("without stops, %d samples in %s, none unwound to blocked_loop", n, callNames(c.calls))
				return
			}
			if len(in) < 20 {
				t.Fatalf("%d samples in %s", len(in), callNames(c.calls))
			}
			regs := bp.regVars(in[0].link)
			pres := presence(in, regs)
			missing := 0
			for _, name := range regs {
				if pres[name] < len(in)/5 {
					missing++
				}
			}
			if missing == 0 {
				t.Errorf("without stops every register-held variable of blocked_loop is in the samples (%v of %d): the stops prove nothing here", pres, len(in))
			}
			t.Logf("without stops, of %d samples: %v", len(in), pres)
		})
	}
}

// TestBlockedAllowlistMatters shows that the programs notice the harm a
// wrong allowlist would do: with every blocked thread stopped, the calls
// that are not restartable fail (EINTR, a short read or write).
func TestBlockedAllowlistMatters(t *testing.T) {
	exe := buildBlocking(t)
	for _, c := range blockedCases {
		if c.stop || (c.mode != "epoll" && c.mode != "recv-timeo" && c.mode != "sigtimedwait" && c.mode != "tty-vmin" && c.mode != "pipe-write-big") {
			continue
		}
		t.Run(c.mode, func(t *testing.T) {
			c.iters = 5
			if c.mode == "pipe-write-big" || c.mode == "tty-vmin" {
				c.iters = 3
			}
			// The harm needs a stop to land inside the call: on a loaded
			// machine that loses ticks it may miss one recording, so any
			// of three shows it.
			var status []int
			for range 3 {
				res, _, _ := recordBlocking(t, exe, c, Config{test: testOptions{interruptAnyBlocked: true}})
				if res.ExitStatus == 4 || res.ExitStatus == 6 {
					return
				}
				status = append(status, res.ExitStatus)
			}
			t.Errorf("blocking %s, every blocked call stopped: exits %v in 3 recordings, want 4 (EINTR) or 6 (wrong result) in one at least", c.mode, status)
		})
	}
}

// TestRestartableFDs checks the descriptor-based decisions on this
// process's own descriptors: pipes and terminals that have read nothing
// yet may be stopped; sockets, regular files, other devices and partial
// terminal reads may not.
func TestRestartableFDs(t *testing.T) {
	r := &sampling{cfg: &Config{}}
	self := &thread{tid: unix.Gettid(), proc: &process{pid: os.Getpid()}}
	var pipe [2]int
	if err := unix.Pipe2(pipe[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(pipe[0])
	defer unix.Close(pipe[1])
	sock, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(sock[0])
	defer unix.Close(sock[1])
	file, err := os.CreateTemp(t.TempDir(), "f")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	master, slave := openPTY(t)
	raw := func(vmin, vtime uint8) {
		tio, err := unix.IoctlGetTermios(slave, unix.TCGETS)
		if err != nil {
			t.Fatal(err)
		}
		tio.Lflag &^= unix.ICANON
		tio.Cc[unix.VMIN], tio.Cc[unix.VTIME] = vmin, vtime
		if err := unix.IoctlSetTermios(slave, unix.TCSETS, tio); err != nil {
			t.Fatal(err)
		}
	}
	sp := uint64(0x7ff000000000)
	call := func(nr int32, args ...uint64) *sysState {
		s := &sysState{Nr: nr, SP: sp, PC: 0x401000}
		copy(s.Args[:], args)
		return s
	}
	tests := []struct {
		name  string
		setup func()
		st    *sysState
		want  bool
	}{
		{"read pipe", nil, call(unix.SYS_READ, uint64(pipe[0]), 0, 64), true},
		{"readv pipe", nil, call(unix.SYS_READV, uint64(pipe[0]), 0, 2), true},
		{"write pipe 4096", nil, call(unix.SYS_WRITE, uint64(pipe[1]), 0, 4096), true},
		{"write pipe 4097", nil, call(unix.SYS_WRITE, uint64(pipe[1]), 0, 4097), false},
		{"writev pipe", nil, call(unix.SYS_WRITEV, uint64(pipe[1]), 0, 1), false},
		{"read socket", nil, call(unix.SYS_READ, uint64(sock[0]), 0, 64), false},
		{"write socket", nil, call(unix.SYS_WRITE, uint64(sock[0]), 0, 64), false},
		{"read file", nil, call(unix.SYS_READ, uint64(file.Fd()), 0, 64), false},
		{"read /dev/null", nil, call(unix.SYS_READ, uint64(null.Fd()), 0, 64), false},
		{"read closed fd", nil, call(unix.SYS_READ, 1000, 0, 64), false},
		{"read huge fd", nil, call(unix.SYS_READ, 1<<40, 0, 64), false},
		{"read pty master", nil, call(unix.SYS_READ, uint64(master), 0, 64), false},
		{"read tty canonical", nil, call(unix.SYS_READ, uint64(slave), 0, 64), true},
		{"read tty raw VMIN 1", func() { raw(1, 0) }, call(unix.SYS_READ, uint64(slave), 0, 64), true},
		{"read tty raw VMIN 4", func() { raw(4, 0) }, call(unix.SYS_READ, uint64(slave), 0, 64), false},
		{"read tty raw VTIME", func() { raw(1, 5) }, call(unix.SYS_READ, uint64(slave), 0, 64), false},
		{"write tty", nil, call(unix.SYS_WRITE, uint64(slave), 0, 1), false},
		{"futex wait", nil, call(unix.SYS_FUTEX, 0x1000, 0x80, 0), true},
		{"futex wait bitset realtime", nil, call(unix.SYS_FUTEX, 0x1000, 0x189, 0), true},
		{"futex lock_pi", nil, call(unix.SYS_FUTEX, 0x1000, 6, 0), false},
		{"futex wait_requeue_pi", nil, call(unix.SYS_FUTEX, 0x1000, 11, 0), false},
		{"nanosleep rmtp null", nil, call(unix.SYS_NANOSLEEP, sp+64, 0), true},
		{"nanosleep rmtp on stack", nil, call(unix.SYS_NANOSLEEP, sp+64, sp+80), true},
		{"nanosleep rmtp elsewhere", nil, call(unix.SYS_NANOSLEEP, sp+64, 0x601000), false},
		{"clock_nanosleep abs", nil, call(unix.SYS_CLOCK_NANOSLEEP, unix.CLOCK_MONOTONIC, 1, 0x601000, 0x601000), true},
		{"clock_nanosleep rel rmtp elsewhere", nil, call(unix.SYS_CLOCK_NANOSLEEP, unix.CLOCK_MONOTONIC, 0, sp, 0x601000), false},
		{"clock_nanosleep cpu clock", nil, call(unix.SYS_CLOCK_NANOSLEEP, unix.CLOCK_PROCESS_CPUTIME_ID, 1, sp, 0), false},
		{"ppoll no timeout", nil, call(unix.SYS_PPOLL, 0x601000, 1, 0), true},
		{"ppoll timeout on stack", nil, call(unix.SYS_PPOLL, 0x601000, 1, sp+32), true},
		{"ppoll timeout elsewhere", nil, call(unix.SYS_PPOLL, 0x601000, 1, 0x601000), false},
		{"pselect6 timeout elsewhere", nil, call(unix.SYS_PSELECT6, 4, 0x601000, 0, 0, 0x601000), false},
		{"select timeout on stack", nil, call(unix.SYS_SELECT, 4, 0x601000, 0, 0, sp+16), true},
		{"epoll_wait", nil, call(unix.SYS_EPOLL_WAIT, 3, 0x601000, 1, 0xffffffffffffffff), false},
		{"rt_sigtimedwait", nil, call(unix.SYS_RT_SIGTIMEDWAIT, 0x601000, 0, 0), false},
		{"recvfrom", nil, call(unix.SYS_RECVFROM, uint64(sock[0])), false},
		{"restart_syscall unknown", nil, call(unix.SYS_RESTART_SYSCALL), false},
		{"blocked outside a call", nil, call(-1), false},
	}
	for _, tc := range tests {
		if tc.setup != nil {
			tc.setup()
		}
		if got := r.restartable(self, tc.st); got != tc.want {
			t.Errorf("%s: restartable %v, want %v", tc.name, got, tc.want)
		}
	}
}

// openPTY opens a pseudo-terminal pair (canonical mode), closed at the end
// of the test.
func openPTY(t *testing.T) (master, slave int) {
	t.Helper()
	m, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	t.Cleanup(func() { unix.Close(m) })
	if err := unix.IoctlSetPointerInt(m, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(m, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := unix.Open("/dev/pts/"+strconv.Itoa(n), unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(s) })
	return m, s
}

func TestParsePersonality(t *testing.T) {
	tests := []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"00000000\n", 0, true},
		{"04000000\n", stickyTimeouts, true},
		{"00400000", 0x400000, true},
		{"ffffffff\n", 0xffffffff, true},
		{"", 0, false},
		{"\n", 0, false},
		{"0x10\n", 0, false},
		{"12 34\n", 0, false},
		{"11111111111111111\n", 0, false},
	}
	for _, tc := range tests {
		got, ok := parsePersonality([]byte(tc.in))
		if got != tc.want || ok != tc.ok {
			t.Errorf("parsePersonality(%q) = %#x, %v; want %#x, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func FuzzParsePersonality(f *testing.F) {
	f.Add([]byte("00000000\n"))
	f.Add([]byte("04000000\n"))
	f.Add([]byte("zz"))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, ok := parsePersonality(b)
		if !ok {
			return
		}
		// What parses prints back to the same digits.
		s := strconv.FormatUint(v, 16)
		digits := b
		if n := len(digits); n > 0 && digits[n-1] == '\n' {
			digits = digits[:n-1]
		}
		for len(digits) > 1 && digits[0] == '0' {
			digits = digits[1:]
		}
		if s != string(digits) {
			t.Fatalf("parsePersonality(%q) = %#x", b, v)
		}
	})
}

func TestIsRestart(t *testing.T) {
	for _, v := range []int64{-512, -513, -514, -516} {
		if !isRestart(v) {
			t.Errorf("isRestart(%d) = false", v)
		}
	}
	for _, v := range []int64{0, 1, -4, -11, -515, -517, -110} {
		if isRestart(v) {
			t.Errorf("isRestart(%d) = true", v)
		}
	}
}

// sortedCalls lists a ByCall map, for logs.
func sortedCalls(m map[int32]uint64) string {
	var ks []int
	for k := range m {
		ks = append(ks, int(k))
	}
	sort.Ints(ks)
	s := ""
	for _, k := range ks {
		s += fmt.Sprintf(" %d:%d", k, m[int32(k)])
	}
	return s
}

// BenchmarkBlockedWall measures --clock wall on threads that are nearly
// always blocked: testdata/blockbench (8 threads: long waits on condition
// variables, or 2 ms sleeps in a loop) recorded at 1 kHz with the ptrace
// sampler (every running thread stopped at each tick: the wall clock's
// sampler before the perf one could take it) and with the perf sampler
// (running threads by their perf events, blocked ones at the ticks), both
// with the stops of blocked threads for registers, and with the perf
// sampler without them (NoBlockedStops: no registers), interleaved, b.N
// runs of each. Per configuration: samples per second (all, and of blocked
// threads), vprof's CPU per sample after start-up (µs) and per second
// (% of a CPU), stops of blocked threads per second, stops of running
// threads per second, lost ticks per run.
//
//	go test ./sampler -run '^$' -bench BlockedWall -benchtime 5x
func BenchmarkBlockedWall(b *testing.B) {
	exe := buildC(b, "blockbench", "-g", "-pthread")
	const threads, ms = "8", "1000"
	confs := []struct {
		name    string
		sampler string
		noStops bool
	}{{"ptrace", SamplerPtrace, false}, {"perf", SamplerPerf, false}, {"perf-noregs", SamplerPerf, true}}
	if err := probePerf(time.Millisecond); err != nil {
		b.Logf("perf sampler not usable here (%v): ptrace only", err)
		confs = confs[:1]
	}
	for _, mode := range []string{"long", "short"} {
		b.Run(mode, func(b *testing.B) {
			type acc struct {
				blocked, samples, stops, full, lost, regs uint64
				cpu, elapsed                              time.Duration
			}
			accs := make([]acc, len(confs))
			for i := 0; i < b.N; i++ {
				for k, c := range confs {
					res, err := Record(Config{
						Output: b.TempDir() + "/bench.vprof", Args: []string{exe, mode, threads, ms},
						Clock: model.ClockWall, Interval: time.Millisecond, Depth: 3, Sampler: c.sampler,
						NoBlockedStops: c.noStops, Signals: make(chan os.Signal),
					})
					if err != nil || res.ExitStatus != 0 || res.Sampler != c.sampler {
						b.Fatalf("%s: %v, exit %v", c.name, err, res)
					}
					a := &accs[k]
					a.blocked += res.Blocked.Samples
					a.regs += res.Blocked.WithRegs
					a.samples += uint64(res.Trailer.Samples)
					a.stops += res.Blocked.Stops
					a.full += res.Steps.Full
					a.lost += res.Steps.Lost
					a.cpu += res.TracerCPU - res.SetupCPU
					a.elapsed += res.Elapsed
				}
			}
			for k, c := range confs {
				a := accs[k]
				b.ReportMetric(float64(a.samples)/a.elapsed.Seconds(), "samples/s-"+c.name)
				b.ReportMetric(float64(a.blocked)/a.elapsed.Seconds(), "blocked/s-"+c.name)
				b.ReportMetric(float64(a.regs)/float64(max(a.blocked, 1)), "withregs-"+c.name)
				b.ReportMetric(float64(a.cpu.Nanoseconds())/1e3/float64(max(a.samples, 1)), "cpuµs/sample-"+c.name)
				b.ReportMetric(100*a.cpu.Seconds()/a.elapsed.Seconds(), "cpu%-"+c.name)
				b.ReportMetric(float64(a.stops)/a.elapsed.Seconds(), "blockedstops/s-"+c.name)
				b.ReportMetric(float64(a.full)/a.elapsed.Seconds(), "runningstops/s-"+c.name)
				b.ReportMetric(float64(a.lost)/float64(b.N), "lost/run-"+c.name)
			}
		})
	}
}
