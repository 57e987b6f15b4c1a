package dwarfschema

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/vprof/vprof/runtime/dwarfexpr"
	"github.com/vprof/vprof/runtime/model"
)

// fieldsC has struct globals (one with a nested struct and a bitfield, one
// whose fields cover it, one past the MaxFields budget, a union) and
// struct pointers: a parameter compared through, and a global.
const fieldsC = `#include <stdio.h>
struct stat { long n_conn; int n_err; };
struct pool { int n_free; unsigned cap; struct stat stat; char *name; double load; unsigned busy:1; };
struct pool pool = { 4, 8, { 0, 0 }, "p", 0.5, 0 };
struct plain { int a; long b; };
struct plain plain;
struct wide { int f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16, f17; };
struct wide wide;
union num { long i; double d; };
union num num;
struct cfg { long max_items; int verbose; };
struct cfg *g_cfg;
__attribute__((noipa)) long drain(struct cfg *cfg, int n) {
	long s = 0;
	for (int i = 0; i < n; i++) {
		if (pool.n_free > 0) pool.n_free--; else pool.n_free = pool.cap;
		if (s < cfg->max_items) s += i + plain.b + wide.f17 + num.i;
	}
	return s + g_cfg->verbose;
}
int main(int argc, char **argv) {
	struct cfg c = { argc * 1000, 0 };
	g_cfg = &c;
	printf("%ld\n", drain(&c, 1000));
	return 0;
}
`

// fieldsCC has this->field: a member of the class and one of its base,
// updated in a loop whose exit test compares it; the class has a vtable
// (its pointer is the compiler's, not a field). limit takes a reference.
const fieldsCC = `#include <cstdio>
struct Base { long done; virtual ~Base() {} };
struct Cfg { long max; int step; };
__attribute__((noipa)) void tick(long) {}
__attribute__((noipa)) long limit(const Cfg &cfg, long x) { return x < cfg.max ? x + cfg.step : cfg.max; }
class Queue : public Base {
 public:
	explicit Queue(int n) : pending(n) { done = 0; }
	__attribute__((noipa)) long step(long x) {
		long s = 0;
		while (pending > 0) { pending--; done++; tick(x); s += x; }
		return s;
	}
	int pending;
};
int main(int argc, char **) { Queue q(argc * 1000); Cfg c = { 100, 2 }; std::printf("%ld %ld\n", q.step(3), limit(c, argc)); }
`

