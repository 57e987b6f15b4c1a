package dwarfschema

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/go-delve/delve/pkg/dwarf/loclist"
	"github.com/go-delve/delve/pkg/dwarf/op"

	"github.com/vprof/vprof/runtime/dwarfexpr"
	"github.com/vprof/vprof/runtime/model"
)

// classify turns a location expression into a Loc (without PCs or Var):
// the common single-operation shapes get their own kinds so the sampler
// need not run an evaluator for them; everything else is LocExpr. Expr is
// always kept.
func (l *loader) classify(b []byte, cu *cuInfo) locRec {
	loc := locRec{kind: model.LocExpr, expr: l.expr(b)}
	o, rest, err := dwarfexpr.Next(b)
	if err != nil {
		return loc
	}
	alone := len(rest) == 0
	switch c := o.Code; {
	case c >= op.DW_OP_reg0 && c <= op.DW_OP_reg31 && alone, c == op.DW_OP_regx && alone && o.U < 1<<15:
		loc.kind, loc.reg = model.LocReg, int16(o.U)
	case c == op.DW_OP_fbreg && alone:
		loc.kind, loc.val = model.LocFrame, uint64(o.S)
	case (c >= op.DW_OP_breg0 && c <= op.DW_OP_breg31 || c == op.DW_OP_bregx && o.U < 1<<15) && alone:
		loc.kind, loc.reg, loc.val = model.LocRegOff, int16(o.U), uint64(o.S)
	case c == op.DW_OP_addr && alone:
		loc.kind, loc.val = model.LocAddr, o.U
	case (c == dwarfexpr.DW_OP_addrx || c == dwarfexpr.DW_OP_GNU_addr_index) && alone:
		if a, ok := debugAddr(cu, l.w.addr, o.U); ok {
			loc.kind, loc.val = model.LocAddr, a
		}
	default:
		if v, ok := o.Constant(); ok && len(rest) == 1 && op.Opcode(rest[0]) == op.DW_OP_stack_value {
			loc.kind, loc.val = model.LocConst, uint64(v)
		}
	}
	return loc
}

// uleb is dwarfexpr.Uleb at b[i:], returning the index just past the
// number; on failure, the end of b.
func uleb(b []byte, i int) (uint64, int, bool) {
	if i >= len(b) {
		return 0, i, false
	}
	v, n := dwarfexpr.Uleb(b[i:])
	if n == 0 {
		return 0, len(b), false
	}
	return v, i + n, true
}

// debugAddr returns entry i of the unit's slice of .debug_addr. The bounds
// are checked here because delve's DebugAddr.Get slices without checking.
func debugAddr(cu *cuInfo, sec []byte, i uint64) (uint64, bool) {
	if cu.addr == nil || i >= uint64(len(sec))/8 || cu.addrBase > uint64(len(sec)) ||
		cu.addrBase+i*8+8 > uint64(len(sec)) {
		return 0, false
	}
	a, err := cu.addr.Get(i)
	return a, err == nil
}

// locList turns the location list of variable v into Locs. DWARF 2-4 lists
// (.debug_loc) are read with delve's Dwarf2Reader; DWARF 5 lists
// (.debug_loclists) are walked here, because delve's Dwarf5Reader only
// answers "which entry covers this PC" and we need every range. Adjacent
// entries with the same expression are merged.
func (l *loader) locList(v, cu int32, isIndex bool, off uint64) error {
	ci := &l.cus[cu]
	if ci.version >= 5 {
		if isIndex {
			o, err := loclistxOffset(l.w.locl, ci.loclistsBase, off)
			if err != nil {
				return err
			}
			off = o
		}
		return l.locList5(v, ci, off)
	}
	return l.locList2(v, ci, off)
}

func (l *loader) locList2(v int32, ci *cuInfo, off uint64) (err error) {
	data := l.w.loc
	if off >= uint64(len(data)) {
		return fmt.Errorf(".debug_loc offset %#x past the end of the section (%d bytes)", off, len(data))
	}
	// Dwarf2Reader slices without bounds checks: a truncated list panics
	// inside it, which is bad input, not a bug of ours.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf(".debug_loc list at %#x runs past the end of the section", off)
		}
	}()
	rdr := loclist.NewDwarf2Reader(data, 8)
	rdr.Seek(int(off))
	base := ci.base
	var e loclist.Entry
	for rdr.Next(&e) {
		if e.BaseAddressSelection() {
			base = e.HighPC
			continue
		}
		l.listEntry(v, ci, e.LowPC+base, e.HighPC+base, e.Instr)
	}
	return nil
}

// DW_LLE_* (DWARF 5 §7.7.3) and the GNU view pair.
const (
	lleEndOfList       = 0x00
	lleBaseAddressx    = 0x01
	lleStartxEndx      = 0x02
	lleStartxLength    = 0x03
	lleOffsetPair      = 0x04
	lleDefaultLocation = 0x05
	lleBaseAddress     = 0x06
	lleStartEnd        = 0x07
	lleStartLength     = 0x08
	lleGNUViewPair     = 0x09
)

