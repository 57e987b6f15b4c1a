package timeline

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vprof/vprof/analyze/regtime"
	"github.com/vprof/vprof/analyze/trace"
)

// bigTrace makes a trace of about n calls over threads: per thread a main
// call holding request handlers three levels deep drawn from 200
// functions, with a long lock wait and an idle gap now and then.
func bigTrace(n, threads int) *trace.Trace {
	tr := &trace.Trace{Format: "synthetic", Path: "synthetic"}
	for i := 0; i < 200; i++ {
		tr.Funcs = append(tr.Funcs, fmt.Sprintf("ns::module%02d::function_%03d(int, char const*)", i%17, i))
	}
	tr.Funcs = append(tr.Funcs, "thread_main", "pthread_mutex_lock")
	mainF, lockF := int32(200), int32(201)
	rng := uint64(0x9e3779b97f4a7c15)
	rnd := func(k uint64) uint64 { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng % k }
	per := n / threads
	for ti := 0; ti < threads; ti++ {
		th := &trace.Thread{TID: int64(100 + ti), Name: fmt.Sprintf("worker %d", ti)}
		calls := make([]trace.Call, 1, per)
		t := int64(0)
		var add func(depth int32, fn int32, budget int) int
		// add appends a call and up to budget-1 descendants, returns calls added.
		add = func(depth int32, fn int32, budget int) int {
			i := len(calls)
			calls = append(calls, trace.Call{Start: t, Func: fn, Depth: depth})
			t += int64(50 + rnd(200))
			used := 1
			if depth < 4 {
				kids := int(rnd(4))
				for k := 0; k < kids && used < budget; k++ {
					used += add(depth+1, int32(rnd(200)), budget-used)
					t += int64(rnd(30))
				}
			}
			t += int64(50 + rnd(300))
			calls[i].End, calls[i].Next = t, int32(len(calls))
			return used
		}
		for len(calls) < per {
			switch r := rnd(40000); {
			case r == 0:
				calls = append(calls, trace.Call{Start: t, End: t + 40_000_000, Func: lockF, Depth: 1, Next: int32(len(calls) + 1)})
				t += 40_000_000
			case r == 1:
				t += 30_000_000
			default:
				add(1, int32(rnd(20)), per-len(calls))
			}
			t += int64(rnd(100))
		}
		calls[0] = trace.Call{Start: 0, End: t, Func: mainF, Depth: 0, Next: int32(len(calls))}
		th.Calls, th.End = calls, t
		tr.Threads = append(tr.Threads, th)
	}
	return tr
}

// BenchmarkTimeline10M measures the whole path on 10 M calls: RegTime
// (calls/s on one core), the page's size, and how long headless Chromium
// takes from navigation to a drawn page.
//
//	go test -run XXX -bench Timeline10M -benchtime 1x ./analyze/timeline
func BenchmarkTimeline10M(b *testing.B) {
	tr := bigTrace(10_000_000, 8)
	if err := tr.Check(); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		start := time.Now()
		ss := regtime.All(tr, regtime.Thesis)
		rt := time.Since(start)
		var buf bytes.Buffer
		p := &Page{Title: "10M calls", Runs: []*Run{{Label: "synthetic", Trace: tr, Summaries: ss}}, Params: regtime.Thesis, Preset: "thesis"}
		if err := Write(&buf, p); err != nil {
			b.Fatal(err)
		}
		path := filepath.Join(b.TempDir(), "big.html")
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		pg := openPage(b, path)
		if errs := pg.errors(); len(errs) > 0 {
			b.Fatalf("console errors: %v", errs)
		}
		b.StartTimer()
		after := 0
		for _, s := range ss {
			after += s.After()
		}
		b.ReportMetric(float64(tr.Calls())/rt.Seconds(), "regtime-calls/s")
		b.ReportMetric(float64(buf.Len())/1e6, "page-MB")
		b.ReportMetric(float64(pg.load.Milliseconds()), "load-ms")
		b.ReportMetric(float64(after), "entries")
		b.ReportMetric(float64(eval[int](b, pg, "vprof.rows.reduce((n, r) => n + r.hits.length, 0)")), "glyphs")
		b.Logf("page timing (ms): %v", eval[map[string]float64](b, pg, "vprof.timing"))
		if buf.Len() > 5<<20 {
			b.Errorf("page of %d bytes, want < 5 MB", buf.Len())
		}
		if os.Getenv("VPROF_SCREENSHOT") != "" {
			screenshot(b, pg, "10m.png")
		}
	}
}

// TestBigPage is the 10 M benchmark's check at a tenth of the size, so it
// runs in every `make test`: the page stays small and loads quickly.
func TestBigPage(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	tr := bigTrace(1_000_000, 4)
	if err := tr.Check(); err != nil {
		t.Fatal(err)
	}
	ss := regtime.All(tr, regtime.Thesis)
	var buf bytes.Buffer
	if err := Write(&buf, &Page{Title: "1M calls", Runs: []*Run{{Label: "synthetic", Trace: tr, Summaries: ss}}, Params: regtime.Thesis}); err != nil {
		t.Fatal(err)
	}
	if buf.Len() > 1<<20 {
		t.Errorf("page of %d bytes for 1 M calls", buf.Len())
	}
	path := filepath.Join(t.TempDir(), "big.html")
	os.WriteFile(path, buf.Bytes(), 0o644)
	p := openPage(t, path)
	if errs := p.errors(); len(errs) > 0 {
		t.Fatalf("console errors: %v", errs)
	}
	if n := eval[int](t, p, "vprof.visibleRows()"); n != 4 {
		t.Fatalf("%d rows", n)
	}
	t.Logf("1 M calls: page %d bytes, loaded in %v", buf.Len(), p.load)
}