func TestFieldsC(t *testing.T) {
	dir := t.TempDir()
	bin := build(t, dir, "gcc", ".c", fieldsC, "-g", "-O2")
	s, err := Load(bin, Options{})
	if err != nil {
		t.Fatal(err)
	}
	poolAddr, _ := elfSymbol(t, bin, "pool")
	plainAddr, _ := elfSymbol(t, bin, "plain")
	pv, _ := varByName(s, model.NoFunc, "pool")
	poolLocs := locsOf(s, pv)
	if pv < 0 || len(poolLocs) == 0 {
		t.Fatalf("pool (a bitfield: not covered by its fields) is gone or unsampled: %d", pv)
	}
	for _, c := range []struct {
		name string
		off  uint64
		kind model.Kind
		size int32
		typ  string
	}{
		{"pool.n_free", 0, model.KindInt, 4, "int"},
		{"pool.cap", 4, model.KindUint, 4, "unsigned int"},
		{"pool.stat.n_conn", 8, model.KindInt, 8, "long int"},
		{"pool.stat.n_err", 16, model.KindInt, 4, "int"},
		{"pool.name", 24, model.KindPointer, 8, "char *"},
		{"pool.load", 32, model.KindFloat, 8, "double"},
	} {
		v, fv := varByName(s, model.NoFunc, c.name)
		if fv == nil {
			t.Errorf("%s missing", c.name)
			continue
		}
		if fv.Kind != c.kind || fv.Size != c.size || fv.Type != c.typ || fv.Field == nil || fv.Field.Deref || fv.Field.Of != pv || fv.Field.Offset != int64(c.off) {
			t.Errorf("%s: %+v %+v", c.name, fv, fv.Field)
		}
		// Over the struct's code, at its address + the offset.
		ls := locsOf(s, v)
		if len(ls) != len(poolLocs) {
			t.Errorf("%s: %d locations, pool has %d", c.name, len(ls), len(poolLocs))
		}
		for i, l := range ls {
			if l.Kind != model.LocAddr || l.Addr != poolAddr+c.off || l.Size != c.size || i < len(poolLocs) && (l.PCStart != poolLocs[i].PCStart || l.PCEnd != poolLocs[i].PCEnd) {
				t.Errorf("%s: loc %+v, want addr %#x over pool's %+v", c.name, l, poolAddr+c.off, poolLocs[i])
			}
		}
	}
	if _, v := varByName(s, model.NoFunc, "pool.busy"); v != nil {
		t.Errorf("bitfield read as a field: %+v", v)
	}
	// The first field is compared by drain: a tag of its own.
	if _, v := varByName(s, model.NoFunc, "pool.n_free"); v == nil || v.Tags&model.TagCond == 0 {
		t.Errorf("pool.n_free: want cond, got %+v", v)
	}
	// A struct its fields cover is replaced by them.
	if v, _ := varByName(s, model.NoFunc, "plain"); v >= 0 {
		t.Errorf("plain kept beside its fields")
	}
	if v, fv := varByName(s, model.NoFunc, "plain.b"); fv == nil || fv.Field.Of != -1 || len(locsOf(s, v)) == 0 || locsOf(s, v)[0].Addr != plainAddr+8 {
		t.Errorf("plain.b: %+v", fv)
	}
	// The budget (D130): the fields the code reads (drain's wide.f17),
	// then declaration order up to MaxFields; the struct keeps its hash
	// for the rest.
	n := 0
	for _, v := range s.Vars {
		if strings.HasPrefix(v.Name, "wide.") {
			n++
		}
	}
	_, f14 := varByName(s, model.NoFunc, "wide.f14")
	_, f15 := varByName(s, model.NoFunc, "wide.f15")
	if _, f17 := varByName(s, model.NoFunc, "wide.f17"); n != MaxFields || f14 == nil || f15 != nil || f17 == nil {
		t.Errorf("wide: %d fields (f14 %v, f15 %v, f17 %v), want %d: f17, read, and f0 to f14", n, f14 != nil, f15 != nil, f17 != nil, MaxFields)
	}
	if v, _ := varByName(s, model.NoFunc, "wide"); v < 0 {
		t.Errorf("wide (more fields than the budget) lost its hash")
	}
	// A union's members overlap: each is a field at offset 0.
	if _, fv := varByName(s, model.NoFunc, "num.d"); fv == nil || fv.Field.Offset != 0 || fv.Kind != model.KindFloat {
		t.Errorf("num.d: %+v", fv)
	}

	// Behind a pointer, a field is monitored where the function itself
	// reads it in a condition (its own tags).
	drain, _ := funcByName(s, "drain")
	if _, fv := varByName(s, drain, "cfg->max_items"); fv == nil || fv.Tags&model.TagCond == 0 {
		t.Errorf("drain's cfg->max_items (compared): %+v", fv)
	}
	if _, fv := varByName(s, drain, "cfg->verbose"); fv != nil {
		t.Errorf("drain's cfg->verbose (not read) is monitored: %+v", fv)
	}
	// All of them with --all: no locations of their own, read at the
	// pointer.
	all, err := Load(bin, Options{All: true})
	if err != nil {
		t.Fatal(err)
	}
	drain, _ = funcByName(all, "drain")
	cfgV, cfg := varByName(all, drain, "cfg")
	if cfg == nil || len(locsOf(all, cfgV)) == 0 {
		t.Fatalf("drain's cfg: %+v", cfg)
	}
	for _, c := range []struct {
		fn   model.FuncID
		name string
		of   string
		off  int64
	}{
		{drain, "cfg->max_items", "cfg", 0},
		{drain, "cfg->verbose", "cfg", 8},
		{model.NoFunc, "g_cfg->verbose", "g_cfg", 8},
	} {
		v, fv := varByName(all, c.fn, c.name)
		of, _ := varByName(all, c.fn, c.of)
		if fv == nil || fv.Field == nil || !fv.Field.Deref || fv.Field.Of != of || fv.Field.Offset != c.off || len(locsOf(all, v)) != 0 {
			t.Errorf("%s: %+v (%d locations), want behind %s (%d) at %d", c.name, fv, len(locsOf(all, v)), c.of, of, c.off)
		}
	}
	checkFieldsWithGDB(t, bin, all, map[string]string{
		"pool.stat.n_err": "(long)&pool.stat.n_err - (long)&pool",
		"pool.load":       "(long)&pool.load - (long)&pool",
		"cfg->verbose":    "(long)&((struct cfg *)0)->verbose",
		"num.d":           "(long)&num.d - (long)&num",
	})
}

