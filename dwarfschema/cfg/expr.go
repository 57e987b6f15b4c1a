package cfg

import "errors"

// DWARF expression opcodes used here (DWARF 5 §2.5, §2.6; GNU extensions).
const (
	opAddr          = 0x03
	opDeref         = 0x06
	opConst1u       = 0x08
	opConsts        = 0x11
	opPlusUconst    = 0x23
	opLit0          = 0x30
	opReg0          = 0x50
	opReg31         = 0x6f
	opBreg0         = 0x70
	opBreg31        = 0x8f
	opRegx          = 0x90
	opFbreg         = 0x91
	opBregx         = 0x92
	opPiece         = 0x93
	opDerefSize     = 0x94
	opCallFrameCFA  = 0x9c
	opBitPiece      = 0x9d
	opImplicitValue = 0x9e
	opStackValue    = 0x9f
	opEntryValue    = 0xa3
	opRegvalType    = 0xa5
	opDerefType     = 0xa6
	opGNUEntryValue = 0xf3
	opGNURegvalType = 0xf5
	opGNUDerefType  = 0xf6
)

var errExpr = errors.New("malformed DWARF expression")

// exprOp is one decoded operation: its opcode, first operands and, for
// DW_OP_entry_value, the nested block.
type exprOp struct {
	op    byte
	u     uint64 // first unsigned operand (register of regx/bregx/regval_type, piece size)
	s     int64  // signed operand (breg/fbreg offset)
	block []byte // entry_value's expression
}

