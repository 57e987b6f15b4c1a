package dwarfschema

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/vprof/vprof/dwarfschema/cfg"
	"github.com/vprof/vprof/runtime/model"
)

// tagSrc has one function per tag shape of method.md §2. External calls go
// to noipa functions so that gcc keeps them as calls.
const tagSrc = `
#include <stdio.h>
#ifdef __clang__
#define NOIPA __attribute__((noinline))
#else
#define NOIPA __attribute__((noipa))
#endif
NOIPA long now(void) { static long t; return t++; }
NOIPA void work(long x) { __asm__ volatile("" :: "r"(x)); }
NOIPA int check(int limit) { return limit > 10 ? 1 : 0; }
volatile int done;
int total;

NOIPA void count(int n) { for (int i = 0; i < n; i++) work(i); }
NOIPA int flagged(int flag, int x) { if (flag) return x * 3; return x + 1; }
NOIPA void pass(int x) { work(x); work(x + 1); }
NOIPA void wait_grace(long grace) { long deadline = now() + grace; while (now() < deadline) work(1); }
NOIPA void poll_done(void) { while (!done) work(0); }
NOIPA int dispatch(int k) {
	switch (k) {
	case 0: return 10; case 1: work(3); return 11; case 2: return 17;
	case 3: return 99; case 4: work(7); return 3; case 5: return 8;
	default: return -1;
	}
}
NOIPA void store(int y) { int z = y * 5; total = z; printf("%d\n", z); }
NOIPA int through(int lim) { return check(lim); }
struct node { struct node *prev; int busy; };
NOIPA int walk(struct node *tail) {
	int freed = 0;
	struct node *p, *prev;
	for (p = tail; p && !freed; p = prev) {
		prev = p->prev;
		work(p->busy);
		if (!p->busy)
			freed = 1;
	}
	return freed;
}

int main(int argc, char **argv) {
	(void)argv;
	count(argc); pass(argc); wait_grace(argc); store(argc);
	done = 1; poll_done();
	struct node a = {0, 0}, b = {&a, 1};
	return flagged(argc, 2) + dispatch(argc) + through(argc) + walk(&b);
}
`

func buildC(t *testing.T, src string, flags ...string) string {
	t.Helper()
	return buildWith(t, "gcc", src, flags...)
}

func buildWith(t *testing.T, cc, src string, flags ...string) string {
	t.Helper()
	if _, err := exec.LookPath(cc); err != nil {
		t.Skipf("%s not installed", cc)
	}
	dir := t.TempDir()
	c := filepath.Join(dir, "p.c")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "p")
	args := append([]string{"-g", "-o", bin, c}, flags...)
	if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", cc, args, err, out)
	}
	return bin
}

// varTags returns the tags of variable name of function fn ("#global" for
// globals), or fails if there is no such variable.
func varTags(t *testing.T, s *model.Schema, fn, name string) model.Tags {
	t.Helper()
	found := false
	var tags model.Tags
	for _, v := range s.Vars {
		f := model.GlobalFunc
		if v.Func != model.NoFunc {
			f = s.Funcs[v.Func].Name
		}
		if f == fn && v.Name == name {
			found = true
			tags |= v.Tags
		}
	}
	if !found {
		t.Fatalf("no variable %s in %s", name, fn)
	}
	return tags
}