func TestFieldsCC(t *testing.T) {
	dir := t.TempDir()
	bin := build(t, dir, "g++", ".cc", fieldsCC, "-g", "-O2")
	s, err := Load(bin, Options{All: true})
	if err != nil {
		t.Fatal(err)
	}
	step, _ := funcByName(s, "Queue::step(long)")
	if step < 0 {
		t.Fatal("no Queue::step")
	}
	this, tv := varByName(s, step, "this")
	if tv == nil {
		t.Fatal("Queue::step: no this")
	}
	for _, c := range []struct {
		name string
		off  int64
	}{{"this->done", 8}, {"this->pending", 16}} {
		_, fv := varByName(s, step, c.name)
		if fv == nil || fv.Field == nil || !fv.Field.Deref || fv.Field.Of != this || fv.Field.Offset != c.off {
			t.Errorf("%s: %+v", c.name, fv)
			continue
		}
	}
	// Its own tags, not this's: pending is updated in the loop whose exit
	// test reads it; done is only updated.
	if _, fv := varByName(s, step, "this->pending"); fv == nil || fv.Tags&model.TagLoop == 0 {
		t.Errorf("this->pending: %+v, want loop (pending-- in the loop, pending > 0 its exit test)", fv)
	}
	if _, fv := varByName(s, step, "this->done"); fv == nil || fv.Tags&(model.TagLoop|model.TagCond) != 0 {
		t.Errorf("this->done: %+v, want neither loop nor cond (this has %v)", fv, tv.Tags)
	}
	for _, v := range s.Vars {
		if strings.Contains(v.Name, "_vptr") {
			t.Errorf("the vtable pointer is a field: %s", v.Name)
		}
	}
	// Behind a reference: named as the source writes it.
	lim, _ := funcByName(s, "limit(Cfg const&, long)")
	cfgV, _ := varByName(s, lim, "cfg")
	if _, fv := varByName(s, lim, "cfg.step"); lim < 0 || cfgV < 0 || fv == nil || !fv.Field.Deref || fv.Field.Of != cfgV || fv.Field.Offset != 8 {
		t.Errorf("limit's cfg.step (%d, %d): %+v", lim, cfgV, fv)
	}
	checkFieldsWithGDB(t, bin, s, map[string]string{
		"this->pending": "(long)&((Queue *)0)->pending",
		"this->done":    "(long)&((Queue *)0)->done",
		"cfg.step":      "(long)&((Cfg *)0)->step",
	})
}

