package sampler

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// The Go garbage collector while recording: loading the program's schema
// and libraries and encoding their objects leaves megabytes of garbage,
// which set off two or three collections before the program ran its first
// instruction. Each makes the tracer thread (which the program then waits
// for) stop for it and share the CPUs with the collector's workers:
// measured on a loaded 2-core machine, from vprof's start to the program's
// main took 3 to 6 ms less with collections off. So collections are paused
// while a recording starts.
//
// They stay paused while the program runs (hold), with the memory limit
// runHeadroom above what vprof holds once the program runs: the sampling
// path allocates nothing, so a recording that does not grow (no new
// threads, libraries or processes by the thousand) has no collection at
// all. The one cycle that collected the start's garbage 50 ms in cost
// vprof 5 to 11 ms of CPU (gctrace, 2-core machine; 3-8 µs a sample of a
// 1.4 s run at one thread): the tracer goroutine is mostly inside raw
// system calls (the sleep between drains, which the runtime cannot
// preempt), so the collector's workers spin until it comes out to scan
// its stack, and stopping the world waits for it likewise. The start's
// garbage (4-5 MB for the bench's program) is kept until vprof exits
// instead. A recording that grows past the limit is collected then and
// the usual pacing resumes (the sentinel below). Record returns with
// collections still paused, for at most startGCDelay, so that vprof
// record exits without one (resumed as Record returned, the cycle held up
// vprof's exit by 3 to 4 ms on the 2-core machine).

// startGCDelay is how long after Record returns collections resume.
const startGCDelay = 50 * time.Millisecond

// runHeadroom is how much vprof's memory may grow while recording before
// collections resume.
const runHeadroom = 64 << 20

// startHeapLimit bounds the heap while collections are paused: a larger
// start (a big program's schema built from its DWARF) resumes the usual
// pacing at the first collection the limit sets off.
const startHeapLimit = 256 << 20

// gcPause is a pause of the garbage collector's pacing (debug.SetGCPercent
// -1) with a heap limit, ended by resume or by the first collection the
// limit forces. Nil is no pause.
type gcPause struct {
	mu      sync.Mutex
	ended   bool // resumed
	percent int
	limit   int64
}

// pauseGC pauses collections with the heap bounded by limit, unless they
// are off already (GOGC=off) or paused by another recording.
func pauseGC(limit int64) *gcPause {
	pct := debug.SetGCPercent(-1)
	if pct < 0 {
		return nil // GOGC=off, or paused: left as it is
	}
	g := &gcPause{percent: pct, limit: debug.SetMemoryLimit(-1)}
	debug.SetMemoryLimit(min(g.limit, limit))
	// A collection while paused is one the limit forced: the start is big,
	// and the usual pacing resumes (the sentinel is unreachable at once,
	// so the first collection runs its finalizer).
	runtime.SetFinalizer(&gcSentinel{}, func(*gcSentinel) { g.resume() })
	// The runtime's first metrics.Read builds its table of metrics (0.2-0.3
	// ms): hold ran it just after the program's release, while the program
	// waited at its first stops for the tracer (perf trace, 2-core machine:
	// from the release's PTRACE_CONT to the tracer's first wait4, 0.06-0.13
	// ms before hold, 0.22-0.39 ms with it). Built now, off that path.
	go runtimeMemory()
	return g
}

// gcSentinel is an object whose finalizer runs after the first collection
// (large enough and with a pointer, so the tiny allocator does not batch it).
type gcSentinel struct {
	_ [32]byte
	_ *int
}

// hold keeps collections paused while the program runs, with the memory
// limit headroom above the memory the Go runtime holds now (the start's
// limit if lower).
func (g *gcPause) hold(headroom int64) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ended {
		return // a collection the limit forced has resumed the pacing
	}
	if used, ok := runtimeMemory(); ok {
		debug.SetMemoryLimit(min(g.limit, used+headroom))
	}
}

// runtimeMemory is the memory the Go runtime holds from the system (less
// what it has returned).
func runtimeMemory() (int64, bool) {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return 0, false
	}
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64()), true
}

// resumeAfter resumes collections after d.
func (g *gcPause) resumeAfter(d time.Duration) {
	if g == nil {
		return
	}
	time.AfterFunc(d, g.resume)
}

// resume restores the collector's settings, once.
func (g *gcPause) resume() {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.ended {
		g.ended = true
		debug.SetGCPercent(g.percent)
		debug.SetMemoryLimit(g.limit)
	}
}
