package dwarfschema

import (
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// globalsC has globals read by a helper inlined into a caller, by the
// caller's own code, by a function called out of line, and only stored to.
const globalsC = `
#define NOINLINE __attribute__((noinline))
int limit = 3;        /* read only by the inlined helper */
int scale = 2;        /* read only by outer's own code */
int shared = 5;       /* read by helper (inlined) and by leaf (out of line) */
int written;          /* only stored to */
volatile int sink;

static inline __attribute__((always_inline)) int helper(int x) {
	int s = 0;
	for (int i = 0; i < limit; i++)
		s += x * i + shared;
	return s;
}

NOINLINE int leaf(int x) { return x + shared; }

NOINLINE int outer(int n) {
	int acc = 0;
	for (int k = 0; k < n * scale; k++) {
		acc += helper(k);
		acc += leaf(k);
		sink = acc;
	}
	return acc;
}

int main(int argc, char **argv) {
	(void)argv;
	written = argc;
	return outer(argc) & 1;
}
`

// TestNarrowGlobalsInline (inline-aware narrowing, globalrefs.go) checks that a global is located exactly in the
// code where a function that reads it is the innermost function: an
// inlined helper's body for what only the helper reads, the caller's code
// minus that body for what only the caller reads.
func TestNarrowGlobalsInline(t *testing.T) {
	bin := buildC(t, globalsC, "-O2")
	s, err := Load(bin, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, s)
	cm := innermostFuncs(s)
	// readersOf returns the functions innermost at the PCs covered by v's
	// locations, checking each location lies in code.
	readersOf := func(name string) map[string]bool {
		v, gv := varByName(s, model.NoFunc, name)
		if gv == nil {
			t.Fatalf("global %s missing", name)
		}
		out := map[string]bool{}
		for _, l := range locsOf(s, v) {
			if l.PCStart == 0 && l.PCEnd == ^uint64(0) {
				t.Errorf("%s: not narrowed", name)
				continue
			}
			for pc := l.PCStart; pc < l.PCEnd; pc++ {
				j := cm.find(pc)
				if j < 0 {
					t.Errorf("%s: location %#x-%#x outside code at %#x", name, l.PCStart, l.PCEnd, pc)
					break
				}
				out[s.Funcs[cm.fn[j]].Name] = true
			}
		}
		return out
	}
	helperID, _ := funcByName(s, "helper")
	outerID, _ := funcByName(s, "outer")
	if helperID < 0 || outerID < 0 {
		t.Fatalf("functions missing: helper %d outer %d", helperID, outerID)
	}
	inlined := false
	for _, in := range s.Inlines {
		inlined = inlined || in.Func == helperID
	}
	if !inlined {
		t.Skip("gcc did not inline helper")
	}
	tests := []struct {
		global string
		want   []string
	}{
		{"limit", []string{"helper"}},
		{"scale", []string{"outer"}},
		{"shared", []string{"helper", "leaf"}},
		{"written", nil}, // a plain store: not sampled
	}
	for _, tc := range tests {
		got := readersOf(tc.global)
		if len(got) != len(tc.want) {
			t.Errorf("%s: located in %v, want %v", tc.global, got, tc.want)
			continue
		}
		for _, w := range tc.want {
			if !got[w] {
				t.Errorf("%s: located in %v, want %v", tc.global, got, tc.want)
			}
		}
	}
	// The whole body of every reader is covered: every PC where helper is
	// innermost holds limit.
	v, _ := varByName(s, model.NoFunc, "limit")
	locs := locsOf(s, v)
	for j := range cm.fn {
		if cm.fn[j] != helperID {
			continue
		}
		for pc := cm.lo[j]; pc < cm.hi[j]; pc++ {
			ok := false
			for _, l := range locs {
				ok = ok || (l.PCStart <= pc && pc < l.PCEnd)
			}
			if !ok {
				t.Errorf("limit: not located at %#x in helper's body", pc)
				break
			}
		}
	}
}

// TestInnermostFuncs checks the painting of nested ranges.
func TestInnermostFuncs(t *testing.T) {
	r := func(lo, hi uint64) []model.PCRange { return []model.PCRange{{Lo: lo, Hi: hi}} }
	s := &model.Schema{
		Funcs: []model.Func{
			{Name: "f", Ranges: []model.PCRange{{Lo: 0x100, Hi: 0x200}, {Lo: 0x400, Hi: 0x410}}},
			{Name: "g"},
			{Name: "h"},
			{Name: "k", Ranges: r(0x200, 0x280)},
		},
		Inlines: []model.Inline{
			{Func: 1, Ranges: r(0x120, 0x180), Depth: 1},
			{Func: 2, Ranges: r(0x130, 0x140), Depth: 2},
			{Func: 2, Ranges: r(0x190, 0x1a0), Depth: 1},
		},
	}
	type seg struct {
		lo, hi uint64
		fn     model.FuncID
	}
	want := []seg{
		{0x100, 0x120, 0}, {0x120, 0x130, 1}, {0x130, 0x140, 2}, {0x140, 0x180, 1},
		{0x180, 0x190, 0}, {0x190, 0x1a0, 2}, {0x1a0, 0x200, 0}, {0x200, 0x280, 3},
		{0x400, 0x410, 0},
	}
	cm := innermostFuncs(s)
	var got []seg
	for j := range cm.fn {
		got = append(got, seg{cm.lo[j], cm.hi[j], cm.fn[j]})
	}
	if len(got) != len(want) {
		t.Fatalf("segments %x, want %x", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("segment %d: %x, want %x", i, got[i], want[i])
		}
	}
	for _, c := range []struct {
		pc uint64
		fn model.FuncID
	}{{0x100, 0}, {0x135, 2}, {0x17f, 1}, {0x27f, 3}, {0x280, -1}, {0x300, -1}, {0x40f, 0}} {
		fn := model.FuncID(-1)
		if j := cm.find(c.pc); j >= 0 {
			fn = cm.fn[j]
		}
		if fn != c.fn {
			t.Errorf("find(%#x) = %d, want %d", c.pc, fn, c.fn)
		}
	}
}
