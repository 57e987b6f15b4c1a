package regtime

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vprof/vprof/analyze/trace"
)

// writeBigTrace writes a DINAMITE trace of about n calls over threads,
// without holding it: per thread a main call holding request handlers up
// to four levels deep drawn from 200 functions, with a long lock wait and
// an idle gap now and then (the shape of timeline's bigTrace).
func writeBigTrace(path string, n, threads int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var funcs []string
	for i := 0; i < 200; i++ {
		funcs = append(funcs, fmt.Sprintf("fn%03d", i))
	}
	funcs = append(funcs, "thread_main", "pthread_mutex_lock")
	rng := uint64(0x9e3779b97f4a7c15)
	rnd := func(k uint64) uint64 { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng % k }
	var line []byte
	ev := func(tid int, fn int32, dir byte, t int64) {
		line = strconv.AppendInt(line[:0], int64(tid), 10)
		line = append(line, ' ')
		line = append(line, funcs[fn]...)
		line = append(line, ' ', dir, ' ')
		line = strconv.AppendInt(line, t, 10)
		line = append(line, '\n')
		w.Write(line)
	}
	per := n / threads
	for ti := 0; ti < threads; ti++ {
		tid, t, calls := 100+ti, int64(0), 1
		ev(tid, 200, '0', 0)
		var add func(depth int32, fn int32, budget int) int
		add = func(depth int32, fn int32, budget int) int {
			ev(tid, fn, '0', t)
			calls++
			t += int64(50 + rnd(200))
			used := 1
			if depth < 4 {
				for k := int(rnd(4)); k > 0 && used < budget; k-- {
					used += add(depth+1, int32(rnd(200)), budget-used)
					t += int64(rnd(30))
				}
			}
			t += int64(50 + rnd(300))
			ev(tid, fn, '1', t)
			return used
		}
		for calls < per {
			switch r := rnd(40000); {
			case r == 0:
				ev(tid, 201, '0', t)
				t += 40_000_000
				ev(tid, 201, '1', t)
				calls++
			case r == 1:
				t += 30_000_000
			default:
				add(1, int32(rnd(20)), per-calls)
			}
			t += int64(rnd(100))
		}
		ev(tid, 200, '1', t)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// BenchmarkTimelineMemory summarises a DINAMITE trace of
// VPROF_BENCH_CALLS calls (default 50 M, 2.2 GB on disk) as vprof
// timeline does, in a child process per way, and reports each way's peak
// resident memory and time: streaming (StreamFile) and the whole trace
// in memory (trace.Open + All). It writes the trace to the temporary
// directory (VPROF_BENCH_DIR keeps it), so it runs only when
// VPROF_BENCH_MEMORY=1.
func BenchmarkTimelineMemory(b *testing.B) {
	if os.Getenv("VPROF_BENCH_MEMORY") != "1" {
		b.Skip("set VPROF_BENCH_MEMORY=1 (writes a 2.2 GB trace)")
	}
	n := 50_000_000
	if v, err := strconv.Atoi(os.Getenv("VPROF_BENCH_CALLS")); err == nil && v > 0 {
		n = v
	}
	dir := os.Getenv("VPROF_BENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	path := filepath.Join(dir, fmt.Sprintf("trace-%dcalls.txt", n))
	if _, err := os.Stat(path); err != nil {
		if err := writeBigTrace(path, n, 8); err != nil {
			b.Fatal(err)
		}
	}
	st, _ := os.Stat(path)
	b.SetBytes(st.Size())
	for b.Loop() {
		for _, way := range []string{"stream", "memory"} {
			cmd := exec.Command(os.Args[0], "-test.run=^TestTimelineChild$", "-test.v")
			cmd.Env = append(os.Environ(), "VPROF_CHILD_TRACE="+path, "VPROF_CHILD_WAY="+way)
			out, err := cmd.CombinedOutput()
			if err != nil {
				b.Fatalf("child: %v\n%s", err, out)
			}
			i := bytes.Index(out, []byte("peak-rss-kb "))
			if i < 0 {
				b.Fatalf("child printed no peak: %s", out)
			}
			var kb, secs float64
			fmt.Sscan(string(out[i+len("peak-rss-kb "):]), &kb, &secs)
			b.ReportMetric(kb/1024, way+"-peak-RSS-MiB")
			b.ReportMetric(secs, way+"-s")
		}
		b.ReportMetric(float64(n)/1e6, "Mcalls")
	}
}

// TestTimelineChild is BenchmarkTimelineMemory's child: it summarises the
// trace named in its environment one way and prints its peak resident
// memory and the seconds it took.
func TestTimelineChild(t *testing.T) {
	path, way := os.Getenv("VPROF_CHILD_TRACE"), os.Getenv("VPROF_CHILD_WAY")
	if path == "" {
		t.Skip("run by BenchmarkTimelineMemory")
	}
	start := time.Now()
	var ss []*Summary
	if way == "stream" {
		_, sums, err := StreamFile(path, "dinamite", Thesis)
		if err != nil {
			t.Fatal(err)
		}
		ss = sums
	} else {
		tr, err := trace.Open(path, "dinamite")
		if err != nil {
			t.Fatal(err)
		}
		ss = All(tr, Thesis)
	}
	took := time.Since(start)
	entries := 0
	for _, s := range ss {
		entries += len(s.Entries)
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			fmt.Printf("peak-rss-kb %s %.2f entries %d\n", f[1], took.Seconds(), entries)
		}
	}
}
