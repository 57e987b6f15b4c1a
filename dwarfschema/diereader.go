package dwarfschema

import (
	"bytes"
	"debug/dwarf"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/vprof/vprof/runtime/dwarfexpr"
)

// dieData reads the DIEs of one .debug_info without allocating per entry.
// debug/dwarf makes an Entry, a Field slice and a boxed value per
// attribute for every DIE; on a C server's two DIE passes (the loader's
// walk and the call-site scan) that garbage and its collection were most
// of the reading's cost. A dieReader instead decodes each entry into one
// reused die whose values are unboxed and whose strings and blocks are
// slices of the sections.
//
// The values decoded follow debug/dwarf exactly (the same Go type per
// form, the same class per attribute and version, DW_FORM_addrx,
// DW_FORM_strx and DW_FORM_rnglistx resolved through the unit's DWARF 5
// bases), so that the loader reads what it read through debug/dwarf.
//
// The unit headers and abbreviation tables are parsed once, by
// newDieData; after that, dieReaders of one dieData may run concurrently.
type dieData struct {
	info, abbrev, str, lineStr, strOffsets, addr, rnglists, ranges []byte

	units   []dieUnit
	abbrevs map[uint64]*abbrevTable // by offset in .debug_abbrev (as debug/dwarf caches them)
}

// dieUnit is one unit of .debug_info.
type dieUnit struct {
	base    uint64 // offset of the unit header
	off     uint64 // offset of the first DIE
	end     uint64 // offset just past the unit
	vers    int
	dwarf64 bool
	asize   int
	atab    *abbrevTable

	// DWARF 5 bases, from the unit's own DIE (0 when absent).
	addrBase, strOffsetsBase, rngListsBase uint64
	// From the unit DIE: the base address of its range lists
	// (DW_AT_entry_pc, else DW_AT_low_pc, else 0), and DW_AT_addr_base as
	// debug/dwarf's DWARF 5 range lists read it.
	rangeBase     uint64
	rangeAddrBase uint64
}

// The DWARF attribute forms (DWARF 5 §7.5.6, and the GNU extensions
// debug/dwarf reads).
const (
	formAddr          = 0x01
	formDwarfBlock2   = 0x03
	formDwarfBlock4   = 0x04
	formData2         = 0x05
	formData4         = 0x06
	formData8         = 0x07
	formString        = 0x08
	formDwarfBlock    = 0x09
	formDwarfBlock1   = 0x0a
	formData1         = 0x0b
	formFlag          = 0x0c
	formSdata         = 0x0d
	formStrp          = 0x0e
	formUdata         = 0x0f
	formRefAddr       = 0x10
	formRef1          = 0x11
	formRef2          = 0x12
	formRef4          = 0x13
	formRef8          = 0x14
	formRefUdata      = 0x15
	formIndirect      = 0x16
	formSecOffset     = 0x17
	formExprloc       = 0x18
	formFlagPresent   = 0x19
	formStrx          = 0x1a
	formAddrx         = 0x1b
	formRefSup4       = 0x1c
	formStrpSup       = 0x1d
	formData16        = 0x1e
	formLineStrp      = 0x1f
	formRefSig8       = 0x20
	formImplicitConst = 0x21
	formLoclistx      = 0x22
	formRnglistx      = 0x23
	formRefSup8       = 0x24
	formStrx1         = 0x25
	formStrx2         = 0x26
	formStrx3         = 0x27
	formStrx4         = 0x28
	formAddrx1        = 0x29
	formAddrx2        = 0x2a
	formAddrx3        = 0x2b
	formAddrx4        = 0x2c
	formGnuRefAlt     = 0x1f20
	formGnuStrpAlt    = 0x1f21
)

type abbrevField struct {
	attr     dwarf.Attr
	form     uint32
	class    dwarf.Class
	implicit int64 // DW_FORM_implicit_const's value
}

type abbrev struct {
	tag      dwarf.Tag
	children bool
	fields   []abbrevField
}

// abbrevTable holds a unit's abbreviations; codes are nearly always small
// and dense (1, 2, 3...), so they index a slice, others a map.
type abbrevTable struct {
	dense  []abbrev // by code-1
	sparse map[uint32]*abbrev
}

func (t *abbrevTable) get(code uint32) *abbrev {
	if code-1 < uint32(len(t.dense)) {
		if a := &t.dense[code-1]; a.tag != 0 {
			return a
		}
	}
	return t.sparse[code]
}

// valKind is the Go type debug/dwarf gives a form's value.
type valKind uint8

const (
	kNone   valKind = iota
	kInt            // int64: constants, DW_FORM_sec_offset, GNU alt references and strings
	kUint64         // uint64: addresses, DW_FORM_ref_sig8, ref_sup8, strp_sup (64-bit), loclistx, rnglistx
	kUint32         // uint32: DW_FORM_ref_sup4, strp_sup (32-bit)
	kOffset         // dwarf.Offset: references within .debug_info
	kBool           // bool: flags
	kBytes          // []byte: blocks, exprloc, data16
	kString         // string: b holds its bytes, without the NUL
)

