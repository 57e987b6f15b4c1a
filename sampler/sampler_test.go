package sampler

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/proffile"
	"github.com/vprof/vprof/testprogs"
)

func TestValuesKnownPhases(t *testing.T) {
	exe := buildC(t, "phases", "-g")
	const n, calls = 3000000, 16
	res, p := record(t, Config{Args: []string{exe, strconv.Itoa(n), strconv.Itoa(calls)}, Depth: 3})
	if res.ExitStatus != 0 {
		t.Fatalf("exit status %d", res.ExitStatus)
	}
	if len(p.samples) < 40 {
		t.Fatalf("only %d samples", len(p.samples))
	}
	// g_phase: 42 in the first half, then 7, never 42 again.
	phase := p.values("#global", "g_phase")
	seen7 := false
	counts := map[int64]int{}
	for _, v := range phase {
		x := int64(v.Bits)
		counts[x]++
		switch {
		case x == 7:
			seen7 = true
		case x == 42 && seen7:
			t.Fatalf("g_phase back to 42 after 7 (sample %d)", v.sample)
		case x != 42:
			t.Fatalf("g_phase = %d", x)
		}
	}
	if counts[42] == 0 || counts[7] == 0 {
		t.Errorf("g_phase values %v: want both 42 and 7", counts)
	}
	checkAll := func(fn, name string, want func(model.Value) bool, what string) []val {
		t.Helper()
		vs := p.values(fn, name)
		if len(vs) == 0 {
			t.Errorf("%s.%s: no value samples", fn, name)
		}
		for _, v := range vs {
			if !want(v.Value) {
				t.Errorf("%s.%s = %#x (pointee %#x), want %s", fn, name, v.Bits, v.Pointee, what)
				break
			}
		}
		return vs
	}
	checkAll("#global", "g_ratio", func(v model.Value) bool { return f64(v.Bits) == 0.75 }, "0.75")
	checkAll("#global", "g_mode", func(v model.Value) bool { return v.Bits == 2 }, "MODE_FAST (2)")
	checkAll("#global", "g_neg", func(v model.Value) bool { return int64(v.Bits) == -5 }, "-5 sign-extended")
	checkAll("#global", "g_big", func(v model.Value) bool { return v.Bits == 1<<40 }, "1<<40")
	ptrs := checkAll("#global", "g_ptr", func(v model.Value) bool { return !v.HasPointee || v.Pointee == 1234 }, "-> 1234")
	withPointee := 0
	for _, v := range ptrs {
		if v.HasPointee {
			withPointee++
		}
	}
	if withPointee == 0 {
		t.Errorf("g_ptr: no sample read its pointee")
	}
	checkAll("spin", "n", func(v model.Value) bool { return v.Bits == n }, fmt.Sprint(n))
	checkAll("spin", "mark", func(v model.Value) bool { return v.Bits == 99 }, "99 (on the stack)")
	// A loop index is n (16) once incremented past the end, at the exit test.
	is := checkAll("spin", "i", func(v model.Value) bool { return int64(v.Bits) >= 0 && int64(v.Bits) <= n }, "in [0, n]")
	distinct := map[uint64]bool{}
	for _, v := range is {
		distinct[v.Bits] = true
		if v.Frame != 0 {
			t.Errorf("spin.i read in frame %d; spin is the innermost frame", v.Frame)
		}
	}
	if len(distinct) < 10 {
		t.Errorf("spin.i took %d distinct values; want a range", len(distinct))
	}
	checkAll("inner", "j", func(v model.Value) bool { return v.Bits <= 16 }, "in [0, 16] (inlined function)")
	cs := checkAll("main", "c", func(v model.Value) bool { return v.Bits < calls && v.Frame >= 1 }, "in [0, calls) in a caller frame")
	// The caller's c is the callee's call argument at the same tick.
	calls2 := map[int]uint64{}
	for _, v := range p.values("spin", "call") {
		calls2[v.sample] = v.Bits
	}
	agree := 0
	for _, v := range cs {
		if c, ok := calls2[v.sample]; ok {
			if c != v.Bits {
				t.Errorf("sample %d: main.c = %d but spin.call = %d", v.sample, v.Bits, c)
			}
			agree++
		}
	}
	if agree == 0 {
		t.Errorf("no sample has both main.c and spin.call")
	}
	if p.trailer == nil || !p.rec.Complete {
		t.Errorf("profile incomplete: %v", p.rec)
	}
}

// framesOf returns the stack (function names) of samples whose innermost
// frame is fn.
func framesOf(p *prof, fn string) [][]string {
	var out [][]string
	for _, s := range p.samples {
		if len(s.funcs) > 0 && s.funcs[0] == fn {
			out = append(out, s.funcs)
		}
	}
	return out
}

// hasChain reports whether stack contains want in order (want entries
// ending in ":" match any function of that library).
func hasChain(stack, want []string) bool {
	j := 0
	for _, f := range stack {
		if j < len(want) && (f == want[j] || strings.HasSuffix(want[j], ":") && strings.HasPrefix(f, want[j])) {
			j++
		}
	}
	return j == len(want)
}

