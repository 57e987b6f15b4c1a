package dwarfschema

import (
	"debug/elf"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/symname"
)

// sampleC has what the schema must find: globals and file statics, a
// function-scope static, a pointer to a basic type, a struct, a loop, an
// inlined helper, a function gcc clones (.constprop) and one with a .cold
// part.
const sampleC = `#include <stdio.h>
#include <stdlib.h>
struct conn { int fd; long budget; struct conn *next; };
typedef unsigned long ulong_t;
int g_count = 3;
static int g_hits;
const char *g_name = "x";
struct conn g_conn;
volatile int g_sink;
static inline int sq(int x) { int y = x * x; return y + 1; }
__attribute__((noinline)) static long work(struct conn *c, int n, ulong_t lim) {
	long sum = 0;
	for (int i = 0; i < n; i++) {
		if (c->budget > (long)lim) sum += sq(i); else sum -= i;
		c = c->next ? c->next : c;
	}
	static int calls; calls++;
	return sum + calls;
}
__attribute__((noinline)) int scan(int *arr, int n, int key) {
	for (int j = 0; j < n; j++) if (arr[j] == key) { g_hits++; return j; }
	if (n > 1000) { fprintf(stderr, "big %d\n", n); abort(); }
	return -1;
}
int main(int argc, char **argv) {
	struct conn c = { 1, argc * 10, 0 };
	int arr[64]; for (int k = 0; k < 64; k++) arr[k] = k * argc;
	long r = work(&c, argc * 100, 5);
	int p = scan(arr, 64, argc + 3);
	g_sink = p;
	printf("%ld %d %d %s %d\n", r, p, g_count, g_name, g_hits);
	return 0;
}
`

// sampleCC exercises C++: namespaces, classes, a static member, templates
// and std containers.
const sampleCC = `#include <vector>
#include <string>
#include <cstdio>
namespace shop {
struct Item { int id; long price; };
class Cart {
 public:
	static int instances;
	explicit Cart(int n) { for (int i = 0; i < n; i++) items_.push_back(Item{i, i * 3L}); instances++; }
	long total(long cap) const {
		long t = 0;
		for (const Item &it : items_) { if (t > cap) break; t += it.price; }
		return t;
	}
	template <typename T> T scale(T f) const { T acc = 0; for (size_t k = 0; k < items_.size(); k++) acc += f * items_[k].price; return acc; }
 private:
	std::vector<Item> items_;
};
int Cart::instances = 0;
}
static std::string label = "cart";
__attribute__((noinline)) long run(int n) {
	shop::Cart c(n);
	long t = c.total(1000000);
	double s = c.scale<double>(1.5);
	return t + (long)s;
}
int main(int argc, char **) { std::printf("%ld %s %d\n", run(argc * 1000), label.c_str(), shop::Cart::instances); }
`

// build compiles src with the given compiler and flags in dir and returns
// the output's path.
func build(t testing.TB, dir, cc, ext, src string, flags ...string) string {
	t.Helper()
	name := "prog"
	if slices.Contains(flags, "-shared") {
		name = "libprog.so"
	}
	in := filepath.Join(dir, "prog"+ext)
	if err := os.WriteFile(in, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, name)
	// Relative names, run in dir, as make does: DW_AT_name is relative
	// to DW_AT_comp_dir.
	args := append(append([]string{}, flags...), "-o", name, "prog"+ext)
	cmd := exec.Command(cc, args...)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", cc, strings.Join(args, " "), err, b)
	}
	return out
}

func haveClang() bool {
	_, err := exec.LookPath("clang")
	return err == nil
}

func funcByName(s *model.Schema, name string) (model.FuncID, *model.Func) {
	for i := range s.Funcs {
		if s.Funcs[i].Name == name || s.Funcs[i].Display == name {
			return model.FuncID(i), &s.Funcs[i]
		}
	}
	return -1, nil
}

func varByName(s *model.Schema, fn model.FuncID, name string) (model.VarID, *model.Var) {
	for i := range s.Vars {
		if s.Vars[i].Func == fn && s.Vars[i].Name == name {
			return model.VarID(i), &s.Vars[i]
		}
	}
	return -1, nil
}

func locsOf(s *model.Schema, v model.VarID) []model.Loc {
	var out []model.Loc
	for _, l := range s.Locs {
		if l.Var == v {
			out = append(out, l)
		}
	}
	return out
}

// elfSymbol returns the value of a symbol of any type in .symtab.
func elfSymbol(t *testing.T, path, name string) (uint64, bool) {
	t.Helper()
	ef, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	syms, _ := ef.Symbols()
	for _, s := range syms {
		if s.Name == name {
			return s.Value, true
		}
	}
	return 0, false
}