// dval is one attribute's value.
type dval struct {
	attr  dwarf.Attr
	class dwarf.Class
	kind  valKind
	u     uint64 // kInt (as int64), kUint64, kUint32, kOffset, kBool (0 or 1)
	b     []byte // kBytes, kString: a slice of a section
}

// die is one decoded entry, valid until the reader's next call.
type die struct {
	off      dwarf.Offset
	tag      dwarf.Tag // 0: the null entry that ends a list of children
	children bool
	fields   []dval
	unit     *dieUnit
}

func (e *die) field(a dwarf.Attr) *dval {
	for i := range e.fields {
		if e.fields[i].attr == a {
			return &e.fields[i]
		}
	}
	return nil
}

func (e *die) has(a dwarf.Attr) bool { return e.field(a) != nil }

// int is Val(a).(int64).
func (e *die) int(a dwarf.Attr) (int64, bool) {
	if f := e.field(a); f != nil && f.kind == kInt {
		return int64(f.u), true
	}
	return 0, false
}

// uint64 is Val(a).(uint64).
func (e *die) uint64(a dwarf.Attr) (uint64, bool) {
	if f := e.field(a); f != nil && f.kind == kUint64 {
		return f.u, true
	}
	return 0, false
}

// offset is Val(a).(dwarf.Offset).
func (e *die) offset(a dwarf.Attr) (dwarf.Offset, bool) {
	if f := e.field(a); f != nil && f.kind == kOffset {
		return dwarf.Offset(f.u), true
	}
	return 0, false
}

// flag is Val(a).(bool).
func (e *die) flag(a dwarf.Attr) bool {
	f := e.field(a)
	return f != nil && f.kind == kBool && f.u != 0
}

// bytes is Val(a).([]byte).
func (e *die) bytes(a dwarf.Attr) ([]byte, bool) {
	if f := e.field(a); f != nil && f.kind == kBytes {
		return f.b, true
	}
	return nil, false
}

// string is Val(a).(string), as the section's bytes.
func (e *die) string(a dwarf.Attr) ([]byte, bool) {
	if f := e.field(a); f != nil && f.kind == kString {
		return f.b, true
	}
	return nil, false
}

// newDieData parses the unit headers and abbreviation tables of w's
// .debug_info, and the DWARF 5 bases of each unit.
func newDieData(w *dwarfFile) (*dieData, error) {
	d := &dieData{
		info: w.info, abbrev: w.abbrev, str: w.str, lineStr: w.lineStr, strOffsets: w.strOffsets,
		addr: w.addr, rnglists: w.rnglists, ranges: w.ranges,
		abbrevs: map[uint64]*abbrevTable{},
	}
	if err := d.parseUnits(); err != nil {
		return nil, err
	}
	var e die
	for i := range d.units {
		u := &d.units[i]
		if u.off >= u.end {
			continue
		}
		// The bases first (their own forms need none), then the unit
		// DIE again with them, for its addresses.
		if u.vers >= 5 {
			if _, err := d.decode(&e, u, u.off); err != nil {
				continue // reported when a reader reaches it
			}
			if v, ok := e.int(dwarf.AttrAddrBase); ok {
				u.addrBase = uint64(v)
				u.rangeAddrBase = uint64(v)
			}
			if v, ok := e.int(dwarf.AttrStrOffsetsBase); ok {
				u.strOffsetsBase = uint64(v)
			}
			if v, ok := e.int(dwarf.AttrRnglistsBase); ok {
				u.rngListsBase = uint64(v)
			}
		}
		if _, err := d.decode(&e, u, u.off); err != nil {
			continue
		}
		if v, ok := e.uint64(dwarf.AttrEntrypc); ok {
			u.rangeBase = v
		} else if v, ok := e.uint64(dwarf.AttrLowpc); ok {
			u.rangeBase = v
		}
	}
	return d, nil
}

