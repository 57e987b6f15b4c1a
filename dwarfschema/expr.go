package dwarfschema

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-delve/delve/pkg/dwarf/regnum"
)

// FormatExpr spells a DWARF location expression for people, the way
// readelf does: "DW_OP_breg7 (rsp): 8; DW_OP_deref". Unlike delve's
// op.PrettyPrint it knows the DWARF 5 and GNU operations gcc emits at -O2
// (DW_OP_entry_value and its operand expression, typed constants and
// registers, implicit pointers). A malformed expression ends with
// "<truncated>" instead of failing.
func FormatExpr(e []byte) string {
	var b strings.Builder
	formatExpr(&b, e)
	return b.String()
}

// RegName is the name of an x86-64 DWARF register number (rax, xmm0...).
func RegName(n uint64) string { return strings.ToLower(regnum.AMD64ToName(n)) }

// operand kinds: u uleb, s sleb, 1/2/4/8 fixed unsigned, S2 as signed 2,
// a address (8), r 4-byte DIE reference, B uleb length + bytes, b 1-byte
// length + bytes, E uleb length + nested expression.
var exprOps = map[byte]struct {
	name string
	args string
}{
	0x03: {"addr", "a"}, 0x06: {"deref", ""}, 0x08: {"const1u", "1"}, 0x09: {"const1s", "1s"},
	0x0a: {"const2u", "2"}, 0x0b: {"const2s", "2s"}, 0x0c: {"const4u", "4"}, 0x0d: {"const4s", "4s"},
	0x0e: {"const8u", "8"}, 0x0f: {"const8s", "8s"}, 0x10: {"constu", "u"}, 0x11: {"consts", "s"},
	0x12: {"dup", ""}, 0x13: {"drop", ""}, 0x14: {"over", ""}, 0x15: {"pick", "1"}, 0x16: {"swap", ""},
	0x17: {"rot", ""}, 0x18: {"xderef", ""}, 0x19: {"abs", ""}, 0x1a: {"and", ""}, 0x1b: {"div", ""},
	0x1c: {"minus", ""}, 0x1d: {"mod", ""}, 0x1e: {"mul", ""}, 0x1f: {"neg", ""}, 0x20: {"not", ""},
	0x21: {"or", ""}, 0x22: {"plus", ""}, 0x23: {"plus_uconst", "u"}, 0x24: {"shl", ""}, 0x25: {"shr", ""},
	0x26: {"shra", ""}, 0x27: {"xor", ""}, 0x28: {"bra", "2s"}, 0x29: {"eq", ""}, 0x2a: {"ge", ""},
	0x2b: {"gt", ""}, 0x2c: {"le", ""}, 0x2d: {"lt", ""}, 0x2e: {"ne", ""}, 0x2f: {"skip", "2s"},
	0x90: {"regx", "R"}, 0x91: {"fbreg", "s"}, 0x92: {"bregx", "Rs"}, 0x93: {"piece", "u"},
	0x94: {"deref_size", "1"}, 0x95: {"xderef_size", "1"}, 0x96: {"nop", ""}, 0x97: {"push_object_address", ""},
	0x98: {"call2", "2"}, 0x99: {"call4", "4"}, 0x9a: {"call_ref", "r"}, 0x9b: {"form_tls_address", ""},
	0x9c: {"call_frame_cfa", ""}, 0x9d: {"bit_piece", "uu"}, 0x9e: {"implicit_value", "B"},
	0x9f: {"stack_value", ""}, 0xa0: {"implicit_pointer", "rs"}, 0xa1: {"addrx", "u"}, 0xa2: {"constx", "u"},
	0xa3: {"entry_value", "E"}, 0xa4: {"const_type", "ub"}, 0xa5: {"regval_type", "Ru"},
	0xa6: {"deref_type", "1u"}, 0xa7: {"xderef_type", "1u"}, 0xa8: {"convert", "u"}, 0xa9: {"reinterpret", "u"},
	0xe0: {"GNU_push_tls_address", ""}, 0xf0: {"GNU_uninit", ""}, 0xf1: {"GNU_encoded_addr", ""},
	0xf2: {"GNU_implicit_pointer", "rs"}, 0xf3: {"GNU_entry_value", "E"}, 0xf4: {"GNU_const_type", "ub"},
	0xf5: {"GNU_regval_type", "Ru"}, 0xf6: {"GNU_deref_type", "1u"}, 0xf7: {"GNU_convert", "u"},
	0xf9: {"GNU_reinterpret", "u"}, 0xfa: {"GNU_parameter_ref", "4"}, 0xfb: {"GNU_addr_index", "u"},
	0xfc: {"GNU_const_index", "u"},
}

