package pcindex

import (
	"math/rand"
	"reflect"
	"sort"
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// randomSchema makes nf functions of 256 bytes each, with nv locals each
// having a few random (possibly overlapping) location ranges, plus globals
// and a few inlined instances.
func randomSchema(r *rand.Rand, nf, nv int) *model.Schema {
	s := &model.Schema{}
	for f := 0; f < nf; f++ {
		lo := 0x1000 + uint64(f)*256
		s.Funcs = append(s.Funcs, model.Func{Name: "f", Ranges: []model.PCRange{{Lo: lo, Hi: lo + 256}}})
		if f%3 == 0 {
			s.Inlines = append(s.Inlines, model.Inline{Func: model.FuncID((f + 1) % nf), Depth: 1,
				Ranges: []model.PCRange{{Lo: lo + 32, Hi: lo + 96}}})
			s.Inlines = append(s.Inlines, model.Inline{Func: model.FuncID((f + 2) % nf), Depth: 2,
				Ranges: []model.PCRange{{Lo: lo + 40, Hi: lo + 50}}})
		}
		for v := 0; v < nv; v++ {
			id := model.VarID(len(s.Vars))
			s.Vars = append(s.Vars, model.Var{Name: "v", Func: model.FuncID(f)})
			for k := 0; k < 1+r.Intn(3); k++ {
				a := lo + uint64(r.Intn(256))
				b := a + 1 + uint64(r.Intn(64))
				s.Locs = append(s.Locs, model.Loc{Var: id, PCStart: a, PCEnd: b, Kind: model.LocReg})
			}
		}
	}
	for g := 0; g < 5; g++ {
		id := model.VarID(len(s.Vars))
		s.Vars = append(s.Vars, model.Var{Name: "g", Func: model.NoFunc})
		s.Locs = append(s.Locs, model.Loc{Var: id, PCStart: 0, PCEnd: ^uint64(0), Kind: model.LocAddr})
		// A global narrowed to the functions that use it is looked up by range.
		id = model.VarID(len(s.Vars))
		s.Vars = append(s.Vars, model.Var{Name: "used", Func: model.NoFunc})
		lo := 0x1000 + uint64(r.Intn(nf))*256
		s.Locs = append(s.Locs, model.Loc{Var: id, PCStart: lo, PCEnd: lo + 256, Kind: model.LocAddr})
	}
	sort.SliceStable(s.Locs, func(i, j int) bool { return s.Locs[i].PCStart < s.Locs[j].PCStart })
	return s
}

func brute(s *model.Schema, pc uint64) []int32 {
	var out []int32
	for i, l := range s.Locs {
		everywhere := l.PCStart == 0 && l.PCEnd == ^uint64(0)
		if !everywhere && l.PCStart <= pc && pc < l.PCEnd {
			out = append(out, int32(i))
		}
	}
	sort.Slice(out, func(i, j int) bool {
		vi, vj := s.Locs[out[i]].Var, s.Locs[out[j]].Var
		if vi != vj {
			return vi < vj
		}
		return out[i] < out[j]
	})
	return out
}

func TestLookupMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	s := randomSchema(r, 50, 8)
	ix := New(s)
	if len(ix.Globals()) != 5 {
		t.Fatalf("%d globals, want 5", len(ix.Globals()))
	}
	for pc := uint64(0xf00); pc < 0x1000+50*256+0x100; pc++ {
		got, want := ix.Lookup(pc), brute(s, pc)
		if len(got) == 0 && len(want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Lookup(%#x) = %v, want %v", pc, got, want)
		}
	}
}

func TestFuncInlineAware(t *testing.T) {
	s := randomSchema(rand.New(rand.NewSource(2)), 6, 0)
	ix := New(s)
	cases := []struct {
		pc           uint64
		inner, outer model.FuncID
		ok           bool
	}{
		{0x0fff, -1, -1, false},
		{0x1000, 0, 0, true},
		{0x1000 + 32, 1, 0, true}, // inlined f1 in f0
		{0x1000 + 45, 2, 0, true}, // f2 inlined in that instance
		{0x1000 + 50, 1, 0, true},
		{0x1000 + 96, 0, 0, true},
		{0x1000 + 256, 1, 1, true},
		{0x1000 + 6*256, -1, -1, false},
	}
	for _, c := range cases {
		in, ok := ix.Func(c.pc)
		out, _ := ix.OuterFunc(c.pc)
		if ok != c.ok || (ok && (in != c.inner || out != c.outer)) {
			t.Errorf("pc %#x: Func %d %v, OuterFunc %d; want %d %v, %d", c.pc, in, ok, out, c.inner, c.ok, c.outer)
		}
	}
}

func TestLineAndSymbol(t *testing.T) {
	s := &model.Schema{
		Files: []string{"a.c"},
		Lines: []model.LineRow{{PC: 0x10, File: 0, Line: 3}, {PC: 0x20, File: 0, Line: 9}, {PC: 0x30, Line: 0}},
		Symbols: []model.Symbol{{Name: "a", Value: 0x10, Size: 0x10}, {Name: "b", Value: 0x20, Size: 0x8},
			{Name: "c", Value: 0x40, Size: 0}},
	}
	ix := New(s)
	for _, c := range []struct {
		pc   uint64
		line int32
		sym  string
	}{{0x8, 0, ""}, {0x10, 3, "a"}, {0x1f, 3, "a"}, {0x20, 9, "b"}, {0x29, 9, ""}, {0x30, 0, ""}, {0x40, 0, "c"}} {
		_, l, _ := ix.Line(c.pc)
		name := ""
		if sym, ok := ix.Symbol(c.pc); ok {
			name = sym.Name
		}
		if l != c.line || name != c.sym {
			t.Errorf("pc %#x: line %d sym %q; want %d %q", c.pc, l, name, c.line, c.sym)
		}
	}
}

// TestLineFrom: a PC in a row without a line (line 0) takes the line of
// the nearest row before it, not before from.
func TestLineFrom(t *testing.T) {
	s := &model.Schema{
		Files: []string{"a.c"},
		Lines: []model.LineRow{{PC: 0x10, Line: 3}, {PC: 0x18, Line: 0}, {PC: 0x20, Line: 9},
			{PC: 0x28, Line: 0}, {PC: 0x30, Line: 0}, {PC: 0x40, Line: 12}},
	}
	ix := New(s)
	for _, c := range []struct {
		pc, from uint64
		line     int32
	}{
		{0x12, 0x10, 3},  // a line of its own
		{0x1a, 0x10, 3},  // line 0: the row before
		{0x1a, 0x18, 0},  // whose row starts before the block
		{0x34, 0x20, 9},  // over two rows without a line
		{0x34, 0x2c, 0},  // none in the block
		{0x8, 0x0, 0},    // before every row
		{0x44, 0x44, 12}, // a line of its own, block after the row's start
	} {
		if _, l, ok := ix.LineFrom(c.pc, c.from); l != c.line || ok != (c.line != 0) {
			t.Errorf("LineFrom(%#x, %#x) = %d, %v; want %d", c.pc, c.from, l, ok, c.line)
		}
	}
}

func BenchmarkLookup(b *testing.B) {
	r := rand.New(rand.NewSource(3))
	s := randomSchema(r, 20000, 10)
	ix := New(s)
	pcs := make([]uint64, 4096)
	for i := range pcs {
		pcs[i] = 0x1000 + uint64(r.Intn(20000*256))
	}
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for i := 0; i < b.N; i++ {
		n += len(ix.Lookup(pcs[i&4095]))
	}
	_ = n
}

func BenchmarkNew(b *testing.B) {
	s := randomSchema(rand.New(rand.NewSource(4)), 20000, 10)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		New(s)
	}
}

