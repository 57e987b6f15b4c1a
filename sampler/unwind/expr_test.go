package unwind

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

type fixedEntry struct {
	v   uint64
	err error
}

func (e fixedEntry) EntryValue([]byte) (uint64, error) { return e.v, e.err }

func TestEval(t *testing.T) {
	regs := &Regs{}
	regs.Set(RSP, 0x1000)
	regs.Set(RBX, 40)
	regs.Set(RIP, 0x2025)
	mem := &sliceMem{base: 0x1000, b: []byte{0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0xff, 0xff, 0xff, 0xff}}
	plt := []byte{0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22}
	pltRegs := *regs
	pltRegs.Set(RIP, 0x202c) // (rip & 15) >= 11: the second half of the PLT entry
	type want struct {
		kind PieceKind
		v    uint64 // Addr, Val or Reg
		size int32
	}
	cases := []struct {
		name string
		expr []byte
		regs *Regs
		ctx  Context
		want []want
		err  error
	}{
		{"fbreg", []byte{0x91, 0x70}, regs, Context{FrameBase: 0x2000, HasFB: true}, []want{{PieceMem, 0x2000 - 16, 0}}, nil},
		{"fbreg without frame base", []byte{0x91, 0x70}, regs, Context{}, nil, ErrNoFrameBase},
		{"call_frame_cfa", []byte{0x9c}, regs, Context{CFA: 0x3000, HasCFA: true}, []want{{PieceMem, 0x3000, 0}}, nil},
		{"reg3", []byte{0x53}, regs, Context{}, []want{{PieceReg, RBX, 0}}, nil},
		{"xmm0", []byte{0x61}, regs, Context{}, []want{{PieceReg, XMM0, 0}}, nil},
		{"breg3 stack_value", []byte{0x73, 0x02, 0x9f}, regs, Context{}, []want{{PieceValue, 42, 0}}, nil},
		{"breg of unknown register", []byte{0x75, 0x00, 0x9f}, regs, Context{}, nil, ErrUnavailable},
		{"addr with bias", []byte{0x03, 0x10, 0, 0, 0, 0, 0, 0, 0}, regs, Context{Bias: 0x5000}, []want{{PieceMem, 0x5010, 0}}, nil},
		{"deref", []byte{0x77, 0x00, 0x06, 0x9f}, regs, Context{}, []want{{PieceValue, 0x8877665544332211, 0}}, nil},
		{"deref_size 2", []byte{0x77, 0x00, 0x94, 0x02, 0x9f}, regs, Context{}, []want{{PieceValue, 0x2211, 0}}, nil},
		{"deref unreadable", []byte{0x77, 0x10, 0x06}, regs, Context{}, nil, ErrUnreadable},
		{"lit + mul", []byte{0x35, 0x33, 0x1e, 0x9f}, regs, Context{}, []want{{PieceValue, 15, 0}}, nil},
		{"consts neg", []byte{0x11, 0x7f, 0x9f}, regs, Context{}, []want{{PieceValue, ^uint64(0), 0}}, nil},
		{"const1s", []byte{0x09, 0xfe, 0x9f}, regs, Context{}, []want{{PieceValue, ^uint64(1), 0}}, nil},
		{"const2u", []byte{0x0a, 0x34, 0x12, 0x9f}, regs, Context{}, []want{{PieceValue, 0x1234, 0}}, nil},
		{"implicit_value", []byte{0x9e, 0x04, 1, 0, 0, 0}, regs, Context{}, []want{{PieceValue, 1, 0}}, nil},
		{"pieces reg+mem", []byte{0x53, 0x93, 0x04, 0x77, 0x00, 0x93, 0x04}, regs, Context{}, []want{{PieceReg, RBX, 4}, {PieceMem, 0x1000, 4}}, nil},
		{"piece optimised out", []byte{0x93, 0x04, 0x53, 0x93, 0x04}, regs, Context{}, []want{{PieceEmpty, 0, 4}, {PieceReg, RBX, 4}}, nil},
		{"entry_value known", []byte{0xa3, 0x01, 0x55, 0x9f}, regs, Context{Entry: fixedEntry{v: 9}}, []want{{PieceValue, 9, 0}}, nil},
		{"GNU_entry_value plus", []byte{0xf3, 0x01, 0x55, 0x31, 0x22, 0x9f}, regs, Context{Entry: fixedEntry{v: 9}}, []want{{PieceValue, 10, 0}}, nil},
		{"entry_value unknown", []byte{0xa3, 0x01, 0x55, 0x9f}, regs, Context{}, nil, ErrEntryValue},
		{"bra taken", []byte{0x31, 0x28, 0x01, 0x00, 0x32, 0x33, 0x9f}, regs, Context{}, []want{{PieceValue, 3, 0}}, nil},
		{"bra not taken", []byte{0x30, 0x28, 0x01, 0x00, 0x32, 0x33, 0x9f}, regs, Context{}, []want{{PieceValue, 3, 0}}, nil},
		{"skip", []byte{0x2f, 0x01, 0x00, 0x32, 0x33, 0x9f}, regs, Context{}, []want{{PieceValue, 3, 0}}, nil},
		{"plt cfa first half", plt, regs, Context{}, []want{{PieceMem, 0x1008, 0}}, nil},
		{"plt cfa second half", plt, &pltRegs, Context{}, []want{{PieceMem, 0x1010, 0}}, nil},
		{"tls unsupported", []byte{0x0e, 0, 0, 0, 0, 0, 0, 0, 0, 0xe0}, regs, Context{}, nil, ErrUnsupported},
		{"convert unsupported", []byte{0x30, 0xa8, 0x10}, regs, Context{}, nil, ErrUnsupported},
		{"truncated breg", []byte{0x77}, regs, Context{}, nil, ErrMalformed},
		{"stack underflow", []byte{0x22}, regs, Context{}, nil, ErrMalformed},
		{"div by zero", []byte{0x31, 0x30, 0x1b}, regs, Context{}, nil, ErrMalformed},
		{"empty", nil, regs, Context{}, []want{{PieceEmpty, 0, 0}}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := c.ctx
			ctx.Regs, ctx.Mem = c.regs, mem
			var res Result
			err := Eval(c.expr, &ctx, &res)
			if !errors.Is(err, c.err) {
				t.Fatalf("err = %v, want %v", err, c.err)
			}
			if err != nil {
				return
			}
			if res.N != len(c.want) {
				t.Fatalf("%d pieces, want %d: %+v", res.N, len(c.want), res.Pieces[:res.N])
			}
			for i, w := range c.want {
				p := res.Pieces[i]
				var got uint64
				switch p.Kind {
				case PieceMem:
					got = p.Addr
				case PieceValue:
					got = p.Val
				case PieceReg:
					got = uint64(p.Reg)
				}
				if p.Kind != w.kind || got != w.v || p.Size != w.size {
					t.Errorf("piece %d = %+v, want kind %d value %#x size %d", i, p, w.kind, w.v, w.size)
				}
			}
		})
	}
}

