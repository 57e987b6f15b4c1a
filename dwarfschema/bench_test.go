package dwarfschema

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/vprof/vprof/runtime/model"
)

// synthFuncs is the size of the benchmark program: issue 2's speed target
// (20,000 functions with loops and branches, -g -O2, under 5 s).
const synthFuncs = 20000

// synthBinary returns the synthetic program: $VPROF_SYNTH, else the one
// `make -C testprogs synth` builds, else one generated here and kept in the
// temporary directory across runs (building it takes minutes).
func synthBinary(tb testing.TB) string {
	if p := os.Getenv("VPROF_SYNTH"); p != "" {
		return p
	}
	if _, err := os.Stat("../testprogs/bin/synth"); err == nil {
		return "../testprogs/bin/synth"
	}
	dir := filepath.Join(os.TempDir(), "vprof-synth-"+strconv.Itoa(synthFuncs))
	bin := filepath.Join(dir, "synth")
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	tmp, err := os.MkdirTemp(os.TempDir(), "vprof-synth-build")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Logf("building a %d-function program in %s (minutes; kept for later runs)", synthFuncs, dir)
	writeSynth(tb, tmp, synthFuncs, 500)
	os.RemoveAll(dir)
	if err := os.Rename(tmp, dir); err != nil {
		tb.Fatal(err)
	}
	return bin
}

// BenchmarkLoad loads the synthetic 20,000-function program (tags
// included). Run: go test -run X -bench Load -benchtime 3x ./dwarfschema
func BenchmarkLoad(b *testing.B) {
	bin := synthBinary(b)
	b.ReportAllocs()
	var s *model.Schema
	for b.Loop() {
		var err error
		if s, err = Load(bin, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(s.Funcs)), "funcs")
	b.ReportMetric(float64(len(s.Vars)), "vars")
	b.ReportMetric(float64(len(s.Locs)), "locs")
}

// TestLoadSpeed catches what would make Load superlinear: a program 4
// times larger must load in well under 16 times the time (quadratic), the
// two measured side by side, each the fastest of three loads, so that a
// loaded machine slows both alike. An absolute bound failed on a 2-core
// machine at load average 80 (2.2 s for 400 functions that load in 0.17 s
// when it is idle): the speed goal itself is measured by BenchmarkLoad and
// make bench-schema, as ratios.
func TestLoadSpeed(t *testing.T) {
	fastest := func(n int) (time.Duration, *model.Schema) {
		bin := writeSynth(t, t.TempDir(), n, 200)
		var best time.Duration
		var s *model.Schema
		for i := range 3 {
			start := time.Now()
			var err error
			if s, err = Load(bin, Options{}); err != nil {
				t.Fatal(err)
			}
			if took := time.Since(start); i == 0 || took < best {
				best = took
			}
		}
		checkInvariants(t, s)
		if len(s.Funcs) < n || len(s.Vars) == 0 || len(s.Locs) == 0 {
			t.Errorf("%d funcs, %d vars, %d locs", len(s.Funcs), len(s.Vars), len(s.Locs))
		}
		return best, s
	}
	small, _ := fastest(100)
	large, s := fastest(400)
	ratio := float64(large) / float64(small)
	t.Logf("%d functions, %d vars, %d locs in %v; 4 times fewer in %v (ratio %.1f)", len(s.Funcs), len(s.Vars), len(s.Locs), large, small, ratio)
	if ratio > 10 {
		t.Errorf("Load of a program 4 times larger took %.1f times as long (%v against %v): superlinear", ratio, large, small)
	}
}

// BenchmarkLoadBinary loads the binary named by $VPROF_BENCH_BINARY (a real
// program, such as a server built with -g -O2), for profiling Load on it:
//
//	VPROF_BENCH_BINARY=/path/prog go test -run X -bench LoadBinary -cpuprofile cpu.out ./dwarfschema
func BenchmarkLoadBinary(b *testing.B) {
	bin := os.Getenv("VPROF_BENCH_BINARY")
	if bin == "" {
		b.Skip("VPROF_BENCH_BINARY is not set")
	}
	b.ReportAllocs()
	var sum phaseTimes
	for b.Loop() {
		if _, err := Load(bin, Options{}); err != nil {
			b.Fatal(err)
		}
		p := lastPhases.Load()
		if p == nil {
			b.Fatal("Load recorded no phases")
		}
		for i := range loadPhases {
			sum.wall[i] += p.wall[i]
			sum.cpu[i] += p.cpu[i]
		}
	}
	// Per phase, per load: wall and process CPU milliseconds (the walk's
	// CPU includes the call-site scan beside it, build's the collections
	// before and after it, narrow's the one before it).
	for i, name := range loadPhases {
		b.ReportMetric(float64(sum.wall[i].Microseconds())/1e3/float64(b.N), name+"-ms")
		b.ReportMetric(float64(sum.cpu[i].Microseconds())/1e3/float64(b.N), name+"-cpu-ms")
	}
}

// BenchmarkLoadIndirect: D85's scan of VPROF_BENCH_BINARY, and the same
// read back from the cache (what a second record or report pays).
func BenchmarkLoadIndirect(b *testing.B) {
	bin := os.Getenv("VPROF_BENCH_BINARY")
	if bin == "" {
		b.Skip("VPROF_BENCH_BINARY is not set")
	}
	id, err := fileBuildID(bin)
	if err != nil || id == "" {
		b.Skipf("no build-id in %s: %v", bin, err)
	}
	b.Run("scan", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := LoadIndirect(bin, id, Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		c := &Cache{Dir: b.TempDir()}
		if _, err := c.LoadIndirect(bin, id, Options{}); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.LoadIndirect(bin, id, Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkCacheRead: the schema of VPROF_BENCH_BINARY read back from the
// cache (what the schema step of a second `vprof record` pays).
func BenchmarkCacheRead(b *testing.B) {
	bin := os.Getenv("VPROF_BENCH_BINARY")
	if bin == "" {
		b.Skip("VPROF_BENCH_BINARY is not set")
	}
	c := &Cache{Dir: b.TempDir()}
	if _, _, err := c.Load(bin, Options{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, cached, err := c.Load(bin, Options{}); err != nil || !cached {
			b.Fatalf("cached %v, err %v", cached, err)
		}
	}
}