func inRanges(rs []model.PCRange, pc uint64) bool {
	for _, r := range rs {
		if r.Lo <= pc && pc < r.Hi {
			return true
		}
	}
	return false
}

// checkInvariants checks what the model promises of every Schema
// (CheckValid) and what Load adds.
func checkInvariants(t *testing.T, s *model.Schema) {
	t.Helper()
	if err := s.CheckValid(); err != nil {
		t.Fatalf("schema breaks the model's invariants: %v", err)
	}
	// Load's own, beyond the model's: every variable has its type's
	// spelling, every location the expression it came from.
	for i, v := range s.Vars {
		if v.Type == "" {
			t.Errorf("var %d %s: no type", i, v.Name)
		}
	}
	for i, l := range s.Locs {
		if len(l.Expr) == 0 {
			t.Errorf("loc %d: no expression %+v", i, l)
		}
	}
}

func TestLoadC(t *testing.T) {
	tests := []struct {
		name    string
		cc      string
		flags   []string
		typ     string
		version int
		clang   bool
	}{
		{"gcc dwarf5 pie", "gcc", []string{"-g", "-O2"}, "dyn", 5, false},
		{"gcc dwarf4", "gcc", []string{"-g", "-gdwarf-4", "-O2"}, "dyn", 4, false},
		{"gcc pie explicit", "gcc", []string{"-g", "-O2", "-fPIE", "-pie"}, "dyn", 5, false},
		{"gcc no-pie", "gcc", []string{"-g", "-O2", "-fno-PIE", "-no-pie"}, "exec", 5, false},
		{"gcc O0", "gcc", []string{"-g", "-O0"}, "dyn", 5, false},
		{"gcc O3 split sections", "gcc", []string{"-g", "-O3", "-ffunction-sections", "-Wl,--gc-sections"}, "dyn", 5, false},
		{"gcc compressed debug", "gcc", []string{"-g", "-O2", "-gz"}, "dyn", 5, false},
		{"clang dwarf5", "clang", []string{"-g", "-O2"}, "dyn", 5, true},
		{"clang dwarf4", "clang", []string{"-g", "-gdwarf-4", "-O2"}, "dyn", 4, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.clang && !haveClang() {
				t.Skip("clang not installed")
			}
			bin := build(t, t.TempDir(), tc.cc, ".c", sampleC, tc.flags...)
			s, err := Load(bin, Options{All: true})
			if err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, s)
			if !s.HasDWARF || s.Type != tc.typ || s.DWARFVersion != tc.version || s.BuildID == "" {
				t.Errorf("HasDWARF %v Type %q DWARFVersion %d BuildID %q; want true %q %d non-empty",
					s.HasDWARF, s.Type, s.DWARFVersion, s.BuildID, tc.typ, tc.version)
			}
			if !strings.Contains(s.Producer, map[bool]string{false: "GNU C", true: "clang"}[tc.clang]) {
				t.Errorf("producer %q", s.Producer)
			}

			// Every function symbol lies in the function of its name
			// (clone suffixes removed).
			for _, sy := range s.Symbols {
				if sy.Size == 0 {
					continue
				}
				_, f := funcByName(s, symname.StripClone(sy.Name))
				if f == nil {
					t.Errorf("symbol %s: no function %s", sy.Name, symname.StripClone(sy.Name))
					continue
				}
				if !inRanges(f.Ranges, sy.Value) || !inRanges(f.Ranges, sy.Value+sy.Size-1) {
					t.Errorf("symbol %s [%#x,%#x) outside %s ranges %v", sy.Name, sy.Value, sy.Value+sy.Size, f.Name, f.Ranges)
				}
			}
			for _, f := range s.Funcs {
				if strings.Contains(f.Name, ".") {
					t.Errorf("function %q keeps a clone suffix", f.Name)
				}
			}
			workID, work := funcByName(s, "work")
			if work == nil || len(work.Ranges) == 0 || work.Line != 11 || !strings.HasSuffix(s.Files[work.File], "prog.c") {
				t.Fatalf("work: %+v", work)
			}
			if len(work.FrameBase) == 0 {
				t.Errorf("work has no frame base")
			}

			// Globals: at their symbol's address.
			for _, g := range []string{"g_count", "g_name", "g_sink"} {
				checkGlobal(t, s, bin, g)
			}
			if _, gv := varByName(s, model.NoFunc, "g_name"); gv != nil {
				if gv.Kind != model.KindPointer || gv.Type != "const char *" || gv.PointeeKind != model.KindInt || gv.PointeeSize != 1 {
					t.Errorf("g_name: %+v", gv)
				}
			}
			// g_conn's scalar fields replace its hash (fields_test.go).
			if _, gv := varByName(s, model.NoFunc, "g_conn"); gv != nil {
				t.Errorf("g_conn kept beside its fields: %+v", gv)
			}
			if _, gv := varByName(s, model.NoFunc, "g_conn.budget"); gv == nil || gv.Kind != model.KindInt || gv.Size != 8 || gv.Field == nil || gv.Field.Offset != 8 || gv.Field.Deref {
				t.Errorf("g_conn.budget: %+v", gv)
			}
			if _, gv := varByName(s, model.NoFunc, "g_sink"); gv != nil && (gv.Kind != model.KindInt || gv.Type != "volatile int") {
				t.Errorf("g_sink: %+v", gv)
			}

			// Locals and parameters of work, with locations inside work.
			want := map[string]struct {
				typ   string
				kind  model.Kind
				param bool
			}{
				"c":   {"struct conn *", model.KindPointer, true},
				"n":   {"int", model.KindInt, true},
				"lim": {"ulong_t", model.KindUint, true},
				"sum": {map[bool]string{false: "long int", true: "long"}[tc.clang], model.KindInt, false},
				"i":   {"int", model.KindInt, false},
			}
			for name, w := range want {
				v, vv := varByName(s, workID, name)
				if vv == nil {
					t.Errorf("work.%s missing", name)
					continue
				}
				if vv.Type != w.typ || vv.Kind != w.kind || vv.Param != w.param {
					t.Errorf("work.%s = %+v, want type %q kind %v param %v", name, vv, w.typ, w.kind, w.param)
				}
				ls := locsOf(s, v)
				if len(ls) == 0 && tc.flags[len(tc.flags)-1] != "-O0" && name != "lim" {
					t.Errorf("work.%s has no location", name)
				}
				for _, l := range ls {
					if !inRanges(work.Ranges, l.PCStart) {
						t.Errorf("work.%s loc %#x-%#x outside work %v", name, l.PCStart, l.PCEnd, work.Ranges)
					}
				}
			}
			if v, calls := varByName(s, workID, "calls"); calls == nil || !calls.Static {
				t.Errorf("work's static calls: %+v", calls)
			} else if ls := locsOf(s, v); len(ls) == 0 || ls[0].Kind != model.LocAddr {
				t.Errorf("work's static calls: locs %+v", ls)
			}

			// sq is inlined into work at line 14; its variables belong to
			// it and live inside the inlined code.
			sqID, sq := funcByName(s, "sq")
			if sq == nil {
				if !tc.clang {
					t.Error("sq missing")
				}
				return
			}
			var inl *model.Inline
			for i := range s.Inlines {
				if s.Inlines[i].Func == sqID {
					inl = &s.Inlines[i]
				}
			}
			if inl == nil {
				// clang folds sq away without a trace in DWARF.
				if !strings.Contains(tc.name, "O0") && !tc.clang {
					t.Errorf("no inlined instance of sq")
				}
			} else if inl.CallLine != 14 || inl.Depth != 1 || !inRanges(work.Ranges, inl.Ranges[0].Lo) {
				t.Errorf("sq inline %+v (work %v)", inl, work.Ranges)
			}
			if _, x := varByName(s, sqID, "x"); x == nil || !x.Param {
				t.Errorf("sq's parameter x: %+v", x)
			}

			// The line table maps work's entry to its declaration line.
			if r := lineAt(s, work.Ranges[0].Lo); r == nil || r.Line < 11 || r.Line > 14 {
				t.Errorf("line at work entry %#x: %+v", work.Ranges[0].Lo, r)
			}
		})
	}
}

