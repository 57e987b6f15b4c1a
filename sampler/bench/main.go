// Command bench measures what recording costs a program (`make bench`):
// a 4-thread CPU-bound workload (testdata/bench4.c, fixed work) run plain,
// under `vprof record` (1 kHz, values, depth 3) with each sampler (ptrace:
// threads stopped at each tick; perf: the kernel's perf events) and each
// clock (cpu; wall: every thread at every tick, the blocked main thread
// too), under `perf record -F 1000`, and built with -pg (gprof),
// interleaved, several runs each; it prints medians and ratios side by
// side, vprof's cost per sample by step for each sampler and clock, and
// how the cost and lost ticks grow with the sampling rate.
//
// It measures on the machine it runs on, whatever else that machine is
// doing: the load average is printed with the results, and interleaving
// the configurations spreads the noise evenly.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/sampler"
)

func main() {
	runs := flag.Int("runs", 5, "runs of each configuration (at least 5 for the report)")
	threads := flag.Int("threads", 4, "workload threads")
	rounds := flag.Int("rounds", 0, "workload rounds (0: calibrate to about -target of plain wall time)")
	target := flag.Duration("target", 2*time.Second, "plain wall time to calibrate the workload to")
	rates := flag.String("rates", "1000,2000,5000,10000", "sampling rates (Hz) of the rate sweep; empty skips it")
	src := flag.String("src", "", "workload source (default: testdata/bench4.c next to this program)")
	samplers := flag.String("samplers", "ptrace,perf", "vprof samplers to measure, side by side")
	clocks := flag.String("clocks", "cpu,wall", "vprof clocks to measure, side by side")
	fields := flag.Bool("fields", false, "also measure each vprof configuration without struct field variables (dwarfschema.Options.NoFields), side by side")
	flag.Parse()
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
	if err := run(*runs, *threads, *rounds, *target, *rates, *src, vps); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// config is one way of running the workload.
type config struct {
	name string
	run  func() (measure, error)
	vp   *vprofConf // a vprof recording
}

// vprofConf is a sampler and a clock of vprof record.
type vprofConf struct {
	sampler  string
	clock    model.Clock
	noFields bool // no struct field variables
}

// key names it in the rate sweep: the sampler, prefixed by the clock
// unless cpu.
func (v vprofConf) key() string {
	k := v.sampler
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
	cpu     time.Duration // program and profiler (children + vprof's own)
	samples int64
	lost    int64
	res     *sampler.Result
}

func run(runs, threads, rounds int, target time.Duration, rates, src string, vps []vprofConf) error {
	dir, err := os.MkdirTemp("", "vprof-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if src == "" {
		src = findSource()
	}
	exe := filepath.Join(dir, "bench4")
	pg := filepath.Join(dir, "bench4-pg")
	if err := gcc(src, exe); err != nil {
		return err
	}
	haveGprof := gcc(src, pg, "-pg") == nil
	havePerf := perfWorks(dir)

	if rounds == 0 {
		m, err := plain(exe, threads, 200)()
		if err != nil {
			return err
		}
		rounds = max(10, int(float64(200)*target.Seconds()/m.wall.Seconds()))
	}
	args := []string{exe, fmt.Sprint(threads), fmt.Sprint(rounds)}
	fmt.Printf("vprof bench: %s, %d threads x %d rounds, %d runs each, %d CPUs, load average %s\n",
		filepath.Base(src), threads, rounds, runs, runtime.NumCPU(), loadavg())

	cfgs := []config{{"plain", plain(exe, threads, rounds), nil}}
	var vprofs []int // indexes of the vprof configurations
	perfOK, kernelShare := perfSamplerWorks(dir), false
	for _, vp := range vps {
		if vp.sampler == sampler.SamplerPerf && !perfOK {
			fmt.Printf("  (vprof's perf sampler not usable here: --clock %s --sampler perf skipped)\n", vp.clock)
			continue
		}
		vprofs = append(vprofs, len(cfgs))
		what := "values"
		if vp.noFields {
			what = "values, no fields"
		}
		cfgs = append(cfgs, config{fmt.Sprintf("vprof record --clock %s --sampler %s (1 kHz, %s, depth 3)", vp.clock, vp.sampler, what),
			vprofRun(dir, args, time.Millisecond, vp), &vp})
		if vp.sampler == sampler.SamplerPerf && !kernelShare {
			kernelShare = true
			cfgs = append(cfgs, config{"the same perf events alone (the kernel's share)", kernelRun(dir, args, time.Millisecond), nil})
		}
	}
	if havePerf {
		cfgs = append(cfgs, config{"perf record -F 1000", perfRun(dir, args), nil})
	} else {
		fmt.Println("  (perf record not usable here: skipped)")
	}
	if haveGprof {
		cfgs = append(cfgs, config{"gcc -pg (gprof)", pgRun(dir, pg, threads, rounds), nil})
	} else {
		fmt.Println("  (gcc -pg failed: gprof column skipped)")
	}
	results, err := interleave(cfgs, runs)
	if err != nil {
		return err
	}
	table(os.Stdout, cfgs, results)
	for _, i := range vprofs {
		steps(os.Stdout, cfgs[i].name, results[i])
	}

	if rates != "" && len(vprofs) > 0 {
		var sweep []config
		sweep = append(sweep, cfgs[0])
		for _, f := range strings.Split(rates, ",") {
			var hz int
			if _, err := fmt.Sscan(strings.TrimSpace(f), &hz); err != nil || hz <= 0 {
				return fmt.Errorf("bad rate %q", f)
			}
			for _, i := range vprofs {
				vp := *cfgs[i].vp
				sweep = append(sweep, config{fmt.Sprintf("%s %d Hz", vp.key(), hz), vprofRun(dir, args, time.Second/time.Duration(hz), vp), &vp})
			}
		}
		n := max(3, runs/2)
		fmt.Printf("\nRate sweep (%d runs each, interleaved):\n", n)
		res, err := interleave(sweep, n)
		if err != nil {
			return err
		}
		rateTable(os.Stdout, sweep, res)
	}
	return nil
}

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
	for _, p := range []string{"testdata/bench4.c", "sampler/bench/testdata/bench4.c"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return "sampler/bench/testdata/bench4.c"
}

func gcc(src, out string, extra ...string) error {
	args := append([]string{"-g", "-O2", "-pthread", "-o", out, src}, extra...)
	if b, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("gcc %s: %w\n%s", strings.Join(args, " "), err, b)
	}
	return nil
}

