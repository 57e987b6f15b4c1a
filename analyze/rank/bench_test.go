package rank

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/vprof/vprof/runtime/proffile"
)

// benchFiles are a normal and a buggy synthetic profile of about
// VPROF_BENCH_MB MiB each (default 64), written once per process, or once
// into VPROF_BENCH_DIR and kept there for later runs (comparing builds on
// the same files without writing them again).
var benchFiles struct {
	once          sync.Once
	normal, buggy string
	bytes         int64
	temp          bool // in a directory of its own, removed at the end
	err           error
}

func benchProfiles(b *testing.B) (string, string, int64) {
	benchFiles.once.Do(func() {
		mb := int64(64)
		if s := os.Getenv("VPROF_BENCH_MB"); s != "" {
			if v, err := strconv.ParseInt(s, 10, 64); err == nil && v > 0 {
				mb = v
			}
		}
		dir, keep := os.Getenv("VPROF_BENCH_DIR"), true
		if dir == "" {
			var err error
			if dir, err = os.MkdirTemp("", "vprof-bench-"); err != nil {
				benchFiles.err = err
				return
			}
			keep = false
		}
		funcs := benchFuncs()
		normal := filepath.Join(dir, fmt.Sprintf("normal-%dMiB-%dfn.vprof", mb, funcs))
		buggy := filepath.Join(dir, fmt.Sprintf("buggy-%dMiB-%dfn.vprof", mb, funcs))
		benchFiles.normal, benchFiles.temp = normal, !keep // TestMain removes a temporary one
		write := func(path string, sy synth) int64 {
			if st, err := os.Stat(path); err == nil && keep {
				return st.Size()
			}
			return sy.write(b, path)
		}
		n := write(normal, synth{funcs: funcs, threads: 8, bytes: mb << 20, seed: 1})
		m := write(buggy, synth{funcs: funcs, threads: 8, bytes: mb << 20, seed: 2, buggy: true})
		benchFiles.buggy, benchFiles.bytes = buggy, n+m
	})
	if benchFiles.err != nil {
		b.Fatal(benchFiles.err)
	}
	return benchFiles.normal, benchFiles.buggy, benchFiles.bytes
}

// BenchmarkAnalyze is the whole method on a normal and a buggy profile:
// MB/s of profile data. BenchmarkRead, the proffile decoding alone on the
// same files, is its ceiling.
func BenchmarkAnalyze(b *testing.B) {
	normal, buggy, size := benchProfiles(b)
	b.SetBytes(size)
	b.ReportAllocs()
	defer cpuMetric(b, size)()
	for b.Loop() {
		res, err := Analyze([]string{normal}, []string{buggy}, DefaultOptions(), nil)
		if err != nil {
			b.Fatal(err)
		}
		if res.Functions[0].Name != "root" {
			b.Fatalf("root ranked %s first", res.Functions[0].Name)
		}
	}
}

