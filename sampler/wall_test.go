package sampler

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vprof/vprof/runtime/model"
)

// perfUsable reports whether the perf sampler can run here.
func perfUsable() bool { return probePerf(time.Millisecond) == nil }

// TestWallWeights: with --clock wall, a thread's weights add up to its
// wall time, split between running and blocked as it spent it.
// testdata/dutycycle's worker alternates CPU bursts and sleeps and
// measures both itself; its main thread waits in pthread_join throughout.
// Time runnable but waiting for a CPU counts as running (wall.go), so the
// worker's expected running time is its bursts' wall time plus the part
// of its sleeps spent waiting for a CPU once woken (which the program
// measures too, from its schedstat): on a loaded machine both grow. Both
// samplers, the perf one never stopping a running thread.
func TestWallWeights(t *testing.T) {
	exe := buildC(t, "dutycycle", "-g", "-pthread")
	for _, smp := range []string{SamplerPerf, SamplerPtrace} {
		t.Run(smp, func(t *testing.T) {
			t.Parallel()
			if smp == SamplerPerf && !perfUsable() {
				t.Skip("perf sampler not usable here")
			}
			out, stdout := pipeStdout(t)
			res, p := record(t, Config{Args: []string{exe, "15", "30", "20"}, Clock: model.ClockWall, Sampler: smp, Stdout: out})
			line := stdout()
			if res.ExitStatus != 0 {
				t.Fatalf("dutycycle exited %d", res.ExitStatus)
			}
			if res.Sampler != smp {
				t.Fatalf("recorded with %s", res.Sampler)
			}
			if smp == SamplerPerf && (res.Steps.Full != 0 || res.Steps.Stop != 0) {
				t.Errorf("perf sampler: %d running threads stopped", res.Steps.Full)
			}
			var burst, sleep, delay, workerWall, workerCPU, mainWall int64
			if n, err := fmt.Sscan(line, &burst, &sleep, &delay, &workerWall, &workerCPU, &mainWall); n != 6 || err != nil {
				t.Fatalf("dutycycle printed %q (%v)", line, err)
			}
			type acc struct {
				run, blocked int64
				n, inBurn    int
				inRest, nBlk int
			}
			per := map[int32]*acc{}
			for _, s := range p.samples {
				a := per[s.tid]
				if a == nil {
					a = &acc{}
					per[s.tid] = a
				}
				a.n++
				if s.s.State == model.Blocked {
					a.blocked += s.s.WeightNS
					a.nBlk++
					if slices.Contains(s.funcs, "rest") {
						a.inRest++
					}
				} else {
					a.run += s.s.WeightNS
					if slices.Contains(s.funcs, "burn") {
						a.inBurn++
					}
				}
			}
			var worker, main *acc
			for tid, a := range per {
				if tid == p.hdr.PID {
					main = a
				} else {
					worker = a
				}
			}
			if len(per) != 2 || worker == nil || main == nil {
				t.Fatalf("samples of %d threads, want the main thread and the worker", len(per))
			}
			ms := func(ns int64) string { return time.Duration(ns).Round(100 * time.Microsecond).String() }
			t.Logf("program: bursts %s (CPU %s), sleeps %s of which %s waiting for a CPU, worker %s, main %s",
				ms(burst), ms(workerCPU), ms(sleep), ms(delay), ms(workerWall), ms(mainWall))
			t.Logf("worker: %d samples, running %s, blocked %s; main: %d samples, running %s, blocked %s; lost ticks %d",
				worker.n, ms(worker.run), ms(worker.blocked), main.n, ms(main.run), ms(main.blocked), res.Steps.Lost)

			// Sums: the thread's wall time, within 10% (the remainders at
			// its end, a tick or two; its start before the program's
			// clock starts).
			for _, c := range []struct {
				name string
				a    *acc
				wall int64
			}{{"worker", worker, workerWall}, {"main", main, mainWall}} {
				sum := c.a.run + c.a.blocked
				if d := sum - c.wall; d < -c.wall/10 || d > c.wall/10 {
					t.Errorf("%s: weights sum to %s, its wall time is %s", c.name, ms(sum), ms(c.wall))
				}
			}
			// The split: running = bursts + the sleeps' waits for a CPU.
			wantRun := float64(burst+delay) / float64(burst+sleep)
			gotRun := float64(worker.run) / float64(worker.run+worker.blocked)
			if gotRun < wantRun-0.08 || gotRun > wantRun+0.08 {
				t.Errorf("worker: running %.3f of its weight, want %.3f ± 0.08", gotRun, wantRun)
			}
			if worker.run < workerCPU*9/10 {
				t.Errorf("worker: running weight %s, below its CPU time %s", ms(worker.run), ms(workerCPU))
			}
			if b := float64(main.blocked) / float64(main.run+main.blocked); b < 0.9 {
				t.Errorf("main: blocked %.3f of its weight, want nearly all (it waits in pthread_join)", b)
			}
			// Where: bursts in burn, sleeps in rest.
			if worker.inRest < worker.nBlk*9/10 || worker.inBurn < (worker.n-worker.nBlk)*8/10 {
				t.Errorf("worker: %d of %d blocked samples in rest, %d of %d running ones in burn", worker.inRest, worker.nBlk, worker.inBurn, worker.n-worker.nBlk)
			}
		})
	}
}