// nextOp decodes the operation at the start of b and returns it with the
// rest of b.
func nextOp(b []byte) (exprOp, []byte, error) {
	if len(b) == 0 {
		return exprOp{}, nil, errExpr
	}
	o := exprOp{op: b[0]}
	b = b[1:]
	var err error
	fixed := func(n int) {
		if len(b) < n {
			err = errExpr
			return
		}
		var u uint64
		for i := n - 1; i >= 0; i-- {
			u = u<<8 | uint64(b[i])
		}
		o.u = u
		b = b[n:]
	}
	uleb := func() uint64 {
		var u uint64
		for shift := uint(0); ; shift += 7 {
			if len(b) == 0 || shift > 63 {
				err = errExpr
				return 0
			}
			c := b[0]
			b = b[1:]
			u |= uint64(c&0x7f) << shift
			if c&0x80 == 0 {
				return u
			}
		}
	}
	sleb := func() int64 {
		var u uint64
		shift := uint(0)
		for {
			if len(b) == 0 || shift > 63 {
				err = errExpr
				return 0
			}
			c := b[0]
			b = b[1:]
			u |= uint64(c&0x7f) << shift
			shift += 7
			if c&0x80 == 0 {
				if shift < 64 && c&0x40 != 0 {
					u |= ^uint64(0) << shift
				}
				return int64(u)
			}
		}
	}
	switch op := o.op; {
	case op == opAddr:
		fixed(8)
	case op == opConst1u || op == 0x09 || op == 0x15 || op == opDerefSize || op == 0x95:
		fixed(1)
	case op == 0x0a || op == 0x0b || op == 0x28 || op == 0x2f || op == 0x98:
		fixed(2)
	case op == 0x0c || op == 0x0d || op == 0x99 || op == 0x9a || op == 0xfa:
		fixed(4)
	case op == 0x0e || op == 0x0f:
		fixed(8)
	case op == 0x10 || op == opPlusUconst || op == opRegx || op == opPiece ||
		op == 0xa1 || op == 0xa2 || op == 0xa8 || op == 0xa9 || op == 0xf7 || op == 0xf9 ||
		op == 0xfb || op == 0xfc:
		o.u = uleb()
	case op == opConsts || op == opFbreg || op >= opBreg0 && op <= opBreg31:
		o.s = sleb()
	case op == opBregx:
		o.u = uleb()
		o.s = sleb()
	case op == opBitPiece:
		o.u = uleb()
		uleb()
	case op == opImplicitValue:
		n := uleb()
		if err == nil && n > uint64(len(b)) {
			err = errExpr
		} else if err == nil {
			b = b[n:]
		}
	case op == opEntryValue || op == opGNUEntryValue:
		n := uleb()
		if err == nil && n > uint64(len(b)) {
			err = errExpr
		} else if err == nil {
			o.block = b[:n]
			b = b[n:]
		}
	case op == 0xa0 || op == 0xf2: // implicit_pointer: DIE ref, offset
		fixed(4)
		sleb()
	case op == 0xa4 || op == 0xf4: // const_type: type, size, bytes
		uleb()
		if err == nil && len(b) > 0 && int(b[0]) < len(b) {
			b = b[1+int(b[0]):]
		} else {
			err = errExpr
		}
	case op == opRegvalType || op == opGNURegvalType:
		o.u = uleb()
		uleb()
	case op == opDerefType || op == opGNUDerefType || op == 0xa7:
		fixed(1)
		uleb()
	case op >= opLit0 && op <= 0x4f, op >= opReg0 && op <= opReg31,
		op >= 0x12 && op <= 0x2e && op != 0x15 && op != 0x23 && op != 0x28,
		op == opDeref || op == 0x18 || op >= 0x96 && op <= 0x97 || op == 0x9b || op == opCallFrameCFA ||
			op == opStackValue || op == 0xe0:
		// no operands
	default:
		return o, nil, errExpr
	}
	return o, b, err
}

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
			ops                           [16]exprOp
			n                             int
			stack, deref, other, overflow bool
			rest                          = expr
		)
		for len(rest) > 0 {
			o, r, err := nextOp(rest)
			if err != nil {
				return dst
			}
			rest = r
			if o.op == opPiece || o.op == opBitPiece {
				break
			}
			switch {
			case o.op == opStackValue:
				stack = true
			case o.op == opDeref || o.op == opDerefSize || o.op == opDerefType || o.op == opGNUDerefType:
				deref = true
			case o.op >= opLit0 && o.op <= 0x4f || o.op >= opConst1u && o.op <= opConsts || o.op == opPlusUconst ||
				o.op >= 0x12 && o.op <= 0x27 || o.op == 0x96:
				// arithmetic and constants
			case o.op >= opReg0 && o.op <= opReg31 || o.op == opRegx || o.op == opFbreg ||
				o.op >= opBreg0 && o.op <= opBreg31 || o.op == opBregx || o.op == opEntryValue ||
				o.op == opGNUEntryValue || o.op == opRegvalType || o.op == opGNURegvalType:
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
		switch o := ops[0]; {
		case n == 1 && !stack && !deref && (o.op >= opReg0 && o.op <= opReg31 || o.op == opRegx):
			r := int64(o.op) - opReg0
			if o.op == opRegx {
				r = int64(o.u)
			}
			dst = append(dst, ExprRef{Kind: InReg, Reg: int16(r)})
		case n == 1 && !stack && !deref && o.op == opFbreg:
			dst = append(dst, ExprRef{Kind: InFrameSlot, Off: o.s})
		case n == 1 && !stack && !deref && (o.op >= opBreg0 && o.op <= opBreg31 || o.op == opBregx):
			r := int64(o.op) - opBreg0
			if o.op == opBregx {
				r = int64(o.u)
			}
			dst = append(dst, ExprRef{Kind: InRegSlot, Reg: int16(r), Off: o.s})
		case stack && !deref:
			for _, o := range ops[:n] {
				switch {
				case o.op >= opBreg0 && o.op <= opBreg31:
					dst = append(dst, ExprRef{Kind: InDerived, Reg: int16(o.op - opBreg0)})
				case o.op == opBregx || o.op == opRegvalType || o.op == opGNURegvalType:
					dst = append(dst, ExprRef{Kind: InDerived, Reg: int16(o.u)})
				case o.op == opEntryValue || o.op == opGNUEntryValue:
					if len(o.block) == 1 && o.block[0] >= opReg0 && o.block[0] <= opReg31 {
						dst = append(dst, ExprRef{Kind: InEntryValue, Reg: int16(o.block[0] - opReg0)})
					}
				}
			}
		}
	}
	return dst
}

// FrameBase classifies a DW_AT_frame_base expression: DW_OP_call_frame_cfa
// (gcc) makes DW_OP_fbreg offsets CFA-relative; DW_OP_regN / DW_OP_bregN k
// (clang: rbp or rsp) make them relative to that register (+ k).
func FrameBase(expr []byte) (fb FrameBaseRule) {
	if len(expr) == 1 && expr[0] == opCallFrameCFA {
		return FrameBaseRule{Kind: FrameCFA}
	}
	o, rest, err := nextOp(expr)
	if err != nil || len(rest) != 0 {
		return FrameBaseRule{}
	}
	switch {
	case o.op >= opReg0 && o.op <= opReg31:
		return FrameBaseRule{Kind: FrameReg, Reg: int16(o.op - opReg0)}
	case o.op >= opBreg0 && o.op <= opBreg31:
		return FrameBaseRule{Kind: FrameReg, Reg: int16(o.op - opBreg0), Off: o.s}
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