// parseUnits reads the unit headers, as debug/dwarf does (dwarf.New has
// already accepted them).
func (d *dieData) parseUnits() error {
	off := uint64(0)
	info := d.info
	for off < uint64(len(info)) {
		u := dieUnit{base: off}
		p := off
		if uint64(len(info))-p < 4 {
			return fmt.Errorf(".debug_info: truncated unit header at offset %#x", off)
		}
		n := uint64(binary.LittleEndian.Uint32(info[p:]))
		p += 4
		if n == 0xffffffff {
			if uint64(len(info))-p < 8 {
				return fmt.Errorf(".debug_info: truncated unit header at offset %#x", off)
			}
			n = binary.LittleEndian.Uint64(info[p:])
			p += 8
			u.dwarf64 = true
		} else if n >= 0xfffffff0 {
			return fmt.Errorf(".debug_info: unit at offset %#x: reserved length %#x", off, n)
		}
		if n > uint64(len(info))-p {
			return fmt.Errorf(".debug_info: unit at offset %#x has length %d past the end of the section", off, n)
		}
		if n == 0 {
			off = p
			continue
		}
		u.end = p + n
		hdr := info[p:u.end]
		var abbrevOff uint64
		get := func(k int) (uint64, bool) {
			if len(hdr) < k {
				return 0, false
			}
			var v uint64
			switch k {
			case 1:
				v = uint64(hdr[0])
			case 2:
				v = uint64(binary.LittleEndian.Uint16(hdr))
			case 4:
				v = uint64(binary.LittleEndian.Uint32(hdr))
			case 8:
				v = binary.LittleEndian.Uint64(hdr)
			}
			hdr = hdr[k:]
			return v, true
		}
		offSize := 4
		if u.dwarf64 {
			offSize = 8
		}
		v, ok := get(2)
		u.vers = int(v)
		if !ok || u.vers < 2 || u.vers > 5 {
			return fmt.Errorf(".debug_info: unit at offset %#x: unsupported DWARF version %d", off, u.vers)
		}
		var utype uint64
		if u.vers >= 5 {
			utype, _ = get(1)
			a, _ := get(1)
			u.asize = int(a)
		}
		abbrevOff, ok = get(offSize)
		if !ok {
			return fmt.Errorf(".debug_info: truncated unit header at offset %#x", off)
		}
		if u.vers < 5 {
			a, _ := get(1)
			u.asize = int(a)
		}
		switch utype {
		case 0x04, 0x05: // DW_UT_skeleton, DW_UT_split_compile: unit ID
			get(8)
		case 0x02, 0x06: // DW_UT_type, DW_UT_split_type: signature, type offset
			get(8)
			get(offSize)
		}
		u.off = u.end - uint64(len(hdr))
		t, err := d.parseAbbrev(abbrevOff, u.vers)
		if err != nil {
			return fmt.Errorf(".debug_info: unit at offset %#x: %w", off, err)
		}
		u.atab = t
		d.units = append(d.units, u)
		off = u.end
	}
	return nil
}

// parseAbbrev reads the abbreviation table at off, cached by offset as
// debug/dwarf caches it (so that the first unit's version decides the
// classes, as there).
func (d *dieData) parseAbbrev(off uint64, vers int) (*abbrevTable, error) {
	if t, ok := d.abbrevs[off]; ok {
		return t, nil
	}
	var b []byte
	if off <= uint64(len(d.abbrev)) {
		b = d.abbrev[off:]
	}
	var err error
	// A number cut short by the section's end reads as 0 and consumes
	// nothing, as debug/dwarf reads it: a table at the very end of the
	// section is empty, and one cut short ends there. (A DIE that uses a
	// code the table lacks is an error when it is read, as there.)
	next := func() uint64 {
		v, n := dwarfexpr.Uleb(b)
		if n == 0 {
			return 0
		}
		b = b[n:]
		return v
	}
	t := &abbrevTable{}
	// The abbreviations' fields are cut from one block (full slices, so
	// that an append never runs into the next one): an allocation or
	// more per abbreviation was a tenth of Load's allocations.
	var blk []abbrevField
	for {
		code := uint32(next())
		if code == 0 || err != nil {
			break
		}
		a := abbrev{tag: dwarf.Tag(next())}
		if len(b) == 0 {
			err = fmt.Errorf(".debug_abbrev: truncated table at offset %#x", off)
			break
		}
		a.children = b[0] != 0
		b = b[1:]
		start := len(blk)
		for err == nil {
			attr, form := next(), next()
			if attr == 0 && form == 0 {
				break
			}
			f := abbrevField{attr: dwarf.Attr(attr), form: uint32(form)}
			if form == formImplicitConst {
				if v, n := dwarfexpr.Sleb(b); n > 0 {
					f.implicit, b = v, b[n:]
				}
			}
			if f.class, err = formClass(f.form, f.attr, vers); err != nil {
				break
			}
			if len(blk) == cap(blk) {
				// A new block: this abbreviation's fields so far move.
				nb := make([]abbrevField, len(blk)-start, max(256, 2*(len(blk)-start)))
				copy(nb, blk[start:])
				blk, start = nb, 0
			}
			blk = append(blk, f)
		}
		if err != nil {
			break
		}
		if len(blk) > start {
			a.fields = blk[start:len(blk):len(blk)]
		}
		if a.tag == 0 {
			// Tag 0 marks an empty dense slot; such an abbreviation
			// reads as a null entry anyway.
			continue
		}
		if code-1 < 1<<16 {
			for uint32(len(t.dense)) < code {
				t.dense = append(t.dense, abbrev{})
			}
			t.dense[code-1] = a
		} else {
			if t.sparse == nil {
				t.sparse = map[uint32]*abbrev{}
			}
			// A copy: &a would move a to the heap for every
			// abbreviation, dense ones included (14,000 allocations
			// per load of redis-server).
			p := new(abbrev)
			*p = a
			t.sparse[code] = p
		}
	}
	if err != nil {
		return nil, err
	}
	d.abbrevs[off] = t
	return t, nil
}