// BenchmarkAnalyzeRuns is the method on 3 normal and 3 buggy profiles of
// one build of a large program: a schema of 20000 functions (about 30 MB
// of JSON, as binutils' objdump has 19 MB) and few samples, the
// shape of short runs of a large server, where reading the schemas, not the
// samples, is the work. Compare ns/op: the files are deflated schemas
// mostly (about 5 MB each), so MB/s of file says little here.
func BenchmarkAnalyzeRuns(b *testing.B) {
	dir := b.TempDir()
	var normal, buggy []string
	for i := range 3 {
		for _, bg := range []bool{false, true} {
			path := filepath.Join(dir, fmt.Sprintf("run-%d-%v.vprof", i, bg))
			synth{funcs: 20000, threads: 4, samples: 500, seed: uint64(2*i) + 1 + uint64(b2u(bg)), buggy: bg}.write(b, path)
			if bg {
				buggy = append(buggy, path)
			} else {
				normal = append(normal, path)
			}
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Analyze(normal, buggy, DefaultOptions(), nil); err != nil {
			b.Fatal(err)
		}
	}
}

func b2u(b bool) int {
	if b {
		return 1
	}
	return 0
}

func BenchmarkRead(b *testing.B) {
	normal, buggy, size := benchProfiles(b)
	b.SetBytes(size)
	b.ReportAllocs()
	defer cpuMetric(b, size)()
	for b.Loop() {
		for _, p := range []string{normal, buggy} {
			rd, err := proffile.Open(p)
			if err != nil {
				b.Fatal(err)
			}
			for {
				if _, err := rd.Next(); errors.Is(err, io.EOF) {
					break
				} else if err != nil {
					b.Fatal(err)
				}
			}
			rd.Close()
		}
	}
}

func BenchmarkFlat(b *testing.B) {
	_, buggy, _ := benchProfiles(b)
	st, _ := os.Stat(buggy)
	b.SetBytes(st.Size())
	for b.Loop() {
		if _, err := FlatFile(buggy, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// cpuMetric reports MB of profile per CPU-second (user + system) besides
// the wall-clock MB/s: on a shared 2-core machine the CPU time is the
// steadier measure of the code's own cost.
func cpuMetric(b *testing.B, size int64) func() {
	cpu := func() float64 {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
	}
	start := cpu()
	return func() {
		if used := cpu() - start; used > 0 && b.N > 0 {
			b.ReportMetric(float64(size)*float64(b.N)/1e6/used, "MB/cpu-s")
		}
	}
}

// benchFuncs is the number of program functions of the synthetic
// profiles (VPROF_BENCH_FUNCS, default 2000).
func benchFuncs() int {
	if v, err := strconv.Atoi(os.Getenv("VPROF_BENCH_FUNCS")); err == nil && v > 1 {
		return v
	}
	return 2000
}

// BenchmarkAnalyzeMemory analyses a normal profile and a 1 GiB buggy
// profile (VPROF_BENCH_BUGGY_MB, default 1024) in a child process and
// reports its peak resident memory (VmHWM), the issue's "1 GB profile
// analysed without exceeding 1 GB of memory". It writes about 1.2 GB to the
// temporary directory, so it runs only when VPROF_BENCH_MEMORY=1.
func BenchmarkAnalyzeMemory(b *testing.B) {
	if os.Getenv("VPROF_BENCH_MEMORY") != "1" {
		b.Skip("set VPROF_BENCH_MEMORY=1 (writes ~1.2 GB of profiles)")
	}
	mb := int64(1024)
	if v, err := strconv.ParseInt(os.Getenv("VPROF_BENCH_BUGGY_MB"), 10, 64); err == nil && v > 0 {
		mb = v
	}
	dir := b.TempDir()
	normal, buggy := filepath.Join(dir, "normal.vprof"), filepath.Join(dir, "buggy.vprof")
	n := synth{funcs: benchFuncs(), threads: 8, bytes: 128 << 20, seed: 1}.write(b, normal)
	m := synth{funcs: benchFuncs(), threads: 8, bytes: mb << 20, seed: 2, buggy: true}.write(b, buggy)
	b.SetBytes(n + m)
	for b.Loop() {
		cmd := exec.Command(os.Args[0], "-test.run=^TestAnalyzeChild$", "-test.v")
		cmd.Env = append(os.Environ(), "VPROF_CHILD_NORMAL="+normal, "VPROF_CHILD_BUGGY="+buggy)
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("child: %v\n%s", err, out)
		}
		i := bytes.Index(out, []byte("peak-rss-kb "))
		if i < 0 {
			b.Fatalf("child printed no peak: %s", out)
		}
		var kb float64
		fmt.Sscan(string(out[i+len("peak-rss-kb "):]), &kb)
		b.ReportMetric(kb/1024, "peak-RSS-MiB")
		b.ReportMetric(float64(m)/(1<<20), "buggy-MiB")
	}
}

// TestAnalyzeChild is BenchmarkAnalyzeMemory's child: it analyses the
// files named in its environment and prints its peak resident memory.
func TestAnalyzeChild(t *testing.T) {
	normal, buggy := os.Getenv("VPROF_CHILD_NORMAL"), os.Getenv("VPROF_CHILD_BUGGY")
	if normal == "" || buggy == "" {
		t.Skip("run by BenchmarkAnalyzeMemory")
	}
	res, err := Analyze([]string{normal}, []string{buggy}, DefaultOptions(), nil)
	if err != nil {
		t.Fatal(err)
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			fmt.Printf("peak-rss-kb %s top %s\n", f[1], res.Functions[0].Name)
		}
	}
}

// TestMain removes the benchmarks' profiles when the process ends.
func TestMain(m *testing.M) {
	code := m.Run()
	if benchFiles.temp {
		os.RemoveAll(filepath.Dir(benchFiles.normal))
	}
	os.Exit(code)
}
