package dwarfschema

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/symname"
)

// libSrc is a shared library with what symbol tables make of functions:
// versioned symbols (foo@VER_1, foo@@VER_2) over local names, aliases of
// one function (__internal_pub, pub, pub_compat), and a function gcc splits
// into a .cold part.
const libSrc = `#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) int foo_v1(int x) { return x + 1; }
__attribute__((noinline)) int foo_v2(int x) { return x * 2 + 3; }
__asm__(".symver foo_v1,foo@VER_1");
__asm__(".symver foo_v2,foo@@VER_2");
int __internal_pub(int x) { return x ^ 7; }
extern int pub(int) __attribute__((alias("__internal_pub")));
extern int pub_compat(int) __attribute__((weak, alias("__internal_pub")));
__attribute__((noinline)) static int split(int x) {
	if (__builtin_expect(x > 1000, 0)) {
		for (int i = 0; i < x; i++) if (i % 77 == 5) printf("%d\n", i);
		abort();
	}
	return x + 1;
}
int use_split(int x) { return split(x) + split(x * 3); }
`

const libMap = `VER_1 { global: foo; pub; pub_compat; __internal_pub; use_split; local: *; };
VER_2 { global: foo; } VER_1;
`

// TestLoadSymbols reads the symbols of libraries and executables, with
// their symbol table (.symtab) and stripped to .dynsym: one function per
// name, named by the best alias, without versions or clone suffixes, every
// sized symbol's code covered, no DWARF read.
func TestLoadSymbols(t *testing.T) {
	for _, tc := range []struct {
		name, cc string
		flags    []string
		strip    bool
		want     []string // functions that must be there
	}{
		{"gcc dwarf4 .so", "gcc", []string{"-gdwarf-4"}, false, []string{"foo", "pub", "use_split", "split"}},
		{"gcc dwarf5 .so", "gcc", []string{"-gdwarf-5"}, false, []string{"foo", "pub", "use_split", "split"}},
		{"gcc stripped .so", "gcc", []string{"-g"}, true, []string{"foo", "pub", "use_split"}},
		{"clang dwarf5 .so", "clang", []string{"-gdwarf-5"}, false, []string{"foo", "pub", "use_split", "split"}},
		{"clang dwarf4 stripped .so", "clang", []string{"-gdwarf-4"}, true, []string{"foo", "pub", "use_split"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := exec.LookPath(tc.cc); err != nil {
				t.Skipf("%s not installed", tc.cc)
			}
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "lib.map"), []byte(libMap), 0o644); err != nil {
				t.Fatal(err)
			}
			flags := append([]string{"-O2", "-shared", "-fPIC", "-Wl,--version-script=lib.map"}, tc.flags...)
			bin := build(t, dir, tc.cc, ".c", libSrc, flags...)
			full, err := Load(bin, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if tc.strip {
				if b, err := exec.Command("strip", "--strip-all", bin).CombinedOutput(); err != nil {
					t.Fatalf("strip: %v\n%s", err, b)
				}
			}
			s, err := LoadSymbols(bin)
			if err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, s)
			if s.HasDWARF || s.DebugFile != "" || len(s.Vars)+len(s.Locs)+len(s.Lines)+len(s.CallSites)+len(s.Inlines) != 0 {
				t.Errorf("LoadSymbols read DWARF: %+v", s)
			}
			if s.Path != bin || s.Type != "dyn" || s.BuildID == "" || s.BuildID != full.BuildID {
				t.Errorf("path %q type %q build-id %q; want %q dyn %q", s.Path, s.Type, s.BuildID, bin, full.BuildID)
			}
			if !tc.strip {
				checkAliasesOf(t, s.Symbols, full.Symbols)
			}
			names := map[string]*model.Func{}
			for i := range s.Funcs {
				f := &s.Funcs[i]
				if names[f.Name] != nil {
					t.Errorf("function %s listed twice", f.Name)
				}
				names[f.Name] = f
				plain := f.Name
				if symname.IsPLT(plain) { // a PLT stub, plt.go
					plain = strings.TrimSuffix(plain, symname.PLTSuffix)
				}
				if strings.ContainsAny(plain, "@.") || f.Display != f.Name || f.File != -1 || len(f.Ranges) == 0 {
					t.Errorf("function %+v: want a plain name, no file, ranges", *f)
				}
			}
			for _, n := range tc.want {
				if names[n] == nil {
					t.Errorf("no function %s in %v", n, s.Funcs)
				}
			}
			// Aliases name one function, by their best name.
			for _, n := range []string{"foo_v1", "foo_v2", "__internal_pub", "pub_compat"} {
				if names[n] != nil {
					t.Errorf("alias %s is a function of its own", n)
				}
			}
			if f := names["foo"]; f != nil && len(f.Ranges) != 2 {
				t.Errorf("foo: ranges %v, want both versions' code", f.Ranges)
			}
			// No code loses its name.
			for _, sy := range s.Symbols {
				if sy.Size == 0 {
					continue
				}
				found := false
				for _, f := range s.Funcs {
					found = found || inRanges(f.Ranges, sy.Value) && inRanges(f.Ranges, sy.Value+sy.Size-1)
				}
				if !found {
					t.Errorf("symbol %s [%#x, +%d) in no function", sy.Name, sy.Value, sy.Size)
				}
			}
		})
	}
}

