package sampler

import (
	"runtime"
	"runtime/debug"
	"sync"
	"time"
)

// The Go garbage collector while a recording starts: loading the
// program's schema and libraries and encoding their objects leaves
// megabytes of garbage, which set off two or three collections before the
// program ran its first instruction. Each makes the tracer thread (which
// the program then waits for) stop for it and share the CPUs with the
// collector's workers: measured on a loaded 2-core machine, from vprof's
// start to the program's main took 3 to 6 ms less with collections off.
// So collections are paused until the program has run for startGCDelay;
// the start's garbage is then collected in one cycle while the program
// runs. A program that ends sooner is recorded with no collection: Record
// returns with collections still paused, for at most startGCDelay, so
// that vprof record exits without one (resumed as Record returned, the
// cycle held up vprof's exit by 3 to 4 ms on the 2-core machine).

// startGCDelay is how long after the program starts collections resume.
const startGCDelay = 50 * time.Millisecond

// startHeapLimit bounds the heap while collections are paused: a larger
// start (a big program's schema built from its DWARF) resumes the usual
// pacing at the first collection the limit sets off.
const startHeapLimit = 256 << 20

// gcPause is a pause of the garbage collector's pacing (debug.SetGCPercent
// -1) with a heap limit, ended by resume or by the first collection the
// limit forces. Nil is no pause.
type gcPause struct {
	once    sync.Once
	percent int
	limit   int64
	timed   bool // resumeAfter was called
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
	return g
}

// gcSentinel is an object whose finalizer runs after the first collection
// (large enough and with a pointer, so the tiny allocator does not batch it).
type gcSentinel struct {
	_ [32]byte
	_ *int
}

// resumeAfter resumes collections after d.
func (g *gcPause) resumeAfter(d time.Duration) {
	if g == nil {
		return
	}
	g.timed = true
	time.AfterFunc(d, g.resume)
}

// resumeUnlessTimed resumes collections now, unless resumeAfter will.
func (g *gcPause) resumeUnlessTimed() {
	if g != nil && !g.timed {
		g.resume()
	}
}

// resume restores the collector's settings, once.
func (g *gcPause) resume() {
	if g == nil {
		return
	}
	g.once.Do(func() {
		debug.SetGCPercent(g.percent)
		debug.SetMemoryLimit(g.limit)
	})
}