func TestStacksQsortAndPLT(t *testing.T) {
	exe := buildStacks(t)
	// 12 rounds of sorting, about 60 ms: the first sample in the C
	// library loads its CFI, which on a loaded machine takes tens of ms
	// during which the ptrace sampler takes no tick.
	res, p := record(t, Config{Args: []string{exe, "12", "60000000"}, Depth: 3})
	if res.ExitStatus != 0 {
		t.Fatalf("exit status %d", res.ExitStatus)
	}
	cmp := framesOf(p, "by_weight")
	if len(cmp) == 0 {
		t.Fatalf("no sample in the qsort comparator; %d samples", len(p.samples))
	}
	ok := 0
	for _, st := range cmp {
		if hasChain(st, []string{"by_weight", "libc.so.6:", "sort_them", "main"}) {
			ok++
		}
	}
	if ok*2 < len(cmp) {
		t.Errorf("%d of %d comparator samples unwind through qsort to sort_them and main; e.g. %v", ok, len(cmp), cmp[0])
	}
	lib := framesOf(p, "libwork.so:lib_spin")
	if len(lib) == 0 {
		t.Fatalf("no sample in lib_spin (called through the PLT)")
	}
	ok = 0
	for _, st := range lib {
		if hasChain(st, []string{"libwork.so:lib_spin", "main"}) {
			ok++
		}
	}
	if ok*2 < len(lib) {
		t.Errorf("%d of %d lib_spin samples have main as caller; e.g. %v", ok, len(lib), lib[0])
	}
	// Values in the comparator's caller across libc frames: sort_them is
	// the next program frame, so depth 1 reaches it.
	found := 0
	for _, v := range p.values("sort_them", "count") {
		s := p.samples[v.sample]
		if s.funcs[0] == "by_weight" && s.funcs[v.Frame] == "sort_them" && v.Frame >= 2 {
			found++
			if v.Bits != 4000 {
				t.Errorf("sort_them.count = %d, want 4000", v.Bits)
			}
		}
	}
	if found == 0 {
		t.Errorf("no value of sort_them.count read through the libc frames above the comparator")
	}
}

// chainWant is what chain.c holds with seed 11.
var chainWant = map[string]uint64{"level1.a2": 33, "level2.b2": 176, "main.seed": 11}

func TestDepthValues(t *testing.T) {
	exe := buildC(t, "chain", "-g")
	for _, depth := range []int{1, 3} {
		t.Run(fmt.Sprintf("depth%d", depth), func(t *testing.T) {
			_, p := record(t, Config{Args: []string{exe, "11", "150000000"}, Depth: depth})
			frames := map[string]map[uint8]int{} // function -> frame index -> count
			for _, fn := range []string{"hold", "level2", "level1", "main"} {
				frames[fn] = map[uint8]int{}
			}
			for i := range p.samples {
				s := &p.samples[i]
				if len(s.funcs) == 0 || s.funcs[0] != "hold" {
					continue
				}
				for _, v := range s.s.Values {
					o := p.objs[v.Obj]
					vr := o.Schema.Vars[v.Var]
					if vr.Func < 0 {
						continue
					}
					fn := o.Schema.Funcs[vr.Func].Name
					if m := frames[fn]; m != nil {
						m[v.Frame]++
						if s.funcs[v.Frame] != fn {
							t.Errorf("%s.%s read in frame %d, which is %s", fn, vr.Name, v.Frame, s.funcs[v.Frame])
						}
					}
					if want, ok := chainWant[fn+"."+vr.Name]; ok && v.Bits != want {
						t.Errorf("%s.%s = %d, want %d", fn, vr.Name, v.Bits, want)
					}
				}
			}
			for i, fn := range []string{"hold", "level2", "level1", "main"} {
				got := frames[fn][uint8(i)]
				if i <= depth && got == 0 {
					t.Errorf("depth %d: no value of %s in frame %d (%v)", depth, fn, i, frames)
				}
				if i > depth && len(frames[fn]) > 0 {
					t.Errorf("depth %d: values of %s read beyond the depth: %v", depth, fn, frames[fn])
				}
			}
		})
	}
}

// gdbLocals attaches gdb to pid and returns "function.variable" -> value
// text of the locals and arguments of every frame.
func gdbLocals(t *testing.T, pid int) map[string]string {
	t.Helper()
	if _, err := exec.LookPath("gdb"); err != nil {
		t.Skip("gdb not installed")
	}
	args := []string{"-batch", "-nx", "-p", strconv.Itoa(pid)}
	for f := 0; f < 4; f++ {
		args = append(args, "-ex", fmt.Sprintf("frame %d", f), "-ex", "info args", "-ex", "info locals")
	}
	out, err := exec.Command("gdb", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("gdb: %v\n%s", err, out)
	}
	frameRe := regexp.MustCompile(`^#\d+\s+(?:0x[0-9a-f]+ in )?(\w+) \(`)
	varRe := regexp.MustCompile(`^(\w+) = (.*)$`)
	res := map[string]string{}
	fn := ""
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		l := sc.Text()
		if m := frameRe.FindStringSubmatch(l); m != nil {
			fn = m[1]
		} else if m := varRe.FindStringSubmatch(l); m != nil && fn != "" {
			res[fn+"."+m[1]] = m[2]
		}
	}
	if len(res) == 0 {
		t.Fatalf("gdb printed no variables:\n%s", out)
	}
	return res
}

