package dwarfexpr

import (
	"errors"
	"fmt"

	"github.com/go-delve/delve/pkg/dwarf/op"
)

// The DWARF 5 and GNU operations that delve's op package does not name.
// (DW_OP_GNU_encoded_addr, 0xf1, whose operand's size depends on an
// encoding byte, is not decoded: Next answers ErrUnknownOp.)
const (
	DW_OP_implicit_pointer     op.Opcode = 0xa0
	DW_OP_addrx                op.Opcode = 0xa1
	DW_OP_constx               op.Opcode = 0xa2
	DW_OP_entry_value          op.Opcode = 0xa3
	DW_OP_const_type           op.Opcode = 0xa4
	DW_OP_regval_type          op.Opcode = 0xa5
	DW_OP_deref_type           op.Opcode = 0xa6
	DW_OP_xderef_type          op.Opcode = 0xa7
	DW_OP_convert              op.Opcode = 0xa8
	DW_OP_reinterpret          op.Opcode = 0xa9
	DW_OP_GNU_push_tls_address op.Opcode = 0xe0
	DW_OP_GNU_uninit           op.Opcode = 0xf0
	DW_OP_GNU_implicit_pointer op.Opcode = 0xf2
	DW_OP_GNU_entry_value      op.Opcode = 0xf3
	DW_OP_GNU_const_type       op.Opcode = 0xf4
	DW_OP_GNU_regval_type      op.Opcode = 0xf5
	DW_OP_GNU_deref_type       op.Opcode = 0xf6
	DW_OP_GNU_convert          op.Opcode = 0xf7
	DW_OP_GNU_reinterpret      op.Opcode = 0xf9
	DW_OP_GNU_parameter_ref    op.Opcode = 0xfa
	DW_OP_GNU_addr_index       op.Opcode = 0xfb
	DW_OP_GNU_const_index      op.Opcode = 0xfc
)

// Errors of Next. They are fixed values, so that decoding on the sampling
// path does not allocate.
var (
	ErrTruncated = errors.New("dwarf expression: truncated operation")
	ErrUnknownOp = errors.New("dwarf expression: unknown operation")
)

// Op is one decoded operation. Its operands are where their kind puts
// them, in order: unsigned ones (a register, a size, an address, a DIE
// reference, an unsigned constant) in U then U2; the signed one (an
// offset, a signed constant, a branch distance) in S; a block (the bytes
// of DW_OP_implicit_value and DW_OP_const_type, the expression of
// DW_OP_entry_value) in Block, a subslice of the expression. The
// operations that carry a number in their opcode have it in U: N of
// DW_OP_litN, DW_OP_regN and DW_OP_bregN (whose offset is S).
type Op struct {
	Code  op.Opcode
	U, U2 uint64
	S     int64
	Block []byte
}

// arg is the kind of one operand.
type arg uint8

const (
	argNone   arg = iota
	argU          // unsigned LEB128
	argReg        // unsigned LEB128, a DWARF register number
	argS          // signed LEB128
	argFix1       // 1-byte unsigned
	argFix2       // 2-byte unsigned (little-endian, as every fixed operand)
	argFix4       // 4-byte unsigned
	argFix8       // 8-byte unsigned
	argFix1S      // 1-byte signed
	argFix2S      // 2-byte signed
	argFix4S      // 4-byte signed
	argFix8S      // 8-byte signed
	argAddr       // 8-byte address
	argRef        // 4-byte DIE reference
	argBlockU     // unsigned LEB128 length, then that many bytes
	argBlock1     // 1-byte length, then that many bytes
	argExpr       // unsigned LEB128 length, then a nested expression
)

type opInfo struct {
	name  string // without "DW_OP_"; "" for an unknown opcode
	args  [2]arg
	nargs uint8
	// implicit: litN, regN, bregN, whose N (in n) goes to U.
	implicit bool
	n        uint8
}

var ops [256]opInfo

