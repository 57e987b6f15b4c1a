package dwarfexpr

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/go-delve/delve/pkg/dwarf/op"
	"github.com/go-delve/delve/pkg/dwarf/regnum"
)

// Format spells a DWARF expression for people, the way readelf does:
// "DW_OP_breg7 (rsp): 8; DW_OP_deref". Unlike delve's op.PrettyPrint it
// knows the DWARF 5 and GNU operations gcc emits at -O2 (DW_OP_entry_value
// and its operand expression, typed constants and registers, implicit
// pointers). A malformed expression ends with "<truncated>" (or with the
// unknown opcode, "DW_OP_<0x1>") instead of failing.
func Format(e []byte) string {
	var b strings.Builder
	format(&b, e)
	return b.String()
}

// RegName is the name of an x86-64 DWARF register number (rax, xmm0...).
func RegName(n uint64) string { return strings.ToLower(regnum.AMD64ToName(n)) }

func format(b *strings.Builder, e []byte) {
	for first := true; len(e) > 0; first = false {
		if !first {
			b.WriteString("; ")
		}
		o, rest, err := Next(e)
		e = rest
		in := &ops[o.Code]
		switch {
		case err == ErrUnknownOp:
			fmt.Fprintf(b, "DW_OP_<%#x>", byte(o.Code))
			return // operands unknown: the rest cannot be decoded
		case err != nil && o.Code >= op.DW_OP_breg0 && o.Code <= op.DW_OP_breg31:
			b.WriteString("<truncated>")
			return
		case err != nil:
			b.WriteString("DW_OP_" + in.name + " <truncated>")
			return
		}
		b.WriteString("DW_OP_" + in.name)
		if o.Code >= op.DW_OP_reg0 && o.Code <= op.DW_OP_breg31 {
			b.WriteString(" (" + RegName(o.U) + ")")
		}
		sep := ": "
		operand := func(s string) {
			b.WriteString(sep)
			b.WriteString(s)
			sep = ", "
		}
		nu := 0
		if in.implicit {
			nu = 1
		}
		for _, a := range in.args {
			var u uint64
			switch a {
			case argNone:
				continue
			case argS, argFix1S, argFix2S, argFix4S, argFix8S:
				operand(strconv.FormatInt(o.S, 10))
				continue
			case argBlockU, argBlock1:
				operand(fmt.Sprintf("%x", o.Block))
				continue
			case argExpr:
				b.WriteString("(")
				format(b, o.Block)
				b.WriteString(")")
				continue
			}
			if u = o.U; nu > 0 {
				u = o.U2
			}
			nu++
			switch a {
			case argReg:
				operand(fmt.Sprintf("%d (%s)", u, RegName(u)))
			case argAddr, argRef:
				operand("0x" + strconv.FormatUint(u, 16))
			default:
				operand(strconv.FormatUint(u, 10))
			}
		}
	}
}
