package dwarfschema

import (
	"github.com/go-delve/delve/pkg/dwarf/op"

	"github.com/vprof/vprof/runtime/dwarfexpr"
	"github.com/vprof/vprof/runtime/model"
)

// maxGPR is the last general register (DWARF 16, the return address
// column: rip): a field at an offset inside a register is shifted out of
// one of these; the SSE registers (17-32) give a field at their start only.
const maxGPR = 16

// regFieldLoc places a field of size bytes at byte offset shift inside
// register reg, which holds a piece of its struct (its low-order bytes
// first: DW_OP_piece from a register takes its low bytes on x86-64): the
// register itself where the field starts the piece, else the register
// shifted right, a computed value (DW_OP_bregN 0, DW_OP_constu 8*shift,
// DW_OP_shr, DW_OP_stack_value; the sampler keeps the low size bytes).
func (l *loader) regFieldLoc(base locRec, reg uint64, shift, size int64) (locRec, bool) {
	f := base
	f.val = 0
	if shift == 0 && reg < 1<<15 {
		f.kind, f.reg = model.LocReg, int16(reg)
		if reg < 32 {
			f.expr = l.expr([]byte{byte(op.DW_OP_reg0) + byte(reg)})
		} else {
			f.expr = l.expr(dwarfexpr.AppendUleb([]byte{byte(op.DW_OP_regx)}, reg))
		}
		return f, true
	}
	if reg > maxGPR || shift < 0 || shift+size > 8 {
		return locRec{}, false
	}
	e := dwarfexpr.Breg(reg, 0)
	e = dwarfexpr.AppendUleb(append(e, byte(op.DW_OP_constu)), uint64(8*shift))
	e = append(e, byte(op.DW_OP_shr), byte(op.DW_OP_stack_value))
	f.kind, f.reg, f.expr = model.LocExpr, 0, l.expr(e)
	return f, true
}

// constFieldLoc is a field of size bytes at byte offset shift of a
// constant (a struct piece known at compile time).
func (l *loader) constFieldLoc(base locRec, bits uint64, shift, size int64) (locRec, bool) {
	if shift < 0 || shift+size > 8 {
		return locRec{}, false
	}
	v := bits >> (8 * shift)
	if size < 8 {
		v &= 1<<(8*size) - 1
	}
	f := base
	f.kind, f.reg, f.val, f.expr = model.LocConst, 0, v, l.expr(dwarfexpr.Const(int64(v)))
	return f, true
}

// fieldLoc places the field at byte offset off (size bytes) of a struct
// local or parameter whose location over r's code is not memory (method.md
// §2, D325): the struct held whole in one register (the field shifted out
// of it), a constant, or pieces (DW_OP_piece) across registers, frame
// slots and constants, as gcc describes a struct passed by value in
// registers or split by SRA. The field is where the one piece that covers
// all its bytes is: a register (shifted), memory at the piece's address +
// the field's offset in it, a constant. A field no single piece covers,
// in an empty piece (optimized out), in a bit piece, an entry value or any
// other operation, has no location over r's code: never a wrong value.
func (l *loader) fieldLoc(r locRec, off, size int64) (locRec, bool) {
	if size <= 0 || off < 0 {
		return locRec{}, false
	}
	switch r.kind {
	case model.LocReg:
		return l.regFieldLoc(r, uint64(r.reg), off, size)
	case model.LocConst:
		return l.constFieldLoc(r, r.val, off, size)
	case model.LocExpr:
	default:
		return locRec{}, false
	}
	expr := l.exprList[r.expr]
	var pos int64 // the struct's offset of the piece being read
	for len(expr) > 0 {
		// One piece: its operations up to DW_OP_piece.
		var ops [2]dwarfexpr.Op
		n := 0
		psize := int64(-1)
		for len(expr) > 0 {
			o, rest, err := dwarfexpr.Next(expr)
			if err != nil {
				return locRec{}, false
			}
			expr = rest
			if o.Code == op.DW_OP_bit_piece {
				return locRec{}, false
			}
			if o.Code == op.DW_OP_piece {
				psize = int64(o.U)
				break
			}
			if n < len(ops) {
				ops[n] = o
			}
			n++
		}
		if psize < 0 || psize > 1<<20 {
			// No DW_OP_piece: an expression for the whole object
			// (entry value, implicit pointer, computed address...), or
			// the last bytes of a piece list without one: not placed.
			return locRec{}, false
		}
		if off >= pos+psize {
			pos += psize
			continue
		}
		// The piece holding the field's first byte.
		if off < pos || off+size > pos+psize {
			return locRec{}, false // across two pieces
		}
		return l.pieceFieldLoc(r, ops[:min(n, len(ops))], n, off-pos, size)
	}
	return locRec{}, false
}

// pieceFieldLoc places a field of size bytes at byte offset shift in one
// piece whose operations are ops (n of them in all): empty (optimized
// out), a register, memory at the frame base, a register or an address
// plus an offset, or a constant value; anything else is not placed.
func (l *loader) pieceFieldLoc(r locRec, ops []dwarfexpr.Op, n int, shift, size int64) (locRec, bool) {
	f := r
	switch {
	case n == 1:
		o := ops[0]
		switch c := o.Code; {
		case c >= op.DW_OP_reg0 && c <= op.DW_OP_reg31, c == op.DW_OP_regx:
			return l.regFieldLoc(r, o.U, shift, size)
		case c == op.DW_OP_fbreg:
			f.kind, f.reg, f.val = model.LocFrame, 0, uint64(o.S+shift)
			f.expr = l.expr(dwarfexpr.Fbreg(o.S + shift))
			return f, true
		case (c >= op.DW_OP_breg0 && c <= op.DW_OP_breg31 || c == op.DW_OP_bregx) && o.U < 1<<15:
			f.kind, f.reg, f.val = model.LocRegOff, int16(o.U), uint64(o.S+shift)
			f.expr = l.expr(dwarfexpr.Breg(o.U, o.S+shift))
			return f, true
		case c == op.DW_OP_addr:
			f.kind, f.reg, f.val = model.LocAddr, 0, o.U+uint64(shift)
			f.expr = l.expr(dwarfexpr.Addr(f.val))
			return f, true
		}
	case n == 2 && ops[1].Code == op.DW_OP_stack_value:
		if v, ok := ops[0].Constant(); ok {
			return l.constFieldLoc(r, uint64(v), shift, size)
		}
	}
	return locRec{}, false
}