func init() {
	for k, v := range map[op.Opcode]struct {
		name string
		args [2]arg
	}{
		op.DW_OP_addr: {"addr", [2]arg{argAddr}}, op.DW_OP_deref: {"deref", [2]arg{}},
		op.DW_OP_const1u: {"const1u", [2]arg{argFix1}}, op.DW_OP_const1s: {"const1s", [2]arg{argFix1S}},
		op.DW_OP_const2u: {"const2u", [2]arg{argFix2}}, op.DW_OP_const2s: {"const2s", [2]arg{argFix2S}},
		op.DW_OP_const4u: {"const4u", [2]arg{argFix4}}, op.DW_OP_const4s: {"const4s", [2]arg{argFix4S}},
		op.DW_OP_const8u: {"const8u", [2]arg{argFix8}}, op.DW_OP_const8s: {"const8s", [2]arg{argFix8S}},
		op.DW_OP_constu: {"constu", [2]arg{argU}}, op.DW_OP_consts: {"consts", [2]arg{argS}},
		op.DW_OP_dup: {"dup", [2]arg{}}, op.DW_OP_drop: {"drop", [2]arg{}}, op.DW_OP_over: {"over", [2]arg{}},
		op.DW_OP_pick: {"pick", [2]arg{argFix1}}, op.DW_OP_swap: {"swap", [2]arg{}}, op.DW_OP_rot: {"rot", [2]arg{}},
		op.DW_OP_xderef: {"xderef", [2]arg{}}, op.DW_OP_abs: {"abs", [2]arg{}}, op.DW_OP_and: {"and", [2]arg{}},
		op.DW_OP_div: {"div", [2]arg{}}, op.DW_OP_minus: {"minus", [2]arg{}}, op.DW_OP_mod: {"mod", [2]arg{}},
		op.DW_OP_mul: {"mul", [2]arg{}}, op.DW_OP_neg: {"neg", [2]arg{}}, op.DW_OP_not: {"not", [2]arg{}},
		op.DW_OP_or: {"or", [2]arg{}}, op.DW_OP_plus: {"plus", [2]arg{}}, op.DW_OP_plus_uconst: {"plus_uconst", [2]arg{argU}},
		op.DW_OP_shl: {"shl", [2]arg{}}, op.DW_OP_shr: {"shr", [2]arg{}}, op.DW_OP_shra: {"shra", [2]arg{}},
		op.DW_OP_xor: {"xor", [2]arg{}}, op.DW_OP_bra: {"bra", [2]arg{argFix2S}}, op.DW_OP_eq: {"eq", [2]arg{}},
		op.DW_OP_ge: {"ge", [2]arg{}}, op.DW_OP_gt: {"gt", [2]arg{}}, op.DW_OP_le: {"le", [2]arg{}},
		op.DW_OP_lt: {"lt", [2]arg{}}, op.DW_OP_ne: {"ne", [2]arg{}}, op.DW_OP_skip: {"skip", [2]arg{argFix2S}},
		op.DW_OP_regx: {"regx", [2]arg{argReg}}, op.DW_OP_fbreg: {"fbreg", [2]arg{argS}},
		op.DW_OP_bregx: {"bregx", [2]arg{argReg, argS}}, op.DW_OP_piece: {"piece", [2]arg{argU}},
		op.DW_OP_deref_size: {"deref_size", [2]arg{argFix1}}, op.DW_OP_xderef_size: {"xderef_size", [2]arg{argFix1}},
		op.DW_OP_nop: {"nop", [2]arg{}}, op.DW_OP_push_object_address: {"push_object_address", [2]arg{}},
		op.DW_OP_call2: {"call2", [2]arg{argFix2}}, op.DW_OP_call4: {"call4", [2]arg{argFix4}},
		op.DW_OP_call_ref: {"call_ref", [2]arg{argRef}}, op.DW_OP_form_tls_address: {"form_tls_address", [2]arg{}},
		op.DW_OP_call_frame_cfa: {"call_frame_cfa", [2]arg{}}, op.DW_OP_bit_piece: {"bit_piece", [2]arg{argU, argU}},
		op.DW_OP_implicit_value: {"implicit_value", [2]arg{argBlockU}}, op.DW_OP_stack_value: {"stack_value", [2]arg{}},
		DW_OP_implicit_pointer: {"implicit_pointer", [2]arg{argRef, argS}}, DW_OP_addrx: {"addrx", [2]arg{argU}},
		DW_OP_constx: {"constx", [2]arg{argU}}, DW_OP_entry_value: {"entry_value", [2]arg{argExpr}},
		DW_OP_const_type: {"const_type", [2]arg{argU, argBlock1}}, DW_OP_regval_type: {"regval_type", [2]arg{argReg, argU}},
		DW_OP_deref_type: {"deref_type", [2]arg{argFix1, argU}}, DW_OP_xderef_type: {"xderef_type", [2]arg{argFix1, argU}},
		DW_OP_convert: {"convert", [2]arg{argU}}, DW_OP_reinterpret: {"reinterpret", [2]arg{argU}},
		DW_OP_GNU_push_tls_address: {"GNU_push_tls_address", [2]arg{}}, DW_OP_GNU_uninit: {"GNU_uninit", [2]arg{}},
		DW_OP_GNU_implicit_pointer: {"GNU_implicit_pointer", [2]arg{argRef, argS}},
		DW_OP_GNU_entry_value:      {"GNU_entry_value", [2]arg{argExpr}}, DW_OP_GNU_const_type: {"GNU_const_type", [2]arg{argU, argBlock1}},
		DW_OP_GNU_regval_type: {"GNU_regval_type", [2]arg{argReg, argU}}, DW_OP_GNU_deref_type: {"GNU_deref_type", [2]arg{argFix1, argU}},
		DW_OP_GNU_convert: {"GNU_convert", [2]arg{argU}}, DW_OP_GNU_reinterpret: {"GNU_reinterpret", [2]arg{argU}},
		DW_OP_GNU_parameter_ref: {"GNU_parameter_ref", [2]arg{argFix4}}, DW_OP_GNU_addr_index: {"GNU_addr_index", [2]arg{argU}},
		DW_OP_GNU_const_index: {"GNU_const_index", [2]arg{argU}},
	} {
		n := uint8(0)
		for n < 2 && v.args[n] != argNone {
			n++
		}
		ops[k] = opInfo{name: v.name, args: v.args, nargs: n}
	}
	for n := range 32 {
		ops[int(op.DW_OP_lit0)+n] = opInfo{name: fmt.Sprintf("lit%d", n), implicit: true, n: uint8(n)}
		ops[int(op.DW_OP_reg0)+n] = opInfo{name: fmt.Sprintf("reg%d", n), implicit: true, n: uint8(n)}
		ops[int(op.DW_OP_breg0)+n] = opInfo{name: fmt.Sprintf("breg%d", n), args: [2]arg{argS}, nargs: 1, implicit: true, n: uint8(n)}
	}
}