func TestChain(t *testing.T) {
	r := func(lo, hi uint64) []model.PCRange { return []model.PCRange{{Lo: lo, Hi: hi}} }
	s := &model.Schema{
		Funcs: []model.Func{{Name: "f0", Ranges: r(0x100, 0x200)}, {Name: "f1", Ranges: r(0x300, 0x310)},
			{Name: "f2"}, {Name: "f3"}, {Name: "f4"}},
		Inlines: []model.Inline{
			{Func: 2, Depth: 1, Ranges: r(0x140, 0x160)},
			{Func: 3, Depth: 2, Ranges: r(0x150, 0x158)},
			{Func: 4, Depth: 1, Ranges: r(0x160, 0x170)},
			{Func: 2, Depth: 1, Ranges: r(0x308, 0x30c)},
			{Func: 3, Depth: 1, Ranges: r(0x400, 0x410)}, // outside every function
		},
	}
	ix := New(s)
	for _, c := range []struct {
		pc    uint64
		chain []model.FuncID
		outer model.FuncID
	}{
		{0x0ff, nil, -1}, {0x100, []model.FuncID{0}, 0}, {0x145, []model.FuncID{2, 0}, 0},
		{0x155, []model.FuncID{3, 2, 0}, 0}, {0x15f, []model.FuncID{2, 0}, 0},
		{0x165, []model.FuncID{4, 0}, 0}, {0x1ff, []model.FuncID{0}, 0}, {0x200, nil, -1},
		{0x309, []model.FuncID{2, 1}, 1}, {0x405, []model.FuncID{3}, -1},
	} {
		got := ix.Chain(c.pc)
		if !reflect.DeepEqual(got, c.chain) && !(len(got) == 0 && len(c.chain) == 0) {
			t.Errorf("Chain(%#x) = %v, want %v", c.pc, got, c.chain)
		}
		if o, _ := ix.OuterFunc(c.pc); o != c.outer {
			t.Errorf("OuterFunc(%#x) = %d, want %d", c.pc, o, c.outer)
		}
	}
	// The chain of f2 inlined in f0 is one ID wherever it occurs.
	if a, b := ix.ChainID(0x141), ix.ChainID(0x15a); a != b || a < 0 {
		t.Errorf("ChainID: %d and %d for the same chain", a, b)
	}
	if n := ix.NumChains(); n != 7 {
		t.Errorf("NumChains = %d, want 7", n)
	}
}