// exprlocAttrs are the attributes whose DWARF 2-3 blocks are expressions
// (debug/dwarf's attrIsExprloc).
func exprlocAttr(a dwarf.Attr) bool {
	switch a {
	case dwarf.AttrLocation, dwarf.AttrByteSize, dwarf.AttrBitOffset, dwarf.AttrBitSize,
		dwarf.AttrStringLength, dwarf.AttrLowerBound, dwarf.AttrReturnAddr, dwarf.AttrStrideSize,
		dwarf.AttrUpperBound, dwarf.AttrCount, dwarf.AttrDataMemberLoc, dwarf.AttrFrameBase,
		dwarf.AttrSegment, dwarf.AttrStaticLink, dwarf.AttrUseLocation, dwarf.AttrVtableElemLoc,
		dwarf.AttrAllocated, dwarf.AttrAssociated, dwarf.AttrDataLocation, dwarf.AttrStride:
		return true
	}
	return false
}

// ptrClass is debug/dwarf's attrPtrClass.
func ptrClass(a dwarf.Attr) (dwarf.Class, bool) {
	switch a {
	case dwarf.AttrLocation, dwarf.AttrStringLength, dwarf.AttrReturnAddr, dwarf.AttrDataMemberLoc,
		dwarf.AttrFrameBase, dwarf.AttrSegment, dwarf.AttrStaticLink, dwarf.AttrUseLocation,
		dwarf.AttrVtableElemLoc, dwarf.AttrLoclistsBase:
		return dwarf.ClassLocListPtr, true
	case dwarf.AttrStmtList:
		return dwarf.ClassLinePtr, true
	case dwarf.AttrStartScope, dwarf.AttrRanges:
		return dwarf.ClassRangeListPtr, true
	case dwarf.AttrMacroInfo:
		return dwarf.ClassMacPtr, true
	case dwarf.AttrStrOffsetsBase:
		return dwarf.ClassStrOffsetsPtr, true
	case dwarf.AttrAddrBase:
		return dwarf.ClassAddrPtr, true
	case dwarf.AttrRnglistsBase:
		return dwarf.ClassRngListsPtr, true
	}
	return 0, false
}

// formClass is debug/dwarf's formToClass.
func formClass(form uint32, attr dwarf.Attr, vers int) (dwarf.Class, error) {
	switch form {
	case formIndirect:
		return dwarf.ClassUnknown, nil
	case formAddr, formAddrx, formAddrx1, formAddrx2, formAddrx3, formAddrx4:
		return dwarf.ClassAddress, nil
	case formDwarfBlock1, formDwarfBlock2, formDwarfBlock4, formDwarfBlock:
		if exprlocAttr(attr) {
			return dwarf.ClassExprLoc, nil
		}
		return dwarf.ClassBlock, nil
	case formData1, formData2, formData4, formData8, formSdata, formUdata, formData16, formImplicitConst:
		if c, ok := ptrClass(attr); vers < 4 && ok {
			return c, nil
		}
		return dwarf.ClassConstant, nil
	case formFlag, formFlagPresent:
		return dwarf.ClassFlag, nil
	case formRefAddr, formRef1, formRef2, formRef4, formRef8, formRefUdata, formRefSup4, formRefSup8:
		return dwarf.ClassReference, nil
	case formRefSig8:
		return dwarf.ClassReferenceSig, nil
	case formString, formStrp, formStrx, formStrpSup, formLineStrp, formStrx1, formStrx2, formStrx3, formStrx4:
		return dwarf.ClassString, nil
	case formSecOffset:
		if c, ok := ptrClass(attr); ok {
			return c, nil
		}
		return dwarf.ClassUnknown, nil
	case formExprloc:
		return dwarf.ClassExprLoc, nil
	case formGnuRefAlt:
		return dwarf.ClassReferenceAlt, nil
	case formGnuStrpAlt:
		return dwarf.ClassStringAlt, nil
	case formLoclistx:
		return dwarf.ClassLocList, nil
	case formRnglistx:
		return dwarf.ClassRngList, nil
	}
	return 0, fmt.Errorf("unknown attribute form %#x", form)
}

// unitAt returns the index of the unit whose DIEs include off, or -1.
func (d *dieData) unitAt(off uint64) int {
	lo, hi := 0, len(d.units)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if d.units[m].end <= off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(d.units) && d.units[lo].off <= off {
		return lo
	}
	return -1
}

var errTruncated = errors.New("truncated entry")

// errTruncRnglists is rnglist's error (made once: made at each call, it
// was 18,000 allocations per load of redis-server).
var errTruncRnglists = errors.New("truncated .debug_rnglists")