// lineAt returns the line row covering pc.
func lineAt(s *model.Schema, pc uint64) *model.LineRow {
	i, _ := slices.BinarySearchFunc(s.Lines, pc, func(r model.LineRow, pc uint64) int {
		switch {
		case r.PC < pc:
			return -1
		case r.PC > pc:
			return 1
		}
		return 0
	})
	if i < len(s.Lines) && s.Lines[i].PC == pc {
		return &s.Lines[i]
	}
	if i == 0 {
		return nil
	}
	if r := &s.Lines[i-1]; r.File >= 0 {
		return r
	}
	return nil
}

func TestLoadCPlusPlus(t *testing.T) {
	bin := build(t, t.TempDir(), "g++", ".cc", sampleCC, "-g", "-O2")
	s, err := Load(bin, Options{All: true})
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, s)
	runID, run := funcByName(s, "_Z3runi")
	if run == nil || run.Display != "run(int)" || len(run.Ranges) == 0 {
		t.Fatalf("run: %+v", run)
	}
	_, total := funcByName(s, "shop::Cart::total(long) const")
	if total == nil || total.Name != "_ZNK4shop4Cart5totalEl" {
		t.Errorf("Cart::total: %+v", total)
	}
	// One function for a constructor, whatever its variants (C1/C2/C4).
	n := 0
	for _, f := range s.Funcs {
		if f.Display == "shop::Cart::Cart(int)" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d functions shop::Cart::Cart(int), want 1", n)
	}
	if _, v := varByName(s, model.NoFunc, "shop::Cart::instances"); v == nil || v.Type != "int" || v.Line != 19 {
		t.Errorf("static member: %+v", v)
	}
	if _, v := varByName(s, model.NoFunc, "label"); v == nil || v.Type != "std::string" || v.Kind != model.KindAggregate {
		t.Errorf("label: %+v", v)
	}
	if _, v := varByName(s, runID, "c"); v == nil || v.Type != "shop::Cart" {
		t.Errorf("run's c: %+v", v)
	}
	for _, v := range s.Vars {
		if strings.Contains(v.Type, "?") {
			t.Errorf("var %s: unresolved type %q", v.Name, v.Type)
		}
	}
}