func perfWorks(dir string) bool {
	if _, err := exec.LookPath("perf"); err != nil {
		return false
	}
	return exec.Command("perf", "record", "-q", "-F", "1000", "-o", filepath.Join(dir, "probe.data"), "--", "true").Run() == nil
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

func selfCPU() time.Duration {
	var ru unix.Rusage
	unix.Getrusage(unix.RUSAGE_SELF, &ru)
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

func perfRun(dir string, args []string) func() (measure, error) {
	return command(dir, "perf", append([]string{"record", "-q", "-F", "1000", "-o", filepath.Join(dir, "perf.data"), "--"}, args...)...)
}

func pgRun(dir, pg string, threads, rounds int) func() (measure, error) {
	return command(dir, pg, fmt.Sprint(threads), fmt.Sprint(rounds))
}

// vprofRun records in this process (the same code as `vprof record`), so
// the recorder's own CPU time and its per-step costs are exact.
func vprofRun(dir string, args []string, interval time.Duration, vp vprofConf) func() (measure, error) {
	smp := vp.sampler
	return func() (measure, error) {
		devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		if err != nil {
			return measure{}, err
		}
		defer devnull.Close()
		sigs := make(chan os.Signal)
		c0, s0 := childCPU(), selfCPU()
		t0 := time.Now()
		res, err := sampler.Record(sampler.Config{
			Output: filepath.Join(dir, "bench.vprof"), Args: args, Interval: interval,
			Clock: vp.clock, Depth: 3, Stack: 64, Signals: sigs, Stdout: devnull, Sampler: smp,
			NoFields: vp.noFields,
		})
		m := measure{wall: time.Since(t0)}
		if err != nil {
			return m, err
		}
		if res.ExitStatus != 0 {
			return m, errors.New("workload failed under vprof")
		}
		if res.Sampler != smp {
			return m, fmt.Errorf("recorded with the %s sampler, not %s", res.Sampler, smp)
		}
		m.cpu = childCPU() - c0 + selfCPU() - s0
		m.samples, m.lost, m.res = res.Trailer.Samples, res.Trailer.LostTicks, res
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

func table(w io.Writer, cfgs []config, res [][]measure) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\nconfiguration\tmedian wall\tvs plain\tmedian CPU (program+profiler)\tvs plain\tmin..max wall\t")
	base, baseCPU := median(walls(res[0])), median(cpus(res[0]))
	for i, c := range cfgs {
		ws := walls(res[i])
		sort.Slice(ws, func(a, b int) bool { return ws[a] < ws[b] })
		mw, mc := median(ws), median(cpus(res[i]))
		fmt.Fprintf(tw, "%s\t%.3f s\t%+.1f%%\t%.3f s\t%+.1f%%\t%.3f..%.3f\t\n", c.name, mw.Seconds(),
			100*(mw.Seconds()/base.Seconds()-1), mc.Seconds(), 100*(mc.Seconds()/baseCPU.Seconds()-1),
			ws[0].Seconds(), ws[len(ws)-1].Seconds())
	}
	tw.Flush()
}

func steps(w io.Writer, name string, ms []measure) {
	var s sampler.StepStats
	var samples, lost, values int64
	var fields uint64
	var tracer, setup time.Duration
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
		s.Values += r.Values
		s.Write += r.Write
		s.Stopped += r.Stopped
		s.Lag += r.Lag
		s.MaxLag = max(s.MaxLag, r.MaxLag)
		samples += m.samples
		lost += m.lost
		values += m.res.Trailer.ValueSamples
		fields += m.res.Values.Fields
		tracer += m.res.TracerCPU - m.res.SetupCPU
		setup += m.res.SetupCPU
	}
	n := s.Full + s.Light + s.Perf - s.Dropped
	if n == 0 {
		return
	}
	us := func(d time.Duration, k uint64) float64 { return float64(d.Nanoseconds()) / float64(max(k, 1)) / 1e3 }
	fmt.Fprintf(w, "\n%s, per sample (µs, mean of %d samples; %d ticks taken, %d lost):\n", name, n, s.Ticks-s.Perf, lost)
	fmt.Fprintf(w, "  samples: %d from perf events, %d of running threads stopped, %d of blocked threads\n", s.Perf-s.Dropped, s.Full, s.Light)
	fmt.Fprintf(w, "  values per sample %.1f, of which fields behind pointers %.1f\n", float64(values)/float64(max(samples, 1)), float64(fields)/float64(max(samples, 1)))
	if s.Perf > 0 {
		fmt.Fprintf(w, "  ring   %.1f  (record parsed, registers and stack copy taken from the ring: no stop)\n", us(s.Ring, n))
	} else {
		fmt.Fprintf(w, "  choose threads %.1f per tick (%.1f per sample)\n", us(s.Decide, s.Ticks), us(s.Decide, n))
		fmt.Fprintf(w, "  stop   %.1f  (PTRACE_INTERRUPT to stopped: latency, the tracer sleeps)\n", us(s.Stop, s.Full))
		fmt.Fprintf(w, "  regs   %.1f  (PTRACE_GETREGS)\n", us(s.Regs, s.Full))
		fmt.Fprintf(w, "  copy   %.1f  (stack window, process_vm_readv)\n", us(s.Read, n))
		fmt.Fprintf(w, "  resume %.1f  (PTRACE_CONT)\n", us(s.Resume, s.Full))
	}
	fmt.Fprintf(w, "  unwind %.1f  (CFI, cached)\n", us(s.Unwind, n))
	fmt.Fprintf(w, "  values %.1f  (locations, batched reads, globals)\n", us(s.Values, n))
	fmt.Fprintf(w, "  write  %.1f  (encoding)\n", us(s.Write, n))
	if s.Perf > 0 {
		fmt.Fprintf(w, "  globals and heap read %.2f ms after the tick on average, at most %.1f ms\n",
			us(s.Lag, n)/1e3, float64(s.MaxLag.Nanoseconds())/1e6)
		fmt.Fprintf(w, "  vprof's CPU time %.1f per sample after start-up (drains, waits, flushes; start-up %.0f ms per run)\n",
			us(tracer, n), float64(setup.Milliseconds())/float64(len(ms)))
	} else {
		fmt.Fprintf(w, "  held stopped %.1f per sample; vprof's CPU time %.1f per sample after start-up (ticks, waits, flushes; start-up %.0f ms per run)\n",
			us(s.Stopped, s.Full), us(tracer, n), float64(setup.Milliseconds())/float64(len(ms)))
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
