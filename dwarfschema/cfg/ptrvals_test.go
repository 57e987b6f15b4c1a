package cfg

import "testing"

// TestPtrFieldOps: a field read through a register that holds a pointer
// loaded from the memory its location names (blocked_clients' walk:
// receiver lives at [[rbp]+16], the code compares 4(%rax)) is a read of
// the field, unless a store between the load and the compare may have
// changed that memory, or the location does not cover the compare.
func TestPtrFieldOps(t *testing.T) {
	const (
		base               = 0x1000
		receiver, btype, w = 1, 2, 3
	)
	load := []byte{
		0x48, 0x8b, 0x45, 0x00, // mov 0x0(%rbp),%rax
		0x48, 0x8b, 0x40, 0x10, // mov 0x10(%rax),%rax
	}
	cmp := []byte{
		0x83, 0x78, 0x04, 0x02, // cmpl $0x2,0x4(%rax)
		0x74, 0x00, // je .+2
		0xc3, // ret
	}
	store := []byte{0x48, 0x89, 0x4d, 0x08} // mov %rcx,0x8(%rbp)
	copyReg := []byte{0x48, 0x89, 0xc2}     // mov %rax,%rdx
	cmpRdx := []byte{
		0x83, 0x7a, 0x04, 0x02, // cmpl $0x2,0x4(%rdx)
		0x74, 0x00, // je .+2
		0xc3, // ret
	}
	// receiver: memory at [rbp] + 16 (DW_OP_breg6 0; DW_OP_deref;
	// DW_OP_plus_uconst 16); in a register: rax (DW_OP_reg0).
	inMemory := []byte{0x76, 0x00, 0x06, 0x23, 0x10}
	inRax := []byte{0x50}
	cat := func(bs ...[]byte) (code []byte) {
		for _, b := range bs {
			code = append(code, b...)
		}
		return code
	}
	for _, c := range []struct {
		name   string
		code   []byte
		expr   []byte
		lo, hi uint64 // the location's range, relative to base
		want   bool
	}{
		{"loaded from its location", cat(load, cmp), inMemory, 0, 32, true},
		{"a copy of it", cat(load, copyReg, cmpRdx), inMemory, 0, 32, true},
		{"a copy of its register", cat(load, copyReg, cmpRdx), inRax, 8, 32, true},
		{"a store between", cat(load, store, cmp), inMemory, 0, 32, false},
		{"location ends before the compare", cat(load, cmp), inMemory, 0, 8, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			img := &Image{}
			img.Add(base, c.code)
			var b Builder
			g, err := b.Build(img, []Range{{base, base + uint64(len(c.code))}})
			if err != nil {
				t.Fatal(err)
			}
			fs := NewFields(map[FieldKey]int32{{receiver, 4}: btype, {receiver, 8}: w})
			in := &Input{Fields: fs, PtrLocs: []PtrLoc{{Var: receiver, Lo: base + c.lo, Hi: base + c.hi, Expr: c.expr}}}
			got := false
			for _, vt := range NewAnalyzer().Analyze(g, in) {
				if vt.Var == btype && vt.Tags&TagCond != 0 {
					got = true
				}
				if vt.Var == w {
					t.Errorf("receiver->w (never read) tagged %v", vt.Tags)
				}
			}
			if got != c.want {
				t.Errorf("receiver->btype cond = %v, want %v", got, c.want)
			}
		})
	}
}
