package sampler

import (
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkRuntimeWake measures what the Go runtime adds to the tracer's
// waits (docs/benchmarks.md, session 13): a goroutine locked to its
// thread with SIGURG blocked, as the tracer's, waits 3 ms at a time in a
// raw ppoll, as between drains at 1 thread. Metrics per wake-up: the
// CPU of that thread, and of the process's other threads (sysmon every
// 10 ms, the preemption of the locked goroutine every 10 ms: its P handed
// to another thread and back). Run with -benchtime 1x: each iteration
// waits for 2 s.
func BenchmarkRuntimeWake(b *testing.B) {
	for range b.N {
		type res struct {
			proc, thread time.Duration
			n            int
		}
		done := make(chan res)
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var old unix.Sigset_t
			unix.PthreadSigmask(unix.SIG_SETMASK, nil, &old)
			blockPreemptSignal()
			defer unix.PthreadSigmask(unix.SIG_SETMASK, &old, nil)
			p0, t0, w0 := ownCPU(), threadCPU(), time.Now()
			n := 0
			for time.Since(w0) < 2*time.Second {
				pollFor(-1, int64(3*time.Millisecond))
				n++
			}
			done <- res{ownCPU() - p0, threadCPU() - t0, n}
		}()
		r := <-done
		b.ReportMetric(float64(r.thread.Microseconds())/float64(r.n), "thread-µs/wake")
		b.ReportMetric(float64((r.proc-r.thread).Microseconds())/float64(r.n), "others-µs/wake")
	}
}