// lambdaCC has lambdas in two functions of a namespace and one in main,
// inlined and not: each body must be a function of its own, named where it
// is written (a lambda's closure type has no DW_AT_name).
const lambdaCC = `#include <functional>
#include <vector>
static std::vector<std::function<long(long)>> jobs;
namespace pool {
__attribute__((noinline)) void add_a(long k) {
  jobs.push_back([k](long n) { long s = 0; for (long i = 0; i < n; i++) s += i * k; return s; });
}
__attribute__((noinline)) void add_b(long k) {
  jobs.push_back([k](long n) { long s = 1; for (long i = 1; i < n; i++) s ^= s * 31 + i / k; return s; });
}
}
int main(int argc, char **) {
  pool::add_a(3); pool::add_b(5);
  long t = 0;
  for (auto &j : jobs) t += j(argc * 1000);
  auto spin = [&](long m) __attribute__((noinline)) { for (long i = 0; i < m; i++) t += i % 7; };
  spin(argc * 100);
  return (int)t;
}
`

func TestLoadLambdas(t *testing.T) {
	for _, cc := range []string{"g++", "clang++"} {
		t.Run(cc, func(t *testing.T) {
			if _, err := exec.LookPath(cc); err != nil {
				t.Skipf("%s not installed", cc)
			}
			bin := build(t, t.TempDir(), cc, ".cc", lambdaCC, "-g", "-O2")
			s, err := Load(bin, Options{All: true})
			if err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, s)
			// gcc gives the closure's operator() no linkage name: its name
			// is ours. clang gives one (main::$_2::operator()(long) const).
			want := map[string]string{
				"pool::add_a": "pool::add_a::(lambda at prog.cc:6)::operator()",
				"pool::add_b": "pool::add_b::(lambda at prog.cc:9)::operator()",
				"main":        "main::(lambda at prog.cc:16)::operator()",
			}
			seen := map[string]int{}
			for _, f := range s.Funcs {
				if strings.HasPrefix(f.Name, "::") || strings.HasPrefix(f.Display, "::") {
					t.Errorf("function named from nowhere: %q (%q)", f.Name, f.Display)
				}
				for in, name := range want {
					if f.Display == name || cc == "clang++" && (strings.HasPrefix(f.Display, in+"(") || strings.HasPrefix(f.Display, in+"::")) &&
						strings.Contains(f.Display, "::$_") && strings.Contains(f.Display, "::operator()") {
						seen[in]++
					}
				}
			}
			for in := range want {
				if seen[in] != 1 {
					t.Errorf("%d functions for the lambda in %s, want 1", seen[in], in)
				}
			}
		})
	}
}

func TestLoadSharedObject(t *testing.T) {
	src := `int counter;
static int limit = 10;
void set_limit(int l) { limit = l; }
__attribute__((noinline)) int step(int k) { int r = 0; for (int i = 0; i < k && i < limit; i++) r += i * counter; return r; }
int api(int k) { counter++; return step(k) + step(k + 1); }
`
	bin := build(t, t.TempDir(), "gcc", ".c", src, "-g", "-O2", "-shared", "-fPIC")
	s, err := Load(bin, Options{All: true})
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, s)
	if s.Type != "dyn" {
		t.Errorf("type %q", s.Type)
	}
	for _, name := range []string{"step", "api"} {
		if _, f := funcByName(s, name); f == nil || len(f.Ranges) == 0 {
			t.Errorf("%s: %+v", name, f)
		}
	}
	checkGlobal(t, s, bin, "limit")
	checkGlobal(t, s, bin, "counter") // reached through the GOT in PIC code
}