// decode reads the entry at off of unit u into e and returns the offset
// just past it.
func (d *dieData) decode(e *die, u *dieUnit, off uint64) (uint64, error) {
	b := d.info[off:u.end]
	p := 0
	uleb := func() (uint64, bool) {
		var v uint64
		var shift uint
		for p < len(b) {
			c := b[p]
			p++
			if shift < 64 {
				v |= uint64(c&0x7f) << shift
			}
			shift += 7
			if c&0x80 == 0 {
				return v, true
			}
		}
		return 0, false
	}
	fixed := func(k int) (uint64, bool) {
		if len(b)-p < k {
			return 0, false
		}
		var v uint64
		switch k {
		case 1:
			v = uint64(b[p])
		case 2:
			v = uint64(binary.LittleEndian.Uint16(b[p:]))
		case 3:
			v = uint64(b[p]) | uint64(b[p+1])<<8 | uint64(b[p+2])<<16
		case 4:
			v = uint64(binary.LittleEndian.Uint32(b[p:]))
		case 8:
			v = binary.LittleEndian.Uint64(b[p:])
		default:
			return 0, false
		}
		p += k
		return v, true
	}
	e.off = dwarf.Offset(off)
	e.unit = u
	e.fields = e.fields[:0]
	code, ok := uleb()
	if !ok {
		return 0, fmt.Errorf("entry at %#x: %w", off, errTruncated)
	}
	if code == 0 {
		e.tag, e.children = 0, false
		e.off = 0 // as debug/dwarf's null entries
		return off + uint64(p), nil
	}
	a := u.atab.get(uint32(code))
	if a == nil {
		return 0, fmt.Errorf("entry at %#x: unknown abbreviation code %d", off, code)
	}
	e.tag, e.children = a.tag, a.children
	offSize := 4
	if u.dwarf64 {
		offSize = 8
	}
	for i := range a.fields {
		af := &a.fields[i]
		v := dval{attr: af.attr, class: af.class}
		form := af.form
		if form == formIndirect {
			f, ok := uleb()
			if !ok {
				return 0, fmt.Errorf("entry at %#x: %w", off, errTruncated)
			}
			form = uint32(f)
			c, err := formClass(form, af.attr, u.vers)
			if err != nil {
				return 0, fmt.Errorf("entry at %#x: %w", off, err)
			}
			v.class = c
		}
		ok := true
		var x uint64
		switch form {
		case formAddr:
			v.kind = kUint64
			v.u, ok = fixed(u.asize)
		case formAddrx, formAddrx1, formAddrx2, formAddrx3, formAddrx4:
			switch form {
			case formAddrx:
				x, ok = uleb()
			case formAddrx1:
				x, ok = fixed(1)
			case formAddrx2:
				x, ok = fixed(2)
			case formAddrx3:
				x, ok = fixed(3)
			default:
				x, ok = fixed(4)
			}
			if ok {
				a, err := d.debugAddr(u, u.addrBase, x)
				if err != nil {
					return 0, fmt.Errorf("entry at %#x: %w", off, err)
				}
				v.kind, v.u = kUint64, a
			}
		case formDwarfBlock1, formDwarfBlock2, formDwarfBlock4, formDwarfBlock, formExprloc, formData16:
			switch form {
			case formDwarfBlock1:
				x, ok = fixed(1)
			case formDwarfBlock2:
				x, ok = fixed(2)
			case formDwarfBlock4:
				x, ok = fixed(4)
			case formData16:
				x = 16
			default:
				x, ok = uleb()
			}
			if ok && x <= uint64(len(b)-p) {
				v.kind, v.b = kBytes, b[p:p+int(x):p+int(x)]
				p += int(x)
			} else {
				ok = false
			}
		case formData1:
			v.kind = kInt
			v.u, ok = fixed(1)
		case formData2:
			v.kind = kInt
			v.u, ok = fixed(2)
		case formData4:
			v.kind = kInt
			v.u, ok = fixed(4)
		case formData8:
			v.kind = kInt
			v.u, ok = fixed(8)
		case formSdata:
			s, n := dwarfexpr.Sleb(b[p:])
			v.kind, v.u, ok = kInt, uint64(s), n > 0
			p += n
		case formUdata:
			v.kind = kInt
			v.u, ok = uleb()
		case formImplicitConst:
			v.kind, v.u = kInt, uint64(af.implicit)
		case formFlag:
			v.kind = kBool
			if x, ok = fixed(1); x != 1 {
				x = 0
			}
			v.u = x
		case formFlagPresent:
			v.kind, v.u = kBool, 1
		case formRefAddr:
			v.kind = kOffset
			k := offSize
			if u.vers == 2 {
				k = u.asize
			}
			x, ok = fixed(k)
			v.u = uint64(dwarf.Offset(x))
		case formRef1, formRef2, formRef4, formRef8, formRefUdata:
			switch form {
			case formRef1:
				x, ok = fixed(1)
			case formRef2:
				x, ok = fixed(2)
			case formRef4:
				x, ok = fixed(4)
			case formRef8:
				x, ok = fixed(8)
			default:
				x, ok = uleb()
			}
			v.kind, v.u = kOffset, uint64(dwarf.Offset(x)+dwarf.Offset(u.base))
		case formString:
			i := bytes.IndexByte(b[p:], 0)
			if i < 0 {
				ok = false
				break
			}
			v.kind, v.b = kString, b[p:p+i:p+i]
			p += i + 1
		case formStrp, formLineStrp:
			if x, ok = fixed(offSize); ok {
				sec := d.str
				if form == formLineStrp {
					sec = d.lineStr
				}
				s, err := cstring(sec, x)
				if err != nil {
					return 0, fmt.Errorf("entry at %#x: %w", off, err)
				}
				v.kind, v.b = kString, s
			}
		case formStrx, formStrx1, formStrx2, formStrx3, formStrx4:
			switch form {
			case formStrx:
				x, ok = uleb()
			case formStrx1:
				x, ok = fixed(1)
			case formStrx2:
				x, ok = fixed(2)
			case formStrx3:
				x, ok = fixed(3)
			default:
				x, ok = fixed(4)
			}
			if ok {
				s, err := d.strx(u, x)
				if err != nil {
					return 0, fmt.Errorf("entry at %#x: %w", off, err)
				}
				v.kind, v.b = kString, s
			}
		case formStrpSup:
			if offSize == 8 {
				v.kind = kUint64
			} else {
				v.kind = kUint32
			}
			v.u, ok = fixed(offSize)
		case formSecOffset, formGnuRefAlt, formGnuStrpAlt:
			v.kind = kInt
			v.u, ok = fixed(offSize)
		case formRefSig8, formRefSup8:
			v.kind = kUint64
			v.u, ok = fixed(8)
		case formRefSup4:
			v.kind = kUint32
			v.u, ok = fixed(4)
		case formLoclistx:
			v.kind = kUint64
			v.u, ok = uleb()
		case formRnglistx:
			if x, ok = uleb(); ok {
				r, err := d.rnglistx(u, x)
				if err != nil {
					return 0, fmt.Errorf("entry at %#x: %w", off, err)
				}
				v.kind, v.u = kUint64, r
			}
		default:
			return 0, fmt.Errorf("entry at %#x: unknown attribute form %#x", off, form)
		}
		if !ok {
			return 0, fmt.Errorf("entry at %#x: %w", off, errTruncated)
		}
		e.fields = append(e.fields, v)
	}
	return off + uint64(p), nil
}