// Next decodes the operation at the start of b and returns it with the
// rest of b. On ErrTruncated (b is empty or ends inside the operation) and
// ErrUnknownOp (an opcode it does not know, whose operands, hence the rest
// of b, it cannot tell), Op.Code is the opcode when there was one.
func Next(b []byte) (Op, []byte, error) {
	var o Op
	n, err := o.Decode(b)
	if err != nil {
		return o, nil, err
	}
	return o, b[n:], nil
}

// Decode is Next into o, for loops that decode many operations (the
// sampler's evaluator): it returns the operation's length in bytes. It
// does not allocate.
func (o *Op) Decode(b []byte) (int, error) {
	if len(b) == 0 {
		*o = Op{}
		return 0, ErrTruncated
	}
	in := &ops[b[0]]
	*o = Op{Code: op.Opcode(b[0]), U: uint64(in.n)}
	switch {
	case in.nargs == 0:
		if in.name == "" {
			return 0, ErrUnknownOp
		}
		return 1, nil
	case in.args[0] == argS && in.nargs == 1:
		// The most common operations with operands: DW_OP_bregN,
		// DW_OP_fbreg, DW_OP_consts.
		s, n := Sleb(b[1:])
		if n == 0 {
			return 0, ErrTruncated
		}
		o.S = s
		return 1 + n, nil
	}
	i := 1
	nu := 0 // unsigned operands stored
	if in.implicit {
		nu = 1
	}
	for _, a := range in.args[:in.nargs] {
		var v uint64
		switch a {
		case argS:
			s, n := Sleb(b[i:])
			if n == 0 {
				return 0, ErrTruncated
			}
			o.S, i = s, i+n
			continue
		case argU, argReg:
			var n int
			if v, n = Uleb(b[i:]); n == 0 {
				return 0, ErrTruncated
			}
			i += n
		case argBlockU, argExpr, argBlock1:
			var size uint64
			if a == argBlock1 {
				if i >= len(b) {
					return 0, ErrTruncated
				}
				size, i = uint64(b[i]), i+1
			} else {
				var n int
				if size, n = Uleb(b[i:]); n == 0 {
					return 0, ErrTruncated
				}
				i += n
			}
			if size > uint64(len(b)-i) {
				return 0, ErrTruncated
			}
			o.Block, i = b[i:i+int(size):i+int(size)], i+int(size)
			continue
		default:
			size := fixedSize[a]
			if len(b)-i < size {
				return 0, ErrTruncated
			}
			v, i = le(b[i:i+size]), i+size
			if a >= argFix1S && a <= argFix8S {
				shift := 64 - 8*uint(size)
				o.S = int64(v<<shift) >> shift
				continue
			}
		}
		if nu == 0 {
			o.U = v
		} else {
			o.U2 = v
		}
		nu++
	}
	return i, nil
}