// checkFieldsWithGDB compares the offsets of fields with gdb's reading of
// the same DWARF: exprs maps a field to a gdb expression of its offset.
func checkFieldsWithGDB(t *testing.T, bin string, s *model.Schema, exprs map[string]string) {
	t.Helper()
	if _, err := exec.LookPath("gdb"); err != nil {
		t.Log("gdb not installed: offsets not cross-checked")
		return
	}
	var names []string
	args := []string{"-batch", "-nx"}
	for name, e := range exprs {
		names = append(names, name)
		args = append(args, "-ex", "print "+e)
	}
	args = append(args, bin)
	out, err := exec.Command("gdb", args...).Output()
	if err != nil {
		t.Fatalf("gdb: %v", err)
	}
	var got []int64
	for _, line := range strings.Split(string(out), "\n") {
		if _, v, ok := strings.Cut(line, " = "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				t.Fatalf("gdb: %q", line)
			}
			got = append(got, n)
		}
	}
	if len(got) != len(names) {
		t.Fatalf("gdb printed %d values for %d expressions:\n%s", len(got), len(names), out)
	}
	for i, name := range names {
		found := false
		for _, v := range s.Vars {
			if v.Name == name && v.Field != nil {
				found = true
				if v.Field.Offset != got[i] {
					t.Errorf("%s: offset %d, gdb says %d", name, v.Field.Offset, got[i])
				}
			}
		}
		if !found {
			t.Errorf("%s: no such field", name)
		}
	}
}

// fieldsLocalC has a struct local that flush fills and passes by address
// to a call (in a frame slot: its fields are read there), one that only a
// callee fills (drain's out: no fields), and one that gcc keeps in
// registers (pieces: its fields where one piece holds them, D325).
const fieldsLocalC = `#include <stdio.h>
struct param { void *ctx; long time; long *cache; };
struct pair { long a, b; };
volatile long sink;
__attribute__((noipa)) void walk(struct param *p) { sink += p->time + *p->cache; }
__attribute__((noipa)) long use(long x) { sink += x; return x; }
__attribute__((noipa)) void flush(void *s, long t, long *cache) {
	struct param tp;
	tp.ctx = s;
	tp.cache = cache;
	tp.time = t;
	walk(&tp);
}
__attribute__((noipa)) void fill(struct param *p, long n) { p->time = n; p->cache = 0; p->ctx = p; }
__attribute__((noipa)) long drain(long n) {
	struct param out;
	long s = 0;
	for (long i = 0; i < n; i++) {
		fill(&out, i);
		if (out.time > 3) s += out.time;
	}
	return s;
}
__attribute__((noipa)) long pairs(long n) {
	struct pair q = { n, 2 * n };
	long s = 0;
	for (long i = 0; i < n; i++) { s += use(q.a); q.a++; q.b--; if (q.a > q.b) break; }
	return s;
}
int main(int argc, char **argv) {
	long c = argc;
	flush(argv, argc * 1000L, &c);
	printf("%ld %ld\n", pairs(argc * 10L), drain(argc * 10L));
	return 0;
}
`