// cstring returns the NUL-terminated string at off of sec, without the NUL.
func cstring(sec []byte, off uint64) ([]byte, error) {
	if off >= uint64(len(sec)) {
		return nil, fmt.Errorf("string offset %#x past the end of its section (%d bytes)", off, len(sec))
	}
	s := sec[off:]
	i := bytes.IndexByte(s, 0)
	if i < 0 {
		return nil, fmt.Errorf("string at offset %#x has no terminating NUL", off)
	}
	return s[:i:i], nil
}

// debugAddr returns entry i of .debug_addr from base.
func (d *dieData) debugAddr(u *dieUnit, base, i uint64) (uint64, error) {
	if u.asize != 8 && u.asize != 4 {
		return 0, fmt.Errorf("address size %d", u.asize)
	}
	k := uint64(u.asize)
	if i > uint64(len(d.addr))/k || base > uint64(len(d.addr)) || base+i*k+k > uint64(len(d.addr)) {
		return 0, fmt.Errorf(".debug_addr entry %d from %#x past the end of the section", i, base)
	}
	o := base + i*k
	if k == 4 {
		return uint64(binary.LittleEndian.Uint32(d.addr[o:])), nil
	}
	return binary.LittleEndian.Uint64(d.addr[o:]), nil
}

// strx returns string i of the unit's .debug_str_offsets.
func (d *dieData) strx(u *dieUnit, i uint64) ([]byte, error) {
	k := uint64(4)
	if u.dwarf64 {
		k = 8
	}
	so := d.strOffsets
	if i > uint64(len(so))/k || u.strOffsetsBase > uint64(len(so)) || u.strOffsetsBase+i*k+k > uint64(len(so)) {
		return nil, fmt.Errorf(".debug_str_offsets entry %d past the end of the section", i)
	}
	o := u.strOffsetsBase + i*k
	var s uint64
	if k == 8 {
		s = binary.LittleEndian.Uint64(so[o:])
	} else {
		s = uint64(binary.LittleEndian.Uint32(so[o:]))
	}
	return cstring(d.str, s)
}