// checkGlobal checks that global name is listed, at its ELF symbol's
// address. Load gives a global a location over the whole object, which
// narrowGlobals (globalrefs.go, the tag inference's) then restricts to the
// code of functions that reference it; which ones is that pass's business,
// so each location must only be the whole object or lie in some function.
func checkGlobal(t *testing.T, s *model.Schema, bin, name string) {
	t.Helper()
	v, gv := varByName(s, model.NoFunc, name)
	if gv == nil {
		t.Errorf("global %s missing", name)
		return
	}
	want, ok := elfSymbol(t, bin, name)
	if !ok {
		t.Errorf("no symbol %s", name)
	}
	for _, l := range locsOf(s, v) {
		inCode := false
		for i := range s.Funcs {
			inCode = inCode || inRanges(s.Funcs[i].Ranges, l.PCStart)
		}
		whole := l.PCStart == 0 && l.PCEnd == ^uint64(0)
		if l.Kind != model.LocAddr || l.Addr != want || !whole && !inCode {
			t.Errorf("global %s: loc %+v, want addr %#x over the object or in some function", name, l, want)
		}
	}
}

func TestLoadFilters(t *testing.T) {
	dir := t.TempDir()
	bin := build(t, dir, "gcc", ".c", sampleC, "-g", "-O2")
	all, err := Load(bin, Options{All: true})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		opt  Options
		keep func(s *model.Schema, v model.Var) bool
	}{
		{"func regex", Options{FuncRegex: regexp.MustCompile(`^work$`)},
			func(s *model.Schema, v model.Var) bool {
				return v.Func != model.NoFunc && s.Funcs[v.Func].Name == "work"
			}},
		{"func regex with globals", Options{FuncRegex: regexp.MustCompile(`^scan$|#global`)},
			func(s *model.Schema, v model.Var) bool {
				return v.Func == model.NoFunc || s.Funcs[v.Func].Name == "scan"
			}},
		{"component absolute", Options{Components: []string{dir}},
			func(s *model.Schema, v model.Var) bool { return true }},
		{"component relative to comp dir", Options{Components: []string{"prog.c"}},
			func(s *model.Schema, v model.Var) bool { return true }},
		{"component elsewhere", Options{Components: []string{"/nonexistent/src"}},
			func(s *model.Schema, v model.Var) bool { return false }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.opt.All = true
			s, err := Load(bin, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, s)
			if !slices.Equal(s.Components, tc.opt.Components) {
				t.Errorf("schema components %q, want %q", s.Components, tc.opt.Components)
			}
			// The files a component matched are recorded, for the analysis.
			if matched := tc.opt.Components != nil && tc.keep(all, model.Var{}); matched != (len(s.ComponentFiles) > 0) {
				t.Errorf("component files %q", s.ComponentFiles)
			}
			for _, f := range s.ComponentFiles {
				if !strings.HasSuffix(f, "prog.c") {
					t.Errorf("component file %q, want prog.c only", f)
				}
			}
			if len(s.Funcs) != len(all.Funcs) {
				t.Errorf("filters dropped functions: %d of %d", len(s.Funcs), len(all.Funcs))
			}
			var want []string
			for _, v := range all.Vars {
				if tc.keep(all, v) {
					want = append(want, v.Name)
				}
			}
			var got []string
			for _, v := range s.Vars {
				got = append(got, v.Name)
			}
			if !slices.Equal(got, want) {
				t.Errorf("vars %v, want %v", got, want)
			}
		})
	}
}

