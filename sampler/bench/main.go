// Command bench measures what recording costs a program (`make bench`):
// a server-shaped workload (testdata/benchserver.c: worker threads serving
// requests against a shared hash table, struct globals, fields behind
// pointers; fixed work) at 1, 4 and 16 threads, run plain, under the whole
// `vprof record` command (1 kHz, values and struct fields, depth 3) and
// under `perf record -F 1000 --call-graph dwarf`, interleaved, several runs
// each. For each thread count it prints the ratios of the profiled command
// to the plain one, wall and CPU (program and profiler together), as the
// median over pairs of runs taken side by side, and vprof's own per-stage
// breakdown (from the Result that vprof record writes to VPROF_RESULT_JSON).
// Options add the ptrace sampler, the wall clock, runs without struct
// fields, the perf events alone (the kernel's share), gcc -pg and a rate
// sweep.
//
// It measures on the machine it runs on, whatever else that machine is
// doing: the load average is printed with the results, and interleaving
// the configurations spreads the noise evenly. On a machine with fewer
// CPUs than threads plus one, the wall ratios measure the CPU share the
// profiler takes from the program, not its cost on an idle server.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/sampler"
)

// goal is the ratio vprof must stay under (issue 18: 3%).
const goal = 1.03

func main() {
	runs := flag.Int("runs", 5, "runs of each configuration (pairs with the plain runs)")
	threadList := flag.String("threads", "1,4,16", "workload thread counts, measured one after the other")
	rounds := flag.Int("rounds", 0, "workload rounds (0: calibrate each thread count to about -target of plain wall time)")
	target := flag.Duration("target", 2*time.Second, "plain wall time to calibrate the workload to")
	rates := flag.String("rates", "", "sampling rates (Hz) of a rate sweep at the largest thread count, e.g. 1000,2000,5000 (empty: none)")
	src := flag.String("src", "", "workload source, built with gcc -g -O2 (default: testdata/benchserver.c next to this program)")
	exe := flag.String("exe", "", "prebuilt workload (THREADS ROUNDS arguments) instead of -src: no compiler needed")
	vprofBin := flag.String("vprof", "", "the vprof command to measure (default: bin/vprof, else built into a temporary directory);\n"+
		"NAME=PATH,NAME=PATH measures several side by side (a build before and after a change)")
	perfBin := flag.String("perf", "perf", "the perf command to compare with")
	samplers := flag.String("samplers", "perf", "vprof samplers to measure, side by side (perf, ptrace, auto)")
	clocks := flag.String("clocks", "cpu", "vprof clocks to measure, side by side (cpu, wall)")
	fields := flag.Bool("fields", false, "also measure each vprof configuration without struct fields (--no-fields), side by side")
	kernel := flag.Bool("kernel", false, "also measure the perf sampler's events with nothing reading them (the kernel's share)")
	gprof := flag.Bool("gprof", false, "also measure the workload built with gcc -pg")
	life := flag.Bool("lifecycle", false, "measure the fixed costs instead (testdata/lifecycle.c): start to main, exit to vprof's exit, 1000 thread creations")
	pairs := flag.Int("pairs", 30, "-lifecycle: rounds (each runs plain and every vprof build)")
	flag.Parse()
	if *life {
		if err := lifecycle(options{vprof: *vprofBin}, *pairs); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	var vps []vprofConf
	for _, c := range strings.Split(*clocks, ",") {
		if c != string(model.ClockCPU) && c != string(model.ClockWall) {
			fmt.Fprintf(os.Stderr, "bench: -clocks: unknown clock %q (cpu, wall)\n", c)
			os.Exit(2)
		}
		for _, smp := range strings.Split(*samplers, ",") {
			vps = append(vps, vprofConf{sampler: smp, clock: model.Clock(c)})
			if *fields {
				vps = append(vps, vprofConf{sampler: smp, clock: model.Clock(c), noFields: true})
			}
		}
	}
	var threads []int
	for _, f := range strings.Split(*threadList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 256 {
			fmt.Fprintf(os.Stderr, "bench: -threads: bad thread count %q (1 to 256)\n", f)
			os.Exit(2)
		}
		threads = append(threads, n)
	}
	o := options{runs: *runs, threads: threads, rounds: *rounds, target: *target, rates: *rates, src: *src, exe: *exe,
		vprof: *vprofBin, perf: *perfBin, vps: vps, kernel: *kernel, gprof: *gprof}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

type options struct {
	runs          int
	threads       []int
	rounds        int
	target        time.Duration
	rates         string
	src, exe      string
	vprof, perf   string
	vps           []vprofConf
	kernel, gprof bool
}

// config is one way of running the workload.
type config struct {
	name string
	run  func() (measure, error)
	vp   *vprofConf // a vprof recording
	perf bool       // perf record
}

// vprofConf is a vprof command, a sampler and a clock of vprof record.
type vprofConf struct {
	bin, label string // the command, and its NAME when several are measured
	sampler    string
	clock      model.Clock
	noFields   bool   // --no-fields
	cache      string // XDG_CACHE_HOME: the build's own schema cache
}

// key names it: the sampler, prefixed by the clock unless cpu.
func (v vprofConf) key() string {
	k := v.sampler
	if v.label != "" {
		k = v.label + " " + k
	}
	if v.clock != model.ClockCPU {
		k = string(v.clock) + "-" + v.sampler
	}
	if v.noFields {
		k += "-nofields"
	}
	return k
}

// measure is one run.
type measure struct {
	wall    time.Duration
	cpu     time.Duration // program and profiler
	samples int64
	lost    int64
	res     *sampler.Result
}

// row is one thread count's headline figures, for the closing summary.
type row struct {
	threads               int
	vprof, perf           []ratio // per vprof configuration; perf record's (empty if not run)
	vprofNames            []string
	perSample, share, lag []float64 // vprof CPU per sample (µs), vprof CPU / program CPU, lag (ms)
}

// ratio is a profiled configuration against plain: medians over pairs.
type ratio struct{ wall, cpu float64 }

func run(o options) error {
	dir, err := os.MkdirTemp("", "vprof-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	exe, pg := o.exe, ""
	name := filepath.Base(exe)
	if exe == "" {
		if o.src == "" {
			o.src = findSource()
		}
		name = filepath.Base(o.src)
		exe = filepath.Join(dir, strings.TrimSuffix(name, ".c"))
		if err := gcc(o.src, exe); err != nil {
			return err
		}
		if o.gprof {
			pg = exe + "-pg"
			if err := gcc(o.src, pg, "-pg"); err != nil {
				fmt.Println("  (gcc -pg failed: gprof skipped)")
				pg = ""
			}
		}
	} else {
		if exe, err = filepath.Abs(exe); err != nil { // runs in dir
			return err
		}
		if o.gprof {
			fmt.Println("  (-exe given: gprof skipped, it needs -src)")
		}
	}
	var bins []string
	var vps []vprofConf
	for _, spec := range strings.Split(o.vprof, ",") {
		label, path, named := strings.Cut(spec, "=")
		if !named {
			label, path = "", spec
		}
		bin, err := findVprof(path, dir)
		if err != nil {
			return err
		}
		bins = append(bins, bin)
		// Each build its own schema cache: a cache file records the vprof
		// build that wrote it, and builds that shared one would each find
		// the other's stale and read the DWARF again at every run.
		cache := filepath.Join(dir, fmt.Sprintf("cache-%d", len(bins)))
		for _, vp := range o.vps {
			vp.bin, vp.label, vp.cache = bin, label, cache
			vps = append(vps, vp)
		}
	}
	o.vps = vps
	havePerf := perfWorks(o.perf, dir)
	perfOK := perfSamplerWorks(dir)
	fmt.Printf("vprof bench: %s at %v threads, %d runs each, %d CPUs (%s), kernel %s, load average %s\n",
		name, o.threads, o.runs, runtime.NumCPU(), cpuModel(), kernelRelease(), loadavg())
	fmt.Printf("  vprof: %s; perf: %s\n", strings.Join(bins, ", "), perfVersion(o.perf, havePerf))
	var rows []row
	for _, n := range o.threads {
		rw, err := measureThreads(o, dir, exe, pg, n, havePerf, perfOK)
		if err != nil {
			return err
		}
		rows = append(rows, rw)
	}
	summary(os.Stdout, rows)
	return nil
}

// measureThreads measures every configuration at n threads.
func measureThreads(o options, dir, exe, pg string, n int, havePerf, perfOK bool) (row, error) {
	rounds := o.rounds
	if rounds == 0 {
		// Calibrate on the median of three short runs.
		var ws []time.Duration
		for i := 0; i < 3; i++ {
			m, err := plain(exe, n, 50)()
			if err != nil {
				return row{}, err
			}
			ws = append(ws, m.wall)
		}
		rounds = max(10, int(50*o.target.Seconds()/median(ws).Seconds()))
	}
	args := []string{exe, fmt.Sprint(n), fmt.Sprint(rounds)}
	fmt.Printf("\n== %d thread(s): %d rounds, %d runs each, load average %s\n", n, rounds, o.runs, loadavg())

	cfgs := []config{{name: "plain", run: plain(exe, n, rounds)}}
	var vprofs []int // indexes of the vprof configurations
	kernelShare := false
	for _, vp := range o.vps {
		if vp.sampler == sampler.SamplerPerf && !perfOK {
			fmt.Printf("  (vprof's perf sampler not usable here: --clock %s --sampler perf skipped)\n", vp.clock)
			continue
		}
		vprofs = append(vprofs, len(cfgs))
		what := "values, fields"
		if vp.noFields {
			what = "values, --no-fields"
		}
		prefix := "vprof"
		if vp.label != "" {
			prefix = vp.label + ": vprof"
		}
		cfgs = append(cfgs, config{name: fmt.Sprintf("%s record --sampler %s --clock %s (%s)", prefix, vp.sampler, vp.clock, what),
			run: vprofRun(vp.bin, dir, args, time.Millisecond, vp), vp: &vp})
		if o.kernel && vp.sampler == sampler.SamplerPerf && !kernelShare {
			kernelShare = true
			cfgs = append(cfgs, config{name: "vprof's perf events alone (the kernel's share)", run: kernelRun(dir, args, time.Millisecond)})
		}
	}
	if havePerf {
		cfgs = append(cfgs, config{name: "perf record -F 1000 --call-graph dwarf", run: perfRun(o.perf, dir, args), perf: true})
	} else {
		fmt.Printf("  (%s record not usable here: skipped; make perf-tools installs it)\n", o.perf)
	}
	if pg != "" {
		cfgs = append(cfgs, config{name: "gcc -pg (gprof)", run: pgRun(dir, pg, n, rounds)})
	}
	// A first recording by each vprof configuration fills its schema
	// cache, as a user's first recording of a build does; not measured.
	for _, c := range cfgs {
		if c.vp != nil && !warmed[c.vp.cache] {
			warmed[c.vp.cache] = true
			if _, err := c.run(); err != nil {
				return row{}, fmt.Errorf("%s: %w", c.name, err)
			}
		}
	}
	results, err := interleave(cfgs, o.runs)
	if err != nil {
		return row{}, err
	}
	rw := row{threads: n}
	ratios := table(os.Stdout, cfgs, results)
	for i, c := range cfgs {
		switch {
		case c.vp != nil:
			rw.vprof = append(rw.vprof, ratios[i])
			rw.vprofNames = append(rw.vprofNames, c.vp.key())
			ps, share, lag := steps(os.Stdout, c.name, results[i], results[0])
			rw.perSample, rw.share, rw.lag = append(rw.perSample, ps), append(rw.share, share), append(rw.lag, lag)
		case c.perf:
			rw.perf = append(rw.perf, ratios[i])
		}
	}

	if o.rates != "" && len(vprofs) > 0 && n == o.threads[len(o.threads)-1] {
		var sweep []config
		sweep = append(sweep, cfgs[0])
		for _, f := range strings.Split(o.rates, ",") {
			var hz int
			if _, err := fmt.Sscan(strings.TrimSpace(f), &hz); err != nil || hz <= 0 {
				return row{}, fmt.Errorf("bad rate %q", f)
			}
			for _, i := range vprofs {
				vp := *cfgs[i].vp
				sweep = append(sweep, config{name: fmt.Sprintf("%s %d Hz", vp.key(), hz), run: vprofRun(vp.bin, dir, args, time.Second/time.Duration(hz), vp), vp: &vp})
			}
		}
		k := max(3, o.runs/2)
		fmt.Printf("\nRate sweep at %d threads (%d runs each, interleaved):\n", n, k)
		res, err := interleave(sweep, k)
		if err != nil {
			return row{}, err
		}
		rateTable(os.Stdout, sweep, res)
	}
	return rw, nil
}

// warmed holds the schema caches filled (vprofConf.cache).
var warmed = map[string]bool{}

// perfSamplerWorks reports whether vprof's perf sampler can run here.
func perfSamplerWorks(dir string) bool {
	res, err := sampler.Record(sampler.Config{Output: filepath.Join(dir, "probe.vprof"), Args: []string{"true"},
		Sampler: sampler.SamplerPerf, Signals: make(chan os.Signal)})
	return err == nil && res.Sampler == sampler.SamplerPerf
}

// interleave runs every configuration once per round, rotating the order
// so no configuration always follows the same one.
func interleave(cfgs []config, runs int) ([][]measure, error) {
	out := make([][]measure, len(cfgs))
	for r := 0; r < runs; r++ {
		for k := range cfgs {
			i := (k + r) % len(cfgs)
			m, err := cfgs[i].run()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", cfgs[i].name, err)
			}
			out[i] = append(out[i], m)
		}
	}
	return out, nil
}

func findSource() string {
	for _, p := range []string{"testdata/benchserver.c", "sampler/bench/testdata/benchserver.c"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return "sampler/bench/testdata/benchserver.c"
}

// findVprof is the vprof command to measure: the one given, bin/vprof, or
// one built into dir.
func findVprof(given, dir string) (string, error) {
	if given != "" {
		return filepath.Abs(given)
	}
	for _, p := range []string{"bin/vprof", "../../bin/vprof"} {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return filepath.Abs(p)
		}
	}
	out := filepath.Join(dir, "vprof")
	if b, err := exec.Command("go", "build", "-o", out, "github.com/vprof/vprof/cmd/vprof").CombinedOutput(); err != nil {
		return "", fmt.Errorf("building vprof (or give -vprof): %w\n%s", err, b)
	}
	return out, nil
}

func gcc(src, out string, extra ...string) error {
	args := append([]string{"-g", "-O2", "-pthread", "-o", out, src}, extra...)
	if b, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("gcc %s: %w\n%s", strings.Join(args, " "), err, b)
	}
	return nil
}

func perfWorks(perf, dir string) bool {
	if _, err := exec.LookPath(perf); err != nil {
		return false
	}
	return exec.Command(perf, "record", "-q", "-F", "1000", "--call-graph", "dwarf", "-o", filepath.Join(dir, "probe.data"), "--", "true").Run() == nil
}

func perfVersion(perf string, ok bool) string {
	if !ok {
		return "not usable"
	}
	b, err := exec.Command(perf, "--version").Output()
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(b))
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "?"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}

