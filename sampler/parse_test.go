package sampler

import (
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

func TestParseMaps(t *testing.T) {
	text := `55ac2ecab000-55ac2ecac000 r--p 00000000 fe:00 9979889                    /tmp/selfsnap
55ac2ecac000-55ac2ecad000 r-xp 00001000 fe:00 9979889                    /tmp/with space/prog (deleted)
7f1e2c000000-7f1e2c021000 rw-p 00000000 00:00 0 
7ffe72bfb000-7ffe72c1c000 rw-p 00000000 00:00 0                          [stack]
7ffe72d3e000-7ffe72d40000 r-xp 00000000 00:00 0                          [vdso]
`
	ms, err := parseMaps([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	want := []mapEntry{
		{0x55ac2ecab000, 0x55ac2ecac000, "r--p", 0, 9979889, "/tmp/selfsnap"},
		{0x55ac2ecac000, 0x55ac2ecad000, "r-xp", 0x1000, 9979889, "/tmp/with space/prog"},
		{0x7f1e2c000000, 0x7f1e2c021000, "rw-p", 0, 0, ""},
		{0x7ffe72bfb000, 0x7ffe72c1c000, "rw-p", 0, 0, "[stack]"},
		{0x7ffe72d3e000, 0x7ffe72d40000, "r-xp", 0, 0, "[vdso]"},
	}
	if len(ms) != len(want) {
		t.Fatalf("%d entries, want %d: %+v", len(ms), len(want), ms)
	}
	for i := range want {
		if ms[i] != want[i] {
			t.Errorf("entry %d = %+v, want %+v", i, ms[i], want[i])
		}
	}
	if !ms[1].exec() || ms[0].exec() {
		t.Errorf("exec() wrong")
	}
	for _, bad := range []string{"xyz", "1000-2000 r-xp", "zz-2000 r-xp 0 00:00 0", "3000-2000 r-xp 0 00:00 0 /x"} {
		if _, err := parseMaps([]byte(bad)); err == nil {
			t.Errorf("parseMaps(%q): no error", bad)
		}
	}
	// This process's own maps parse.
	if _, err := readMaps(os.Getpid()); err != nil {
		t.Errorf("own maps: %v", err)
	}
}

func FuzzParseMaps(f *testing.F) {
	if b, err := os.ReadFile("/proc/self/maps"); err == nil {
		f.Add(b)
	}
	f.Add([]byte("1000-2000 r-xp 00000000 08:01 12 /bin/x\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ms, err := parseMaps(b)
		if err != nil {
			return
		}
		for _, m := range ms {
			if m.End < m.Start {
				t.Fatalf("entry %+v ends before it starts", m)
			}
		}
	})
}

func TestParseSyscall(t *testing.T) {
	cases := []struct {
		in   string
		want sysState
		ok   bool
	}{
		{"running\n", sysState{Running: true}, true},
		{"230 0x0 0x0 0x7fd687c84e90 0x7fd687c84e90 0x0 0x7ffed4051cc7 0x7fd687c84e70 0x7fd687d1e7f8\n",
			sysState{Nr: 230, Args: [6]uint64{0, 0, 0x7fd687c84e90, 0x7fd687c84e90, 0, 0x7ffed4051cc7}, SP: 0x7fd687c84e70, PC: 0x7fd687d1e7f8}, true},
		{"-1 0x7ffd0000 0x401000\n", sysState{Nr: -1, SP: 0x7ffd0000, PC: 0x401000}, true},
		{"", sysState{}, false},
		{"12 0x1", sysState{}, false},
		{"7 0xzz 1 2", sysState{}, false},
	}
	for _, c := range cases {
		var s sysState
		ok := parseSyscall([]byte(c.in), &s)
		if ok != c.ok || (ok && s != c.want) {
			t.Errorf("parseSyscall(%q) = %+v, %v; want %+v, %v", c.in, s, ok, c.want, c.ok)
		}
	}
	var s sysState
	if n := testing.AllocsPerRun(100, func() { parseSyscall([]byte("running\n"), &s) }); n != 0 {
		t.Errorf("parseSyscall allocates %.0f times", n)
	}
}

func FuzzParseSyscall(f *testing.F) {
	f.Add([]byte("running\n"))
	f.Add([]byte("230 0x0 0x0 0x7fd687c84e90 0x7fd687c84e90 0x0 0x7ffed4051cc7 0x7fd687c84e70 0x7fd687d1e7f8\n"))
	f.Add([]byte("-1 0x7ffd0000 0x401000\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var s sysState
		parseSyscall(b, &s)
		parseSchedstat(b)
		var st schedStat
		if ok := parseSchedstatAll(b, &st); ok {
			if c2, ok2 := parseSchedstat(b); !ok2 || c2 != st.CPU {
				t.Fatalf("parseSchedstat(%q) = %d, %v; parseSchedstatAll's CPU %d", b, c2, ok2, st.CPU)
			}
		}
	})
}

func TestParseSchedstat(t *testing.T) {
	for _, c := range []struct {
		in   string
		want schedStat
		ok   bool
	}{
		{"32839061 84574338 24\n", schedStat{32839061, 84574338, 24}, true},
		{"0 0 0\n", schedStat{}, true},
		{"17\n", schedStat{CPU: 17}, true},
		{"17 5", schedStat{17, 5, 0}, true},
		{"17 x 3", schedStat{CPU: 17}, true},
		{"", schedStat{}, false},
		{"x 1", schedStat{}, false},
		{" 1 2", schedStat{}, false},
	} {
		var got schedStat
		ok := parseSchedstatAll([]byte(c.in), &got)
		if got != c.want || ok != c.ok {
			t.Errorf("parseSchedstatAll(%q) = %+v, %v; want %+v, %v", c.in, got, ok, c.want, c.ok)
		}
		if v, ok2 := parseSchedstat([]byte(c.in)); v != c.want.CPU || ok2 != c.ok {
			t.Errorf("parseSchedstat(%q) = %d, %v", c.in, v, ok2)
		}
	}
}

func TestNormalise(t *testing.T) {
	f32 := func(f float32) []byte {
		b := math.Float32bits(f)
		return []byte{byte(b), byte(b >> 8), byte(b >> 16), byte(b >> 24)}
	}
	le := func(v uint64, n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(v >> (8 * i))
		}
		return b
	}
	// 80-bit extended 1.5: mantissa 0xC000000000000000, exponent 16383.
	x87 := append(le(0xC000000000000000, 8), 0xff, 0x3f, 0, 0, 0, 0, 0, 0)
	negx87 := append(le(0xC000000000000000, 8), 0xff, 0xbf)
	agg := make([]byte, 64)
	for i := range agg {
		agg[i] = byte(i)
	}
	cases := []struct {
		name string
		kind model.Kind
		in   []byte
		want uint64
	}{
		{"int8 -1", model.KindInt, []byte{0xff}, ^uint64(0)},
		{"int16 -5", model.KindInt, le(uint64(0xfffb), 2), uint64(0xfffffffffffffffb)},
		{"int32 7", model.KindInt, le(7, 4), 7},
		{"int64", model.KindInt, le(1<<62, 8), 1 << 62},
		{"uint8 255", model.KindUint, []byte{0xff}, 255},
		{"uint32 max", model.KindUint, le(0xffffffff, 4), 0xffffffff},
		{"bool", model.KindBool, []byte{1}, 1},
		{"enum -1", model.KindEnum, le(0xffffffff, 4), ^uint64(0)},
		{"float 0.75", model.KindFloat, f32(0.75), math.Float64bits(0.75)},
		{"double 2.5", model.KindFloat, le(math.Float64bits(2.5), 8), math.Float64bits(2.5)},
		{"long double 1.5", model.KindFloat, x87, math.Float64bits(1.5)},
		{"long double -1.5", model.KindFloat, negx87, math.Float64bits(-1.5)},
		{"pointer", model.KindPointer, le(0x7ffe1234, 8), 0x7ffe1234},
		{"aggregate", model.KindAggregate, agg, fnv1a(agg)},
		{"int128 low bits", model.KindInt, append(le(5, 8), le(0, 8)...), 5},
	}
	for _, c := range cases {
		if got := normalise(c.kind, c.in); got != c.want {
			t.Errorf("%s: normalise = %#x, want %#x", c.name, got, c.want)
		}
	}
	// FNV-1a reference value of "a".
	if fnv1a([]byte("a")) != 0xaf63dc4c8601ec8c {
		t.Errorf("fnv1a(a) = %#x", fnv1a([]byte("a")))
	}
}

// TestNoAllocPerSample: the allocations of a recording do not grow with the
// number of samples (objects and tables are loaded once; the per-tick path
// reuses its buffers).
func TestNoAllocPerSample(t *testing.T) {
	exe := buildC(t, "phases", "-g")
	run := func(n string) (uint64, int64) {
		var a, b runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&a)
		res, err := recordErr(Config{Args: []string{exe, n, "16"}, Depth: 3, Output: filepath.Join(t.TempDir(), "x"),
			Signals: make(chan os.Signal), Stdout: devNull(t)})
		runtime.ReadMemStats(&b)
		if err != nil {
			t.Fatal(err)
		}
		return b.Mallocs - a.Mallocs, res.Trailer.Samples
	}
	m1, s1 := run("500000")
	m2, s2 := run("12000000")
	if s2-s1 < 100 {
		t.Skipf("too few samples to tell (%d, %d)", s1, s2)
	}
	per := (float64(m2) - float64(m1)) / float64(s2-s1)
	t.Logf("%d mallocs for %d samples, %d for %d: %.2f per extra sample", m1, s1, m2, s2, per)
	// Loading objects and reading maps vary a little between runs (a few
	// hundred allocations); a per-sample allocation would show as >= 1.
	if per >= 1 {
		t.Errorf("%.2f allocations per sample; want none", per)
	}
}