func TestLoadDropsUntagged(t *testing.T) {
	bin := build(t, t.TempDir(), "gcc", ".c", sampleC, "-g", "-O2")
	all, err := Load(bin, Options{All: true})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Load(bin, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, s)
	globals := 0
	for _, v := range s.Vars {
		if v.Func == model.NoFunc {
			globals++
		} else if v.Tags == 0 && !v.Static {
			t.Errorf("untagged local %s kept", v.Name)
		}
	}
	wantGlobals := 0
	for _, v := range all.Vars {
		if v.Func == model.NoFunc {
			wantGlobals++
		}
	}
	if globals != wantGlobals || globals == 0 {
		t.Errorf("%d globals kept, want %d", globals, wantGlobals)
	}
	// Locations follow their variables through the renumbering.
	for _, l := range s.Locs {
		v := s.Vars[l.Var]
		k := slices.IndexFunc(all.Vars, func(a model.Var) bool {
			return a.Name == v.Name && a.Line == v.Line && a.File == v.File
		})
		if k < 0 || !slices.ContainsFunc(all.Locs, func(a model.Loc) bool {
			return a.Var == model.VarID(k) && a.PCStart == l.PCStart && a.PCEnd == l.PCEnd
		}) {
			t.Errorf("loc %+v of %s has no match in the full schema", l, v.Name)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	good := build(t, dir, "gcc", ".c", sampleC, "-g", "-O2")
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// A 32-bit object from gcc -m32 when its multilib is installed, else
	// a hand-made ELF32 header.
	m32 := filepath.Join(dir, "m32.o")
	if exec.Command("gcc", "-m32", "-c", "-o", m32, filepath.Join(dir, "prog.c")).Run() != nil {
		h := make([]byte, 52)
		copy(h, "\x7fELF\x01\x01\x01")
		h[16], h[18] = 2, 3 // ET_EXEC, EM_386
		write("m32.o", h)
	}
	arm := slices.Clone(data[:64])
	arm[18], arm[19] = byte(elf.EM_AARCH64), 0
	obj := filepath.Join(dir, "prog.o")
	if b, err := exec.Command("gcc", "-g", "-c", "-o", obj, filepath.Join(dir, "prog.c")).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	tests := []struct {
		name string
		path string
		want string
	}{
		{"missing", filepath.Join(dir, "nope"), "no such file"},
		{"directory", dir, "is a directory"},
		{"empty", write("empty", nil), "not an ELF file"},
		{"text", write("text", []byte("#!/bin/sh\necho hi\n")), "not an ELF file"},
		{"32-bit", m32, "32-bit ELF"},
		{"arm64", write("arm64", append(arm, data[64:]...)), "x86-64"},
		{"relocatable", obj, "relocatable object"},
		{"truncated header", write("trunc40", data[:40]), "truncated"},
		{"truncated sections", write("trunchalf", data[:len(data)/2]), "truncated"},
	}
	// LoadSymbols checks the file as Load does.
	loaders := map[string]func(string) (*model.Schema, error){
		"Load":        func(p string) (*model.Schema, error) { return Load(p, Options{}) },
		"LoadSymbols": LoadSymbols,
	}
	for _, tc := range tests {
		for name, load := range loaders {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				s, err := load(tc.path)
				if err == nil || s != nil {
					t.Fatalf("%s(%s) = %v, %v; want an error", name, tc.name, s, err)
				}
				msg := err.Error()
				if !strings.Contains(msg, tc.want) || !strings.Contains(msg, tc.path) || strings.Contains(msg, "\n") {
					t.Errorf("error %q: want one line naming %s and saying %q", msg, tc.path, tc.want)
				}
			})
		}
	}
}

func TestLoadStripped(t *testing.T) {
	dir := t.TempDir()
	bin := build(t, dir, "gcc", ".c", sampleC, "-g", "-O2")
	debugOnly := filepath.Join(dir, "prog.full")
	if b, err := exec.Command("cp", bin, debugOnly).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, b)
	}
	if b, err := exec.Command("strip", "--strip-debug", bin).CombinedOutput(); err != nil {
		t.Fatalf("strip: %v %s", err, b)
	}
	s, err := Load(bin, Options{DebugDirs: []string{filepath.Join(dir, "none")}})
	if !errors.Is(err, ErrNoDWARF) || s == nil {
		t.Fatalf("Load(stripped) = %v, %v; want ErrNoDWARF and a schema", s, err)
	}
	if msg := err.Error(); !strings.Contains(msg, bin) || !strings.Contains(msg, "-g") || !strings.Contains(msg, "dbgsym") {
		t.Errorf("error %q should name the file and say how to get DWARF", msg)
	}
	if s.HasDWARF || len(s.Vars) != 0 || len(s.Locs) != 0 {
		t.Errorf("stripped schema has DWARF data: %v %d %d", s.HasDWARF, len(s.Vars), len(s.Locs))
	}
	checkInvariants(t, s)
	for _, name := range []string{"main", "scan", "work"} {
		if _, f := funcByName(s, name); f == nil || len(f.Ranges) == 0 {
			t.Errorf("function %s not listed from the symbol table", name)
		}
	}
	// Fully stripped: no symbols either, still a clean error.
	if b, err := exec.Command("strip", bin).CombinedOutput(); err != nil {
		t.Fatalf("strip: %v %s", err, b)
	}
	if s, err := Load(bin, Options{DebugDirs: []string{dir}}); !errors.Is(err, ErrNoDWARF) || s == nil {
		t.Errorf("Load(fully stripped) = %v, %v", s, err)
	}
}