// TestFieldsLocal: a struct local in memory gives one variable per scalar
// field, at the struct's location + the field's offset over the same code,
// with the struct's tags (method.md §2), as a struct global does, where the
// function itself stores the field (D30).
func TestFieldsLocal(t *testing.T) {
	dir := t.TempDir()
	bin := build(t, dir, "gcc", ".c", fieldsLocalC, "-g", "-O2")
	s, err := Load(bin, Options{})
	if err != nil {
		t.Fatal(err)
	}
	flush, _ := funcByName(s, "flush")
	tpV, tp := varByName(s, flush, "tp")
	if tp == nil || tp.Tags&model.TagArgs == 0 {
		t.Fatalf("flush's tp: %+v, want it tagged args (passed by address)", tp)
	}
	tpLocs := locsOf(s, tpV)
	if len(tpLocs) == 0 {
		t.Fatal("flush's tp has no location")
	}
	for _, c := range []struct {
		name string
		off  int64
		kind model.Kind
	}{
		{"tp.ctx", 0, model.KindPointer},
		{"tp.time", 8, model.KindInt},
		{"tp.cache", 16, model.KindPointer},
	} {
		v, fv := varByName(s, flush, c.name)
		if fv == nil {
			t.Errorf("%s missing", c.name)
			continue
		}
		if fv.Kind != c.kind || fv.Field == nil || fv.Field.Deref || fv.Field.Of != tpV || fv.Field.Offset != c.off || fv.Tags&model.TagArgs == 0 {
			t.Errorf("%s: %+v %+v", c.name, fv, fv.Field)
		}
		ls := locsOf(s, v)
		n := 0
		for _, pl := range tpLocs {
			if pl.Kind != model.LocFrame && pl.Kind != model.LocRegOff {
				continue
			}
			if n >= len(ls) {
				break
			}
			l := ls[n]
			n++
			if l.Kind != pl.Kind || l.Reg != pl.Reg || l.Offset != pl.Offset+c.off || l.PCStart != pl.PCStart || l.PCEnd != pl.PCEnd || len(l.Expr) == 0 {
				t.Errorf("%s: loc %+v, want %+v + %d", c.name, l, pl, c.off)
			}
		}
		if n == 0 || n != len(ls) {
			t.Errorf("%s: %d locations, tp has %d in memory", c.name, len(ls), n)
		}
	}
	// A struct only a callee fills (an out-parameter): its fields are the
	// callee's results, not monitored in drain, though drain compares one.
	drain, _ := funcByName(s, "drain")
	if _, out := varByName(s, drain, "out"); out == nil {
		t.Errorf("drain's out (passed by address) is not monitored")
	}
	for _, name := range []string{"out.time", "out.ctx", "out.cache"} {
		if _, fv := varByName(s, drain, name); fv != nil {
			t.Errorf("drain's %s (filled by fill, never stored by drain) is monitored: %+v", name, fv)
		}
	}
	// A struct in registers (pieces): each field where one piece holds
	// it, the piece's register, over the struct's code (D325); nowhere
	// where its piece is computed (q.b = 2 * n: DW_OP_breg5 0, DW_OP_lit1,
	// DW_OP_shl) or empty.
	pairs, _ := funcByName(s, "pairs")
	qv, q := varByName(s, pairs, "q")
	if q == nil {
		t.Fatal("pairs' q is not monitored")
	}
	ql := locsOf(s, qv)
	for _, c := range []struct {
		name  string
		piece int
	}{{"q.a", 0}, {"q.b", 1}} {
		fv, f := varByName(s, pairs, c.name)
		if f == nil {
			t.Errorf("pairs' %s: not monitored", c.name)
			continue
		}
		n := 0
		for _, pl := range ql {
			if pl.Kind == model.LocFrame || pl.Kind == model.LocRegOff {
				continue // gcc put it in memory: as above
			}
			// The operations of each 8-byte piece.
			var pieces [][]string
			var cur []string
			for _, p := range strings.Split(dwarfexpr.Format(pl.Expr), "; ") {
				if p == "DW_OP_piece: 8" {
					pieces, cur = append(pieces, cur), nil
					continue
				}
				cur = append(cur, p)
			}
			want := "" // not one register piece: no location here
			if len(pieces) == 2 && len(pieces[c.piece]) == 1 && strings.HasPrefix(pieces[c.piece][0], "DW_OP_reg") {
				want = pieces[c.piece][0]
			}
			var got *model.Loc
			for _, l := range locsOf(s, fv) {
				if l.PCStart == pl.PCStart && l.PCEnd == pl.PCEnd {
					got = &l
				}
			}
			switch {
			case want == "" && got != nil:
				t.Errorf("pairs' %s: at %s where q is %s", c.name, dwarfexpr.Format(got.Expr), dwarfexpr.Format(pl.Expr))
			case want != "" && (got == nil || got.Kind != model.LocReg || dwarfexpr.Format(got.Expr) != want):
				t.Errorf("pairs' %s: %+v where q is %s, want %s", c.name, got, dwarfexpr.Format(pl.Expr), want)
			case want != "":
				n++
			}
		}
		if n == 0 {
			t.Errorf("pairs' %s: in no register piece of q (%d locations)", c.name, len(ql))
		}
	}
}