// checkAliasesOf checks that syms are all, one per address and size, of
// the symbols all.
func checkAliasesOf(t testing.TB, syms, all []model.Symbol) {
	t.Helper()
	type key struct{ v, size uint64 }
	want := map[key]bool{}
	for _, sy := range all {
		want[key{sy.Value, sy.Size}] = true
	}
	seen := map[key]bool{}
	for _, sy := range syms {
		k := key{sy.Value, sy.Size}
		if !want[k] || seen[k] || !slices.Contains(all, sy) {
			t.Fatalf("symbol %+v: not one of Load's %v, or twice", sy, all)
		}
		seen[k] = true
	}
	if len(seen) != len(want) {
		t.Fatalf("%d addresses and sizes, Load has %d", len(seen), len(want))
	}
}

// TestLoadSymbolsLibc names the C library's functions by their public
// names, whichever alias comes first in its .dynsym.
func TestLoadSymbolsLibc(t *testing.T) {
	out, err := exec.Command("gcc", "-print-file-name=libc.so.6").Output()
	libc := strings.TrimSpace(string(out))
	if err != nil || !filepath.IsAbs(libc) {
		t.Skip("no libc.so.6 found by gcc")
	}
	s, err := LoadSymbols(libc)
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, s)
	if s.Type != "dyn" || s.HasDWARF || len(s.Funcs) < 1000 {
		t.Errorf("type %s, DWARF %v, %d functions", s.Type, s.HasDWARF, len(s.Funcs))
	}
	names := map[string]bool{}
	for _, f := range s.Funcs {
		names[f.Name] = true
	}
	// Each has internal aliases at its address (_IO_fgets, __munmap,
	// __lseek, __sysconf, __qsort_r).
	for _, n := range []string{"fgets", "munmap", "lseek", "sysconf", "qsort_r", "malloc", "memcpy"} {
		if !names[n] {
			t.Errorf("libc: no function %s", n)
		}
	}
	for _, n := range []string{"_IO_fgets", "__munmap", "__lseek", "lseek64", "__sysconf"} {
		if names[n] {
			t.Errorf("libc: alias %s named a function", n)
		}
	}
}