// TestLoadSeparateDebug finds the DWARF of a stripped binary in a separate
// debug file, by build-id and by .gnu_debuglink.
func TestLoadSeparateDebug(t *testing.T) {
	dir := t.TempDir()
	full := build(t, dir, "gcc", ".c", sampleC, "-g", "-O2")
	want, err := Load(full, Options{All: true})
	if err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) {
		t.Helper()
		if b, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, b)
		}
	}
	tests := []struct {
		name  string
		setup func(bin, dbg string) (debugDirs []string, debugFile string)
	}{
		{"build-id", func(bin, dbg string) ([]string, string) {
			root := filepath.Join(filepath.Dir(bin), "debugroot")
			p := filepath.Join(root, ".build-id", want.BuildID[:2], want.BuildID[2:]+".debug")
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			run("mv", dbg, p)
			return []string{root}, p
		}},
		{"debuglink beside", func(bin, dbg string) ([]string, string) {
			run("objcopy", "--add-gnu-debuglink="+dbg, bin)
			return []string{filepath.Join(dir, "none")}, dbg
		}},
		{"debuglink in .debug", func(bin, dbg string) ([]string, string) {
			run("objcopy", "--add-gnu-debuglink="+dbg, bin)
			p := filepath.Join(filepath.Dir(bin), ".debug", filepath.Base(dbg))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			run("mv", dbg, p)
			return []string{filepath.Join(dir, "none")}, p
		}},
		{"debuglink under debug dir", func(bin, dbg string) ([]string, string) {
			run("objcopy", "--add-gnu-debuglink="+dbg, bin)
			root := filepath.Join(filepath.Dir(bin), "debugroot")
			p := filepath.Join(root, filepath.Dir(bin), filepath.Base(dbg))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			run("mv", dbg, p)
			return []string{root}, p
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := t.TempDir()
			bin := filepath.Join(d, "prog")
			dbg := filepath.Join(d, "prog.debug")
			run("cp", full, bin)
			run("objcopy", "--only-keep-debug", bin, dbg)
			run("strip", "--strip-debug", "--strip-unneeded", bin)
			dirs, file := tc.setup(bin, dbg)
			s, err := Load(bin, Options{All: true, DebugDirs: dirs})
			if err != nil {
				t.Fatal(err)
			}
			if !s.HasDWARF || s.DebugFile != file || s.Path != bin {
				t.Errorf("HasDWARF %v DebugFile %q Path %q; want true %q %q", s.HasDWARF, s.DebugFile, s.Path, file, bin)
			}
			if len(s.Funcs) != len(want.Funcs) || len(s.Vars) != len(want.Vars) || len(s.Locs) != len(want.Locs) || len(s.Lines) != len(want.Lines) {
				t.Errorf("funcs/vars/locs/lines %d/%d/%d/%d, want %d/%d/%d/%d", len(s.Funcs), len(s.Vars), len(s.Locs), len(s.Lines),
					len(want.Funcs), len(want.Vars), len(want.Locs), len(want.Lines))
			}
			if len(s.Symbols) != len(want.Symbols) {
				t.Errorf("%d symbols, want %d (from the debug file's .symtab)", len(s.Symbols), len(want.Symbols))
			}
		})
	}
	// A debug file of another build is not used.
	t.Run("wrong build-id", func(t *testing.T) {
		d := t.TempDir()
		other := build(t, d, "gcc", ".c", sampleC+"int other;\n", "-g", "-O2")
		bin := filepath.Join(d, "stripped")
		run("cp", full, bin)
		run("strip", "--strip-debug", bin)
		root := filepath.Join(d, "root")
		p := filepath.Join(root, ".build-id", want.BuildID[:2], want.BuildID[2:]+".debug")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		run("objcopy", "--only-keep-debug", other, p)
		if _, err := Load(bin, Options{DebugDirs: []string{root}}); !errors.Is(err, ErrNoDWARF) {
			t.Errorf("Load used a debug file of another build: err %v", err)
		}
	})
}