// ptrWalkC is blocked_clients' walk (Redis-8668): a loop over a list whose
// skip test reads a field behind a pointer local loaded from each node.
// gcc keeps receiver in the memory it was loaded from ([[rbp]+16], the
// node's value field) while the compare dereferences the register it was
// loaded into: no location of receiver names that register.
const ptrWalkC = `#include <stdio.h>
#include <stdlib.h>
struct client { int id; int btype; long served; };
struct node { struct node *prev, *next; void *value; };
struct list { struct node *head, *tail; unsigned long len; };
__attribute__((noipa)) void rotate(struct list *l) {
	struct node *h = l->head;
	if (l->len <= 1) return;
	l->head = h->next; l->head->prev = NULL;
	l->tail->next = h; h->prev = l->tail; h->next = NULL; l->tail = h;
}
__attribute__((noinline)) static void walk(struct list *clients) {
	unsigned long n = clients->len;
	while (n--) {
		struct node *cn = clients->head;
		struct client *receiver = cn->value;
		if (receiver->btype != 2) {
			rotate(clients);
			continue;
		}
	}
}
int main(int argc, char **argv) {
	struct list l = { 0, 0, 0 };
	int n = argc > 1 ? atoi(argv[1]) : 10;
	for (int i = 0; i < n; i++) {
		struct client *c = calloc(1, sizeof *c);
		struct node *x = calloc(1, sizeof *x);
		c->id = i; c->btype = 1; x->value = c;
		x->prev = l.tail;
		if (l.tail) l.tail->next = x; else l.head = x;
		l.tail = x; l.len++;
	}
	for (int k = 0; k < 1000; k++) walk(&l);
	printf("%d\n", ((struct client *)l.head->value)->id);
	return 0;
}
`

// TestFieldsBehindLocal: the field a condition reads behind a pointer
// local that lives in memory (no location names the register the code
// dereferences) is tagged cond, named receiver->btype, and lives at
// receiver's value + 4 wherever receiver can be read (method.md §2, D82).
func TestFieldsBehindLocal(t *testing.T) {
	dir := t.TempDir()
	bin := build(t, dir, "gcc", ".c", ptrWalkC, "-g", "-O2")
	s, err := Load(bin, Options{})
	if err != nil {
		t.Fatal(err)
	}
	walk, _ := funcByName(s, "walk")
	rv, r := varByName(s, walk, "receiver")
	if r == nil {
		t.Fatal("walk's receiver is not monitored (a field behind it is compared)")
	}
	bv, b := varByName(s, walk, "receiver->btype")
	if b == nil {
		t.Fatal("walk's receiver->btype is not monitored")
	}
	if b.Tags&model.TagCond == 0 || b.Field == nil || !b.Field.Deref || b.Field.Of != rv || b.Field.Offset != 4 || b.Kind != model.KindInt || b.Size != 4 {
		t.Fatalf("receiver->btype: %+v %+v, want cond, 4 bytes behind receiver", b, b.Field)
	}
	// Fields the walk does not compare stay unmonitored.
	for _, name := range []string{"receiver->id", "receiver->served"} {
		if _, v := varByName(s, walk, name); v != nil {
			t.Errorf("%s is monitored (%v), though walk never reads it", name, v.Tags)
		}
	}
	// Read behind receiver wherever receiver can be read: no locations of
	// its own (the sampler reads receiver's value + 4, method.md §2).
	rl, bl := locsOf(s, rv), locsOf(s, bv)
	if len(rl) == 0 || len(bl) != 0 {
		t.Fatalf("receiver->btype: %d locations of its own, receiver %d", len(bl), len(rl))
	}
	memory := false
	for _, l := range rl {
		memory = memory || l.Kind != model.LocReg
	}
	if !memory {
		t.Logf("gcc kept receiver in a register: the case needing a symbolic load did not arise (locations %+v)", rl)
	}
}

