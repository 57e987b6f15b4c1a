package cfg

import (
	"encoding/binary"
	"testing"

	"github.com/go-delve/delve/pkg/dwarf/op"

	"github.com/vprof/vprof/runtime/dwarfexpr"
)

// FuzzExprRefs: any DWARF expression bytes, no panic, and every reference
// has a known kind.
func FuzzExprRefs(f *testing.F) {
	const (
		reg0, breg0, lit0 = byte(op.DW_OP_reg0), byte(op.DW_OP_breg0), byte(op.DW_OP_lit0)
		fbreg, stackValue = byte(op.DW_OP_fbreg), byte(op.DW_OP_stack_value)
		piece, cfa        = byte(op.DW_OP_piece), byte(op.DW_OP_call_frame_cfa)
		implicitValue     = byte(op.DW_OP_implicit_value)
		entryValue        = byte(dwarfexpr.DW_OP_entry_value)
	)
	for _, seed := range [][]byte{
		{reg0 + 5},
		{fbreg, 0x6c},
		{breg0 + 7, 0x10},
		{breg0 + 5, 0, lit0 + 7, 0x1e, stackValue},
		{entryValue, 1, reg0 + 5, stackValue},
		{reg0 + 3, piece, 4, reg0 + 1, piece, 4},
		{implicitValue, 2, 1, 2},
		{cfa},
		{0xa4, 1, 8, 1, 2, 3, 4, 5, 6, 7, 8}, // const_type
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, r := range ExprRefs(nil, b) {
			if r.Kind < InReg || r.Kind > InEntryValue {
				t.Fatalf("bad kind %d from % x", r.Kind, b)
			}
		}
		FrameBase(b)
	})
}

// FuzzAnalyze: arbitrary bytes as a function's code, with locations and a
// call-site record drawn from the same bytes. Building the graph and
// analysing it must not panic, and the graph must be consistent.
func FuzzAnalyze(f *testing.F) {
	f.Add([]byte{0x55, 0x48, 0x89, 0xe5, 0x89, 0x7d, 0xfc, 0x83, 0x7d, 0xfc, 0x05, 0x7f, 0x02, 0x5d, 0xc3, 0x5d, 0xc3}, uint64(7))
	f.Add([]byte{0x85, 0xff, 0x7e, 0x08, 0x31, 0xc0, 0x01, 0xc0, 0xff, 0xcf, 0x75, 0xfa, 0xc3}, uint64(1))
	f.Add([]byte{0xff, 0xe0, 0xff, 0x24, 0xc5, 0, 0, 0, 0, 0xe8, 0, 0, 0, 0, 0xc3}, uint64(99))
	f.Fuzz(func(t *testing.T, code []byte, seed uint64) {
		if len(code) == 0 || len(code) > 4096 {
			return
		}
		const base = 0x1000
		img := &Image{}
		img.Add(base, code)
		// Two ranges when the code is long enough: a main part and a cold one.
		ranges := []Range{{base, base + uint64(len(code))}}
		if len(code) > 16 && seed&1 != 0 {
			cut := base + uint64(len(code))/2
			ranges = []Range{{cut, base + uint64(len(code))}, {base, cut}}
		}
		g, err := new(Builder).Build(img, ranges)
		if err != nil {
			t.Fatal(err)
		}
		for i, b := range g.Blocks {
			if b.First >= b.Last || (i > 0 && g.Blocks[i-1].Last != b.First) {
				t.Fatalf("blocks do not tile the instructions: %d %+v", i, b)
			}
			for _, s := range b.Succs {
				if s < 0 || int(s) >= len(g.Blocks) {
					t.Fatalf("bad successor %d", s)
				}
			}
		}
		for li := range g.Loops {
			if !g.Dominates(int(g.Loops[li].Header), int(g.Loops[li].Latches[0])) {
				t.Fatalf("loop header does not dominate its latch")
			}
		}
		in := fuzzInput(code, seed)
		a := NewAnalyzer()
		for _, vt := range a.Analyze(g, in) {
			if vt.Var < 0 || vt.Var >= 10 || vt.Tags == 0 || vt.Tags > TagLoop|TagCond|TagArgs|TagStored {
				t.Fatalf("bad result %+v", vt)
			}
		}
	})
}

// fuzzInput draws the analysis input of FuzzAnalyze's code at 0x1000 from
// seed and the code's own bytes: locations, call sites, signatures,
// fields behind pointers and pointer locations.
func fuzzInput(code []byte, seed uint64) *Input {
	const base = 0x1000
	// Locations: one per 8 seed bits.
	var locs, globals []VarLoc
	r := seed
	for v := int32(0); v < 6; v++ {
		k := LocKind(1 + r%7)
		lo := base + (r>>3)%uint64(len(code))
		hi := lo + 1 + (r>>11)%uint64(len(code))
		l := VarLoc{Var: v, Lo: lo, Hi: hi, Kind: k, Reg: int16((r >> 17) % 40), Off: int64(int8(r >> 23)), Size: int32(1 + (r>>31)%16)}
		if k == AtAddr {
			globals = append(globals, l)
		} else {
			locs = append(locs, l)
		}
		r = r*6364136223846793005 + 1442695040888963407
	}
	var calls []CallSite
	for i := 0; i+8 <= len(code) && i < 64; i += 8 {
		pc := base + uint64(binary.LittleEndian.Uint32(code[i:]))%uint64(len(code)+1)
		calls = append(calls, CallSite{ReturnPC: pc, Params: []CallParam{{
			Loc:   []ExprRef{{Kind: InReg, Reg: int16(code[i+4] % 20)}},
			Value: []ExprRef{{Kind: LocKind(1 + code[i+5]%7), Reg: int16(code[i+6] % 40), Off: int64(int8(code[i+7]))}},
		}}, Callee: &Signature{Params: []ArgClass{ArgInt, ArgFloat, ArgInt2, ArgMemory}}})
	}
	sortCalls(calls)
	sigs := &Signatures{}
	sigs.Add(base, &Signature{Params: []ArgClass{ArgInt}})
	sigs.Add(base+1, nil)
	sigs.Sort()
	// Fields 6..9 behind the variables: [reg+disp] while reg holds one.
	fields := NewFields(map[FieldKey]int32{})
	for k := range int32(4) {
		fields.Add(FieldKey{Ptr: int32((r >> (5 * k)) % 6), Off: int64(int8(r >> (8 * k)))}, 6+k)
	}
	// Pointer locations as expressions: the code's own bytes, cut up.
	var plocs []PtrLoc
	for i, v := 0, int32(0); i < len(code) && v < 6; i, v = i+1+int(code[i]%8), v+1 {
		lo := base + uint64(i)
		plocs = append(plocs, PtrLoc{Var: v, Lo: lo, Hi: lo + 1 + uint64(code[i]), Expr: code[i:min(len(code), i+1+int(code[i]%8))]})
	}
	in := &Input{Locs: locs, Calls: calls, Globals: NewGlobals(globals), Sigs: sigs, Fields: fields, PtrLocs: plocs,
		FrameBase: FrameBaseRule{Kind: FrameBaseKind(seed % 3), Reg: int16(seed % 8)}}
	return in
}

func sortCalls(c []CallSite) {
	for i := 1; i < len(c); i++ {
		for j := i; j > 0 && c[j].ReturnPC < c[j-1].ReturnPC; j-- {
			c[j], c[j-1] = c[j-1], c[j]
		}
	}
}
