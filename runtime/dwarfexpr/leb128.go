// Package dwarfexpr decodes DWARF expressions (DWARF 2 to 5 and the GNU
// extensions gcc emits: DW_AT_location, DW_AT_frame_base, call-site
// values, CFI rules) and the LEB128 numbers they are made of: one
// operation decoder (Next) that the loader, the tagger's dataflow, the
// sampler's evaluator and the schema printer all use.
//
// Opcodes are delve's op.Opcode, with delve's names for DWARF 2 to 4
// (op.DW_OP_breg7); the DWARF 5 and GNU operations delve does not name are
// named here in the same style (DW_OP_entry_value). delve's op evaluator
// and printer are not used: the evaluator allocates and knows no entry
// values, the printer no DWARF 5 operations. Nor is delve's leb128, which
// reads from an io.ByteReader and does not report a cut number: here a
// number is decoded in place, and the sampler's evaluator does not
// allocate.
//
// It sits under runtime/ because both sides of the pipeline use it:
// dwarfschema (loading) and runtime/unwind and the sampler (evaluating).
// Readers of profiles do not: they need no DWARF.
package dwarfexpr

// Uleb decodes the unsigned LEB128 number at the start of b and returns it
// with its length in bytes; n is 0 when b ends inside the number. Bits
// past the 64th are dropped.
func Uleb(b []byte) (v uint64, n int) {
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

// Sleb decodes the signed LEB128 number at the start of b, as Uleb.
func Sleb(b []byte) (v int64, n int) {
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

// AppendUleb appends v as unsigned LEB128.
func AppendUleb(b []byte, v uint64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// AppendSleb appends v as signed LEB128.
func AppendSleb(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