func kernelRelease() string {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return "?"
	}
	return unix.ByteSliceToString(u.Release[:])
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// childCPU is the CPU time of waited-for children so far.
func childCPU() time.Duration {
	var ru unix.Rusage
	unix.Getrusage(unix.RUSAGE_CHILDREN, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func command(dir string, name string, args ...string) func() (measure, error) {
	return func() (measure, error) {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Stdout = io.Discard
		var stderr strings.Builder
		cmd.Stderr = &stderr
		c0 := childCPU()
		t0 := time.Now()
		err := cmd.Run()
		m := measure{wall: time.Since(t0), cpu: childCPU() - c0}
		if err != nil {
			return m, fmt.Errorf("%w: %s", err, stderr.String())
		}
		return m, nil
	}
}

func plain(exe string, threads, rounds int) func() (measure, error) {
	return command(filepath.Dir(exe), exe, fmt.Sprint(threads), fmt.Sprint(rounds))
}

// perfRun is perf record as its users run it for call stacks of code
// built without frame pointers: 8 KiB of stack copied at each sample,
// unwound later by perf report.
func perfRun(perf, dir string, args []string) func() (measure, error) {
	return command(dir, perf, append([]string{"record", "-q", "-F", "1000", "--call-graph", "dwarf", "-o", filepath.Join(dir, "perf.data"), "--"}, args...)...)
}

func pgRun(dir, pg string, threads, rounds int) func() (measure, error) {
	return command(dir, pg, fmt.Sprint(threads), fmt.Sprint(rounds))
}

// vprofRun runs the whole vprof record command, as a user would: its
// start-up, the schema and CFI loading, the recording and the profile's
// last write are all in the times. vprof writes its Result (the per-step
// times) to a file named by VPROF_RESULT_JSON.
func vprofRun(vprof, dir string, args []string, interval time.Duration, vp vprofConf) func() (measure, error) {
	return func() (measure, error) {
		resPath := filepath.Join(dir, "result.json")
		os.Remove(resPath)
		a := []string{"record", "-q", "-o", filepath.Join(dir, "bench.vprof"), "--sampler", vp.sampler, "--clock", string(vp.clock),
			"--interval", interval.String(), "--depth", "3", "--stack", "64"}
		if vp.noFields {
			a = append(a, "--no-fields")
		}
		a = append(append(a, "--"), args...)
		cmd := exec.Command(vprof, a...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "VPROF_RESULT_JSON="+resPath)
		if vp.cache != "" {
			cmd.Env = append(cmd.Env, "XDG_CACHE_HOME="+vp.cache)
		}
		cmd.Stdout = io.Discard
		var stderr strings.Builder
		cmd.Stderr = &stderr
		c0 := childCPU()
		t0 := time.Now()
		err := cmd.Run()
		m := measure{wall: time.Since(t0), cpu: childCPU() - c0}
		if err != nil {
			return m, fmt.Errorf("%w: %s", err, stderr.String())
		}
		b, err := os.ReadFile(resPath)
		if err != nil {
			return m, fmt.Errorf("vprof wrote no result (%w): %s", err, stderr.String())
		}
		var res sampler.Result
		if err := json.Unmarshal(b, &res); err != nil {
			return m, fmt.Errorf("%s: %w", resPath, err)
		}
		if res.ExitStatus != 0 {
			return m, errors.New("workload failed under vprof")
		}
		if vp.sampler != sampler.SamplerAuto && res.Sampler != vp.sampler {
			return m, fmt.Errorf("recorded with the %s sampler, not %s", res.Sampler, vp.sampler)
		}
		m.samples, m.lost, m.res = res.Trailer.Samples, res.Trailer.LostTicks, &res
		return m, nil
	}
}

// kernelRun runs the workload with the sampling events of vprof's perf
// sampler (task clock, user registers, 8 KiB of stack) but nothing reading
// them: an overwrite ring (mapped read-only) takes the samples. It measures
// what the kernel's sampling costs the program, apart from vprof's work.
func kernelRun(dir string, args []string, interval time.Duration) func() (measure, error) {
	return func() (measure, error) {
		// The event is opened disabled on this thread, inherited by the
		// child it forks, and enabled in the child at its exec.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		a := unix.PerfEventAttr{
			Type:   unix.PERF_TYPE_SOFTWARE,
			Config: unix.PERF_COUNT_SW_TASK_CLOCK,
			Sample: uint64(interval),
			Sample_type: unix.PERF_SAMPLE_IDENTIFIER | unix.PERF_SAMPLE_IP | unix.PERF_SAMPLE_TID | unix.PERF_SAMPLE_TIME |
				unix.PERF_SAMPLE_PERIOD | unix.PERF_SAMPLE_REGS_USER | unix.PERF_SAMPLE_STACK_USER,
			Bits: unix.PerfBitDisabled | unix.PerfBitInherit | unix.PerfBitEnableOnExec | unix.PerfBitExcludeKernel |
				unix.PerfBitExcludeHv | unix.PerfBitSampleIDAll | unix.PerfBitUseClockID,
			Sample_regs_user:  1<<9 - 1 | 0xff<<16,
			Sample_stack_user: 8 << 10,
			Clockid:           unix.CLOCK_MONOTONIC,
		}
		a.Size = uint32(unsafe.Sizeof(a))
		// One event and ring per CPU the workload may run on (the kernel
		// maps no ring of an inherited event of all CPUs).
		var cpus unix.CPUSet
		if err := unix.SchedGetaffinity(0, &cpus); err != nil {
			return measure{}, err
		}
		for c := 0; c < 1024; c++ {
			if !cpus.IsSet(c) {
				continue
			}
			fd, err := unix.PerfEventOpen(&a, 0, c, -1, unix.PERF_FLAG_FD_CLOEXEC)
			if err != nil {
				return measure{}, fmt.Errorf("perf_event_open on CPU %d: %w", c, err)
			}
			defer unix.Close(fd)
			mem, err := unix.Mmap(fd, 0, (1+256)*os.Getpagesize(), unix.PROT_READ, unix.MAP_SHARED)
			if err != nil {
				return measure{}, fmt.Errorf("mapping the ring of CPU %d: %w", c, err)
			}
			defer unix.Munmap(mem)
		}
		return command(dir, args[0], args[1:]...)()
	}
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func walls(ms []measure) []time.Duration {
	var out []time.Duration
	for _, m := range ms {
		out = append(out, m.wall)
	}
	return out
}

func cpus(ms []measure) []time.Duration {
	var out []time.Duration
	for _, m := range ms {
		out = append(out, m.cpu)
	}
	return out
}

// pairRatios is the median over the rounds of interleave of a run's time
// over the plain run's of the same round.
func pairRatios(ms, base []measure, of func(measure) time.Duration) float64 {
	var rs []float64
	for i := range ms {
		if i < len(base) && of(base[i]) > 0 {
			rs = append(rs, of(ms[i]).Seconds()/of(base[i]).Seconds())
		}
	}
	sort.Float64s(rs)
	switch {
	case len(rs) == 0:
		return 0
	case len(rs)%2 == 1:
		return rs[len(rs)/2]
	}
	return (rs[len(rs)/2-1] + rs[len(rs)/2]) / 2
}

func wallOf(m measure) time.Duration { return m.wall }
func cpuOf(m measure) time.Duration  { return m.cpu }

// table prints every configuration's medians and its ratios to plain, and
// returns the ratios.
func table(w io.Writer, cfgs []config, res [][]measure) []ratio {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "configuration\twall ratio\tCPU ratio\tmedian wall\tmedian CPU (program+profiler)\tmin..max wall\t")
	out := make([]ratio, len(cfgs))
	for i, c := range cfgs {
		ws := walls(res[i])
		sort.Slice(ws, func(a, b int) bool { return ws[a] < ws[b] })
		out[i] = ratio{pairRatios(res[i], res[0], wallOf), pairRatios(res[i], res[0], cpuOf)}
		fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%.3f s\t%.3f s\t%.3f..%.3f\t\n", c.name, out[i].wall, out[i].cpu,
			median(ws).Seconds(), median(cpus(res[i])).Seconds(), ws[0].Seconds(), ws[len(ws)-1].Seconds())
	}
	tw.Flush()
	fmt.Fprintln(w, "(ratios: the median over the rounds of the run's time over the plain run's of the same round)")
	return out
}

