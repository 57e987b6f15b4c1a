package sampler

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/proffile"
)

var (
	buildDir  string
	buildMu   sync.Mutex
	buildDone = map[string]string{}
)

func TestMain(m *testing.M) {
	if os.Getenv("VPROF_SAMPLER_HELPER") != "" {
		os.Exit(helperRecorder())
	}
	d, err := os.MkdirTemp("", "sampler-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	buildDir = d
	code := m.Run()
	os.RemoveAll(d)
	os.Exit(code)
}

// helperRecorder is the test binary re-executed as a recorder (to be
// killed with SIGKILL): VPROF_SAMPLER_HELPER=out-path, args after "--".
func helperRecorder() int {
	args := os.Args[1:]
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	_, err := Record(Config{Output: os.Getenv("VPROF_SAMPLER_HELPER"), Args: args, Sampler: os.Getenv("VPROF_SAMPLER_HELPER_SAMPLER"),
		Warn: func(s string) { fmt.Fprintln(os.Stderr, "warning:", s) }})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	return 0
}

func needTools(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not installed")
	}
}

// buildC compiles testdata/<name>.c (gcc -O2, -g unless nodebug) once per
// test run and returns the binary's path.
func buildC(t testing.TB, name string, flags ...string) string {
	t.Helper()
	needTools(t)
	key := name + " " + strings.Join(flags, " ")
	buildMu.Lock()
	defer buildMu.Unlock()
	if p, ok := buildDone[key]; ok {
		return p
	}
	out := filepath.Join(buildDir, fmt.Sprintf("%s-%d", name, len(buildDone)))
	src, _ := filepath.Abs(filepath.Join("testdata", name+".c"))
	args := append([]string{"-O2", "-o", out, src}, flags...)
	if cmd := exec.Command("gcc", args...); true {
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("gcc %s: %v\n%s", strings.Join(args, " "), err, b)
		}
	}
	buildDone[key] = out
	return out
}

// buildStacks builds stacks.c linked with libwork.so.
func buildStacks(t testing.TB) string {
	t.Helper()
	dir := filepath.Dir(buildStacksLib(t))
	return buildC(t, "stacks", "-g", "-L"+dir, "-lwork", "-Wl,-rpath,"+dir)
}

// buildStacksLib builds libwork.so and returns its path.
func buildStacksLib(t testing.TB) string {
	t.Helper()
	lib := buildC(t, "libwork", "-g", "-shared", "-fPIC")
	so := filepath.Join(filepath.Dir(lib), "libwork.so")
	buildMu.Lock()
	defer buildMu.Unlock()
	if _, err := os.Stat(so); err != nil {
		if err := os.Link(lib, so); err != nil {
			t.Fatal(err)
		}
	}
	return so
}

// samp is one sample read back, with its stack symbolised.
type samp struct {
	pid, tid int32
	s        model.Sample
	funcs    []string // per frame: function (program) or lib:function
}

// prof is a profile read back.
type prof struct {
	hdr     model.Header
	objs    map[uint16]*model.Object
	procs   []model.ProcEvent
	threads []model.ThreadEvent
	samples []samp
	trailer *model.Trailer
	rec     proffile.Recovery
}

func readProfile(t testing.TB, path string) *prof {
	t.Helper()
	r, err := proffile.Open(path)
	if err != nil {
		t.Fatalf("open profile: %v", err)
	}
	defer r.Close()
	p := &prof{hdr: r.Header(), objs: map[uint16]*model.Object{}}
	space := proffile.NewAddrSpace()
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("read profile: %v", err)
		}
		space.Observe(rec)
		switch x := rec.(type) {
		case *model.Object:
			p.objs[x.ID] = x
		case *model.ProcEvent:
			p.procs = append(p.procs, *x)
		case *model.ThreadEvent:
			p.threads = append(p.threads, *x)
		case *model.Block:
			for _, s := range x.Samples {
				c := samp{pid: x.PID, tid: x.TID, s: s}
				c.s.Stack = append([]uint64(nil), s.Stack...)
				c.s.Values = append([]model.Value(nil), s.Values...)
				for i, pc := range s.Stack {
					if i > 0 {
						pc--
					}
					name := ""
					if id, link, ok := space.Resolve(x.PID, pc); ok {
						name = symName(p.objs[id], link)
					}
					c.funcs = append(c.funcs, name)
				}
				p.samples = append(p.samples, c)
			}
		case *model.Trailer:
			p.trailer = x
		}
	}
	p.rec = r.Recovery()
	return p
}

