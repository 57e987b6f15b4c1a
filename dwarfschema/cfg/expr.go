package cfg

import (
	"github.com/go-delve/delve/pkg/dwarf/op"

	"github.com/vprof/vprof/runtime/dwarfexpr"
)

// ExprRef is what a piece of a location expression says about where a
// variable's value comes from, in the terms the dataflow matches against
// machine code.
type ExprRef struct {
	Kind LocKind
	Reg  int16 // DWARF register (InReg, InDerived, InRegSlot, InEntryValue)
	Off  int64 // slot offset (InFrameSlot, InRegSlot)
}

// ExprRefs appends to dst the places expr reads a value from:
//
//	DW_OP_regN                       InReg N
//	DW_OP_fbreg k                    InFrameSlot k (memory at frame base + k)
//	DW_OP_bregN k                    InRegSlot N, k (memory at register N + k)
//	... DW_OP_bregN ... stack_value  InDerived N (the value is computed from N)
//	DW_OP_entry_value(DW_OP_regN)    InEntryValue N (N's value at function entry)
//
// Each DW_OP_piece is a separate place. Pieces that load through a
// register other than the frame (deref of a computed address) or use
// operations outside this set give nothing: the variable is then simply
// not matched there.
func ExprRefs(dst []ExprRef, expr []byte) []ExprRef {
	for len(expr) > 0 {
		// One piece: up to DW_OP_piece / DW_OP_bit_piece or the end.
		var (
			ops                           [16]dwarfexpr.Op
			n                             int
			stack, deref, other, overflow bool
			rest                          = expr
		)
		for len(rest) > 0 {
			o, r, err := dwarfexpr.Next(rest)
			if err != nil {
				return dst
			}
			rest = r
			c := o.Code
			if c == op.DW_OP_piece || c == op.DW_OP_bit_piece {
				break
			}
			switch {
			case c == op.DW_OP_stack_value:
				stack = true
			case c == op.DW_OP_deref || c == op.DW_OP_deref_size || c == dwarfexpr.DW_OP_deref_type || c == dwarfexpr.DW_OP_GNU_deref_type:
				deref = true
			case c >= op.DW_OP_lit0 && c <= op.DW_OP_lit31 || c >= op.DW_OP_const1u && c <= op.DW_OP_consts || c == op.DW_OP_plus_uconst ||
				c >= op.DW_OP_dup && c <= op.DW_OP_xor || c == op.DW_OP_nop:
				// arithmetic and constants
			case isRegOp(c) || c == op.DW_OP_fbreg || isBregOp(c) || c == dwarfexpr.DW_OP_entry_value ||
				c == dwarfexpr.DW_OP_GNU_entry_value || c == dwarfexpr.DW_OP_regval_type || c == dwarfexpr.DW_OP_GNU_regval_type:
				if n == len(ops) {
					overflow = true
				} else {
					ops[n] = o
					n++
				}
			default:
				other = true
			}
		}
		expr = rest
		if overflow || other || n == 0 {
			continue
		}
		// The register of regN, regx, bregN, bregx and regval_type is U.
		switch o := ops[0]; {
		case n == 1 && !stack && !deref && isRegOp(o.Code):
			dst = append(dst, ExprRef{Kind: InReg, Reg: int16(o.U)})
		case n == 1 && !stack && !deref && o.Code == op.DW_OP_fbreg:
			dst = append(dst, ExprRef{Kind: InFrameSlot, Off: o.S})
		case n == 1 && !stack && !deref && isBregOp(o.Code):
			dst = append(dst, ExprRef{Kind: InRegSlot, Reg: int16(o.U), Off: o.S})
		case stack && !deref:
			for _, o := range ops[:n] {
				switch c := o.Code; {
				case isBregOp(c) || c == dwarfexpr.DW_OP_regval_type || c == dwarfexpr.DW_OP_GNU_regval_type:
					dst = append(dst, ExprRef{Kind: InDerived, Reg: int16(o.U)})
				case c == dwarfexpr.DW_OP_entry_value || c == dwarfexpr.DW_OP_GNU_entry_value:
					if len(o.Block) == 1 && op.Opcode(o.Block[0]) >= op.DW_OP_reg0 && op.Opcode(o.Block[0]) <= op.DW_OP_reg31 {
						dst = append(dst, ExprRef{Kind: InEntryValue, Reg: int16(o.Block[0]) - int16(op.DW_OP_reg0)})
					}
				}
			}
		}
	}
	return dst
}

// isRegOp: DW_OP_reg0..31 or DW_OP_regx. isBregOp: DW_OP_breg0..31 or
// DW_OP_bregx.
func isRegOp(c op.Opcode) bool {
	return c >= op.DW_OP_reg0 && c <= op.DW_OP_reg31 || c == op.DW_OP_regx
}
func isBregOp(c op.Opcode) bool {
	return c >= op.DW_OP_breg0 && c <= op.DW_OP_breg31 || c == op.DW_OP_bregx
}

// FrameBase classifies a DW_AT_frame_base expression: DW_OP_call_frame_cfa
// (gcc) makes DW_OP_fbreg offsets CFA-relative; DW_OP_regN / DW_OP_bregN k
// (clang: rbp or rsp) make them relative to that register (+ k).
func FrameBase(expr []byte) (fb FrameBaseRule) {
	o, rest, err := dwarfexpr.Next(expr)
	if err != nil || len(rest) != 0 {
		return FrameBaseRule{}
	}
	switch c := o.Code; {
	case c == op.DW_OP_call_frame_cfa:
		return FrameBaseRule{Kind: FrameCFA}
	case c >= op.DW_OP_reg0 && c <= op.DW_OP_reg31:
		return FrameBaseRule{Kind: FrameReg, Reg: int16(o.U)}
	case c >= op.DW_OP_breg0 && c <= op.DW_OP_breg31:
		return FrameBaseRule{Kind: FrameReg, Reg: int16(o.U), Off: o.S}
	}
	return FrameBaseRule{}
}

// FrameBaseKind says what DW_OP_fbreg offsets are relative to.
type FrameBaseKind uint8

const (
	FrameUnknown FrameBaseKind = iota
	FrameCFA                   // the canonical frame address
	FrameReg                   // register Reg + Off at each PC
)

// FrameBaseRule is a decoded DW_AT_frame_base.
type FrameBaseRule struct {
	Kind FrameBaseKind
	Reg  int16
	Off  int64
}