// steps prints vprof's per-stage breakdown, from its own Result, and
// returns vprof's CPU time per sample (µs), its CPU time over the
// program's, and the mean lag of the perf sampler's samples (ms).
func steps(w io.Writer, name string, ms, plain []measure) (perSample, share, lagMS float64) {
	var s sampler.StepStats
	var samples, lost, values int64
	var fields uint64
	var tracer, setup, target, loop time.Duration
	for _, m := range ms {
		r := m.res.Steps
		s.Full += r.Full
		s.Light += r.Light
		s.Perf += r.Perf
		s.Dropped += r.Dropped
		s.Ticks += r.Ticks
		s.Decide += r.Decide
		s.Stop += r.Stop
		s.Regs += r.Regs
		s.Read += r.Read
		s.Resume += r.Resume
		s.Ring += r.Ring
		s.Unwind += r.Unwind
		s.Globals += r.Globals
		s.GlobalReads += r.GlobalReads
		s.Drains += r.Drains
		s.Poll += r.Poll
		s.Values += r.Values
		s.Write += r.Write
		s.Stopped += r.Stopped
		s.Lag += r.Lag
		s.StaticPages += r.StaticPages
		s.StaticReads += r.StaticReads
		s.MaxLag = max(s.MaxLag, r.MaxLag)
		samples += m.samples
		lost += m.lost
		values += m.res.Trailer.ValueSamples
		fields += m.res.Values.Fields
		tracer += m.res.TracerCPU - m.res.SetupCPU
		setup += m.res.SetupCPU
		target += m.res.TargetCPU
		loop += m.res.LoopCPU
	}
	n := s.Full + s.Light + s.Perf - s.Dropped
	if n == 0 {
		return 0, 0, 0
	}
	us := func(d time.Duration, k uint64) float64 { return float64(d.Nanoseconds()) / float64(max(k, 1)) / 1e3 }
	fmt.Fprintf(w, "\n%s, per sample (µs, mean of %d samples over %d runs; %d lost):\n", name, n, len(ms), lost)
	if s.Perf > 0 {
		fmt.Fprintf(w, "  samples: %d from perf events, %d of running threads stopped, %d of blocked threads\n", s.Perf-s.Dropped, s.Full, s.Light)
	} else {
		fmt.Fprintf(w, "  samples: %d of running threads stopped, %d of blocked threads (%d ticks)\n", s.Full, s.Light, s.Ticks)
	}
	fmt.Fprintf(w, "  values per sample %.1f, of which fields behind pointers %.1f\n", float64(values)/float64(max(samples, 1)), float64(fields)/float64(max(samples, 1)))
	staged := s.Unwind + s.Globals + s.Values + s.Write
	if s.Perf > 0 {
		fmt.Fprintf(w, "  poll    %6.1f  (draining the rings besides their records: %.1f µs per drain, %.1f samples per drain)\n",
			us(s.Poll, n), us(s.Poll, s.Drains), float64(n)/float64(max(s.Drains, 1)))
		fmt.Fprintf(w, "  ring    %6.1f  (a record taken from its ring: parsed, registers and stack copy)\n", us(s.Ring, n))
		staged += s.Ring + s.Poll
	} else {
		fmt.Fprintf(w, "  choose  %6.1f  per tick (%.1f per sample)\n", us(s.Decide, s.Ticks), us(s.Decide, n))
		fmt.Fprintf(w, "  stop    %6.1f  (PTRACE_INTERRUPT to stopped: latency, the tracer sleeps)\n", us(s.Stop, s.Full))
		fmt.Fprintf(w, "  regs    %6.1f  (PTRACE_GETREGS)\n", us(s.Regs, s.Full))
		fmt.Fprintf(w, "  copy    %6.1f  (stack window, process_vm_readv)\n", us(s.Read, n))
		fmt.Fprintf(w, "  resume  %6.1f  (PTRACE_CONT)\n", us(s.Resume, s.Full))
		staged += s.Decide + s.Regs + s.Read + s.Resume
	}
	fmt.Fprintf(w, "  globals %6.1f  (%.1f µs per read, once per process per drain or tick)\n", us(s.Globals, n), us(s.Globals, s.GlobalReads))
	fmt.Fprintf(w, "  unwind  %6.1f  (CFI, cached)\n", us(s.Unwind, n))
	fmt.Fprintf(w, "  values  %6.1f  (locations, batched reads, fields behind pointers)\n", us(s.Values, n))
	if s.StaticPages > 0 {
		fmt.Fprintf(w, "          (static data: %.2f pages copied and %.2f reads answered from the copies per sample)\n",
			float64(s.StaticPages)/float64(n), float64(s.StaticReads)/float64(n))
	}
	fmt.Fprintf(w, "  write   %6.1f  (encoding into the profile)\n", us(s.Write, n))
	fmt.Fprintf(w, "  other   %6.1f  (vprof's CPU time outside those: waking up, tracee events, flushes, the Go runtime)\n",
		us(max(tracer-staged, 0), n))
	perSample = us(tracer, n)
	fmt.Fprintf(w, "  = vprof's CPU %.1f per sample after start-up (start-up %.0f ms per run)\n", perSample, float64(setup.Milliseconds())/float64(len(ms)))
	if loop > 0 { // builds before session 14 do not report it
		fmt.Fprintf(w, "    of which the tracer thread %.1f, vprof's other threads %.1f (the Go runtime: sysmon, the tracer's preemptions; libraries loaded in the background)\n",
			us(loop, n), us(max(tracer-loop, 0), n))
	}
	// The start-up ends at the first sample processed, which a build that
	// drains later moves later, taking the CPU of what runs meanwhile (the
	// libraries loaded in the background, the workers' creation) out of
	// the figure above: builds compare on this one.
	fmt.Fprintf(w, "    with the start-up: %.1f per sample (%.1f ms of CPU per run)\n", us(tracer+setup, n), float64((tracer+setup).Microseconds())/1e3/float64(len(ms)))
	if s.Perf > 0 {
		if perDrain, perRec, ok := drainFit(ms); ok {
			fmt.Fprintf(w, "    fitted over the runs: %.1f per drain + %.1f per sample (least squares, no intercept)\n", perDrain, perRec)
		}
	}
	if target > 0 {
		share = (tracer + setup).Seconds() / target.Seconds()
		fmt.Fprintf(w, "  vprof's CPU time is %.2f%% of the program's\n", 100*share)
	}
	if s.Perf > 0 {
		lagMS = us(s.Lag, n) / 1e3
		fmt.Fprintf(w, "  globals and heap read %.2f ms after the tick on average, at most %.1f ms\n", lagMS, float64(s.MaxLag.Nanoseconds())/1e6)
	} else {
		fmt.Fprintf(w, "  held stopped %.1f per sample\n", us(s.Stopped, s.Full))
	}
	return perSample, share, lagMS
}

