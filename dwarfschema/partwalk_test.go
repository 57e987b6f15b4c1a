package dwarfschema

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/vprof/vprof/testprogs"
)

// TestWalkRunsSame loads programs with the DIE walk in one pass
// (GOMAXPROCS=1) and split in runs of units on 4 workers: the schemas
// must be the same, byte for byte, in their JSON. C and C++ programs,
// the same after dwz (partial units, in the file and in a supplementary
// file: records that refer to earlier units), and $VPROF_BENCH_BINARY.
func TestWalkRunsSame(t *testing.T) {
	bins := map[string]string{}
	for _, name := range []string{"values", "vhost_lookup", "lru_scan", "stats_recalc", "overlap_sort", "query_cache_full", "dali_unsubscribe"} {
		bins[name] = testprogs.Path(t, name)
	}
	if d := t.TempDir(); dwzCopies(t, d, bins, []string{"overlap_sort", "stats_recalc"}, "overlap_sort") {
		// Lambdas in member functions defined out of their class: dwz
		// moves the class, with the functions' declarations, to a
		// partial unit at the start of the file, and a run that names
		// a lambda by the function it is in must walk again in one pass.
		lam := filepath.Join(d, "lambdas")
		for name, src := range lambdaSrcs {
			if err := os.WriteFile(filepath.Join(d, name), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		runTool(t, "g++", "-g", "-O1", "-o", lam, filepath.Join(d, "a.cpp"), filepath.Join(d, "b.cpp"), filepath.Join(d, "c.cpp"), filepath.Join(d, "d.cpp"))
		runTool(t, "dwz", lam)
		bins["lambdas/dwz"] = lam
	}
	if b := os.Getenv("VPROF_BENCH_BINARY"); b != "" {
		bins["VPROF_BENCH_BINARY"] = b
	}
	load := func(t *testing.T, bin string, procs int, opt Options) []byte {
		t.Helper()
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		s, err := Load(bin, opt)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for name, bin := range bins {
		t.Run(name, func(t *testing.T) {
			merged, rewalked := joinStats.merged.Load(), joinStats.rewalked.Load()
			for _, opt := range []Options{{}, {All: true}} {
				one, four := load(t, bin, 1, opt), load(t, bin, 4, opt)
				if !bytes.Equal(one, four) {
					t.Errorf("All=%v: the schema at GOMAXPROCS=4 differs from the one walk's (%d and %d bytes of JSON)", opt.All, len(four), len(one))
				}
			}
			merged, rewalked = joinStats.merged.Load()-merged, joinStats.rewalked.Load()-rewalked
			t.Logf("runs joined %d, walked again %d", merged, rewalked)
			switch {
			case name == "lambdas/dwz" && rewalked == 0:
				t.Error("no run was walked again: the case is not tested")
			case name != "lambdas/dwz" && merged == 0 && units(t, bin) > 1:
				t.Error("no run was joined: the walk was not split")
			}
		})
	}
}

// units counts the units of bin's .debug_info.
func units(t *testing.T, bin string) int {
	f, ef, err := openPath(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sec := ef.Section(".debug_info")
	if sec == nil {
		return 0
	}
	b, err := sec.Data()
	if err != nil {
		t.Fatal(err)
	}
	us, err := readUnitHeaders(b, 0)
	if err != nil {
		t.Fatal(err)
	}
	return len(us)
}

// lambdaSrcs is a C++ program whose lambdas lie in member functions
// defined in other units than their class's header.
var lambdaSrcs = map[string]string{
	"c.h": `struct Counter {
  int n;
  int add(int k);
  int twice(int k);
};
int helper(int);
int other(int);
`,
	"a.cpp": `#include "c.h"
int Counter::add(int k) { auto f = [this](int x) { return n + x; }; n = f(k); return n; }
int main(int argc, char **) { Counter c{argc}; c.add(3); c.twice(4); return (helper(c.n) + other(argc)) & 1; }
`,
	"b.cpp": `#include "c.h"
int Counter::twice(int k) { auto g = [&](int x) { return n * x + k; }; n = g(2); return n; }
`,
	"c.cpp": `#include "c.h"
int helper(int x) { Counter c{x}; auto h = [&c](int y) { return c.n - y; }; return h(1); }
`,
	"d.cpp": `#include "c.h"
int other(int x) { Counter c{x}; c.add(x); return c.twice(x); }
`,
}

// TestChunked checks the chunked list across whole chunks, element by
// element, in bulk and taken whole.
func TestChunked(t *testing.T) {
	for _, n := range []int{0, 1, 255, 256, 1 << chunkBits, 1<<chunkBits + 1, 3<<chunkBits + 77} {
		var a, b chunked[int]
		for i := range n {
			a.add(i)
		}
		xs := make([]int, 0, n)
		for i := range n {
			xs = append(xs, i)
		}
		// In pieces of sizes that cross chunk boundaries.
		for k := 1; len(xs) > 0; k = k*3 + 1 {
			m := min(k, len(xs))
			b.addAll(xs[:m])
			xs = xs[m:]
		}
		// Taken whole after lists of every length.
		for _, pre := range []int{0, 1, 300, 1 << chunkBits, 1<<chunkBits + 5} {
			var c, o chunked[int]
			for i := range pre {
				c.add(i - pre)
			}
			for i := range n {
				o.add(i)
			}
			c.takeAll(&o)
			if o.len() != 0 || c.len() != pre+n {
				t.Fatalf("n=%d after %d: len %d, left %d", n, pre, c.len(), o.len())
			}
			for i := range pre + n {
				if *c.at(i) != i-pre {
					t.Fatalf("n=%d after %d: at(%d) = %d", n, pre, i, *c.at(i))
				}
			}
			for k, ch := range c.chunks {
				if k < len(c.chunks)-1 && len(ch) != 1<<chunkBits {
					t.Fatalf("n=%d after %d: chunk %d of %d holds %d", n, pre, k, len(c.chunks), len(ch))
				}
			}
			c.add(n)
			if *c.last() != n || *c.at(pre + n) != n {
				t.Fatalf("n=%d after %d: add after takeAll", n, pre)
			}
		}
		for _, c := range []*chunked[int]{&a, &b} {
			if c.len() != n {
				t.Fatalf("n=%d: len %d", n, c.len())
			}
			for i := range n {
				if *c.at(i) != i {
					t.Fatalf("n=%d: at(%d) = %d", n, i, *c.at(i))
				}
			}
			for k, ch := range c.chunks {
				if k < len(c.chunks)-1 && len(ch) != 1<<chunkBits {
					t.Fatalf("n=%d: chunk %d of %d holds %d", n, k, len(c.chunks), len(ch))
				}
			}
			if s := c.slice(); len(s) != n {
				t.Fatalf("n=%d: slice of %d", n, len(s))
			}
		}
		if n > 0 {
			a.pop()
			if a.len() != n-1 || (n > 1 && *a.last() != n-2) {
				t.Fatalf("n=%d: after pop len %d", n, a.len())
			}
			a.add(-1)
			if *a.at(n - 1) != -1 {
				t.Fatalf("n=%d: add after pop", n)
			}
		}
	}
}