// wallHarmCases are the modes of testdata/blocking.c whose calls a stop of
// a thread running in the kernel inside them cuts short: a 64 KiB write
// to a full pipe (a short count), a terminal read waiting for VMIN=4
// bytes (fewer), a socket receive with SO_RCVTIMEO and epoll_wait (EINTR).
// The ptrace sampler harms them now and then (docs/sampler.md).
var wallHarmCases = []string{"pipe-write-big", "tty-vmin", "recv-timeo", "epoll", "epoll-timed"}

func wallHarmCase(mode string) blockedCase {
	for _, c := range blockedCases {
		if c.mode == mode {
			return c
		}
	}
	panic("no blocking mode " + mode)
}

// TestWallNoHarm: --clock wall with the default sampler (perf) never
// stops a running thread, so the calls the ptrace sampler cuts short
// (wallHarmCases) all return what they should, in every one of several
// recordings: blocking's exit status says so. The same programs under the
// ptrace sampler show the harm, which proves they notice it.
func TestWallNoHarm(t *testing.T) {
	if !perfUsable() {
		t.Skip("perf sampler not usable here: --clock wall samples with ptrace")
	}
	exe := buildBlocking(t)
	const recordings = 4
	for _, mode := range wallHarmCases {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			c := wallHarmCase(mode)
			for k := 0; k < recordings; k++ {
				res, _, stderr := recordBlocking(t, exe, c, Config{})
				if res.ExitStatus != 0 {
					t.Fatalf("recording %d: blocking %s exited %d (%s)", k+1, mode, res.ExitStatus, strings.TrimSpace(stderr))
				}
				if res.Sampler != SamplerPerf || res.Steps.Full != 0 || res.Steps.Stop != 0 {
					t.Fatalf("recording %d: sampler %s, %d running threads stopped", k+1, res.Sampler, res.Steps.Full)
				}
				var stops uint64
				for _, nr := range c.calls {
					stops += res.Blocked.ByCall[nr]
				}
				if stops != 0 {
					t.Fatalf("recording %d: the thread was stopped %d times in %s", k+1, stops, callNames(c.calls))
				}
				if res.Blocked.Samples == 0 {
					t.Errorf("recording %d: no sample of a blocked thread", k+1)
				}
			}
		})
	}
	t.Run("ptrace", func(t *testing.T) {
		t.Parallel()
		// Harm is a matter of chance (a tick landing while the thread
		// runs in the kernel inside the call): record the modes in turn
		// until one fails. Each fails in 10 to 60% of recordings.
		var seen []string
		for k := 0; k < 6*len(wallHarmCases); k++ {
			c := wallHarmCase(wallHarmCases[k%len(wallHarmCases)])
			res, _, stderr := recordBlocking(t, exe, c, Config{Sampler: SamplerPtrace})
			if res.ExitStatus == 4 || res.ExitStatus == 6 {
				t.Logf("blocking %s under the ptrace sampler, recording %d: exit %d (%s)", c.mode, k+1, res.ExitStatus, strings.TrimSpace(stderr))
				return
			}
			seen = append(seen, fmt.Sprintf("%s:%d", c.mode, res.ExitStatus))
		}
		t.Errorf("the ptrace sampler never harmed the programs (%v): they may not notice the harm TestWallNoHarm looks for", seen)
	})
}

// TestWallAcct: the accounting of wall.go on its own: a blocked
// sample weighs the wall time since the thread was first seen less its
// CPU time and run delay, less what earlier blocked samples took; the run
// delay goes to the next perf sample once.
func TestWallAcct(t *testing.T) {
	var w wallAcct
	w.start(1000, &schedStat{CPU: 500, Delay: 100})
	ms := int64(time.Millisecond)
	// 10 ms later: 3 ms on a CPU, 1 ms waiting for one, 6 ms blocked.
	w.addDelay(100 + uint64(ms))
	if got := w.blockedWeight(1000+10*ms, 500+uint64(3*ms)); got != 6*ms {
		t.Errorf("first blocked sample weighs %v, want 6ms", time.Duration(got))
	}
	if d := w.takeDelay(); d != ms {
		t.Errorf("run delay for the next perf sample %v, want 1ms", time.Duration(d))
	}
	if d := w.takeDelay(); d != 0 {
		t.Errorf("run delay taken twice: %v", time.Duration(d))
	}
	// A reading that goes back (never: counters only grow) adds nothing.
	w.addDelay(50)
	if d := w.takeDelay(); d != 0 {
		t.Errorf("a smaller run delay added %v", time.Duration(d))
	}
	// 5 ms more, all blocked.
	if got := w.blockedWeight(1000+15*ms, 500+uint64(3*ms)); got != 5*ms {
		t.Errorf("second blocked sample weighs %v, want 5ms", time.Duration(got))
	}
	// CPU time read late (a running thread's lags by up to a scheduler
	// tick): a sample gets nothing rather than a negative weight, and the
	// blocked samples still add up to the wall time less CPU time and run
	// delay.
	if got := w.blockedWeight(1000+16*ms, 500+uint64(5*ms)); got != 0 {
		t.Errorf("blocked sample after 2 ms of CPU in 1 ms weighs %v, want 0", time.Duration(got))
	}
	if got := w.blockedWeight(1000+20*ms, 500+uint64(5*ms)); got != 3*ms {
		t.Errorf("blocked sample weighs %v, want 3ms", time.Duration(got))
	}
	if w.blocked != 20*ms-5*ms-ms {
		t.Errorf("blocked samples sum to %v, want 14ms", time.Duration(w.blocked))
	}
}