// drainFit splits vprof's CPU time after start-up in the runs of the perf
// sampler into a cost per drain (waking up every 2 ms, the Go runtime
// around it) and a cost per sample, in µs, by least squares over the
// runs: the samples per drain vary from run to run with the CPU share the
// program gets, which moves the mean cost per sample; the split does not.
// ok is false when the runs do not tell the two apart (the same samples
// per drain in every run, or noise larger than their spread).
func drainFit(ms []measure) (perDrain, perSample float64, ok bool) {
	var dd, ds, ss, dc, sc float64
	for _, m := range ms {
		d := float64(m.res.Steps.Drains)
		n := float64(m.res.Steps.Perf - m.res.Steps.Dropped)
		c := float64((m.res.TracerCPU - m.res.SetupCPU).Nanoseconds()) / 1e3
		dd, ds, ss, dc, sc = dd+d*d, ds+d*n, ss+n*n, dc+d*c, sc+n*c
	}
	det := dd*ss - ds*ds
	if len(ms) < 3 || det <= 1e-6*dd*ss {
		return 0, 0, false
	}
	perDrain, perSample = (dc*ss-sc*ds)/det, (sc*dd-dc*ds)/det
	// A negative cost is noise (a loaded machine) outweighing the spread
	// of samples per drain: no split.
	return perDrain, perSample, perDrain > 0 && perSample > 0
}

