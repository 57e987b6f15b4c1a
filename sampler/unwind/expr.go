package unwind

import (
	"errors"

	"github.com/go-delve/delve/pkg/dwarf/op"

	"github.com/vprof/vprof/runtime/dwarfexpr"
)

// Expression evaluation errors. They are fixed values so that a failed
// evaluation on the sampling path does not allocate.
var (
	ErrUnavailable = errors.New("dwarf expression: register not available in this frame")
	ErrUnreadable  = errors.New("dwarf expression: memory not readable")
	ErrUnsupported = errors.New("dwarf expression: unsupported operation")
	ErrMalformed   = errors.New("dwarf expression: malformed")
	ErrEntryValue  = errors.New("dwarf expression: entry value not known (caller frame or call-site value missing)")
	ErrNoFrameBase = errors.New("dwarf expression: no frame base or CFA")
)

// PieceKind says where one piece of a value is.
type PieceKind uint8

const (
	PieceMem   PieceKind = iota + 1 // in memory at Addr
	PieceReg                        // in register Reg (DWARF number; XMM0.. for SSE)
	PieceValue                      // the value is Val (DW_OP_stack_value, implicit value)
	PieceEmpty                      // optimised out
)

// Piece is one part of an evaluated location. Size 0 means the whole
// variable (an expression without DW_OP_piece).
type Piece struct {
	Kind PieceKind
	Reg  int16
	Size int32
	Addr uint64
	Val  uint64
}

// MaxPieces bounds the pieces of one location (a 16-byte value in
// registers is 2; structs split over many registers are not sampled).
const MaxPieces = 8

// Result is the outcome of Eval.
type Result struct {
	N      int
	Pieces [MaxPieces]Piece
}

// EntryResolver gives the value a register-only expression (the operand of
// DW_OP_entry_value, nearly always DW_OP_regN) had on entry to the current
// function. It returns ErrEntryValue when that is not known.
type EntryResolver interface {
	EntryValue(expr []byte) (uint64, error)
}

// Context is what an expression may refer to.
type Context struct {
	Regs      *Regs
	Mem       Memory
	CFA       uint64 // DW_OP_call_frame_cfa
	HasCFA    bool
	FrameBase uint64 // DW_OP_fbreg
	HasFB     bool
	Bias      uint64 // added to DW_OP_addr (load bias of the object)
	Entry     EntryResolver
}

const maxStack = 64