// TestAgreesWithGDB attaches to chain.c spinning in hold(), records, detaches,
// then asks gdb for the callers' variables, which stay fixed while hold
// spins: every value vprof read must be what gdb prints.
func TestAgreesWithGDB(t *testing.T) {
	exe := buildC(t, "chain", "-g")
	_, pid, _ := startProgram(t, exe, "11")
	time.Sleep(50 * time.Millisecond)
	res, p := record(t, Config{PID: pid, Duration: 300 * time.Millisecond, Depth: 3})
	if res.ExitStatus != 0 || !p.trailer.Detached {
		t.Fatalf("attach: exit %d, detached %v", res.ExitStatus, p.trailer.Detached)
	}
	gdb := gdbLocals(t, pid)
	t.Logf("gdb: %v", gdb)
	compared := 0
	for _, key := range []string{"level2.b", "level2.b2", "level2.k", "level1.a", "level1.a2", "level1.m", "main.seed", "main.z", "hold.depth3", "hold.limit"} {
		fn, name, _ := strings.Cut(key, ".")
		g, ok := gdb[key]
		if !ok || strings.Contains(g, "optimized out") {
			continue
		}
		for _, v := range p.values(fn, name) {
			if got := strconv.FormatInt(int64(v.Bits), 10); got != g {
				t.Errorf("%s: vprof read %s, gdb prints %s", key, got, g)
				break
			}
			compared++
		}
	}
	if compared == 0 {
		t.Fatalf("no variable to compare; gdb %v", gdb)
	}
	t.Logf("%d value samples agree with gdb", compared)
}

func TestThreadsAndForks(t *testing.T) {
	exe := buildC(t, "workers", "-g", "-pthread")
	res, p := record(t, Config{Args: []string{exe, "4", "300", "2", "5"}, Depth: 1})
	if res.ExitStatus != 5 {
		t.Errorf("exit status %d, want the program's 5", res.ExitStatus)
	}
	perPID := map[int32]map[int32]int{}
	for _, s := range p.samples {
		if perPID[s.pid] == nil {
			perPID[s.pid] = map[int32]int{}
		}
		perPID[s.pid][s.tid]++
	}
	forks := 0
	for _, e := range p.procs {
		if e.Kind == model.ProcFork {
			forks++
			if e.PPID != p.hdr.PID {
				t.Errorf("fork of %d has parent %d, want %d", e.PID, e.PPID, p.hdr.PID)
			}
			if len(perPID[e.PID]) == 0 {
				t.Errorf("child %d has no samples", e.PID)
			}
		}
	}
	if forks != 2 {
		t.Errorf("%d forks recorded, want 2", forks)
	}
	if n := len(perPID[p.hdr.PID]); n != 4 {
		t.Errorf("%d threads of the parent have samples (%v), want 4", n, perPID[p.hdr.PID])
	}
	// burn calls clock_gettime, which runs in the vDSO: those samples
	// unwind through the vDSO's CFI and libc to burn, whose variable
	// `until` is read there (program frames only count towards --depth).
	vdso, until := 0, 0
	for _, s := range p.samples {
		if len(s.funcs) > 0 && strings.HasPrefix(s.funcs[0], "[vdso]") && hasChain(s.funcs, []string{"[vdso]:", "burn"}) {
			vdso++
		}
	}
	for _, v := range p.values("burn", "until") {
		if strings.HasPrefix(p.samples[v.sample].funcs[0], "[vdso]") {
			until++
		}
	}
	if vdso == 0 || until == 0 {
		t.Errorf("%d samples unwind from the vDSO to burn, %d read burn's variables there; want some of each", vdso, until)
	}
}

