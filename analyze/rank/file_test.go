package rank

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vprof/vprof/runtime/proffile"
)

func synthPair(t testing.TB, dir string, samples int) (normal, buggy string) {
	normal = filepath.Join(dir, "normal.vprof")
	buggy = filepath.Join(dir, "buggy.vprof")
	synth{funcs: 60, threads: 4, samples: samples, seed: 1}.write(t, normal)
	synth{funcs: 60, threads: 4, samples: samples, seed: 2, buggy: true}.write(t, buggy)
	return normal, buggy
}

func TestFileEndToEnd(t *testing.T) {
	normal, buggy := synthPair(t, t.TempDir(), 3000)
	res, err := Analyze([]string{normal}, []string{buggy}, DefaultOptions(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 0 {
		t.Errorf("warnings: %q", res.Warnings)
	}
	top := res.Functions[0]
	if top.Name != "root" || top.Variable != "scanned" || top.Pattern != PatternScalability {
		t.Fatalf("top: %+v", top)
	}
	if len(top.Locations) == 0 || !strings.HasPrefix(top.Locations[0].String(), "server.c:") || top.Locations[0].Block < 0 {
		t.Errorf("locations: %+v", top.Locations)
	}
	if top.PlainRank <= 1 {
		t.Logf("plain rank of root: %d", top.PlainRank)
	}
	fl, err := FlatFile(buggy, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(fl.Entries) == 0 || fl.Total <= 0 || !near(fl.Entries[len(fl.Entries)-1].Cumulative, fl.Total) {
		t.Errorf("flat: %d entries, total %g", len(fl.Entries), fl.Total)
	}
	for i, e := range fl.Entries {
		if e.Name == "root" && i+1 != top.PlainRank {
			t.Errorf("flat ranks root %d, report's plain rank %d", i+1, top.PlainRank)
		}
	}
}

func TestDamagedFiles(t *testing.T) {
	dir := t.TempDir()
	normal, buggy := synthPair(t, dir, 500)
	full, err := os.ReadFile(buggy)
	if err != nil {
		t.Fatal(err)
	}
	cut := func(n int) string {
		p := filepath.Join(dir, "cut.vprof")
		if err := os.WriteFile(p, full[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, n := range []int{len(full) / 2, len(full) - 3, 4096} {
		res, err := Analyze([]string{normal}, []string{cut(n)}, DefaultOptions(), nil)
		if err != nil {
			t.Fatalf("cut at %d: %v", n, err)
		}
		if !strings.Contains(strings.Join(res.Warnings, "\n"), "incomplete profile") {
			t.Errorf("cut at %d: no warning: %q", n, res.Warnings)
		}
	}
	for _, n := range []int{0, 5, 8} {
		_, err := Analyze([]string{normal}, []string{cut(n)}, DefaultOptions(), nil)
		if err == nil || !errors.Is(err, proffile.ErrNotProfile) && !strings.Contains(err.Error(), "header") {
			t.Errorf("cut at %d: err %v", n, err)
		}
	}
	foreign := filepath.Join(dir, "foreign.txt")
	os.WriteFile(foreign, []byte("this is not a profile\n"), 0o644)
	if _, err := Analyze([]string{normal}, []string{foreign}, DefaultOptions(), nil); !errors.Is(err, proffile.ErrNotProfile) {
		t.Errorf("foreign file: %v", err)
	}
	// A flipped byte in the middle: the prefix is analysed.
	bad := bytes.Clone(full)
	bad[len(bad)/2] ^= 0xff
	p := filepath.Join(dir, "flipped.vprof")
	os.WriteFile(p, bad, 0o644)
	res, err := Analyze([]string{normal}, []string{p}, DefaultOptions(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(res.Warnings, "\n"), "checksum") {
		t.Errorf("flipped byte: warnings %q", res.Warnings)
	}
}

// FuzzProfile feeds arbitrary bytes to the front end as a buggy run after a
// small normal run, and as a flat profile: no input may panic.
func FuzzProfile(f *testing.F) {
	dir := f.TempDir()
	small := filepath.Join(dir, "s.vprof")
	synth{funcs: 3, threads: 2, samples: 10, seed: 2, buggy: true}.write(f, small)
	seed, err := os.ReadFile(small)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add(seed[:len(seed)/2])
	f.Add([]byte("VPROF\x00\x01\x00"))
	normal := append(series(vI, pcWork, 1, 1, 2, 3, 4), series(vG, pcHelper, 1, 5, 6, 7)...)
	f.Fuzz(func(t *testing.T, data []byte) {
		rd, err := proffile.NewReader(bytes.NewReader(data), "fuzz")
		if err != nil {
			return
		}
		a := New(DefaultOptions())
		feed(t, a, Normal, "normal", normal)
		if err := a.AddReader(Buggy, "fuzz", rd, int64(len(data)), nil); err != nil {
			return
		}
		res := a.Result()
		for _, fn := range res.Functions {
			if fn.Rank <= 0 || fn.Calibrated < 0 || fn.Discount < 0 || fn.Discount > 1 {
				t.Fatalf("bad row %+v", fn)
			}
		}
		rd2, _ := proffile.NewReader(bytes.NewReader(data), "fuzz")
		b := New(DefaultOptions())
		r, _ := b.BeginRun(Normal, "fuzz", rd2.Header())
		r.flatOnly = true
		if err := r.feed(rd2, 0, nil); err != nil && !errors.Is(err, io.EOF) {
			return
		}
		b.Flat()
	})
}