// TestLoadSymbolsVDSO reads the vDSO of this process from its memory, as
// the sampler does: the kernel's functions by their public names.
func TestLoadSymbolsVDSO(t *testing.T) {
	img := vdsoImage(t)
	s, err := LoadSymbolsImage("[vdso]", img)
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, s)
	names := map[string]bool{}
	for _, f := range s.Funcs {
		names[f.Name] = true
		if strings.HasPrefix(f.Name, "__vdso_") {
			t.Errorf("vDSO function named %s, an alias of %s", f.Name, strings.TrimPrefix(f.Name, "__vdso_"))
		}
	}
	for _, n := range []string{"clock_gettime", "gettimeofday"} {
		if !names[n] {
			t.Errorf("vDSO: no function %s in %v", n, s.Funcs)
		}
	}
	if _, err := LoadSymbolsImage("[vdso]", img[:100]); err == nil || !strings.Contains(err.Error(), "[vdso]") {
		t.Errorf("truncated image: error %v, want one naming [vdso]", err)
	}
}

// vdsoImage is this process's vDSO, read from /proc/self/mem.
func vdsoImage(t *testing.T) []byte {
	t.Helper()
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := sc.Text(); strings.HasSuffix(l, "[vdso]") {
			lo, hi, _ := strings.Cut(strings.Fields(l)[0], "-")
			start, err1 := strconv.ParseUint(lo, 16, 64)
			end, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 != nil || err2 != nil || end <= start {
				t.Fatalf("bad maps line %q", l)
			}
			mem, err := os.Open("/proc/self/mem")
			if err != nil {
				t.Skip(err)
			}
			defer mem.Close()
			img := make([]byte, end-start)
			if _, err := mem.ReadAt(img, int64(start)); err != nil {
				t.Skip(err)
			}
			return img
		}
	}
	t.Skip("no vDSO mapped")
	return nil
}

func TestAliasName(t *testing.T) {
	sym := func(name string, v, size uint64) model.Symbol { return model.Symbol{Name: name, Value: v, Size: size} }
	for _, tc := range []struct {
		name string
		syms []model.Symbol // sorted by Value
		want []string       // the functions named, in order
	}{
		{"one", []model.Symbol{sym("f", 0x10, 4)}, []string{"f"}},
		{"public before internal", []model.Symbol{sym("_IO_fgets", 0x10, 4), sym("fgets", 0x10, 4)}, []string{"fgets"}},
		{"shorter", []model.Symbol{sym("lseek", 0x10, 4), sym("lseek64", 0x10, 4), sym("__lseek", 0x10, 4)}, []string{"lseek"}},
		{"byte order", []model.Symbol{sym("__getf2", 0x10, 4), sym("__gttf2", 0x10, 4)}, []string{"__getf2"}},
		{"version", []model.Symbol{sym("foo@VER_1", 0x10, 4), sym("foo_v1", 0x10, 4)}, []string{"foo"}},
		{"same name twice", []model.Symbol{sym("foo@@VER_2", 0x10, 4), sym("foo@VER_2", 0x10, 4)}, []string{"foo"}},
		{"clone", []model.Symbol{sym("f.part.0", 0x10, 4), sym("g", 0x20, 4)}, []string{"f", "g"}},
		// Other sizes are other code, not aliases.
		{"sizes", []model.Symbol{sym("big", 0x10, 8), sym("small", 0x10, 4)}, []string{"big", "small"}},
		{"apart", []model.Symbol{sym("a", 0x10, 4), sym("_b", 0x14, 4)}, []string{"a", "_b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for i := range tc.syms {
				if n, ok := aliasName(tc.syms, i); ok {
					got = append(got, n)
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("aliasName kept %v, want %v", got, tc.want)
			}
		})
	}
}

// BenchmarkLoadSymbols loads the C library's symbols, as the sampler does
// for every process: go test -run X -bench LoadSymbols ./dwarfschema
func BenchmarkLoadSymbols(b *testing.B) {
	out, err := exec.Command("gcc", "-print-file-name=libc.so.6").Output()
	libc := strings.TrimSpace(string(out))
	if err != nil || !filepath.IsAbs(libc) {
		b.Skip("no libc.so.6 found by gcc")
	}
	b.ReportAllocs()
	var s *model.Schema
	for b.Loop() {
		if s, err = LoadSymbols(libc); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(s.Symbols)), "symbols")
	b.ReportMetric(float64(len(s.Funcs)), "funcs")
}
