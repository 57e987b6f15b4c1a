package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vprof/vprof/sampler"
)

// The -lifecycle mode measures what vprof record costs a program apart
// from sampling: from the command's start to the program's main, from
// the program's last instruction to the command's exit, and per thread
// created (testdata/lifecycle.c). Each workload runs plain and under
// each vprof build, interleaved, -pairs times; the figures are medians
// over rounds of each run's time less (or over) the plain run's of the
// same round.

// lifeRun is one run of the lifecycle workload: CLOCK_MONOTONIC seconds.
type lifeRun struct {
	start, main, end, exit float64 // before exec, the program's main, its last instruction, after wait
	cpu                    time.Duration
	launch                 sampler.LaunchStats // vprof's steps (VPROF_RESULT_JSON)
}

func (r lifeRun) toMain() float64 { return r.main - r.start }
func (r lifeRun) own() float64    { return r.end - r.main }
func (r lifeRun) toExit() float64 { return r.exit - r.end }
func (r lifeRun) wall() float64   { return r.exit - r.start }

func monoNow() float64 {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return float64(ts.Sec) + float64(ts.Nsec)/1e9
}

// lifeCommand runs argv in dir and reads the times the workload writes to
// standard error, and vprof's steps from the file result, if not "".
func lifeCommand(dir string, env []string, argv []string, result string) (lifeRun, error) {
	if result != "" {
		os.Remove(result)
		env = append(env[:len(env):len(env)], "VPROF_RESULT_JSON="+result)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdout = io.Discard
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	c0 := childCPU()
	r := lifeRun{start: monoNow()}
	err := cmd.Run()
	r.exit = monoNow()
	r.cpu = childCPU() - c0
	if err != nil {
		return r, fmt.Errorf("%s: %w: %s", strings.Join(argv, " "), err, stderr.String())
	}
	for _, l := range strings.Split(stderr.String(), "\n") {
		k, v, ok := strings.Cut(l, " ")
		if !ok {
			continue
		}
		t, err := strconv.ParseFloat(v, 64)
		if err != nil {
			continue
		}
		switch k {
		case "main":
			r.main = t
		case "end":
			r.end = t
		}
	}
	if r.main == 0 || r.end == 0 {
		return r, fmt.Errorf("%s: no times on standard error: %q", strings.Join(argv, " "), stderr.String())
	}
	if result != "" {
		b, err := os.ReadFile(result)
		if err != nil {
			return r, fmt.Errorf("vprof wrote no result (%w): %s", err, stderr.String())
		}
		var res sampler.Result
		if err := json.Unmarshal(b, &res); err != nil {
			return r, fmt.Errorf("%s: %w", result, err)
		}
		r.launch = res.Launch
	}
	return r, nil
}

// lifecycle runs the -lifecycle measurements.
func lifecycle(o options, pairs int) error {
	dir, err := os.MkdirTemp("", "vprof-lifecycle-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(filepath.Dir(findSource()), "lifecycle.c")
	exe := filepath.Join(dir, "lifecycle")
	if err := gcc(src, exe); err != nil {
		return err
	}
	type build struct{ label, bin string }
	var builds []build
	for _, spec := range strings.Split(o.vprof, ",") {
		label, path, named := strings.Cut(spec, "=")
		if !named {
			label, path = "vprof", spec
		}
		bin, err := findVprof(path, dir)
		if err != nil {
			return err
		}
		builds = append(builds, build{label, bin})
	}
	// Each build its own schema cache, warmed by a first recording: a
	// cache file records the vprof build that wrote it, and builds that
	// shared one would each find the other's stale and read the DWARF
	// again at every run.
	envs := make([][]string, len(builds))
	for i, b := range builds {
		envs[i] = append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(dir, fmt.Sprintf("cache-%d", i)))
		if _, err := lifeCommand(dir, envs[i], []string{b.bin, "record", "-q", "-o", filepath.Join(dir, "life.vprof"), "--", exe, "exit"}, ""); err != nil {
			return err
		}
	}
	// Spin rounds: about 0.3 s plain.
	r, err := lifeCommand(dir, os.Environ(), []string{exe, "spin", "200"}, "")
	if err != nil {
		return err
	}
	spinRounds := max(10, int(200*0.3/max(r.own(), 1e-4)))
	const nthreads = 1000
	workloads := []struct {
		name string
		args []string
	}{
		{"exit at once", []string{"exit"}},
		{fmt.Sprintf("spin (%d rounds, ~0.3 s)", spinRounds), []string{"spin", fmt.Sprint(spinRounds)}},
		{fmt.Sprintf("%d threads, one after the other", nthreads), []string{"threads", fmt.Sprint(nthreads)}},
	}
	fmt.Printf("vprof bench -lifecycle: %d pairs, %d CPUs (%s), kernel %s, load average %s\n",
		pairs, len(cpuList()), cpuModel(), kernelRelease(), loadavg())
	for _, b := range builds {
		fmt.Printf("  %s: %s\n", b.label, b.bin)
	}
	for _, w := range workloads {
		// configurations: plain, then each build
		n := 1 + len(builds)
		runs := make([][]lifeRun, n)
		for p := 0; p < pairs; p++ {
			for k := 0; k < n; k++ {
				i := (k + p) % n
				argv := append([]string{exe}, w.args...)
				env, result := os.Environ(), ""
				if i > 0 {
					argv = append([]string{builds[i-1].bin, "record", "-q", "-o", filepath.Join(dir, "life.vprof"), "--"}, argv...)
					env, result = envs[i-1], filepath.Join(dir, "result.json")
				}
				r, err := lifeCommand(dir, env, argv, result)
				if err != nil {
					return err
				}
				runs[i] = append(runs[i], r)
			}
		}
		fmt.Printf("\n== %s, load average %s\n", w.name, loadavg())
		tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "configuration\tstart to main\tmain to end\tend to exit\twall\tCPU\twall ratio\tCPU ratio\t")
		for i := 0; i < n; i++ {
			name := "plain"
			if i > 0 {
				name = builds[i-1].label + " record"
			}
			ms := func(f func(lifeRun) float64) string {
				if i == 0 {
					return fmt.Sprintf("%.2f ms", 1e3*medianF(runs[0], f))
				}
				return fmt.Sprintf("%+.2f ms", 1e3*medianDiff(runs[i], runs[0], f))
			}
			cpu := func(r lifeRun) float64 { return r.cpu.Seconds() }
			ratio := func(f func(lifeRun) float64) string {
				if i == 0 {
					return ""
				}
				return fmt.Sprintf("%.3f", medianRatio(runs[i], runs[0], f))
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", name,
				ms(lifeRun.toMain), ms(lifeRun.own), ms(lifeRun.toExit), ms(lifeRun.wall), ms(cpu), ratio(lifeRun.wall), ratio(cpu))
		}
		tw.Flush()
		// vprof's own steps, from its Result: where the time to the
		// program's release and after its end went.
		tw = tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "vprof's steps (ms)\tstart to call\tsetup\tspawn\tprogram\tperf\tprofile\tthread\tmaps\tcall to release\trelease to main\tend to profile closed\tfd table\tfd table open at the end\t")
		for i := 1; i < n; i++ {
			ms := func(f func(l *sampler.LaunchStats) time.Duration) string {
				return fmt.Sprintf("%.2f", 1e3*medianF(runs[i], func(r lifeRun) float64 { return f(&r.launch).Seconds() }))
			}
			open := 0
			for _, r := range runs[i] {
				if r.launch.FDTableOpen {
					open++
				}
			}
			// From the command's start to Record's call (the Go runtime,
			// package initialisation, the command line), and from the
			// release to the program's main: CLOCK_MONOTONIC readings, "-"
			// for a build that does not report them.
			mono := func(f func(r lifeRun) float64) string {
				var xs []float64
				for _, r := range runs[i] {
					if r.launch.CalledMono > 0 && r.launch.ReleasedMono > 0 {
						xs = append(xs, f(r))
					}
				}
				if len(xs) == 0 {
					return "-"
				}
				return fmt.Sprintf("%.2f", 1e3*medianFloats(xs))
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d/%d\t\n", builds[i-1].label,
				mono(func(r lifeRun) float64 { return float64(r.launch.CalledMono)/1e9 - r.start }),
				ms(func(l *sampler.LaunchStats) time.Duration { return l.Setup }),
				ms(func(l *sampler.LaunchStats) time.Duration { return l.Spawn }),
				ms(func(l *sampler.LaunchStats) time.Duration { return l.Program }),
				ms(func(l *sampler.LaunchStats) time.Duration { return l.Perf }),
				ms(func(l *sampler.LaunchStats) time.Duration { return l.Profile }),
				ms(func(l *sampler.LaunchStats) time.Duration { return l.Thread }),
				ms(func(l *sampler.LaunchStats) time.Duration { return l.Maps }),
				ms(func(l *sampler.LaunchStats) time.Duration { return l.Released }),
				mono(func(r lifeRun) float64 { return r.main - float64(r.launch.ReleasedMono)/1e9 }),
				ms(func(l *sampler.LaunchStats) time.Duration { return l.Finish }),
				ms(func(l *sampler.LaunchStats) time.Duration { return l.FDTable }), open, len(runs[i]))
		}
		tw.Flush()
	}
	fmt.Println("\n(plain: medians; vprof: the median over rounds of the run's time less the plain run's of the same round, and of their ratio;")
	fmt.Println(" vprof's steps: medians, from its Result; 0 for a build that does not report them)")
	return nil
}

func medianFloats(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	sort.Float64s(xs)
	if len(xs)%2 == 1 {
		return xs[len(xs)/2]
	}
	return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
}

func medianF(rs []lifeRun, f func(lifeRun) float64) float64 {
	var xs []float64
	for _, r := range rs {
		xs = append(xs, f(r))
	}
	return medianFloats(xs)
}

func medianDiff(rs, base []lifeRun, f func(lifeRun) float64) float64 {
	var xs []float64
	for i := range rs {
		xs = append(xs, f(rs[i])-f(base[i]))
	}
	return medianFloats(xs)
}

func medianRatio(rs, base []lifeRun, f func(lifeRun) float64) float64 {
	var xs []float64
	for i := range rs {
		if b := f(base[i]); b > 0 {
			xs = append(xs, f(rs[i])/b)
		}
	}
	return medianFloats(xs)
}

// cpuList is the CPUs this process may run on.
func cpuList() []int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil
	}
	var out []int
	for c := 0; c < 1024; c++ {
		if set.IsSet(c) {
			out = append(out, c)
		}
	}
	return out
}