// pipeStdoutLine is pipeStdout whose ready channel closes when the first
// line has been written.
func pipeStdoutLine(t *testing.T) (*os.File, <-chan struct{}, func() string) {
	t.Helper()
	rd, wr, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var buf strings.Builder
	ready, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		b := make([]byte, 4096)
		seen := false
		for {
			n, err := rd.Read(b)
			buf.Write(b[:n])
			if !seen && strings.Contains(buf.String(), "\n") {
				seen = true
				close(ready)
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { rd.Close() })
	return wr, ready, func() string {
		wr.Close()
		<-done
		return buf.String()
	}
}

func TestSignalsDelivered(t *testing.T) {
	exe := buildC(t, "signals", "-g")
	for _, via := range []string{"program", "vprof"} {
		t.Run("SIGINT to "+via, func(t *testing.T) {
			out, ready, read := pipeStdoutLine(t)
			sigs := make(chan os.Signal, 1)
			type result struct {
				res *Result
				err error
			}
			done := make(chan result, 1)
			outPath := filepath.Join(t.TempDir(), "sig.vprof")
			go func() {
				res, err := recordErr(Config{Output: outPath, Args: []string{exe, "10", "5000"}, Stdout: out, Signals: sigs})
				done <- result{res, err}
			}()
			// The program installs its handlers, prints its pid, sends
			// itself 10 SIGUSR1s, then spins until SIGINT. Wait for the
			// pid line: a SIGINT before the handler kills it (a fixed
			// sleep lost that race on a loaded machine).
			select {
			case <-ready:
			case <-time.After(30 * time.Second):
				t.Fatal("the program printed nothing in 30 s")
			}
			if via == "program" {
				pid := 0
				for _, e := range readPIDFromProfile(t, outPath) {
					pid = e
				}
				syscall.Kill(pid, syscall.SIGINT)
			} else {
				sigs <- syscall.SIGINT // not from a terminal: vprof forwards it
			}
			r := <-done
			if r.err != nil {
				t.Fatal(r.err)
			}
			text := read()
			if r.res.ExitStatus != 3 {
				t.Errorf("exit status %d, want 3 (the program's SIGINT handler); output %q", r.res.ExitStatus, text)
			}
			if !strings.Contains(text, "usr1=10") {
				t.Errorf("program output %q: want usr1=10 (every SIGUSR1 delivered)", text)
			}
		})
	}
}

// readPIDFromProfile returns the pids of the partial profile being written.
func readPIDFromProfile(t *testing.T, out string) []int {
	t.Helper()
	// The recording writes its header once the program is loaded: on a
	// loaded machine that may take a while.
	var err error
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var r *proffile.Reader
		if r, err = proffile.Open(out + proffile.PartialSuffix); err == nil {
			defer r.Close()
			return []int{int(r.Header().PID)}
		}
		if time.Now().After(end) {
			t.Fatal(err)
		}
	}
}

