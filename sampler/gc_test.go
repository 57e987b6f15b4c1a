package sampler

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// gcSettings reads the collector's percent and memory limit.
func gcSettings() (int, int64) {
	pct := debug.SetGCPercent(-1)
	debug.SetGCPercent(pct)
	return pct, debug.SetMemoryLimit(-1)
}

var gcSink []byte

func TestGCPause(t *testing.T) {
	pct0, lim0 := gcSettings()
	if pct0 < 0 {
		t.Skip("GOGC=off")
	}
	t.Run("resume", func(t *testing.T) {
		g := pauseGC(64 << 20)
		if pct, lim := gcSettings(); pct != -1 || lim != min(lim0, 64<<20) {
			t.Fatalf("paused: percent %d, limit %d; want -1, %d", pct, lim, min(lim0, 64<<20))
		}
		g.resume()
		if pct, lim := gcSettings(); pct != pct0 || lim != lim0 {
			t.Fatalf("resumed: percent %d, limit %d; want %d, %d", pct, lim, pct0, lim0)
		}
		debug.SetGCPercent(pct0 + 1)
		g.resume() // once only: a later change is not undone
		if pct, _ := gcSettings(); pct != pct0+1 {
			t.Fatalf("resumed twice: percent %d, want %d", pct, pct0+1)
		}
		debug.SetGCPercent(pct0)
	})
	t.Run("after", func(t *testing.T) {
		g := pauseGC(64 << 20)
		g.resumeAfter(20 * time.Millisecond)
		if pct, _ := gcSettings(); pct != -1 {
			t.Fatalf("percent %d before the timer, want -1 (paused)", pct)
		}
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			if pct, lim := gcSettings(); pct == pct0 && lim == lim0 {
				return
			}
			time.Sleep(time.Millisecond)
		}
		t.Fatal("collections still paused 10 s after resumeAfter(20ms)")
	})
	t.Run("hold", func(t *testing.T) {
		// Held while recording: no collection until the memory grows by
		// the headroom, then the usual pacing.
		g := pauseGC(1 << 30)
		defer g.resume()
		g.hold(16 << 20)
		if pct, lim := gcSettings(); pct != -1 || lim >= min(lim0, 1<<30) {
			t.Fatalf("held: percent %d, limit %d; want -1 and below %d", pct, lim, min(lim0, 1<<30))
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		n0 := ms.NumGC
		for i := 0; i < 64; i++ { // 4 MiB, within the headroom
			gcSink = make([]byte, 64<<10)
		}
		runtime.ReadMemStats(&ms)
		if ms.NumGC != n0 {
			t.Fatalf("%d collections within the headroom, want none", ms.NumGC-n0)
		}
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			for i := 0; i < 64; i++ {
				gcSink = make([]byte, 64<<10)
			}
			if pct, _ := gcSettings(); pct == pct0 {
				return
			}
			runtime.Gosched() // let the finalizer goroutine run
		}
		t.Fatal("collections still paused after allocating well past the headroom")
	})
	t.Run("limit", func(t *testing.T) {
		// A start bigger than the limit resumes the usual pacing at the
		// first collection the limit forces, without resume.
		g := pauseGC(8 << 20)
		defer g.resume()
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			for i := 0; i < 64; i++ {
				gcSink = make([]byte, 64<<10)
			}
			if pct, _ := gcSettings(); pct == pct0 {
				if _, lim := gcSettings(); lim != lim0 {
					t.Fatalf("limit %d after the pause ended, want %d", lim, lim0)
				}
				return
			}
			runtime.Gosched() // let the finalizer goroutine run
		}
		t.Fatal("collections still paused after allocating well past the limit")
	})
	t.Run("off", func(t *testing.T) {
		debug.SetGCPercent(-1)
		defer debug.SetGCPercent(pct0)
		if g := pauseGC(8 << 20); g != nil {
			t.Fatal("paused collections that GOGC=off had turned off")
		}
		if _, lim := gcSettings(); lim != lim0 {
			t.Fatalf("limit changed to %d", lim)
		}
	})
}