// rnglistx returns the .debug_rnglists offset of the unit's range list i.
func (d *dieData) rnglistx(u *dieUnit, i uint64) (uint64, error) {
	k := uint64(4)
	if u.dwarf64 {
		k = 8
	}
	rl := d.rnglists
	if i > uint64(len(rl))/k || u.rngListsBase > uint64(len(rl)) || u.rngListsBase+i*k+k > uint64(len(rl)) {
		return 0, fmt.Errorf(".debug_rnglists index %d past the end of the section", i)
	}
	o := u.rngListsBase + i*k
	var r uint64
	if k == 8 {
		r = binary.LittleEndian.Uint64(rl[o:])
	} else {
		r = uint64(binary.LittleEndian.Uint32(rl[o:]))
	}
	return u.rngListsBase + r, nil
}

// dieReader walks the entries of a dieData in order, from one unit's
// start to a stop offset.
type dieReader struct {
	d       *dieData
	unit    int    // index of the current unit in d.units
	off     uint64 // offset of the next entry
	stop    uint64
	e       die
	err     error
	sibling uint64 // DW_AT_sibling of the last entry read, 0 if none
	kids    bool   // the last entry read has children
	isUnit  bool   // the last entry read is a unit's DIE
}

// reader returns a reader of the entries from the unit at from (0: the
// first) up to offset stop.
func (d *dieData) reader(from, stop uint64) *dieReader {
	r := &dieReader{d: d, stop: stop, unit: len(d.units)}
	if i := d.unitAt(from); i >= 0 {
		r.unit, r.off = i, from
	} else {
		for i := range d.units {
			if d.units[i].off >= from {
				r.unit, r.off = i, d.units[i].off
				break
			}
		}
	}
	return r
}

// next returns the next entry, nil at the end. The entry is valid until
// the next call.
func (r *dieReader) next() (*die, error) {
	if r.err != nil {
		return nil, r.err
	}
	for r.unit < len(r.d.units) && r.off >= r.d.units[r.unit].end {
		r.unit++
		if r.unit < len(r.d.units) {
			r.off = r.d.units[r.unit].off
		}
	}
	if r.unit >= len(r.d.units) || r.off >= r.stop {
		return nil, nil
	}
	u := &r.d.units[r.unit]
	next, err := r.d.decode(&r.e, u, r.off)
	if err != nil {
		r.err = fmt.Errorf(".debug_info: %w", err)
		return nil, r.err
	}
	r.off = next
	e := &r.e
	r.kids, r.sibling, r.isUnit = e.children, 0, false
	if e.children {
		if s, ok := e.offset(dwarf.AttrSibling); ok {
			r.sibling = uint64(s)
		}
	}
	if e.tag == dwarf.TagCompileUnit || e.tag == dwarf.TagPartialUnit {
		r.isUnit = true
	}
	return e, nil
}

// seek makes r read from the entry at off (in the unit that holds it) to
// the end, reusing its buffers: a reader per look-up of one entry was
// most of tailCalls' garbage. It reports whether a unit holds off.
func (r *dieReader) seek(off uint64) bool {
	r.err, r.kids, r.sibling, r.isUnit, r.stop = nil, false, 0, false, ^uint64(0)
	r.unit, r.off = r.d.unitAt(off), off
	if r.unit < 0 {
		r.unit = len(r.d.units)
		return false
	}
	return true
}

// addressSize is the address size of the current unit.
func (r *dieReader) addressSize() int {
	if r.unit < len(r.d.units) {
		return r.d.units[r.unit].asize
	}
	return 0
}

// skipChildren skips the children of the entry last read, as
// debug/dwarf's SkipChildren does: to its DW_AT_sibling when that lies
// ahead, to the next unit after a unit's entry, else entry by entry.
func (r *dieReader) skipChildren() {
	if r.err != nil || !r.kids {
		return
	}
	if r.sibling >= r.off {
		r.kids = false
		r.off = r.sibling
		return
	}
	if r.isUnit && r.unit+1 < len(r.d.units) {
		r.kids = false
		r.off = r.d.units[r.unit].end
		return
	}
	for {
		e, err := r.next()
		if err != nil || e == nil || e.tag == 0 {
			break
		}
		if e.children {
			r.skipChildren()
		}
	}
}

// ranges appends the code ranges of e (DW_AT_low_pc and high_pc, or
// DW_AT_ranges) to dst, as debug/dwarf's Data.Ranges computes them.
func (d *dieData) rangesOf(e *die, dst [][2]uint64) ([][2]uint64, error) {
	low, lowOK := e.uint64(dwarf.AttrLowpc)
	if hf := e.field(dwarf.AttrHighpc); hf != nil {
		switch {
		case hf.class == dwarf.ClassAddress && hf.kind == kUint64:
			if lowOK {
				dst = append(dst, [2]uint64{low, hf.u})
			}
		case hf.class == dwarf.ClassConstant && hf.kind == kInt:
			if lowOK {
				dst = append(dst, [2]uint64{low, low + hf.u})
			}
		}
	}
	u := e.unit
	rf := e.field(dwarf.AttrRanges)
	if u.vers >= 5 && d.rnglists != nil {
		if rf == nil {
			return dst, nil
		}
		switch {
		case rf.class == dwarf.ClassRangeListPtr && rf.kind == kInt,
			rf.class == dwarf.ClassRngList && rf.kind == kUint64:
			return d.rnglist(u, rf.u, dst)
		}
		return dst, nil
	}
	if rf != nil && rf.kind == kInt && d.ranges != nil {
		return d.rangeList(u, rf.u, dst)
	}
	return dst, nil
}