func symName(o *model.Object, link uint64) string {
	if o == nil {
		return ""
	}
	syms := o.Schema.Symbols
	i := sort.Search(len(syms), func(i int) bool { return syms[i].Value > link }) - 1
	if i < 0 {
		return filepath.Base(o.Path) + ":?"
	}
	if o.Program {
		return syms[i].Name
	}
	return filepath.Base(o.Path) + ":" + syms[i].Name
}

// val is one value sample with its context.
type val struct {
	model.Value
	sample int // index in prof.samples
	fn     string
}

// values returns the value samples of variable name of function fn
// ("#global" for globals).
func (p *prof) values(fn, name string) []val {
	var out []val
	for i := range p.samples {
		for _, v := range p.samples[i].s.Values {
			o := p.objs[v.Obj]
			if o == nil || int(v.Var) >= len(o.Schema.Vars) {
				continue
			}
			vr := &o.Schema.Vars[v.Var]
			f := "#global"
			if vr.Func != model.NoFunc {
				f = o.Schema.Funcs[vr.Func].Name
			}
			if vr.Name == name && f == fn {
				out = append(out, val{Value: v, sample: i, fn: f})
			}
		}
	}
	return out
}

func f64(bits uint64) float64 { return math.Float64frombits(bits) }

// record runs a recording with test defaults and reads the profile back.
func record(t *testing.T, cfg Config) (*Result, *prof) {
	t.Helper()
	if cfg.Output == "" {
		cfg.Output = filepath.Join(t.TempDir(), "test.vprof")
	}
	if cfg.Signals == nil {
		cfg.Signals = make(chan os.Signal)
	}
	if cfg.Stdout == nil {
		cfg.Stdout = devNull(t)
	}
	var warns []string
	if cfg.Warn == nil {
		cfg.Warn = func(s string) { warns = append(warns, s) }
	}
	res, err := recordErr(cfg)
	if err != nil {
		t.Fatalf("Record: %v", err)
	}
	for _, w := range warns {
		t.Logf("warning: %s", w)
	}
	return res, readProfile(t, cfg.Output)
}

func devNull(t testing.TB) *os.File {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// startProgram runs a program outside the recorder; it prints its pid on
// the first line of stdout, returned with a reader of the rest.
func startProgram(t *testing.T, path string, args ...string) (*exec.Cmd, int, *bufio.Reader) {
	t.Helper()
	cmd := exec.Command(path, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	br := bufio.NewReader(out)
	var pid int
	if _, err := fmt.Fscan(br, &pid); err != nil {
		t.Fatalf("reading pid of %s: %v", path, err)
	}
	if pid != cmd.Process.Pid {
		t.Fatalf("program says pid %d, started %d", pid, cmd.Process.Pid)
	}
	return cmd, pid, br
}

// pipeStdout gives a launched program a stdout pipe, returning the writer
// for Config.Stdout and a function that reads everything written.
func pipeStdout(t *testing.T) (*os.File, func() string) {
	t.Helper()
	rd, wr, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var buf strings.Builder
	done := make(chan struct{})
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := rd.Read(b)
			mu.Lock()
			buf.Write(b[:n])
			mu.Unlock()
			if err != nil {
				close(done)
				return
			}
		}
	}()
	t.Cleanup(func() { rd.Close() })
	return wr, func() string {
		wr.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
		mu.Lock()
		defer mu.Unlock()
		return buf.String()
	}
}

// readLine waits for a line of a program's output (its pid), with the
// recording running in another goroutine.
func waitFile(t *testing.T, path string, d time.Duration) string {
	t.Helper()
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		if b, err := os.ReadFile(path); err == nil && strings.Contains(string(b), "\n") {
			return string(b)
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("%s: nothing written after %v", path, d)
	return ""
}

// testSampler, when set, is the sampler of the recordings that do not
// name one (TestSamplers runs the suite with the sampler auto does not
// pick).
var testSampler string

// recordErr is Record with testSampler.
func recordErr(cfg Config) (*Result, error) {
	if cfg.Sampler == "" {
		cfg.Sampler = testSampler
	}
	return Record(cfg)
}