// summary prints the headline: every thread count's ratios side by side.
func summary(w io.Writer, rows []row) {
	if len(rows) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "\nSummary (ratios to the plain command, median over pairs of runs; goal: vprof at most", goal, "wall and CPU):")
	hdr := "threads\t"
	for _, k := range rows[0].vprofNames {
		hdr += fmt.Sprintf("vprof %s wall\tCPU\tµs/sample\tCPU share\t", k)
	}
	hdr += "perf record wall\tCPU\t"
	fmt.Fprintln(tw, hdr)
	ok := true
	for _, r := range rows {
		line := fmt.Sprintf("%d\t", r.threads)
		for i, v := range r.vprof {
			mark := ""
			if v.wall > goal || v.cpu > goal {
				mark, ok = " *", false
			}
			line += fmt.Sprintf("%.3f\t%.3f%s\t%.1f\t%.2f%%\t", v.wall, v.cpu, mark, r.perSample[i], 100*r.share[i])
		}
		if len(r.perf) > 0 {
			line += fmt.Sprintf("%.3f\t%.3f\t", r.perf[0].wall, r.perf[0].cpu)
		} else {
			line += "-\t-\t"
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
	if !ok {
		fmt.Fprintf(w, "(* over %.2f)\n", goal)
	}
}

func rateTable(w io.Writer, cfgs []config, res [][]measure) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "sampler, rate\tmedian wall\tvs plain\tsamples/s\tlost ticks\tvprof CPU per sample\tvprof CPU\t")
	base := median(walls(res[0]))
	best := map[string]string{}
	for i, c := range cfgs {
		mw := median(walls(res[i]))
		if i == 0 {
			fmt.Fprintf(tw, "%s\t%.3f s\t\t\t\t\t\t\n", c.name, mw.Seconds())
			continue
		}
		var samples, lost, ticks int64
		var tracer, wall time.Duration
		for _, m := range res[i] {
			samples += m.samples
			lost += m.lost
			ticks += int64(m.res.Steps.Ticks)
			tracer += m.res.TracerCPU - m.res.SetupCPU
			wall += m.wall
		}
		lostPct := 100 * float64(lost) / float64(max(lost+ticks, 1))
		fmt.Fprintf(tw, "%s\t%.3f s\t%+.1f%%\t%.0f\t%.1f%%\t%.1f µs\t%.0f%% of a CPU\t\n", c.name, mw.Seconds(), 100*(mw.Seconds()/base.Seconds()-1),
			float64(samples)/wall.Seconds(), lostPct,
			float64(tracer.Nanoseconds())/float64(max(samples, 1))/1e3, 100*tracer.Seconds()/wall.Seconds())
		smp, rate, _ := strings.Cut(c.name, " ")
		if lostPct < 1 {
			best[smp] = rate
		}
	}
	tw.Flush()
	fmt.Fprintln(w, "(a rate is sustainable while lost ticks stay near 0%: past it, ticks take longer than the interval,")
	fmt.Fprintln(w, " or the perf sampler's rings fill faster than vprof drains them)")
	done := map[string]bool{}
	for _, c := range cfgs[1:] {
		key := c.vp.key()
		if rate, ok := best[key]; ok && !done[key] {
			done[key] = true
			fmt.Fprintf(w, "highest rate with under 1%% lost ticks, %s: %s\n", key, rate)
		}
	}
}