// rangeList reads a DWARF 2-4 list of .debug_ranges.
func (d *dieData) rangeList(u *dieUnit, off uint64, dst [][2]uint64) ([][2]uint64, error) {
	if int64(off) < 0 || off > uint64(len(d.ranges)) {
		return nil, fmt.Errorf("invalid range offset %d (max %d)", int64(off), len(d.ranges))
	}
	k := u.asize
	if k != 8 && k != 4 {
		return nil, fmt.Errorf("address size %d", k)
	}
	base := u.rangeBase
	b := d.ranges[off:]
	rd := func() uint64 {
		if k == 8 {
			v := binary.LittleEndian.Uint64(b)
			b = b[8:]
			return v
		}
		v := uint64(binary.LittleEndian.Uint32(b))
		b = b[4:]
		return v
	}
	// A truncated list ends where it is cut, as in debug/dwarf.
	for len(b) >= 2*k {
		lo, hi := rd(), rd()
		if lo == 0 && hi == 0 {
			break
		}
		if lo == ^uint64(0)>>uint((8-k)*8) {
			base = hi
		} else {
			dst = append(dst, [2]uint64{base + lo, base + hi})
		}
	}
	return dst, nil
}

// rnglist reads a DWARF 5 list of .debug_rnglists (DWARF 5 §2.17.3).
func (d *dieData) rnglist(u *dieUnit, off uint64, dst [][2]uint64) ([][2]uint64, error) {
	if int64(off) < 0 || off > uint64(len(d.rnglists)) {
		return nil, fmt.Errorf("invalid rnglist offset %d (max %d)", int64(off), len(d.rnglists))
	}
	b := d.rnglists[off:]
	base := u.rangeBase
	ab := u.rangeAddrBase
	bad := errTruncRnglists
	uv := func() (uint64, bool) {
		v, n := dwarfexpr.Uleb(b)
		if n == 0 {
			return 0, false
		}
		b = b[n:]
		return v, true
	}
	addr := func() (uint64, bool) {
		k := u.asize
		if len(b) < k || (k != 8 && k != 4) {
			return 0, false
		}
		var v uint64
		if k == 8 {
			v = binary.LittleEndian.Uint64(b)
		} else {
			v = uint64(binary.LittleEndian.Uint32(b))
		}
		b = b[k:]
		return v, true
	}
	for {
		if len(b) == 0 {
			return nil, bad
		}
		opc := b[0]
		b = b[1:]
		switch opc {
		case 0x00: // DW_RLE_end_of_list
			return dst, nil
		case 0x01: // DW_RLE_base_addressx
			i, ok := uv()
			if !ok {
				return nil, bad
			}
			a, err := d.debugAddr(u, ab, i)
			if err != nil {
				return nil, err
			}
			base = a
		case 0x02: // DW_RLE_startx_endx
			i, ok1 := uv()
			j, ok2 := uv()
			if !ok1 || !ok2 {
				return nil, bad
			}
			s, err := d.debugAddr(u, ab, i)
			if err != nil {
				return nil, err
			}
			t, err := d.debugAddr(u, ab, j)
			if err != nil {
				return nil, err
			}
			dst = append(dst, [2]uint64{s, t})
		case 0x03: // DW_RLE_startx_length
			i, ok1 := uv()
			n, ok2 := uv()
			if !ok1 || !ok2 {
				return nil, bad
			}
			s, err := d.debugAddr(u, ab, i)
			if err != nil {
				return nil, err
			}
			dst = append(dst, [2]uint64{s, s + n})
		case 0x04: // DW_RLE_offset_pair
			x, ok1 := uv()
			y, ok2 := uv()
			if !ok1 || !ok2 {
				return nil, bad
			}
			dst = append(dst, [2]uint64{base + x, base + y})
		case 0x05: // DW_RLE_base_address
			a, ok := addr()
			if !ok {
				return nil, bad
			}
			base = a
		case 0x06: // DW_RLE_start_end
			s, ok1 := addr()
			t, ok2 := addr()
			if !ok1 || !ok2 {
				return nil, bad
			}
			dst = append(dst, [2]uint64{s, t})
		case 0x07: // DW_RLE_start_length
			s, ok1 := addr()
			n, ok2 := uv()
			if !ok1 || !ok2 {
				return nil, bad
			}
			dst = append(dst, [2]uint64{s, s + n})
		}
	}
}
