package unwind

import "errors"

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
	for pc < len(expr) {
		op := expr[pc]
		pc++
		switch {
		case op >= 0x30 && op <= 0x4f: // DW_OP_lit0..31
			if !push(uint64(op - 0x30)) {
				return ErrMalformed
			}
			continue
		case op >= 0x50 && op <= 0x6f: // DW_OP_reg0..31
			regLoc = int(op - 0x50)
			continue
		case op >= 0x70 && op <= 0x8f: // DW_OP_breg0..31 sleb
			off, n := sleb(expr[pc:])
			if n == 0 {
				return ErrMalformed
			}
			pc += n
			v, ok := ctx.reg(int(op - 0x70))
			if !ok {
				return ErrUnavailable
			}
			if !push(v + uint64(off)) {
				return ErrMalformed
			}
			continue
		}
		switch op {
		case 0x03: // DW_OP_addr
			if pc+8 > len(expr) {
				return ErrMalformed
			}
			if !push(le(expr[pc:pc+8]) + ctx.Bias) {
				return ErrMalformed
			}
			pc += 8
		case 0x06, 0x94: // DW_OP_deref, DW_OP_deref_size
			size := 8
			if op == 0x94 {
				if pc >= len(expr) {
					return ErrMalformed
				}
				size = int(expr[pc])
				pc++
			}
			if sp == 0 || size < 1 || size > 8 {
				return ErrMalformed
			}
			v, ok := ctx.Mem.Read(st[sp-1], size)
			if !ok {
				return ErrUnreadable
			}
			st[sp-1] = v
		case 0xa6, 0xf6: // DW_OP_deref_type size, type
			if pc >= len(expr) {
				return ErrMalformed
			}
			size := int(expr[pc])
			pc++
			_, n := uleb(expr[pc:])
			if n == 0 || sp == 0 || size < 1 || size > 8 {
				return ErrMalformed
			}
			pc += n
			v, ok := ctx.Mem.Read(st[sp-1], size)
			if !ok {
				return ErrUnreadable
			}
			st[sp-1] = v
		case 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f: // DW_OP_const{1,2,4,8}{u,s}
			size := 1 << ((op - 0x08) / 2)
			if pc+size > len(expr) {
				return ErrMalformed
			}
			v := le(expr[pc : pc+size])
			if (op-0x08)%2 == 1 { // signed
				shift := 64 - 8*uint(size)
				v = uint64(int64(v<<shift) >> shift)
			}
			pc += size
			if !push(v) {
				return ErrMalformed
			}
		case 0x10: // DW_OP_constu
			v, n := uleb(expr[pc:])
			if n == 0 || !push(v) {
				return ErrMalformed
			}
			pc += n
		case 0x11: // DW_OP_consts
			v, n := sleb(expr[pc:])
			if n == 0 || !push(uint64(v)) {
				return ErrMalformed
			}
			pc += n
		case 0x12: // DW_OP_dup
			if sp == 0 || !push(st[sp-1]) {
				return ErrMalformed
			}
		case 0x13: // DW_OP_drop
			if sp == 0 {
				return ErrMalformed
			}
			sp--
		case 0x14: // DW_OP_over
			if sp < 2 || !push(st[sp-2]) {
				return ErrMalformed
			}
		case 0x15: // DW_OP_pick
			if pc >= len(expr) {
				return ErrMalformed
			}
			i := int(expr[pc])
			pc++
			if i >= sp || !push(st[sp-1-i]) {
				return ErrMalformed
			}
		case 0x16: // DW_OP_swap
			if sp < 2 {
				return ErrMalformed
			}
			st[sp-1], st[sp-2] = st[sp-2], st[sp-1]
		case 0x17: // DW_OP_rot
			if sp < 3 {
				return ErrMalformed
			}
			st[sp-1], st[sp-2], st[sp-3] = st[sp-2], st[sp-3], st[sp-1]
		case 0x19, 0x1f, 0x20: // DW_OP_abs, neg, not
			if sp == 0 {
				return ErrMalformed
			}
			v := st[sp-1]
			switch op {
			case 0x19:
				if int64(v) < 0 {
					v = -v
				}
			case 0x1f:
				v = -v
			case 0x20:
				v = ^v
			}
			st[sp-1] = v
		case 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x21, 0x22, 0x24, 0x25, 0x26, 0x27,
			0x29, 0x2a, 0x2b, 0x2c, 0x2d, 0x2e: // binary operators
			if sp < 2 {
				return ErrMalformed
			}
			b, a := st[sp-1], st[sp-2]
			sp--
			var r uint64
			switch op {
			case 0x1a:
				r = a & b
			case 0x1b: // div (signed)
				if b == 0 {
					return ErrMalformed
				}
				r = uint64(int64(a) / int64(b))
			case 0x1c:
				r = a - b
			case 0x1d: // mod
				if b == 0 {
					return ErrMalformed
				}
				r = a % b
			case 0x1e:
				r = a * b
			case 0x21:
				r = a | b
			case 0x22:
				r = a + b
			case 0x24:
				r = a << (b & 63)
			case 0x25:
				r = a >> (b & 63)
			case 0x26:
				r = uint64(int64(a) >> (b & 63))
			case 0x27:
				r = a ^ b
			case 0x29:
				r = b2u(a == b)
			case 0x2a:
				r = b2u(int64(a) >= int64(b))
			case 0x2b:
				r = b2u(int64(a) > int64(b))
			case 0x2c:
				r = b2u(int64(a) <= int64(b))
			case 0x2d:
				r = b2u(int64(a) < int64(b))
			case 0x2e:
				r = b2u(a != b)
			}
			st[sp-1] = r
		case 0x23: // DW_OP_plus_uconst
			v, n := uleb(expr[pc:])
			if n == 0 || sp == 0 {
				return ErrMalformed
			}
			pc += n
			st[sp-1] += v
		case 0x28, 0x2f: // DW_OP_bra, DW_OP_skip
			if pc+2 > len(expr) {
				return ErrMalformed
			}
			off := int(int16(le(expr[pc : pc+2])))
			pc += 2
			take := true
			if op == 0x28 {
				if sp == 0 {
					return ErrMalformed
				}
				sp--
				take = st[sp] != 0
			}
			if take {
				pc += off
				if pc < 0 || pc > len(expr) {
					return ErrMalformed
				}
			}
		case 0x90: // DW_OP_regx
			r, n := uleb(expr[pc:])
			if n == 0 {
				return ErrMalformed
			}
			pc += n
			regLoc = int(r)
		case 0x91: // DW_OP_fbreg
			off, n := sleb(expr[pc:])
			if n == 0 {
				return ErrMalformed
			}
			pc += n
			if !ctx.HasFB {
				return ErrNoFrameBase
			}
			if !push(ctx.FrameBase + uint64(off)) {
				return ErrMalformed
			}
		case 0x92: // DW_OP_bregx
			r, n := uleb(expr[pc:])
			if n == 0 {
				return ErrMalformed
			}
			pc += n
			off, m := sleb(expr[pc:])
			if m == 0 {
				return ErrMalformed
			}
			pc += m
			v, ok := ctx.reg(int(r))
			if !ok {
				return ErrUnavailable
			}
			if !push(v + uint64(off)) {
				return ErrMalformed
			}
		case 0x93, 0x9d: // DW_OP_piece, DW_OP_bit_piece
			size, n := uleb(expr[pc:])
			if n == 0 {
				return ErrMalformed
			}
			pc += n
			if op == 0x9d {
				boff, m := uleb(expr[pc:])
				if m == 0 {
					return ErrMalformed
				}
				pc += m
				if size%8 != 0 || boff != 0 {
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
		case 0x96: // DW_OP_nop
		case 0x9c: // DW_OP_call_frame_cfa
			if !ctx.HasCFA {
				return ErrNoFrameBase
			}
			if !push(ctx.CFA) {
				return ErrMalformed
			}
		case 0x9e: // DW_OP_implicit_value len, bytes
			l, n := uleb(expr[pc:])
			if n == 0 || l > uint64(len(expr)-pc-n) {
				return ErrMalformed
			}
			pc += n
			if l > 8 {
				return ErrUnsupported
			}
			implicit, hasImplicit = le(expr[pc:pc+int(l)]), true
			pc += int(l)
		case 0x9f: // DW_OP_stack_value
			isValue = true
		case 0xa3, 0xf3: // DW_OP_entry_value, DW_OP_GNU_entry_value
			l, n := uleb(expr[pc:])
			if n == 0 || l > uint64(len(expr)-pc-n) {
				return ErrMalformed
			}
			pc += n
			sub := expr[pc : pc+int(l)]
			pc += int(l)
			if ctx.Entry == nil {
				return ErrEntryValue
			}
			v, err := ctx.Entry.EntryValue(sub)
			if err != nil {
				return err
			}
			if !push(v) {
				return ErrMalformed
			}
		case 0xa4, 0xf4: // DW_OP_const_type type, size, bytes
			_, n := uleb(expr[pc:])
			if n == 0 || pc+n >= len(expr) {
				return ErrMalformed
			}
			pc += n
			size := int(expr[pc])
			pc++
			if pc+size > len(expr) {
				return ErrMalformed
			}
			if size > 8 {
				return ErrUnsupported
			}
			if !push(le(expr[pc : pc+size])) {
				return ErrMalformed
			}
			pc += size
		case 0xa5, 0xf5: // DW_OP_regval_type reg, type
			r, n := uleb(expr[pc:])
			if n == 0 {
				return ErrMalformed
			}
			pc += n
			_, m := uleb(expr[pc:])
			if m == 0 {
				return ErrMalformed
			}
			pc += m
			v, ok := ctx.reg(int(r))
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

// le decodes up to 8 little-endian bytes.
func le(b []byte) uint64 {
	var v uint64
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// uleb decodes an unsigned LEB128; n is 0 on malformed input.
func uleb(b []byte) (v uint64, n int) {
	var shift uint
	for i, c := range b {
		if shift < 64 {
			v |= uint64(c&0x7f) << shift
		}
		shift += 7
		if c&0x80 == 0 {
			return v, i + 1
		}
	}
	return 0, 0
}

// sleb decodes a signed LEB128; n is 0 on malformed input.
func sleb(b []byte) (v int64, n int) {
	var shift uint
	for i, c := range b {
		if shift < 64 {
			v |= int64(c&0x7f) << shift
		}
		shift += 7
		if c&0x80 == 0 {
			if shift < 64 && c&0x40 != 0 {
				v |= -1 << shift
			}
			return v, i + 1
		}
	}
	return 0, 0
}