func TestInferTags(t *testing.T) {
	cases := []struct {
		fn, v    string
		want     model.Tags // must have
		not      model.Tags // must not have
		optLevel string
	}{
		{"count", "i", model.TagLoop | model.TagCond | model.TagArgs, 0, ""},
		{"count", "n", model.TagCond, model.TagLoop, ""},
		{"flagged", "flag", model.TagCond, model.TagLoop | model.TagArgs, ""},
		{"flagged", "x", 0, model.TagLoop | model.TagCond | model.TagArgs, ""},
		{"pass", "x", model.TagArgs, model.TagLoop | model.TagCond, ""},
		{"wait_grace", "grace", model.TagCond, model.TagLoop, ""},
		{"wait_grace", "deadline", model.TagCond, model.TagLoop, ""},
		{model.GlobalFunc, "done", model.TagCond, model.TagLoop, ""},
		{"dispatch", "k", model.TagCond, model.TagLoop, ""},
		{"store", "y", 0, model.TagLoop | model.TagCond, ""},
		{"store", "z", model.TagArgs, model.TagLoop | model.TagCond, ""},
		{model.GlobalFunc, "total", 0, model.TagLoop | model.TagCond | model.TagArgs, ""},
		// Through a call the value is opaque: args in the caller, cond in
		// the callee.
		{"through", "lim", model.TagArgs, model.TagCond | model.TagLoop, ""},
		{"check", "limit", model.TagCond, model.TagArgs | model.TagLoop, ""},
		{"main", "argc", model.TagArgs, model.TagLoop, ""},
		// A list walk: p = p->prev is an update through a load; gcc's
		// location list leaves the advancing instruction uncovered. At -O0
		// clang evaluates `p && !freed` into a bool slot by branches: p
		// reaches the exit test by control dependence only, which the
		// data-flow pass does not follow.
		{"walk", "p", model.TagLoop | model.TagCond, 0, "-O2"},
	}
	for _, build := range [][2]string{{"gcc", "-O2"}, {"gcc", "-O0"}, {"clang", "-O2"}, {"clang", "-O0"}} {
		cc, opt := build[0], build[1]
		t.Run(cc+opt, func(t *testing.T) {
			bin := buildWith(t, cc, tagSrc, opt)
			s, err := Load(bin, Options{All: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cases {
				if c.optLevel != "" && c.optLevel != opt {
					continue
				}
				got := varTags(t, s, c.fn, c.v)
				if got&c.want != c.want || got&c.not != 0 {
					t.Errorf("%s %s: tags %q, want %q and none of %q", c.fn, c.v, got, c.want, c.not)
				}
			}
			st := lastTagStats.Load()
			if st.Skipped != 0 || st.BadBytes != 0 || st.Unresolved != 0 {
				t.Errorf("tag pass: %+v", *st)
			}
			if cc == "gcc" && opt == "-O2" && st.CallSites == 0 {
				t.Errorf("no call-site records read at -O2")
			}
			// Every function with code has its basic blocks, sorted, the
			// first at its entry.
			for _, f := range s.Funcs {
				if len(f.Ranges) == 0 {
					continue
				}
				if len(f.Blocks) == 0 || !slices.IsSorted(f.Blocks) || f.Blocks[0] != f.Ranges[0].Lo {
					t.Errorf("%s: blocks %x for ranges %v", f.Name, f.Blocks, f.Ranges)
				}
			}
		})
	}
}

// Without All, Load keeps the tagged locals and drops the others.
func TestUntaggedDropped(t *testing.T) {
	s, err := Load(buildC(t, tagSrc, "-O2"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range s.Vars {
		if v.Func != model.NoFunc && v.Tags == 0 && !v.Static {
			t.Errorf("untagged local %s kept", v.Name)
		}
	}
	if varTags(t, s, "count", "i")&model.TagLoop == 0 {
		t.Errorf("count's i lost its loop tag")
	}
}

// BenchmarkInferTags loads a large binary (VPROF_SYNTH, or the testprogs'
// synthetic 20,000-function program once built) and reports the tag pass's
// share of Load.
func BenchmarkInferTags(b *testing.B) {
	path := os.Getenv("VPROF_SYNTH")
	if path == "" {
		path = filepath.Join("..", "testprogs", "bin", "synth")
	}
	if _, err := os.Stat(path); err != nil {
		b.Skipf("no synthetic binary (%v): make -C testprogs synth, or set VPROF_SYNTH", err)
	}
	var tagTime, csTime time.Duration
	for b.Loop() {
		if _, err := Load(path, Options{}); err != nil {
			b.Fatal(err)
		}
		st := lastTagStats.Load()
		tagTime += st.Time
		csTime += st.CallSiteTime
	}
	st := lastTagStats.Load()
	b.ReportMetric(float64(tagTime.Milliseconds())/float64(b.N), "tag-ms/op")
	b.ReportMetric(float64(csTime.Milliseconds())/float64(b.N), "callsite-ms/op")
	b.ReportMetric(float64(st.Funcs), "funcs")
}

// TestReadOnlyGlobals: const globals and statics (a table, __func__) are
// not monitored: they cannot change; globals that can are, and so is a
// pointer to const data.
func TestReadOnlyGlobals(t *testing.T) {
	bin := buildC(t, `
#include <stdio.h>
const int limit = 10;
static const char names[3][8] = {"a", "b", "c"};
const char *cursor = "x";
char *const fixed = 0;
int counter;
__attribute__((noinline)) int run(int n) {
	static int calls;
	calls++;
	for (int i = 0; i < n && i < limit; i++) { counter += names[i % 3][0]; cursor = names[i % 3]; }
	printf("%s %d\n", __func__, counter);
	return counter + (fixed != 0);
}
int main(int argc, char **argv) { (void)argv; return run(argc) & 1; }
`, "-O2")
	s, err := Load(bin, Options{})
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, v := range s.Vars {
		have[v.Name] = true
	}
	for name, want := range map[string]bool{"limit": false, "names": false, "fixed": false, "__func__": false,
		"cursor": true, "counter": true, "calls": true} {
		if have[name] != want {
			t.Errorf("%s monitored %v, want %v", name, have[name], want)
		}
	}
}

// counterSrc has loops whose exits test no variable that they update: the
// bound lives in memory behind a pointer (D96).
const counterSrc = `
#include <string.h>
#ifdef __clang__
#define NOIPA __attribute__((noinline))
#else
#define NOIPA __attribute__((noipa))
#endif
NOIPA void work(long x) { __asm__ volatile("" :: "r"(x)); }
struct queue { long *items; long n; };
NOIPA void pop_front(struct queue *q) {
	memmove(q->items, q->items + 1, (size_t)(q->n - 1) * sizeof *q->items);
	q->n--;
}
/* The queue's length is a field that pop_front changes: no variable of
   drain moves toward the exit; consumed counts the iterations. */
NOIPA int drain(struct queue *q, long limit) {
	unsigned consumed = 0;
	long sum = 0;
	while (q->n > 0) {
		long x = q->items[0];
		if (x > limit)
			break;
		sum += x * 3;
		work(x);
		pop_front(q);
		consumed++;
	}
	if (consumed == 0 || sum > 1000)
		work(-1);
	return (int)consumed;
}
/* i is the loop's variable: hits is a count of some iterations, not the
   loop's dimension. */
NOIPA int scan(const long *a, int n) {
	int hits = 0;
	for (int i = 0; i < n; i++)
		if (a[i] > 3) {
			work(a[i]);
			hits++;
		}
	if (hits > 2)
		work(hits);
	return hits;
}
int main(int argc, char **argv) {
	(void)argv;
	long items[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	struct queue q = {items, 8};
	return drain(&q, argc + 4) + scan(items, 8);
}
`

// TestCounterOfMemoryBoundLoop: a loop whose exit tests read no variable
// that it updates has its bound in memory; an integer local that its own
// body steps by a constant and a condition reads is its loop variable
// (D96). A sum is no step, and a loop with an induction variable keeps
// only that one.
func TestCounterOfMemoryBoundLoop(t *testing.T) {
	cases := []struct {
		fn, v string
		want  model.Tags
		not   model.Tags
		skip  string // a build whose code the pass does not read so
	}{
		// clang -O0 steps consumed through a register (load, add, store):
		// only an in-place step counts.
		{"drain", "consumed", model.TagLoop | model.TagCond, 0, "clang-O0"},
		{"drain", "sum", model.TagCond, model.TagLoop, ""},
		{"scan", "i", model.TagLoop | model.TagCond, 0, ""},
		{"scan", "hits", model.TagCond, model.TagLoop, ""},
	}
	for _, build := range [][2]string{{"gcc", "-O2"}, {"gcc", "-O0"}, {"clang", "-O2"}, {"clang", "-O0"}} {
		cc, opt := build[0], build[1]
		t.Run(cc+opt, func(t *testing.T) {
			bin := buildWith(t, cc, counterSrc, opt)
			s, err := Load(bin, Options{All: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cases {
				if c.skip == cc+opt {
					continue
				}
				got := varTags(t, s, c.fn, c.v)
				if got&c.want != c.want || got&c.not != 0 {
					t.Errorf("%s %s: tags %q, want %q and none of %q", c.fn, c.v, got, c.want, c.not)
				}
			}
		})
	}
}

// TestJoinTagsOrder: the tagger's workers take functions in whatever
// order they come, so joining their lists must give one answer in any
// order. Variable 0 (an int local) is a counter in one function and read
// by a condition in another (its inlined copies): a loop's count whichever
// list is joined first. Variable 1 (a pointer) is a counter but no count;
// variable 2 is a counter read by no condition.
func TestJoinTagsOrder(t *testing.T) {
	vars := func() []model.Var {
		return []model.Var{
			{Name: "i", Func: 0, Kind: model.KindInt},
			{Name: "p", Func: 0, Kind: model.KindPointer},
			{Name: "n", Func: 0, Kind: model.KindInt},
		}
	}
	a := []cfg.VarTags{{Var: 0, Tags: cfg.TagCounter}, {Var: 1, Tags: cfg.TagCounter | cfg.TagStored}, {Var: 2, Tags: cfg.TagCounter}}
	b := []cfg.VarTags{{Var: 0, Tags: cfg.TagCond | cfg.TagArgs}, {Var: 1, Tags: cfg.TagCond}, {Var: 7, Tags: cfg.TagCond}}
	want := []model.Tags{model.TagCond | model.TagArgs | model.TagLoop, model.TagCond, 0}
	for _, order := range [][][]cfg.VarTags{{a, b}, {b, a}, {slices.Concat(a, b)}, {slices.Concat(b, a)}} {
		s := &model.Schema{Vars: vars()}
		stored, _, _ := joinTags(s, order, 0)
		for i, w := range want {
			if got := s.Vars[i].Tags; got != w {
				t.Errorf("order %v: var %d tags %v, want %v", order, i, got, w)
			}
		}
		if !slices.Equal(stored, []bool{false, true, false}) {
			t.Errorf("order %v: stored %v, want [false true false]", order, stored)
		}
	}
}