func (l *loader) locList5(v int32, ci *cuInfo, off uint64) error {
	b := l.w.locl
	if off >= uint64(len(b)) {
		return fmt.Errorf(".debug_loclists offset %#x past the end of the section (%d bytes)", off, len(b))
	}
	bad := func(i int) error {
		return fmt.Errorf(".debug_loclists list at %#x: truncated or bad entry at %#x", off, i)
	}
	addr := func(i uint64) (uint64, bool) { return debugAddr(ci, l.w.addr, i) }
	base := ci.base
	i := int(off)
	for i < len(b) {
		k := b[i]
		i++
		var lo, hi, x, y uint64
		var ok bool
		switch k {
		case lleEndOfList:
			return nil
		case lleBaseAddressx:
			if x, i, ok = uleb(b, i); !ok {
				return bad(i)
			}
			if base, ok = addr(x); !ok {
				return bad(i)
			}
			continue
		case lleBaseAddress:
			if i+8 > len(b) {
				return bad(i)
			}
			base = binary.LittleEndian.Uint64(b[i:])
			i += 8
			continue
		case lleGNUViewPair:
			if _, i, ok = uleb(b, i); ok {
				_, i, ok = uleb(b, i)
			}
			if !ok {
				return bad(i)
			}
			continue
		case lleStartxEndx, lleStartxLength, lleOffsetPair:
			if x, i, ok = uleb(b, i); ok {
				y, i, ok = uleb(b, i)
			}
			if !ok {
				return bad(i)
			}
			switch k {
			case lleStartxEndx:
				var ok1, ok2 bool
				lo, ok1 = addr(x)
				hi, ok2 = addr(y)
				ok = ok1 && ok2
			case lleStartxLength:
				lo, ok = addr(x)
				hi = lo + y
			default:
				lo, hi, ok = base+x, base+y, true
			}
			if !ok {
				return bad(i)
			}
		case lleStartEnd:
			if i+16 > len(b) {
				return bad(i)
			}
			lo, hi = binary.LittleEndian.Uint64(b[i:]), binary.LittleEndian.Uint64(b[i+8:])
			i += 16
		case lleStartLength:
			if i+8 > len(b) {
				return bad(i)
			}
			lo = binary.LittleEndian.Uint64(b[i:])
			if y, i, ok = uleb(b, i+8); !ok {
				return bad(i)
			}
			hi = lo + y
		case lleDefaultLocation:
			// "Everywhere else": not a PC range; no producer we support
			// emits it for variables. Skip its expression.
		default:
			return fmt.Errorf(".debug_loclists list at %#x: unknown entry kind %#x at %#x", off, k, i-1)
		}
		n, j, ok := uleb(b, i)
		if !ok || n > uint64(len(b)-j) {
			return bad(i)
		}
		expr := b[j : j+int(n)]
		i = j + int(n)
		if k != lleDefaultLocation {
			l.listEntry(v, ci, lo, hi, expr)
		}
	}
	return bad(i)
}

// loclistxOffset resolves DW_FORM_loclistx index i: an offset, relative to
// DW_AT_loclists_base, read from the offset array that starts there.
func loclistxOffset(b []byte, base, i uint64) (uint64, error) {
	if base > uint64(len(b)) {
		return 0, fmt.Errorf("DW_AT_loclists_base %#x outside .debug_loclists (%d bytes)", base, len(b))
	}
	size := uint64(4)
	if base >= 20 && binary.LittleEndian.Uint32(b[base-20:]) == 0xffffffff {
		size = 8
	}
	at := base + i*size
	if base > uint64(len(b)) || i > uint64(len(b))/size || at+size > uint64(len(b)) {
		return 0, fmt.Errorf("location list index %d at base %#x outside .debug_loclists (%d bytes)", i, base, len(b))
	}
	var o uint64
	if size == 8 {
		o = binary.LittleEndian.Uint64(b[at:])
	} else {
		o = uint64(binary.LittleEndian.Uint32(b[at:]))
	}
	return base + o, nil
}

// listEntry adds one location list entry; an empty expression means the
// variable is optimized out there (no Loc).
func (l *loader) listEntry(v int32, ci *cuInfo, lo, hi uint64, expr []byte) {
	if len(expr) == 0 || lo >= hi || lo == 0 {
		return
	}
	if p := l.locs.last(); p != nil && p.v == v && p.hi == lo && bytes.Equal(l.exprList[p.expr], expr) {
		p.hi = hi
		return
	}
	loc := l.classify(expr, ci)
	loc.v, loc.lo, loc.hi = v, lo, hi
	l.locs.add(loc)
}