// readFieldsC is libuv's uv__run_timers in small (method.md D130): a loop
// whose exit test compares a field past a large struct's first 16 in
// declaration order (lp->time, the 21st), through a pointer parameter, and
// a struct global whose 20th field a function compares.
const readFieldsC = `#include <stdio.h>
struct loop {
	long f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16, f17, f18, f19;
	unsigned long time;
	unsigned long *deadlines;
	int n;
};
struct loop g_loop;
__attribute__((noipa)) void fire(int i) { (void)i; }
__attribute__((noipa)) int run_timers(struct loop *lp) {
	int i = 0;
	for (;;) {
		if (lp->deadlines[i] > lp->time)
			break;
		fire(i);
		i++;
	}
	return i;
}
__attribute__((noipa)) int busy(void) { return g_loop.f19 > 3 ? 1 : 0; }
int main(int argc, char **argv) {
	static unsigned long d[8] = { 1, 2, 3, 100, 100, 100, 100, 100 };
	g_loop.time = 10 * argc;
	g_loop.deadlines = d;
	g_loop.n = 8;
	(void)argv;
	printf("%d %d\n", run_timers(&g_loop), busy());
	return 0;
}
`

// TestFieldsReadFirst: a struct variable's sampled fields are those its
// code reads first, then declaration order (D130). Without it, lp->time
// (past the 16th field) was not sampled at all.
func TestFieldsReadFirst(t *testing.T) {
	dir := t.TempDir()
	bin := build(t, dir, "gcc", ".c", readFieldsC, "-g", "-O2")
	all, err := Load(bin, Options{All: true})
	if err != nil {
		t.Fatal(err)
	}
	run, _ := funcByName(all, "run_timers")
	lpV, lp := varByName(all, run, "lp")
	if lp == nil {
		t.Fatal("run_timers' lp missing")
	}
	n := 0
	for i := range all.Vars {
		if f := all.Vars[i].Field; f != nil && f.Of == lpV {
			n++
		}
	}
	if n != MaxFields {
		t.Errorf("lp has %d fields, want the budget %d", n, MaxFields)
	}
	for _, c := range []struct {
		name string
		cond bool
	}{
		{"lp->time", true},       // read by the exit test: listed and cond
		{"lp->deadlines", false}, // read (its element is compared)
		{"lp->f0", false},        // declaration order fills the budget
	} {
		_, fv := varByName(all, run, c.name)
		if fv == nil {
			t.Errorf("%s not listed", c.name)
			continue
		}
		if c.cond && fv.Tags&model.TagCond == 0 {
			t.Errorf("%s: tags %v, want cond", c.name, fv.Tags)
		}
	}
	if _, fv := varByName(all, run, "lp->f15"); fv != nil {
		t.Errorf("lp->f15 (not read) kept over the fields the code reads")
	}
	// A struct global: busy compares g_loop.f19, the 20th field.
	if _, fv := varByName(all, model.NoFunc, "g_loop.f19"); fv == nil || fv.Tags&model.TagCond == 0 {
		t.Errorf("g_loop.f19 (compared by busy): %+v", fv)
	}
	if _, fv := varByName(all, model.NoFunc, "g_loop.time"); fv == nil {
		t.Errorf("g_loop.time (read by run_timers through lp, and written by main) not listed")
	}
	// Monitored without --all: the exit test's field.
	s, err := Load(bin, Options{})
	if err != nil {
		t.Fatal(err)
	}
	run, _ = funcByName(s, "run_timers")
	if _, fv := varByName(s, run, "lp->time"); fv == nil {
		t.Errorf("lp->time not monitored")
	}
}