func TestEvalNoAlloc(t *testing.T) {
	regs := &Regs{}
	regs.Set(RSP, 0x1000)
	regs.Set(RIP, 0x202c)
	mem := &sliceMem{base: 0x1000, b: make([]byte, 64)}
	plt := []byte{0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22}
	ctx := Context{Regs: regs, Mem: mem, Entry: fixedEntry{v: 1}}
	entry := []byte{0xa3, 0x01, 0x55, 0x9f}
	var res Result
	n := testing.AllocsPerRun(100, func() {
		Eval(plt, &ctx, &res)
		Eval(entry, &ctx, &res)
	})
	if n != 0 {
		t.Errorf("Eval allocates %.1f times", n)
	}
}

func FuzzEval(f *testing.F) {
	f.Add([]byte{0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22})
	f.Add([]byte{0x53, 0x93, 0x04, 0x77, 0x00, 0x93, 0x04})
	f.Add([]byte{0xf3, 0x01, 0x55, 0x31, 0x22, 0x9f})
	f.Add([]byte{0x28, 0xfd, 0xff})
	regs := &Regs{}
	for r := 0; r < NumRegs; r++ {
		regs.Set(r, uint64(r)*0x100)
	}
	mem := &sliceMem{base: 0, b: make([]byte, 4096)}
	f.Fuzz(func(t *testing.T, expr []byte) {
		ctx := Context{Regs: regs, Mem: mem, CFA: 0x800, HasCFA: true, Entry: fixedEntry{v: 3}}
		var res Result
		if err := Eval(expr, &ctx, &res); err == nil && (res.N < 1 || res.N > MaxPieces) {
			t.Fatalf("success with %d pieces", res.N)
		}
	})
}

// vdsoImage reads this process's vDSO, a real ELF image with .eh_frame.
func vdsoImage(t testing.TB) []byte {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	var lo, hi uint64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasSuffix(sc.Text(), "[vdso]") {
			fmt.Sscanf(sc.Text(), "%x-%x", &lo, &hi)
		}
	}
	if hi == 0 {
		t.Skip("no vDSO")
	}
	mem, err := os.Open("/proc/self/mem")
	if err != nil {
		t.Skip(err)
	}
	defer mem.Close()
	b := make([]byte, hi-lo)
	if _, err := mem.ReadAt(b, int64(lo)); err != nil {
		t.Skip(err)
	}
	return b
}

func TestVDSO(t *testing.T) {
	img := vdsoImage(t)
	tab, err := LoadBytes("[vdso]", img)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() == 0 {
		t.Fatal("vDSO has no FDEs")
	}
	covered := 0
	for _, e := range tab.fdes {
		if tab.Lookup(e.Begin()) != nil {
			covered++
		}
	}
	if covered != tab.Len() {
		t.Errorf("%d of %d vDSO FDEs give a row at their first PC", covered, tab.Len())
	}
}

func FuzzLoadBytes(f *testing.F) {
	f.Add(vdsoImage(f))
	f.Fuzz(func(t *testing.T, img []byte) {
		tab, err := LoadBytes("fuzz", img)
		if err != nil {
			return
		}
		for i, e := range tab.fdes {
			if i > 64 {
				break
			}
			tab.Lookup(e.Begin())
			tab.Lookup(e.End() - 1)
		}
	})
}

// BenchmarkEval evaluates the shapes the sampler meets per variable and
// frame: a frame slot, a register-relative stack value, an entry value
// and the PLT's CFA rule.
func BenchmarkEval(b *testing.B) {
	regs := &Regs{}
	regs.Set(RSP, 0x1000)
	regs.Set(RBX, 40)
	regs.Set(RIP, 0x202c)
	mem := &sliceMem{base: 0x1000, b: make([]byte, 64)}
	ctx := Context{Regs: regs, Mem: mem, FrameBase: 0x1010, HasFB: true, Entry: fixedEntry{v: 1}}
	exprs := [][]byte{
		{0x91, 0x70},             // DW_OP_fbreg -16
		{0x73, 0x02, 0x9f},       // DW_OP_breg3 2; DW_OP_stack_value
		{0x77, 0x08, 0x06},       // DW_OP_breg7 8; DW_OP_deref
		{0xa3, 0x01, 0x55, 0x9f}, // DW_OP_entry_value(DW_OP_reg5); DW_OP_stack_value
		{0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22},
	}
	var res Result
	for b.Loop() {
		for _, e := range exprs {
			Eval(e, &ctx, &res)
		}
	}
}
