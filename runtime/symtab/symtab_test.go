package symtab

import (
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

func TestResolve(t *testing.T) {
	prog := &model.Schema{
		Files: []string{"a.c"},
		Funcs: []model.Func{
			{Name: "main", Ranges: []model.PCRange{{Lo: 0x1000, Hi: 0x1100}}},
			{Name: "_ZN1a3getEv", Display: "a::get()", Ranges: []model.PCRange{{Lo: 0x2000, Hi: 0x2010}}},
		},
		Inlines: []model.Inline{{Func: 1, Depth: 1, Ranges: []model.PCRange{{Lo: 0x1040, Hi: 0x1050}}}},
		Lines:   []model.LineRow{{PC: 0x1000, Line: 5}, {PC: 0x1040, Line: 12}, {PC: 0x1100}},
	}
	libc := &model.Schema{Symbols: []model.Symbol{{Name: "qsort", Value: 0x500, Size: 0x100}}}
	tab := New()
	for _, r := range []any{
		&model.Object{ID: 0, Program: true, Schema: prog},
		&model.Object{ID: 1, Path: "/lib/libc.so.6", Schema: libc},
		&model.Mapping{PID: 7, Start: 0x401000, End: 0x403000, Bias: 0x400000, Obj: 0},
		&model.Mapping{PID: 7, Start: 0x7f0000, End: 0x7f1000, Bias: 0x7f0000 - 0x400, Obj: 1},
	} {
		tab.Observe(r)
	}
	cases := []struct {
		pc      uint64
		depth   int
		name    string
		display string
		line    int32
		program bool
		outer   int32
	}{
		{0x401000, 0, "main", "main", 5, true, 0},
		{0x401001, 1, "main", "main", 5, true, 0}, // return address: looked up at pc-1
		{0x401045, 0, "_ZN1a3getEv", "a::get()", 12, true, 0},
		{0x7f0150, 0, "qsort", "qsort", 0, false, -1},
		{0x7f0900, 0, "[libc.so.6+0xd00]", "[libc.so.6+0xd00]", 0, false, -1},
		{0x900000, 0, "[unknown]", "[unknown]", 0, false, -1},
	}
	for _, c := range cases {
		f := tab.Resolve(7, c.pc, c.depth)
		if f.Name != c.name || f.Display != c.display || f.Line != c.line || f.Program != c.program || f.Outer != c.outer {
			t.Errorf("Resolve(%#x, %d) = %+v", c.pc, c.depth, f)
		}
	}
}