func formatExpr(b *strings.Builder, e []byte) {
	for i := 0; i < len(e); {
		if i > 0 {
			b.WriteString("; ")
		}
		o := e[i]
		i++
		switch {
		case o >= 0x30 && o <= 0x4f:
			fmt.Fprintf(b, "DW_OP_lit%d", o-0x30)
			continue
		case o >= 0x50 && o <= 0x6f:
			fmt.Fprintf(b, "DW_OP_reg%d (%s)", o-0x50, RegName(uint64(o-0x50)))
			continue
		case o >= 0x70 && o <= 0x8f:
			v, n, ok := sleb(e, i)
			if !ok {
				b.WriteString("<truncated>")
				return
			}
			i = n
			fmt.Fprintf(b, "DW_OP_breg%d (%s): %d", o-0x70, RegName(uint64(o-0x70)), v)
			continue
		}
		d, known := exprOps[o]
		if !known {
			fmt.Fprintf(b, "DW_OP_<%#x>", o)
			return // operands unknown: the rest cannot be decoded
		}
		b.WriteString("DW_OP_" + d.name)
		sep := ": "
		arg := func(s string) {
			b.WriteString(sep)
			b.WriteString(s)
			sep = ", "
		}
		args := d.args
		for k := 0; k < len(args); k++ {
			c := args[k]
			signed := k+1 < len(args) && args[k+1] == 's' && c >= '1' && c <= '8'
			if signed {
				k++
			}
			switch c {
			case 'u', 'R':
				v, n, ok := uleb(e, i)
				if !ok {
					b.WriteString(" <truncated>")
					return
				}
				i = n
				if c == 'R' {
					arg(fmt.Sprintf("%d (%s)", v, RegName(v)))
				} else {
					arg(strconv.FormatUint(v, 10))
				}
			case 's':
				v, n, ok := sleb(e, i)
				if !ok {
					b.WriteString(" <truncated>")
					return
				}
				i = n
				arg(strconv.FormatInt(v, 10))
			case '1', '2', '4', '8', 'a', 'r':
				size := map[byte]int{'1': 1, '2': 2, '4': 4, '8': 8, 'a': 8, 'r': 4}[c]
				if i+size > len(e) {
					b.WriteString(" <truncated>")
					return
				}
				var u uint64
				switch size {
				case 1:
					u = uint64(e[i])
				case 2:
					u = uint64(binary.LittleEndian.Uint16(e[i:]))
				case 4:
					u = uint64(binary.LittleEndian.Uint32(e[i:]))
				case 8:
					u = binary.LittleEndian.Uint64(e[i:])
				}
				i += size
				switch {
				case signed:
					s := int64(u<<(64-8*size)) >> (64 - 8*size)
					arg(strconv.FormatInt(s, 10))
				case c == 'a' || c == 'r':
					arg("0x" + strconv.FormatUint(u, 16))
				default:
					arg(strconv.FormatUint(u, 10))
				}
			case 'B', 'b', 'E':
				var n uint64
				if c == 'b' {
					if i >= len(e) {
						b.WriteString(" <truncated>")
						return
					}
					n = uint64(e[i])
					i++
				} else {
					var ok bool
					var j int
					if n, j, ok = uleb(e, i); !ok {
						b.WriteString(" <truncated>")
						return
					}
					i = j
				}
				if n > uint64(len(e)-i) {
					b.WriteString(" <truncated>")
					return
				}
				sub := e[i : i+int(n)]
				i += int(n)
				if c == 'E' {
					b.WriteString("(")
					formatExpr(b, sub)
					b.WriteString(")")
				} else {
					arg(fmt.Sprintf("%x", sub))
				}
			}
		}
	}
}