func TestTargetKilled(t *testing.T) {
	exe := buildC(t, "workers", "-g", "-pthread")
	outPath := filepath.Join(t.TempDir(), "k.vprof")
	done := make(chan *Result, 1)
	go func() {
		res, err := recordErr(Config{Output: outPath, Args: []string{exe, "2", "5000"}, Signals: make(chan os.Signal)})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	time.Sleep(300 * time.Millisecond)
	pid := readPIDFromProfile(t, outPath)[0]
	syscall.Kill(pid, syscall.SIGKILL)
	select {
	case res := <-done:
		if res == nil {
			return
		}
		if res.ExitStatus != 128+9 {
			t.Errorf("exit status %d, want 137", res.ExitStatus)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("recording did not end after the program was killed")
	}
	p := readProfile(t, outPath)
	if !p.rec.Complete || p.trailer.ExitStatus != 137 {
		t.Errorf("profile: %v, trailer %+v", p.rec, p.trailer)
	}
	killed := false
	for _, e := range p.procs {
		if e.Kind == model.ProcExit && e.PID == int32(pid) && e.Signal == 9 {
			killed = true
		}
	}
	if !killed || len(p.samples) == 0 {
		t.Errorf("no exit by SIGKILL recorded (%+v) or no samples (%d)", p.procs, len(p.samples))
	}
}

func TestExitAtOnce(t *testing.T) {
	needTools(t)
	for _, c := range []struct {
		args   []string
		status int
	}{
		{[]string{"true"}, 0},
		{[]string{"false"}, 1},
		{[]string{"sh", "-c", "kill -TERM $$"}, 128 + 15},
	} {
		res, p := record(t, Config{Args: c.args})
		if res.ExitStatus != c.status {
			t.Errorf("%v: exit status %d, want %d", c.args, res.ExitStatus, c.status)
		}
		if !p.rec.Complete {
			t.Errorf("%v: profile %v", c.args, p.rec)
		}
		// Where the launch's time went (sampler/bench -lifecycle).
		l := res.Launch
		steps := l.Setup + l.Spawn + l.Program + l.Perf + l.Profile + l.Thread + l.Maps
		if l.Setup <= 0 || l.Spawn <= 0 || l.Program <= 0 || l.Profile <= 0 || l.Finish <= 0 || l.Released < steps {
			t.Errorf("%v: launch steps %+v: each taken, within the time to the release", c.args, l)
		}
	}
}

func TestExecReloadsSchema(t *testing.T) {
	exe := buildC(t, "phases", "-g")
	_, p := record(t, Config{Args: []string{"sh", "-c", "exec " + exe + " 3000000 8"}})
	execs := 0
	for _, e := range p.procs {
		if e.Kind == model.ProcExec && e.Path == exe {
			execs++
		}
	}
	if execs != 1 {
		t.Fatalf("%d execs of %s recorded: %+v", execs, exe, p.procs)
	}
	if len(p.values("spin", "i")) == 0 || len(p.values("#global", "g_phase")) == 0 {
		t.Errorf("no values of the exec'd program (schema not loaded after exec)")
	}
	// One object for the exec'd program, and that one the program: a
	// sample drained between the exec and its ptrace event must not make
	// the new image a library without a schema (the analyzer keeps the
	// first copy of a build across runs).
	for _, o := range p.objs {
		if o.Path == exe && (!o.Program || o.Schema == nil) {
			t.Errorf("%s recorded as object %d, program %v, schema %v", exe, o.ID, o.Program, o.Schema != nil)
		}
	}
}

func TestAttachDetachLeavesProgramUnharmed(t *testing.T) {
	exe := buildC(t, "checksum", "-g")
	want, err := exec.Command(exe, "250").Output()
	if err != nil {
		t.Fatal(err)
	}
	wantSum := strings.Fields(string(want))[1]
	cmd, pid, br := startProgram(t, exe, "250")
	time.Sleep(30 * time.Millisecond)
	res, p := record(t, Config{PID: pid, Duration: 200 * time.Millisecond})
	if res.ExitStatus != 0 || !p.trailer.Detached || len(p.samples) == 0 {
		t.Errorf("attach: exit %d, detached %v, %d samples", res.ExitStatus, p.trailer.Detached, len(p.samples))
	}
	var got string
	fmt.Fscan(br, &got)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("program after detach: %v", err)
	}
	if got != wantSum {
		t.Errorf("checksum after attach/detach %q, want %q", got, wantSum)
	}
}

func TestGroupStop(t *testing.T) {
	exe := buildC(t, "workers", "-g", "-pthread")
	outPath := filepath.Join(t.TempDir(), "g.vprof")
	done := make(chan *Result, 1)
	go func() {
		res, err := recordErr(Config{Output: outPath, Args: []string{exe, "2", "600"}, Signals: make(chan os.Signal)})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	time.Sleep(150 * time.Millisecond)
	pid := readPIDFromProfile(t, outPath)[0]
	syscall.Kill(pid, syscall.SIGSTOP)
	state := ""
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if state = procState(pid); state == "T" || state == "t" {
			break
		}
	}
	time.Sleep(50 * time.Millisecond) // stay stopped over some ticks
	syscall.Kill(pid, syscall.SIGCONT)
	if state != "T" && state != "t" {
		t.Errorf("after SIGSTOP the program is in state %q, want stopped", state)
	}
	select {
	case res := <-done:
		if res != nil && res.ExitStatus != 0 {
			t.Errorf("exit status %d", res.ExitStatus)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("recording hung after a group-stop")
	}
}

func procState(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+3 > len(s) {
		return ""
	}
	return s[i+2 : i+3]
}

func TestWallClock(t *testing.T) {
	exe := buildC(t, "blocker", "-g", "-pthread")
	res, p := record(t, Config{Args: []string{exe, "300"}, Clock: model.ClockWall, Interval: 2 * time.Millisecond})
	if res.ExitStatus != 0 {
		t.Fatalf("exit %d", res.ExitStatus)
	}
	wantSampler(t, res, p)
	type acc struct {
		n, blocked    int
		weight, wBlkd int64
		waitHere      int
		nrs           map[int32]int
	}
	per := map[int32]*acc{}
	for _, s := range p.samples {
		a := per[s.tid]
		if a == nil {
			a = &acc{nrs: map[int32]int{}}
			per[s.tid] = a
		}
		a.n++
		a.weight += s.s.WeightNS
		if s.s.State == model.Blocked {
			a.blocked++
			a.wBlkd += s.s.WeightNS
			a.nrs[s.s.Syscall]++
			if hasChain(s.funcs, []string{"wait_here"}) {
				a.waitHere++
			}
		}
	}
	// By weight, not by count: with the perf sampler a running thread is
	// sampled per CPU time (few samples on a loaded machine) and a blocked
	// one at every tick. The spinner blocks too, in pthread_join until the
	// sleeper ends, which a loaded machine delays (its sleep starts late,
	// its wake-up waits for a CPU): under half its time.
	var sleeper, spinner *acc
	for _, a := range per {
		if a.wBlkd > a.weight*8/10 {
			sleeper = a
		} else if a.wBlkd < a.weight/2 {
			spinner = a
		}
	}
	if sleeper == nil || spinner == nil {
		desc := ""
		for tid, a := range per {
			desc += fmt.Sprintf(" thread %d: %d samples, %d blocked, %v of %v blocked;", tid, a.n, a.blocked, time.Duration(a.wBlkd), time.Duration(a.weight))
		}
		t.Fatalf("want one blocked and one running thread:%s", desc)
	}
	if sleeper.nrs[230]+sleeper.nrs[35] < sleeper.blocked*9/10 {
		t.Errorf("blocked thread's system calls %v: want nanosleep (35) or clock_nanosleep (230)", sleeper.nrs)
	}
	if sleeper.waitHere < sleeper.blocked/2 {
		t.Errorf("%d of %d blocked samples have wait_here on the stack", sleeper.waitHere, sleeper.blocked)
	}
	for _, a := range []*acc{sleeper, spinner} {
		if ms := a.weight / 1e6; ms < 150 || ms > 600 {
			t.Errorf("a thread's wall weights sum to %d ms over a 300 ms run", ms)
		}
	}
}

func TestNoDWARF(t *testing.T) {
	exe := buildC(t, "phases") // no -g
	var warns []string
	// About 150 ms: enough ticks in spin on a loaded machine.
	res, p := record(t, Config{Args: []string{exe, "3000000", "12"}, Warn: func(s string) { warns = append(warns, s) }})
	if res.ExitStatus != 0 {
		t.Fatalf("exit %d", res.ExitStatus)
	}
	if !strings.Contains(strings.Join(warns, "\n"), "no DWARF") {
		t.Errorf("warnings %q: want one about missing DWARF", warns)
	}
	if len(p.samples) == 0 || len(framesOf(p, "spin")) == 0 {
		t.Errorf("PC-only profile: %d samples, none in spin", len(p.samples))
	}
	for _, s := range p.samples {
		if len(s.s.Values) > 0 {
			t.Fatalf("values recorded without DWARF: %+v", s.s.Values)
		}
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	os.WriteFile(text, []byte("hello\n"), 0o644)
	self, _ := os.Executable()
	cases := []struct {
		cfg  Config
		want string
	}{
		{Config{Args: []string{"vprof-no-such-command-xyz"}}, "command not found"},
		{Config{Args: []string{filepath.Join(dir, "missing")}}, "no such file"},
		{Config{Args: []string{text}}, "not executable"},
		{Config{Args: []string{dir}}, "is a directory"},
		{Config{PID: 1 << 30}, "no such process"},
		{Config{PID: os.Getpid()}, "cannot record itself"},
		{Config{Args: []string{self}, PID: 1}, "either"},
	}
	for _, c := range cases {
		c.cfg.Output = filepath.Join(dir, "x.vprof")
		_, err := recordErr(c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.cfg.Args, err, c.want)
		}
		if _, err := os.Stat(c.cfg.Output); err == nil {
			t.Errorf("%v: a profile was written", c.cfg.Args)
		}
	}
	// A thread id, of a two-thread program.
	child := exec.Command(buildC(t, "workers", "-g", "-pthread"), "2", "3000")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { child.Process.Kill(); child.Wait() }()
	var tid int
	for end := time.Now().Add(2 * time.Second); tid == 0 && time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		tids, _ := listTasks(child.Process.Pid)
		for _, x := range tids {
			if x != child.Process.Pid {
				tid = x
			}
		}
	}
	if _, err := Record(Config{PID: tid, Output: filepath.Join(dir, "z")}); err == nil || !strings.Contains(err.Error(), "is a thread") {
		t.Errorf("thread id %d: error %v, want \"is a thread\"", tid, err)
	}
	if _, err := Record(Config{PID: 1 << 30, Output: filepath.Join(dir, "y")}); !errors.Is(err, ErrNoProcess) {
		t.Errorf("missing pid: %v does not wrap ErrNoProcess", err)
	}
	pe := &PermissionError{PID: 42, Err: syscall.EPERM}
	if msg := pe.Error(); !strings.Contains(msg, "CAP_SYS_PTRACE") {
		t.Errorf("permission error does not explain CAP_SYS_PTRACE: %s", msg)
	}
}

// TestRecorderKilled kills a recorder (this test binary re-executed) with
// SIGKILL: the program goes on to its normal end and the profile's prefix
// is readable.
func TestRecorderKilled(t *testing.T) {
	exe := buildC(t, "workers", "-g", "-pthread")
	out := filepath.Join(t.TempDir(), "killed.vprof")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^$", "--", exe, "1", "4500")
	cmd.Env = append(os.Environ(), "VPROF_SAMPLER_HELPER="+out)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Past the first periodic flush that waits for the libraries' names
	// (read for two flush intervals, write.go's flushDue), with a second
	// to spare on a loaded machine.
	time.Sleep(3 * time.Second)
	pid := readPIDFromProfile(t, out)[0]
	cmd.Process.Kill()
	cmd.Wait()
	time.Sleep(50 * time.Millisecond)
	if st := procState(pid); st == "" || st == "t" || st == "T" {
		t.Fatalf("program in state %q after its recorder was killed; want it running", st)
	}
	p := readProfile(t, out+proffile.PartialSuffix)
	if p.rec.Complete || p.rec.Blocks == 0 || len(p.samples) == 0 {
		t.Errorf("killed recorder's profile: %v, %d samples", p.rec, len(p.samples))
	}
	// The orphaned program ends on its own.
	end := time.Now().Add(5 * time.Second)
	for procState(pid) != "" && procState(pid) != "Z" && time.Now().Before(end) {
		time.Sleep(20 * time.Millisecond)
	}
	if st := procState(pid); st != "" && st != "Z" {
		t.Errorf("program still in state %q 5 s after the recorder died", st)
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// TestValuesProgram records testprogs/values (see its header comment: known
// values in six phases) with every local sampled, and checks each phase.
func TestValuesProgram(t *testing.T) {
	exe := testprogs.Path(t, "values")
	out, read := pipeStdout(t)
	res, p := record(t, Config{Args: []string{exe}, Depth: 3, AllVars: true, Stdout: out})
	text := read()
	if res.ExitStatus != 0 {
		t.Fatalf("exit %d: %s", res.ExitStatus, text)
	}
	var nIter int64
	if _, err := fmt.Sscanf(text, "values: N=%d", &nIter); err != nil {
		t.Fatalf("output %q: %v", text, err)
	}
	const nTypes = 200000000
	inFrame0 := func(fn string) func(val) bool {
		return func(v val) bool { return p.samples[v.sample].funcs[0] == fn }
	}
	check := func(fn, name string, where func(val) bool, want func(uint64) bool, what string) int {
		t.Helper()
		n := 0
		for _, v := range p.values(fn, name) {
			if where != nil && !where(v) {
				continue
			}
			n++
			if !want(v.Bits) {
				t.Errorf("%s.%s = %d (%#x) in sample %d (%v), want %s", fn, name, int64(v.Bits), v.Bits, v.sample, p.samples[v.sample].funcs, what)
				return n
			}
		}
		if n == 0 {
			t.Errorf("%s.%s: no value samples", fn, name)
		}
		return n
	}
	eq := func(x uint64) func(uint64) bool { return func(b uint64) bool { return b == x } }
	// Phases 1 and 2: g_phase 0, then 42, then 7, never back.
	last := uint64(0)
	order := map[uint64]int{0: 0, 42: 1, 7: 2}
	for _, v := range p.values("#global", "g_phase") {
		o, ok := order[v.Bits]
		if !ok || o < order[last] {
			t.Fatalf("g_phase went %d -> %d", last, v.Bits)
		}
		last = v.Bits
	}
	check("#global", "g_phase", inFrame0("phase_busy"), func(b uint64) bool { return b == 42 || b == 7 }, "42 or 7 while phase_busy runs")
	check("phase_busy", "i", nil, func(b uint64) bool { return int64(b) >= 0 && int64(b) <= nIter }, fmt.Sprintf("in 0..%d", nIter))
	// Phase 3: types().
	types := inFrame0("types")
	check("#global", "g_ratio", types, eq(math.Float64bits(2.5)), "2.5")
	check("#global", "g_color", types, eq(2), "COLOR_GREEN")
	ptrs := 0
	for _, v := range p.values("#global", "g_ptr") {
		if types(v) {
			if !v.HasPointee || v.Pointee != 1234 {
				t.Errorf("g_ptr in types(): pointee %d (read %v), want 1234", v.Pointee, v.HasPointee)
				break
			}
			ptrs++
		}
	}
	if ptrs == 0 {
		t.Errorf("no g_ptr value with its pointee in types()")
	}
	// stack_var lives in its stack slot over all of types(), before the
	// first instructions store 77 too: a sample there reads the old slot.
	// How many samples land there depends on timing (3 of 345 on a loaded
	// 2-core machine), so the bound is a share: a wrong slot would read
	// something other than 77 nearly always.
	early := 0
	for _, v := range p.values("types", "stack_var") {
		if types(v) && v.Bits != 77 {
			early++
		}
	}
	if n := check("types", "stack_var", types, func(b uint64) bool { return true }, ""); early*20 > n {
		t.Errorf("types.stack_var != 77 in %d of %d samples, want 77 but at types' first instructions", early, n)
	}
	check("types", "color", types, eq(3), "COLOR_BLUE (parameter)")
	check("types", "k", types, func(b uint64) bool { return b <= nTypes }, "in 0..N_TYPES")
	// The inlined square_mod's parameter v is the same sample's k (its sq
	// has no location: the compiler folded it into the sum).
	ks := map[int]uint64{}
	for _, v := range p.values("types", "k") {
		ks[v.sample] = v.Bits
	}
	inl := 0
	for _, v := range p.values("square_mod", "v") {
		if k, ok := ks[v.sample]; ok {
			inl++
			if v.Bits != k {
				t.Errorf("inlined square_mod.v = %d with types.k = %d", v.Bits, k)
				break
			}
		}
	}
	if inl == 0 {
		t.Errorf("no sample has the inlined square_mod's v next to types' k")
	}
	// Phase 4: the qsort comparator, called back from libc.
	cmp := framesOf(p, "cmp_ints")
	okChain := 0
	for _, st := range cmp {
		if hasChain(st, []string{"cmp_ints", "libc.so.6:", "sort_phase", "main"}) {
			okChain++
		}
	}
	if len(cmp) == 0 || okChain*2 < len(cmp) {
		t.Errorf("%d of %d cmp_ints samples unwind through qsort to sort_phase and main", okChain, len(cmp))
	}
	check("#global", "g_sort_round", inFrame0("cmp_ints"), func(b uint64) bool { return b < 150 }, "in 0..149")
	// Phase 5: memcmp through the PLT.
	plt := 0
	for _, s := range p.samples {
		if len(s.funcs) > 1 && strings.HasPrefix(s.funcs[0], "libc.so.6:") && s.funcs[1] == "plt_phase" {
			plt++
		}
	}
	if plt == 0 {
		t.Errorf("no sample in libc called from plt_phase through the PLT")
	}
	// Phase 6: chain_a(111) -> chain_b(222) -> chain_c(333), depths 2, 1, 0.
	chain := inFrame0("chain_c")
	check("chain_c", "c_val", chain, eq(333), "333")
	for fn, want := range map[string]uint64{"chain_b": 222, "chain_a": 111} {
		name := map[string]string{"chain_b": "b_val", "chain_a": "a_val"}[fn]
		depth := map[string]uint8{"chain_b": 1, "chain_a": 2}[fn]
		check(fn, name, chain, func(b uint64) bool { return b == want }, fmt.Sprint(want))
		for _, v := range p.values(fn, name) {
			if chain(v) && v.Frame != depth {
				t.Errorf("%s.%s read in frame %d, want %d", fn, name, v.Frame, depth)
				break
			}
		}
	}
}

// TestRecorderPanicDetaches: a recorder bug (a panic on the tracer thread)
// detaches the program, which runs on to its normal end.
func TestRecorderPanicDetaches(t *testing.T) {
	exe := buildC(t, "checksum", "-g")
	want, err := exec.Command(exe, "150").Output()
	if err != nil {
		t.Fatal(err)
	}
	out, read := pipeStdout(t)
	prof := filepath.Join(t.TempDir(), "p.vprof")
	_, err = recordErr(Config{Output: prof, Args: []string{exe, "150"}, Stdout: out, Signals: make(chan os.Signal), test: testOptions{panicAtTick: 50}})
	if err == nil || !strings.Contains(err.Error(), "internal error") || !strings.Contains(err.Error(), "left running") {
		t.Fatalf("Record after an injected panic: %v", err)
	}
	// The detached program is still this process's child: wait for it.
	pid := readPIDFromProfile(t, prof)[0]
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil {
		t.Fatal(err)
	}
	got := read()
	if strings.Fields(got)[1] != strings.Fields(string(want))[1] || ws.ExitStatus() != 0 {
		t.Errorf("program after the recorder's panic: output %q status %v, want checksum %q", got, ws, strings.Fields(string(want))[1])
	}
}

// TestAttachSIGINTDetaches: Ctrl-C (SIGINT) to vprof in attach mode ends
// the recording and detaches; the program runs on.
func TestAttachSIGINTDetaches(t *testing.T) {
	exe := buildC(t, "checksum", "-g")
	cmd, pid, br := startProgram(t, exe, "200")
	sigs := make(chan os.Signal, 1)
	go func() {
		time.Sleep(150 * time.Millisecond)
		sigs <- syscall.SIGINT
	}()
	res, p := record(t, Config{PID: pid, Signals: sigs})
	if res.ExitStatus != 0 || !p.trailer.Detached || !strings.Contains(res.Reason, "SIGINT") {
		t.Errorf("exit %d, detached %v, reason %q", res.ExitStatus, p.trailer.Detached, res.Reason)
	}
	var sum string
	fmt.Fscan(br, &sum)
	if err := cmd.Wait(); err != nil || sum == "" {
		t.Errorf("program after detach: %v, output %q", err, sum)
	}
}

func TestScheduleJitter(t *testing.T) {
	for _, jitter := range []bool{false, true} {
		r := &sampling{cfg: &Config{Interval: time.Millisecond, Jitter: jitter}, rng: rand.New(rand.NewPCG(1, 2))}
		var gaps []float64
		now := int64(0)
		for i := 0; i < 20000; i++ {
			prev := r.nextTick
			r.schedule(now)
			gaps = append(gaps, float64(r.nextTick-prev))
			now = r.nextTick
		}
		var mean, sd float64
		for _, g := range gaps {
			mean += g
		}
		mean /= float64(len(gaps))
		for _, g := range gaps {
			sd += (g - mean) * (g - mean)
		}
		sd = math.Sqrt(sd / float64(len(gaps)))
		// Exponential gaps: mean ~ the interval (slightly less: capped at
		// 20x), standard deviation ~ the mean. Fixed gaps: no spread.
		if math.Abs(mean-1e6) > 0.05e6 {
			t.Errorf("jitter %v: mean gap %.0f ns, want about 1 ms", jitter, mean)
		}
		if jitter && (sd < 0.8*mean || sd > 1.2*mean) || !jitter && sd != 0 {
			t.Errorf("jitter %v: gap standard deviation %.0f ns for a mean of %.0f", jitter, sd, mean)
		}
		if r.steps.Lost != 0 {
			t.Errorf("jitter %v: %d ticks counted lost with ticks on time", jitter, r.steps.Lost)
		}
	}
	// A tick taken late: the missed ticks are counted, not taken in a burst.
	r := &sampling{cfg: &Config{Interval: time.Millisecond}}
	r.nextTick = 1e6
	r.schedule(5.5e6)
	if r.steps.Lost != 4 || r.nextTick != 6.5e6 {
		t.Errorf("late tick: lost %d, next %d; want 4 lost and the next at 6.5 ms", r.steps.Lost, r.nextTick)
	}
}

// TestFuncFilter: --func keeps only the matching functions' variables
// ('#global' would keep the globals).
func TestFuncFilter(t *testing.T) {
	exe := buildC(t, "phases", "-g")
	_, p := record(t, Config{Args: []string{exe, "2000000", "6"}, Depth: 3, FuncRegex: regexp.MustCompile(`^spin$`)})
	fns := map[string]int{}
	for _, s := range p.samples {
		for _, v := range s.s.Values {
			o := p.objs[v.Obj]
			vr := o.Schema.Vars[v.Var]
			fn := "#global"
			if vr.Func >= 0 {
				fn = o.Schema.Funcs[vr.Func].Name
			}
			fns[fn]++
		}
	}
	if fns["spin"] == 0 || len(fns) != 1 {
		t.Errorf("values by function %v: want spin's only", fns)
	}
}