var fixedSize = [...]int{argFix1: 1, argFix2: 2, argFix4: 4, argFix8: 8,
	argFix1S: 1, argFix2S: 2, argFix4S: 4, argFix8S: 8, argAddr: 8, argRef: 4}

// le decodes up to 8 little-endian bytes.
func le(b []byte) uint64 {
	var v uint64
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// BlockValue is the value of the bytes of DW_OP_implicit_value or
// DW_OP_const_type, little-endian, when there are at most 8.
func (o Op) BlockValue() (uint64, bool) {
	if len(o.Block) > 8 {
		return 0, false
	}
	return le(o.Block), true
}

// Register returns the register of an expression that is just a register:
// DW_OP_reg0..31 or DW_OP_regx N (N below 1<<15), as call-site parameter
// locations and DW_OP_entry_value operands are.
func Register(e []byte) (int16, bool) {
	o, rest, err := Next(e)
	if err != nil || len(rest) != 0 {
		return 0, false
	}
	if o.Code >= op.DW_OP_reg0 && o.Code <= op.DW_OP_reg31 || o.Code == op.DW_OP_regx && o.U < 1<<15 {
		return int16(o.U), true
	}
	return 0, false
}

// Constant returns the value of a constant operation (DW_OP_litN,
// DW_OP_constNu/s, DW_OP_constu, DW_OP_consts), signed ones sign-extended.
func (o Op) Constant() (int64, bool) {
	switch c := o.Code; {
	case c >= op.DW_OP_lit0 && c <= op.DW_OP_lit31, c == op.DW_OP_constu,
		c == op.DW_OP_const1u, c == op.DW_OP_const2u, c == op.DW_OP_const4u, c == op.DW_OP_const8u:
		return int64(o.U), true
	case c == op.DW_OP_consts, c == op.DW_OP_const1s, c == op.DW_OP_const2s, c == op.DW_OP_const4s, c == op.DW_OP_const8s:
		return o.S, true
	}
	return 0, false
}

// Const is the expression of a constant value v: DW_OP_consts v,
// DW_OP_stack_value.
func Const(v int64) []byte {
	return append(AppendSleb([]byte{byte(op.DW_OP_consts)}, v), byte(op.DW_OP_stack_value))
}

// ImplicitValue is the expression of a value given as bytes:
// DW_OP_implicit_value len, bytes.
func ImplicitValue(v []byte) []byte {
	return append(AppendUleb([]byte{byte(op.DW_OP_implicit_value)}, uint64(len(v))), v...)
}

// Addr is the expression of a variable at a fixed address: DW_OP_addr a.
func Addr(a uint64) []byte {
	b := make([]byte, 9)
	b[0] = byte(op.DW_OP_addr)
	for i := range 8 {
		b[1+i] = byte(a >> (8 * i))
	}
	return b
}

// Fbreg is the expression of a variable in memory at the frame base +
// off: DW_OP_fbreg off.
func Fbreg(off int64) []byte {
	return AppendSleb([]byte{byte(op.DW_OP_fbreg)}, off)
}

// Breg is the expression of a variable in memory at DWARF register reg +
// off: DW_OP_bregN off (DW_OP_bregx reg off past register 31).
func Breg(reg uint64, off int64) []byte {
	if reg < 32 {
		return AppendSleb([]byte{byte(op.DW_OP_breg0) + byte(reg)}, off)
	}
	return AppendSleb(AppendUleb([]byte{byte(op.DW_OP_bregx)}, reg), off)
}