// Eval evaluates a DWARF location or CFI expression (DWARF 2-5 and the GNU
// extensions gcc emits) into res. With initial non-zero, that value is
// pushed first (CFI register rules push the CFA). It never allocates.
func Eval(expr []byte, ctx *Context, res *Result, initial ...uint64) error {
	var st [maxStack]uint64
	sp := 0
	for _, v := range initial {
		st[sp] = v
		sp++
	}
	res.N = 0
	regLoc := -1     // DW_OP_regN seen: the location is that register
	isValue := false // DW_OP_stack_value seen
	var implicit uint64
	hasImplicit := false
	pc := 0
	push := func(v uint64) bool {
		if sp >= maxStack {
			return false
		}
		st[sp] = v
		sp++
		return true
	}
	var o dwarfexpr.Op
	for pc < len(expr) {
		n, err := o.Decode(expr[pc:])
		switch {
		case err == dwarfexpr.ErrUnknownOp:
			return ErrUnsupported
		case err != nil && !evaluates(o.Code):
			// Operands of an operation not evaluated here, cut: the
			// operation's own answer.
			return ErrUnsupported
		case err != nil:
			return ErrMalformed
		}
		pc += n
		// The register of regN, regx, bregN and bregx is o.U, the
		// number of litN too.
		switch c := o.Code; {
		case c >= op.DW_OP_lit0 && c <= op.DW_OP_lit31:
			if !push(o.U) {
				return ErrMalformed
			}
			continue
		case c >= op.DW_OP_reg0 && c <= op.DW_OP_reg31 || c == op.DW_OP_regx:
			regLoc = int(o.U)
			continue
		case c >= op.DW_OP_breg0 && c <= op.DW_OP_breg31 || c == op.DW_OP_bregx:
			v, ok := ctx.reg(int(o.U))
			if !ok {
				return ErrUnavailable
			}
			if !push(v + uint64(o.S)) {
				return ErrMalformed
			}
			continue
		}
		switch o.Code {
		case op.DW_OP_addr:
			if !push(o.U + ctx.Bias) {
				return ErrMalformed
			}
		case op.DW_OP_deref, op.DW_OP_deref_size, dwarfexpr.DW_OP_deref_type, dwarfexpr.DW_OP_GNU_deref_type:
			size := 8
			if o.Code != op.DW_OP_deref {
				size = int(o.U)
			}
			if sp == 0 || size < 1 || size > 8 {
				return ErrMalformed
			}
			v, ok := ctx.Mem.Read(st[sp-1], size)
			if !ok {
				return ErrUnreadable
			}
			st[sp-1] = v
		case op.DW_OP_const1u, op.DW_OP_const2u, op.DW_OP_const4u, op.DW_OP_const8u, op.DW_OP_constu,
			op.DW_OP_const1s, op.DW_OP_const2s, op.DW_OP_const4s, op.DW_OP_const8s, op.DW_OP_consts:
			v, _ := o.Constant()
			if !push(uint64(v)) {
				return ErrMalformed
			}
		case op.DW_OP_dup:
			if sp == 0 || !push(st[sp-1]) {
				return ErrMalformed
			}
		case op.DW_OP_drop:
			if sp == 0 {
				return ErrMalformed
			}
			sp--
		case op.DW_OP_over:
			if sp < 2 || !push(st[sp-2]) {
				return ErrMalformed
			}
		case op.DW_OP_pick:
			i := int(o.U)
			if i >= sp || !push(st[sp-1-i]) {
				return ErrMalformed
			}
		case op.DW_OP_swap:
			if sp < 2 {
				return ErrMalformed
			}
			st[sp-1], st[sp-2] = st[sp-2], st[sp-1]
		case op.DW_OP_rot:
			if sp < 3 {
				return ErrMalformed
			}
			st[sp-1], st[sp-2], st[sp-3] = st[sp-2], st[sp-3], st[sp-1]
		case op.DW_OP_abs, op.DW_OP_neg, op.DW_OP_not:
			if sp == 0 {
				return ErrMalformed
			}
			v := st[sp-1]
			switch o.Code {
			case op.DW_OP_abs:
				if int64(v) < 0 {
					v = -v
				}
			case op.DW_OP_neg:
				v = -v
			case op.DW_OP_not:
				v = ^v
			}
			st[sp-1] = v
		case op.DW_OP_and, op.DW_OP_div, op.DW_OP_minus, op.DW_OP_mod, op.DW_OP_mul, op.DW_OP_or,
			op.DW_OP_plus, op.DW_OP_shl, op.DW_OP_shr, op.DW_OP_shra, op.DW_OP_xor,
			op.DW_OP_eq, op.DW_OP_ge, op.DW_OP_gt, op.DW_OP_le, op.DW_OP_lt, op.DW_OP_ne:
			if sp < 2 {
				return ErrMalformed
			}
			b, a := st[sp-1], st[sp-2]
			sp--
			var r uint64
			switch o.Code {
			case op.DW_OP_and:
				r = a & b
			case op.DW_OP_div: // signed
				if b == 0 {
					return ErrMalformed
				}
				r = uint64(int64(a) / int64(b))
			case op.DW_OP_minus:
				r = a - b
			case op.DW_OP_mod:
				if b == 0 {
					return ErrMalformed
				}
				r = a % b
			case op.DW_OP_mul:
				r = a * b
			case op.DW_OP_or:
				r = a | b
			case op.DW_OP_plus:
				r = a + b
			case op.DW_OP_shl:
				r = a << (b & 63)
			case op.DW_OP_shr:
				r = a >> (b & 63)
			case op.DW_OP_shra:
				r = uint64(int64(a) >> (b & 63))
			case op.DW_OP_xor:
				r = a ^ b
			case op.DW_OP_eq:
				r = b2u(a == b)
			case op.DW_OP_ge:
				r = b2u(int64(a) >= int64(b))
			case op.DW_OP_gt:
				r = b2u(int64(a) > int64(b))
			case op.DW_OP_le:
				r = b2u(int64(a) <= int64(b))
			case op.DW_OP_lt:
				r = b2u(int64(a) < int64(b))
			case op.DW_OP_ne:
				r = b2u(a != b)
			}
			st[sp-1] = r
		case op.DW_OP_plus_uconst:
			if sp == 0 {
				return ErrMalformed
			}
			st[sp-1] += o.U
		case op.DW_OP_bra, op.DW_OP_skip:
			take := true
			if o.Code == op.DW_OP_bra {
				if sp == 0 {
					return ErrMalformed
				}
				sp--
				take = st[sp] != 0
			}
			if take {
				pc += int(o.S)
				if pc < 0 || pc > len(expr) {
					return ErrMalformed
				}
			}
		case op.DW_OP_fbreg:
			if !ctx.HasFB {
				return ErrNoFrameBase
			}
			if !push(ctx.FrameBase + uint64(o.S)) {
				return ErrMalformed
			}
		case op.DW_OP_piece, op.DW_OP_bit_piece:
			size := o.U
			if o.Code == op.DW_OP_bit_piece {
				if size%8 != 0 || o.U2 != 0 {
					return ErrUnsupported
				}
				size /= 8
			}
			if res.N >= MaxPieces {
				return ErrUnsupported
			}
			p := &res.Pieces[res.N]
			res.N++
			*p = Piece{Size: int32(size)}
			switch {
			case regLoc >= 0:
				p.Kind, p.Reg = PieceReg, int16(regLoc)
			case hasImplicit:
				p.Kind, p.Val = PieceValue, implicit
			case isValue && sp > 0:
				p.Kind, p.Val = PieceValue, st[sp-1]
				sp--
			case sp > 0:
				p.Kind, p.Addr = PieceMem, st[sp-1]
				sp--
			default:
				p.Kind = PieceEmpty
			}
			regLoc, isValue, hasImplicit = -1, false, false
		case op.DW_OP_nop:
		case op.DW_OP_call_frame_cfa:
			if !ctx.HasCFA {
				return ErrNoFrameBase
			}
			if !push(ctx.CFA) {
				return ErrMalformed
			}
		case op.DW_OP_implicit_value:
			v, ok := o.BlockValue()
			if !ok {
				return ErrUnsupported
			}
			implicit, hasImplicit = v, true
		case op.DW_OP_stack_value:
			isValue = true
		case dwarfexpr.DW_OP_entry_value, dwarfexpr.DW_OP_GNU_entry_value:
			if ctx.Entry == nil {
				return ErrEntryValue
			}
			v, err := ctx.Entry.EntryValue(o.Block)
			if err != nil {
				return err
			}
			if !push(v) {
				return ErrMalformed
			}
		case dwarfexpr.DW_OP_const_type, dwarfexpr.DW_OP_GNU_const_type:
			v, ok := o.BlockValue()
			if !ok {
				return ErrUnsupported
			}
			if !push(v) {
				return ErrMalformed
			}
		case dwarfexpr.DW_OP_regval_type, dwarfexpr.DW_OP_GNU_regval_type:
			v, ok := ctx.reg(int(o.U))
			if !ok {
				return ErrUnavailable
			}
			if !push(v) {
				return ErrMalformed
			}
		default:
			// DW_OP_convert/reinterpret need the base type's signedness
			// and encoding; TLS, calls, split-DWARF indexes and
			// push_object_address need context a sampler does not have.
			return ErrUnsupported
		}
	}
	if res.N > 0 {
		return nil
	}
	p := &res.Pieces[0]
	*p = Piece{}
	switch {
	case regLoc >= 0:
		p.Kind, p.Reg = PieceReg, int16(regLoc)
	case hasImplicit:
		p.Kind, p.Val = PieceValue, implicit
	case sp == 0:
		p.Kind = PieceEmpty
	case isValue:
		p.Kind, p.Val = PieceValue, st[sp-1]
	default:
		p.Kind, p.Addr = PieceMem, st[sp-1]
	}
	res.N = 1
	return nil
}

func (c *Context) reg(n int) (uint64, bool) {
	if c.Regs == nil {
		return 0, false
	}
	return c.Regs.Get(n)
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// evaluates reports whether Eval evaluates operation c; for the others it
// answers ErrUnsupported, also when their operands are cut.
func evaluates(c op.Opcode) bool {
	switch c {
	case op.DW_OP_xderef, op.DW_OP_xderef_size, op.DW_OP_push_object_address, op.DW_OP_call2,
		op.DW_OP_call4, op.DW_OP_call_ref, op.DW_OP_form_tls_address:
		return false
	}
	return c < dwarfexpr.DW_OP_implicit_pointer || c == dwarfexpr.DW_OP_entry_value ||
		c == dwarfexpr.DW_OP_GNU_entry_value || c == dwarfexpr.DW_OP_const_type ||
		c == dwarfexpr.DW_OP_GNU_const_type || c == dwarfexpr.DW_OP_regval_type ||
		c == dwarfexpr.DW_OP_GNU_regval_type || c == dwarfexpr.DW_OP_deref_type ||
		c == dwarfexpr.DW_OP_GNU_deref_type
}