// TestClones checks that gcc's .constprop, .isra, .part and .cold copies
// all belong to their source function.
func TestClones(t *testing.T) {
	src := `#include <stdio.h>
#include <stdlib.h>
struct big { long a[8]; int key; };
int g;
__attribute__((noinline)) static int lookup(struct big *b, int mode, int k) {
	int hits = 0;
	for (int i = 0; i < 8; i++) if (b->a[i] == k + mode) hits++;
	if (__builtin_expect(hits > 6, 0)) { fprintf(stderr, "many hits %d\n", hits); fflush(stderr); abort(); }
	return hits + b->key;
}
__attribute__((noinline)) static long sum_isra(struct big *b) { long s = 0; for (int i = 0; i < 8; i++) s += b->a[i]; return s; }
static int big_split(int x) {
	if (__builtin_expect(x > 1000, 0)) {
		for (int i = 0; i < x; i++) { g += i * x; if (g % 7 == 0) printf("%d\n", g); }
		return g;
	}
	return x + 1;
}
int main(int argc, char **argv) {
	struct big b = { {1, 2, 3, 4, 5, 6, 7, 8}, argc };
	int r = lookup(&b, 3, argc) + lookup(&b, 3, argc * 2);
	r += big_split(argc) + big_split(argc * 3);
	printf("%d %ld\n", r, sum_isra(&b));
	return 0;
}
`
	bin := build(t, t.TempDir(), "gcc", ".c", src, "-g", "-O2")
	s, err := Load(bin, Options{All: true})
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, s)
	var suffixed []model.Symbol
	for _, sy := range s.Symbols {
		if symname.StripClone(sy.Name) != sy.Name {
			suffixed = append(suffixed, sy)
		}
	}
	if len(suffixed) < 2 {
		t.Fatalf("gcc made no clones to test (symbols %v)", s.Symbols)
	}
	for _, sy := range suffixed {
		id, f := funcByName(s, symname.StripClone(sy.Name))
		if f == nil || !inRanges(f.Ranges, sy.Value) {
			t.Errorf("clone %s at %#x not in function %s", sy.Name, sy.Value, symname.StripClone(sy.Name))
			continue
		}
		// The clone's locals belong to the source function.
		for _, l := range s.Locs {
			if l.PCStart >= sy.Value && l.PCStart < sy.Value+sy.Size {
				if v := s.Vars[l.Var]; v.Func != id && v.Func != model.NoFunc && !isInlinedAt(s, v.Func, l.PCStart) {
					t.Errorf("loc of %s in clone %s belongs to %s", v.Name, sy.Name, s.Funcs[v.Func].Name)
				}
			}
		}
	}
	if id, _ := funcByName(s, "lookup"); id >= 0 {
		if _, hits := varByName(s, id, "hits"); hits == nil {
			t.Errorf("lookup's local hits missing")
		}
	}
}

func isInlinedAt(s *model.Schema, fn model.FuncID, pc uint64) bool {
	for _, in := range s.Inlines {
		if in.Func == fn && inRanges(in.Ranges, pc) {
			return true
		}
	}
	return false
}

// TestLoadDWZ reads binaries whose DWARF dwz moved in part to a
// supplementary file (as Debian's -dbgsym packages are): with the GNU
// .gnu_debugaltlink and with DWARF 5 .debug_sup.
func TestLoadDWZ(t *testing.T) {
	if _, err := exec.LookPath("dwz"); err != nil {
		t.Skip("dwz not installed")
	}
	dir := t.TempDir()
	plain := build(t, dir, "g++", ".cc", sampleCC, "-g", "-O2")
	want, err := Load(plain, Options{All: true})
	if err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) {
		t.Helper()
		if b, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, b)
		}
	}
	for _, tc := range []struct{ name, flag string }{{"gnu altlink", ""}, {"dwarf5 sup", "--dwarf-5"}} {
		t.Run(tc.name, func(t *testing.T) {
			d := t.TempDir()
			a, b, sup := filepath.Join(d, "a"), filepath.Join(d, "b"), filepath.Join(d, "common.debug")
			run("cp", plain, a)
			run("cp", plain, b)
			args := []string{"dwz", "-m", sup, "-M", sup, a, b}
			if tc.flag != "" {
				args = append([]string{"dwz", tc.flag}, args[1:]...)
			}
			run(args...)
			s, err := Load(b, Options{All: true})
			if err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, s)
			if len(s.Funcs) != len(want.Funcs) || len(s.Vars) != len(want.Vars) || len(s.Locs) != len(want.Locs) || len(s.Inlines) != len(want.Inlines) {
				t.Errorf("funcs/vars/locs/inlines %d/%d/%d/%d, want %d/%d/%d/%d", len(s.Funcs), len(s.Vars), len(s.Locs), len(s.Inlines),
					len(want.Funcs), len(want.Vars), len(want.Locs), len(want.Inlines))
			}
			for i := range min(len(s.Vars), len(want.Vars)) {
				g, w := s.Vars[i], want.Vars[i]
				if g.Name != w.Name || g.Type != w.Type || g.Line != w.Line || s.Files[g.File] != want.Files[w.File] {
					t.Errorf("var %d: %s %q line %d, want %s %q line %d", i, g.Name, g.Type, g.Line, w.Name, w.Type, w.Line)
				}
			}
			for i := range min(len(s.Funcs), len(want.Funcs)) {
				if s.Funcs[i].Name != want.Funcs[i].Name {
					t.Errorf("func %d: %s, want %s", i, s.Funcs[i].Name, want.Funcs[i].Name)
				}
			}
			// Without its supplementary file the binary is an error
			// that says what is missing.
			if err := os.Remove(sup); err != nil {
				t.Fatal(err)
			}
			if _, err := Load(b, Options{DebugDirs: []string{d}}); err == nil || !strings.Contains(err.Error(), "supplementary") {
				t.Errorf("Load without the dwz file: %v", err)
			}
		})
	}
}
