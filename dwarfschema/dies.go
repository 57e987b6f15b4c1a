package dwarfschema

import (
	"bytes"
	"debug/dwarf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"unsafe"

	"github.com/go-delve/delve/pkg/dwarf/godwarf"
	"github.com/go-delve/delve/pkg/dwarf/op"

	"github.com/vprof/vprof/runtime/dwarfexpr"
	"github.com/vprof/vprof/runtime/model"
)

// The loader walks every DIE once, in offset order, and records only what
// the schema needs in compact records (subRec, inlRec, varRec, typeRec).
// Records are appended in DIE order, so each slice is sorted by offset and
// a reference (abstract origin, specification, type) is a binary search,
// including references across units. Locations are turned into Locs during
// the walk, while the unit's base address and file table are at hand; the
// Locs name their variable by varRec index until build() assigns VarIDs.

// GNU extensions that debug/dwarf does not name.
const (
	tagGNUCallSite      dwarf.Tag  = 0x4109
	attrMIPSLinkageName dwarf.Attr = 0x2007 // DWARF 2-3 era gcc linkage name
)

// noContainer marks a record outside any function.
const noContainer int32 = -1 << 31

// dieOff names a DIE across files: its .debug_info offset, plus supBase
// for a DIE of the supplementary (dwz) file.
type dieOff uint64

// supBase puts the supplementary file's DIEs after every DIE of the main
// file (.debug_info offsets are at most 2^32 with DWARF32, and debug/dwarf
// offsets are uint32).
const supBase dieOff = 1 << 40

type subRec struct {
	off       dieOff
	origin    dieOff // DW_AT_abstract_origin, else DW_AT_specification
	name      string
	linkage   string
	file      int32 // Schema.Files index, -1 unknown
	line      int32
	ranges    []model.PCRange
	frameBase []byte
	decl      bool
	fn        model.FuncID // resolved source function, -1 until resolved (-2: none)
}

type inlRec struct {
	origin   dieOff
	ranges   []model.PCRange
	depth    int32
	callFile int32
	callLine int32
}

type varRec struct {
	off       dieOff
	origin    dieOff // DW_AT_abstract_origin, else DW_AT_specification
	typ       dieOff
	name      string
	file      int32
	line      int32
	container int32 // >= 0: subs index; < 0 and != noContainer: -(inls index)-1
	param     bool
	decl      bool
	hasType   bool
	static    bool // location is a fixed address inside a function
	cu        int32
}

type typeRec struct {
	off     dieOff
	typ     dieOff
	tag     dwarf.Tag
	hasType bool
	enc     uint8
	// lazy: a C struct or union whose members the walk skipped; read
	// (readMembers) only for the records a variable's fields can reach.
	lazy bool
	seen bool  // visited by neededMembers
	size int64 // -1 unknown
	name string
	dims []int64 // array_type: element counts per dimension (-1 unknown)
	// members of a struct, class or union, in declaration order: data
	// members and (C++) base classes.
	members []memberRec
}

// memberRec is a data member (DW_TAG_member) or a base class
// (DW_TAG_inheritance) of a struct, class or union.
type memberRec struct {
	name    string
	typ     dieOff
	off     int64 // DW_AT_data_member_location; 0 for union members
	hasType bool
	bits    bool // a bitfield, or a location that is not a constant: not read
	inherit bool // a base class: its members are the derived class's
}

// unitHdr is one unit of .debug_info: [start, end) and its DWARF version.
type unitHdr struct {
	start, end dieOff
	version    int
}

type cuInfo struct {
	version      int
	cpp          bool
	base         uint64 // DW_AT_low_pc: base address of location lists
	addr         *godwarf.DebugAddr
	addrBase     uint64
	loclistsBase uint64
	compDir      string
	fileMap      []int32 // CU file number -> Schema.Files index
}

// frame is one open scope of the walk.
type frame struct {
	scope     []model.PCRange // where an exprloc of a variable here is valid; nil: abstract
	container int32
	depth     int32 // inline depth of the innermost inlined_subroutine
	prefix    string
	skip      bool  // in a declaration or type: parameters here are not variables
	inType    int32 // index+1 in loader.types of the struct whose children these are; 0: none
}

// pendingStatic is a fixed-address variable of an abstract function (one
// with no code of its own): it is valid over all the code of that function,
// known only once the walk is over.
type pendingStatic struct {
	loc locRec
}

// locRec is a Loc during the walk. It holds no pointers (the GC need not
// scan hundreds of thousands of them) and lives in fixed-size chunks (no
// copying as the list grows); build() turns the kept ones into Locs.
type locRec struct {
	lo, hi uint64
	val    uint64 // Offset (LocFrame, LocRegOff, LocConst) or Addr (LocAddr)
	v      int32  // varRec index
	expr   int32  // index into loader.exprList
	reg    int16
	kind   model.LocKind
}

type loader struct {
	s    *model.Schema
	opt  Options
	w    *dwarfFile
	base dieOff // added to the offsets of the file being walked

	units   []unitHdr
	addrSec *godwarf.DebugAddrSection
	cus     []cuInfo

	subs    chunked[subRec]
	inls    chunked[inlRec]
	vars    chunked[varRec]
	types   chunked[typeRec]
	locs    chunked[locRec]
	rows    chunked[model.LineRow]
	pending []pendingStatic

	fileIdx     map[string]int32
	fileCompDir []string // per Schema.Files entry: comp_dir of the unit that named it
	exprs       map[string]int32
	exprShort   []int32 // expressions of at most two bytes: index+1 in exprList, by shortExpr
	exprList    [][]byte
	exprBlk     []byte // the block newExpr cuts copies from
	maxVersion  int
	anyCPP      bool // some compile unit is C++

	recordByName map[recordKey]int32 // complete structs by name (definition), built on first use

	// Names are kept once: debug/dwarf makes a new string for every
	// attribute read, and the records of a large C++ program hold
	// millions of copies of a few hundred thousand names (for gold, a
	// third of the heap).
	names     map[string]string
	qualified map[[2]string]string // prefix, name -> prefix+name
	altStrs   map[uint64]string    // the supplementary file's strings by offset

	paths     *linePaths      // the line tables' names, kept across units
	rangeBuf  [][2]uint64     // reused by ranges
	rangeBlk  []model.PCRange // the block ranges cuts its results from
	memberBuf []memberRec     // reused by cMembers

	// replaced marks, by VarID, a struct global whose fields cover every
	// member: it is dropped once narrowGlobals has used its extent.
	replaced []bool
	// fieldDecl gives, by VarID, a field's place among its struct's
	// fields in declaration order (0 for any other variable): trimFields
	// keeps the first of those the code does not read.
	fieldDecl []int32
	// extras are the fields behind pointers past the first MaxFields:
	// the tagger sees them by virtual VarIDs (len(Vars) + index), and
	// trimFields writes those the code reads over unread ones.
	extras []extraField

	// part is set on a loader that walks a run of units beside others
	// (partwalk.go): its records, files and expressions are its own, and
	// join puts them after those of the runs before it.
	part *partInfo
}

// extraField is a candidate field behind pointer ptr (a VarID), the
// decl-th of its struct's scalar fields.
type extraField struct {
	ptr  model.VarID
	decl int32
	def  *fieldDef
	// arrow: named ptr->field, not ptr.field (a reference). A flag, not
	// the separator string: one pointer fewer for the collector to scan
	// in each of these (80,000 on redis-server), and 24 bytes, not 40.
	arrow bool
}

// sep is the separator of the field's name after its pointer's.
func (e *extraField) sep() string {
	if e.arrow {
		return "->"
	}
	return "."
}

func newLoader(s *model.Schema, opt Options, w *dwarfFile) *loader {
	return &loader{
		s: s, opt: opt, w: w,
		addrSec: parseAddr(w.addr),
		fileIdx: map[string]int32{},
		exprs:   map[string]int32{},

		names:     map[string]string{},
		qualified: map[[2]string]string{},
		altStrs:   map[uint64]string{},
	}
}

// release drops what only the walk and build() use, keeping what Load
// still asks of the loader (inComponent, replaced).
func (l *loader) release() {
	l.w, l.addrSec = nil, nil
	l.subs, l.inls, l.vars, l.types = chunked[subRec]{}, chunked[inlRec]{}, chunked[varRec]{}, chunked[typeRec]{}
	l.locs, l.rows, l.pending = chunked[locRec]{}, chunked[model.LineRow]{}, nil
	l.cus, l.units, l.exprs, l.exprList, l.exprShort, l.exprBlk = nil, nil, nil, nil, nil, nil
	l.names, l.qualified, l.altStrs, l.recordByName, l.fileIdx = nil, nil, nil, nil, nil
	l.rangeBuf, l.rangeBlk, l.memberBuf, l.paths = nil, nil, nil, nil
}

// name reads a string attribute (a name) and returns its one kept copy.
func (l *loader) name(e *die, a dwarf.Attr) string {
	if b, ok := e.string(a); ok {
		// The common case: the map lookup does not copy b.
		if len(b) == 0 {
			return ""
		}
		if c, ok := l.names[string(b)]; ok {
			return c
		}
		s := string(b)
		l.names[s] = s
		return s
	}
	s := l.str(e, a)
	if s == "" {
		return ""
	}
	if c, ok := l.names[s]; ok {
		return c
	}
	l.names[s] = s
	return s
}

// qualify returns the one kept copy of prefix+name.
func (l *loader) qualify(prefix, name string) string {
	k := [2]string{prefix, name}
	if c, ok := l.qualified[k]; ok {
		return c
	}
	c := prefix + name
	l.qualified[k] = c
	return c
}

// read walks the DIEs of the file and of its supplementary file into the
// loader's records (build turns them into the schema).
func (l *loader) read() (err error) {
	if l.units, err = readUnitHeaders(l.w.info, 0); err != nil {
		return err
	}
	if err := l.walk(); err != nil {
		return err
	}
	defer func() {
		if err == nil && !l.opt.NoFields {
			err = l.neededMembers()
		}
	}()
	if sup := l.w.sup; sup != nil {
		// The supplementary file's partial units: types, declarations and
		// abstract functions shared by the main file's units. Walked last,
		// so that records stay sorted by dieOff.
		us, err := readUnitHeaders(sup.info, supBase)
		if err != nil {
			return fmt.Errorf("supplementary file: %w", err)
		}
		l.units = append(l.units, us...)
		main := l.w
		l.w, l.base = sup, supBase
		err = l.walk()
		l.w, l.base = main, 0
		if err != nil {
			return fmt.Errorf("supplementary file: %w", err)
		}
	}
	return nil
}

// ref reads a reference attribute as a dieOff: a reference within the file
// being walked, or into the supplementary file (DW_FORM_GNU_ref_alt, which
// debug/dwarf leaves as an int64 offset; DW_FORM_ref_sup4/8, left as
// uint32/uint64).
func (l *loader) ref(e *die, a dwarf.Attr) (dieOff, bool) {
	f := e.field(a)
	if f == nil {
		return 0, false
	}
	switch f.kind {
	case kOffset:
		return l.base + dieOff(f.u), true
	case kInt:
		if v := int64(f.u); f.class == dwarf.ClassReferenceAlt && l.w.sup != nil && v >= 0 {
			return supBase + dieOff(v), true
		}
	case kUint32:
		if l.w.sup != nil {
			return supBase + dieOff(f.u), true
		}
	case kUint64:
		if l.w.sup != nil && f.u < uint64(supBase) {
			return supBase + dieOff(f.u), true
		}
	}
	return 0, false
}

// str reads a string attribute, from the supplementary file's .debug_str
// for DW_FORM_GNU_strp_alt and DW_FORM_strp_sup.
func (l *loader) str(e *die, a dwarf.Attr) string {
	f := e.field(a)
	if f == nil {
		return ""
	}
	var off uint64
	switch f.kind {
	case kString:
		return string(f.b)
	case kInt:
		if f.class != dwarf.ClassStringAlt || int64(f.u) < 0 {
			return ""
		}
		off = f.u
	case kUint32, kUint64:
		off = f.u
	default:
		return ""
	}
	if l.w.sup == nil {
		return ""
	}
	if s, ok := l.altStrs[off]; ok {
		return s
	}
	b := l.w.sup.str
	if off >= uint64(len(b)) {
		return ""
	}
	b = b[off:]
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	s := string(b)
	l.altStrs[off] = s
	return s
}

// readUnitHeaders lists the units of .debug_info with their versions
// (debug/dwarf does not expose a unit's version, and the location list
// format depends on it).
func readUnitHeaders(info []byte, base dieOff) ([]unitHdr, error) {
	var us []unitHdr
	off := uint64(0)
	for off < uint64(len(info)) {
		b := info[off:]
		if len(b) < 6 {
			return nil, fmt.Errorf(".debug_info: truncated unit header at offset %#x", off)
		}
		n := uint64(binary.LittleEndian.Uint32(b))
		hdr := uint64(4)
		if n == 0xffffffff {
			if len(b) < 14 {
				return nil, fmt.Errorf(".debug_info: truncated unit header at offset %#x", off)
			}
			n = binary.LittleEndian.Uint64(b[4:])
			hdr = 12
		}
		if n > uint64(len(b))-hdr {
			return nil, fmt.Errorf(".debug_info: unit at offset %#x has length %d past the end of the section", off, n)
		}
		v := int(binary.LittleEndian.Uint16(b[hdr:]))
		end := off + hdr + n
		us = append(us, unitHdr{start: base + dieOff(off), end: base + dieOff(end), version: v})
		off = end
	}
	return us, nil
}

func (l *loader) unitVersion(off dieOff) int {
	i := sort.Search(len(l.units), func(i int) bool { return l.units[i].end > off })
	if i < len(l.units) && l.units[i].start <= off {
		return l.units[i].version
	}
	return 0
}

// intern returns the Schema.Files index of a source path: that of name
// when name was met before (whatever its compDir then), else that of the
// clean path compDir/name. fileIdx holds i for a name met, and -i-1 for a
// clean path not (yet) met as a name: a loader of a run of units logs
// the first use of each name, which join repeats in order.
func (l *loader) intern(name, compDir string) int32 {
	i, ok := l.fileIdx[name]
	if ok && i >= 0 {
		return i
	}
	if ok {
		i = -i - 1 // name is the clean path of a file met
	} else {
		p := name
		if !filepath.IsAbs(p) && compDir != "" {
			p = filepath.Join(compDir, p)
		}
		p = filepath.Clean(p)
		j, ok := l.fileIdx[p]
		switch {
		case !ok:
			i = int32(len(l.s.Files))
			l.s.Files = append(l.s.Files, p)
			l.fileCompDir = append(l.fileCompDir, compDir)
			l.fileIdx[p] = -i - 1
		case j < 0:
			i = -j - 1
		default:
			i = j
		}
	}
	l.fileIdx[name] = i
	if l.part != nil {
		l.part.interned = append(l.part.interned, internCall{name, compDir, i})
	}
	return i
}

// expr returns the index of a shared copy of a DWARF expression: the few
// distinct expressions of a program are stored once, and the Schema keeps
// no reference to the section data.
func (l *loader) expr(b []byte) int32 {
	// Most are one or two bytes (DW_OP_reg5, DW_OP_fbreg -20): looked up
	// in a table, not hashed (the map was a twentieth of Load's CPU time
	// on redis-server).
	if len(b) <= 2 {
		if l.exprShort == nil {
			l.exprShort = make([]int32, 1+256+1<<16)
		}
		k := shortExpr(b)
		if i := l.exprShort[k]; i > 0 {
			return i - 1
		}
		i := l.newExpr(b)
		l.exprShort[k] = i + 1
		return i
	}
	if i, ok := l.exprs[string(b)]; ok {
		return i
	}
	i := l.newExpr(b)
	// The key is the copy's bytes, not a string copy of them (12,000
	// allocations per load of redis-server): newExpr's blocks are never
	// written where an expression was cut.
	e := l.exprList[i]
	l.exprs[unsafe.String(unsafe.SliceData(e), len(e))] = i
	return i
}

// newExpr adds a copy of b to exprList and returns its index. The copies
// are cut from blocks, capacity clipped (an append copies; nothing writes
// an expression's bytes), not allocated one by one: 15,000 allocations
// per load of redis-server.
func (l *loader) newExpr(b []byte) int32 {
	i := int32(len(l.exprList))
	if len(b) == 0 {
		l.exprList = append(l.exprList, nil) // as a copy of nothing was
		return i
	}
	if cap(l.exprBlk)-len(l.exprBlk) < len(b) {
		l.exprBlk = make([]byte, 0, max(exprBlock, len(b)))
	}
	start := len(l.exprBlk)
	l.exprBlk = append(l.exprBlk, b...)
	l.exprList = append(l.exprList, l.exprBlk[start:len(l.exprBlk):len(l.exprBlk)])
	return i
}

// exprBlock is the size of the blocks newExpr cuts expressions from.
const exprBlock = 8 << 10

// shortExpr numbers the expressions of at most two bytes: the empty one
// 0, then one byte from 1, then two bytes from 257.
func shortExpr(b []byte) int {
	switch len(b) {
	case 0:
		return 0
	case 1:
		return 1 + int(b[0])
	}
	return 257 + (int(b[0])<<8 | int(b[1]))
}

// walkUnits walks the DIEs from the start of unit a of l.w.dies until
// its loop meets an entry of unit b or later (b = len(units): to the
// end), and returns where it stopped: b when on unit b's own DIE, its
// first entry (where a walk from a fresh state does what this one would
// have done from there), len(units) at the end of the section. Elsewhere
// (damaged DWARF: a unit's entries not closed, a unit without its DIE) a
// run's loader stops at once (-1), and the main loader walks on to the
// end.
func (l *loader) walkUnits(a, b int) (stop int, err error) {
	d := l.w.dies
	from := uint64(0)
	if a > 0 {
		from = d.units[a].off
	}
	r := d.reader(from, math.MaxUint64)
	var stack []frame
	cu := int32(-1)
	top := func() *frame {
		if len(stack) == 0 {
			return &frame{container: noContainer}
		}
		return &stack[len(stack)-1]
	}
	// Every entry takes at least one byte: more entries than bytes means
	// the reader makes no progress (debug/dwarf returns endless null
	// entries after some corrupt abbreviations).
	budget := len(l.w.info) + 1
	for {
		e, err := r.next()
		if err != nil {
			return -1, fmt.Errorf("reading DWARF: %w", err)
		}
		if e == nil {
			return len(d.units), nil
		}
		if r.unit >= b {
			if uint64(e.off) == d.units[b].off && (e.tag == dwarf.TagCompileUnit || e.tag == dwarf.TagPartialUnit) {
				return b, nil
			}
			if l.part != nil {
				return -1, nil
			}
			b = len(d.units)
		}
		if budget--; budget < 0 {
			return -1, fmt.Errorf("corrupt .debug_info: more entries than bytes")
		}
		if e.tag == 0 {
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			continue
		}
		parent := top()
		next := frame{scope: parent.scope, container: parent.container, depth: parent.depth, prefix: parent.prefix, skip: parent.skip}
		switch e.tag {
		case dwarf.TagCompileUnit, dwarf.TagPartialUnit:
			stack = stack[:0]
			if err := l.startUnit(e, r.addressSize()); err != nil {
				return -1, err
			}
			cu = int32(len(l.cus) - 1)
			next = frame{container: noContainer}

		case dwarf.TagSubprogram:
			if cu < 0 {
				break
			}
			sr := l.subprogram(e, cu, parent)
			l.subs.add(sr)
			next.scope = sr.ranges
			next.container = int32(l.subs.len() - 1)
			next.depth = 0
			next.skip = sr.decl
			if sr.decl && !l.cus[cu].cpp {
				// A declaration's parameters are a prototype, not variables.
				// (In C++ its children may define types used elsewhere, so
				// they are walked, with skip set.)
				r.skipChildren()
				continue
			}

		case dwarf.TagInlinedSubroutine:
			if cu < 0 {
				break
			}
			ir := inlRec{depth: parent.depth + 1, callFile: -1}
			ir.origin, _ = l.ref(e, dwarf.AttrAbstractOrigin)
			ir.ranges = l.ranges(e)
			if f, ok := e.int(dwarf.AttrCallFile); ok {
				ir.callFile = l.cuFile(cu, f)
			}
			if n, ok := e.int(dwarf.AttrCallLine); ok {
				ir.callLine = int32(n)
			}
			l.inls.add(ir)
			next.scope = ir.ranges
			next.container = -int32(l.inls.len())
			next.depth = ir.depth

		case dwarf.TagLexDwarfBlock:
			if rs := l.ranges(e); rs != nil {
				next.scope = rs
			}

		case dwarf.TagVariable, dwarf.TagFormalParameter:
			if cu >= 0 && !parent.skip {
				if err := l.variable(e, cu, parent); err != nil {
					return -1, err
				}
			}

		case dwarf.TagNamespace:
			name := l.str(e, dwarf.AttrName)
			if name == "" {
				name = "(anonymous namespace)"
			}
			next.prefix = l.qualify(parent.prefix, name+"::")

		case dwarf.TagStructType, dwarf.TagClassType, dwarf.TagUnionType:
			tr := l.typeRec(e, parent.prefix)
			l.types.add(tr)
			if cu < 0 || !l.cus[cu].cpp {
				// C: members only; nested definitions are at file scope.
				// They are read after the walk, for the records that
				// variables' fields can reach (neededMembers): a C
				// program's units each repeat the definitions of its
				// headers' structs, most never a variable's.
				if e.children {
					t := l.types.at(l.types.len() - 1)
					if eagerMembers {
						if err := l.cMembers(r, t, &budget); err != nil {
							return -1, err
						}
						continue
					}
					t.lazy = true
					r.skipChildren()
				}
				continue
			}
			// C++: static data members (declarations, completed by a
			// definition with DW_AT_specification), member functions and
			// nested types. Nothing here belongs to a function.
			scope := tr.name
			if scope == "" {
				scope = l.unnamedScope(e, cu, parent)
			}
			next = frame{container: noContainer, prefix: l.qualify(scope, "::"), inType: int32(l.types.len())}

		case dwarf.TagMember, dwarf.TagInheritance:
			if parent.inType > 0 {
				if m, ok := l.member(e); ok {
					t := l.types.at(int(parent.inType) - 1)
					t.members = append(t.members, m)
				}
			}
			r.skipChildren()
			continue

		case dwarf.TagArrayType:
			tr := l.typeRec(e, parent.prefix)
			if e.children {
				if err := l.arrayDims(r, &tr, &budget); err != nil {
					return -1, err
				}
			}
			l.types.add(tr)
			continue // arrayDims consumed the children

		case dwarf.TagBaseType, dwarf.TagTypedef, dwarf.TagPointerType, dwarf.TagReferenceType,
			dwarf.TagRvalueReferenceType, dwarf.TagConstType, dwarf.TagVolatileType,
			dwarf.TagRestrictType, dwarf.TagAtomicType, dwarf.TagEnumerationType,
			dwarf.TagSubroutineType, dwarf.TagUnspecifiedType, dwarf.TagPtrToMemberType:
			l.types.add(l.typeRec(e, parent.prefix))
			r.skipChildren()
			continue

		case dwarf.TagCallSite, tagGNUCallSite, dwarf.TagEnumerator,
			dwarf.TagTemplateTypeParameter, dwarf.TagTemplateValueParameter:
			// The tagger reads call sites itself; nothing else here matters.
			r.skipChildren()
			continue
		}
		if e.children {
			stack = append(stack, next)
		}
	}
}

// cMembers reads the children of a C struct or union: its members.
func (l *loader) cMembers(r *dieReader, tr *typeRec, budget *int) error {
	// Gathered in a reused buffer, then copied at their size: appending
	// to tr.members grew it by doubling, its largest garbage in the walk.
	buf := l.memberBuf[:0]
	err := l.children(r, budget, func(c *die) {
		if c.tag == dwarf.TagMember {
			if m, ok := l.member(c); ok {
				buf = append(buf, m)
			}
		}
	})
	if len(buf) > 0 {
		tr.members = append(tr.members, buf...)
	}
	l.memberBuf = buf
	return err
}

// children walks the children of the entry r has just read, handing the
// direct ones to f and skipping deeper ones, until the entry's end; each
// entry read costs one of budget, so a damaged DWARF cannot loop for ever.
func (l *loader) children(r *dieReader, budget *int, f func(c *die)) error {
	depth := 1
	for depth > 0 {
		c, err := r.next()
		if err != nil {
			return fmt.Errorf("reading DWARF: %w", err)
		}
		if c == nil {
			return nil
		}
		if *budget--; *budget < 0 {
			return fmt.Errorf("corrupt .debug_info: more entries than bytes")
		}
		if c.tag == 0 {
			depth--
			continue
		}
		if depth == 1 {
			f(c)
		}
		if c.children {
			depth++
		}
	}
	return nil
}

// member reads a data member or base class; static data members (C++
// declarations) are not part of the object, and the compiler's own
// members (the vtable pointer _vptr.X) not the program's state: false.
func (l *loader) member(e *die) (memberRec, bool) {
	if d := e.flag(dwarf.AttrDeclaration); d {
		return memberRec{}, false
	}
	if a := e.flag(dwarf.AttrArtificial); a {
		return memberRec{}, false
	}
	if x := e.flag(dwarf.AttrExternal); x {
		return memberRec{}, false
	}
	m := memberRec{name: l.name(e, dwarf.AttrName), inherit: e.tag == dwarf.TagInheritance}
	m.typ, m.hasType = l.ref(e, dwarf.AttrType)
	if e.has(dwarf.AttrBitSize) || e.has(dwarf.AttrDataBitOffset) {
		m.bits = true
	}
	switch f := e.field(dwarf.AttrDataMemberLoc); {
	case f == nil: // a union member
	case f.kind == kInt:
		m.off = int64(f.u)
	case f.kind == kBytes: // DWARF 2: DW_OP_plus_uconst N
		if o, rest, err := dwarfexpr.Next(f.b); err == nil && o.Code == op.DW_OP_plus_uconst && len(rest) == 0 && o.U < 1<<31 {
			m.off = int64(o.U)
		} else {
			m.bits = true // a virtual base's computed offset
		}
	default:
		m.bits = true
	}
	if m.off < 0 || m.off >= 1<<31 {
		m.bits = true
	}
	return m, true
}

// arrayDims reads the subrange children of an array type.
func (l *loader) arrayDims(r *dieReader, tr *typeRec, budget *int) error {
	return l.children(r, budget, func(c *die) {
		if c.tag != dwarf.TagSubrangeType && c.tag != dwarf.TagEnumerationType {
			return
		}
		n := int64(-1)
		if v, ok := c.int(dwarf.AttrCount); ok {
			n = v
		} else if v, ok := c.int(dwarf.AttrUpperBound); ok {
			lb, _ := c.int(dwarf.AttrLowerBound)
			n = v - lb + 1
		}
		tr.dims = append(tr.dims, n)
	})
}

func (l *loader) startUnit(e *die, addrSize int) error {
	if addrSize != 8 && addrSize != 0 {
		return fmt.Errorf("unit at offset %#x: address size %d, want 8", e.off, addrSize)
	}
	ci := cuInfo{version: l.unitVersion(l.base + dieOff(e.off))}
	if ci.version > l.maxVersion {
		l.maxVersion = ci.version
	}
	if lang, ok := e.int(dwarf.AttrLanguage); ok {
		if cppLang(lang) {
			ci.cpp = true
			l.anyCPP = true
		}
	} else if e.tag == dwarf.TagPartialUnit {
		// dwz's partial units name no language: they hold what the
		// compile units that import them share.
		ci.cpp = l.anyCPP
	}
	if l.s.Producer == "" {
		l.s.Producer = l.str(e, dwarf.AttrProducer)
	}
	ci.compDir = l.str(e, dwarf.AttrCompDir)
	ci.base, _ = e.uint64(dwarf.AttrLowpc)
	ci.addrBase = 8 // DWARF 5 default: just past the section's first header
	if ab, ok := e.int(dwarf.AttrAddrBase); ok {
		ci.addrBase = uint64(ab)
	}
	ci.addr = l.addrSec.GetSubsection(ci.addrBase)
	if lb, ok := e.int(dwarf.AttrLoclistsBase); ok {
		ci.loclistsBase = uint64(lb)
	}
	lt, err := l.lineTable(e)
	if err != nil {
		return fmt.Errorf("unit at offset %#x: line table: %w", e.off, err)
	}
	if lt != nil {
		ci.fileMap = make([]int32, len(lt.files))
		for i := range lt.files {
			ci.fileMap[i] = -1
			if lt.fileOf(i) >= 0 {
				ci.fileMap[i] = l.intern(lt.files[i], ci.compDir)
			}
		}
		if err := l.lines(lt, ci.fileMap, ci.compDir); err != nil {
			return fmt.Errorf("unit at offset %#x: line table: %w", e.off, err)
		}
	}
	l.cus = append(l.cus, ci)
	return nil
}

// lines appends the rows of one unit's line table, whose files fileMap
// maps to Schema.Files (those DW_LNE_define_file adds are interned here).
// The end of a sequence becomes a row with File -1: no source line from
// there on.
func (l *loader) lines(lt *lineTable, fileMap []int32, compDir string) error {
	var le lineRow
	last := -1 // file number of the last row
	lastIdx := int32(-1)
	rows := &l.rows
	start := rows.len() // rows of the current sequence start here
	lastStmt := false   // the last row kept is a statement (is_stmt)
	var defined []int32 // Schema.Files index+1 of files numbered from len(fileMap)
	for {
		if err := lt.next(&le); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if le.EndSequence {
			rows.add(model.LineRow{PC: le.Address, File: -1})
			start = rows.len()
			continue
		}
		if le.File != last {
			last = le.File
			switch {
			case le.File < 0:
				lastIdx = -1
			case le.File < len(fileMap):
				lastIdx = fileMap[le.File]
			default:
				k := le.File - len(fileMap)
				for len(defined) <= k {
					defined = append(defined, 0)
				}
				if defined[k] == 0 {
					defined[k] = l.intern(lt.files[le.File], compDir) + 1
				}
				lastIdx = defined[k] - 1
			}
		}
		row := model.LineRow{PC: le.Address, File: lastIdx, Line: int32(le.Line)}
		// Within a sequence addresses only grow. Several rows at one PC
		// (gcc's location views: a statement, then the inlined code or
		// epilogue that starts there) keep one: the last statement row,
		// as gdb does, else the last row. A row repeating the previous
		// file and line adds nothing. (Most rows of -O2 code are one or
		// the other; keeping them would multiply the table.)
		if n := rows.len(); n > start {
			p := rows.at(n - 1)
			if p.PC == row.PC {
				if le.IsStmt || !lastStmt {
					*p, lastStmt = row, le.IsStmt
					if n-1 > start {
						if q := rows.at(n - 2); q.File == row.File && q.Line == row.Line {
							rows.pop()
						}
					}
				}
				continue
			}
			if p.File == row.File && p.Line == row.Line {
				continue
			}
		}
		lastStmt = le.IsStmt
		rows.add(row)
	}
}

// cLang reports a DW_AT_language of C: C89, C, C99, C11, C17.
func cLang(lang int64) bool {
	switch lang {
	case 0x01, 0x02, 0x0c, 0x1d, 0x2c:
		return true
	}
	return false
}

// cppLang reports a DW_AT_language of C++: C++, C++03, C++11, C++14.
func cppLang(lang int64) bool {
	switch lang {
	case 0x04, 0x19, 0x1a, 0x21:
		return true
	}
	return false
}

func (l *loader) cuFile(cu int32, n int64) int32 {
	fm := l.cus[cu].fileMap
	if n >= 0 && n < int64(len(fm)) {
		return fm[n]
	}
	return -1
}

// ranges returns the code ranges of a DIE (low/high pc or DW_AT_ranges),
// nil if it has none. Ranges of code the linker discarded (address 0 or a
// tombstone) are dropped.
func (l *loader) ranges(e *die) []model.PCRange {
	if !e.has(dwarf.AttrLowpc) && !e.has(dwarf.AttrRanges) {
		return nil
	}
	rs, err := l.w.dies.rangesOf(e, l.rangeBuf[:0])
	l.rangeBuf = rs
	if err != nil || len(rs) == 0 {
		return nil
	}
	// The lists are cut from blocks, capacity clipped (a caller's append
	// copies), not allocated one per DIE: an inlined copy's and a lexical
	// block's ranges were 36,000 allocations per load of redis-server.
	if cap(l.rangeBlk)-len(l.rangeBlk) < len(rs) {
		l.rangeBlk = make([]model.PCRange, 0, max(rangeBlock, len(rs)))
	}
	start := len(l.rangeBlk)
	for _, r := range rs {
		if r[0] == 0 || r[0] >= r[1] || r[0] >= ^uint64(0)-1 {
			continue
		}
		l.rangeBlk = append(l.rangeBlk, model.PCRange{Lo: r[0], Hi: r[1]})
	}
	if len(l.rangeBlk) == start {
		return nil
	}
	return l.rangeBlk[start:len(l.rangeBlk):len(l.rangeBlk)]
}

// rangeBlock is the size of the loader's blocks of ranges.
const rangeBlock = 512

func (l *loader) subprogram(e *die, cu int32, parent *frame) subRec {
	sr := subRec{off: l.base + dieOff(e.off), file: -1, fn: -1}
	if o, ok := l.ref(e, dwarf.AttrAbstractOrigin); ok {
		sr.origin = o
	} else if o, ok := l.ref(e, dwarf.AttrSpecification); ok {
		sr.origin = o
	}
	sr.name = l.name(e, dwarf.AttrName)
	if sr.name != "" && parent.prefix != "" {
		sr.name = l.qualify(parent.prefix, sr.name)
	}
	sr.linkage = l.name(e, dwarf.AttrLinkageName)
	if sr.linkage == "" {
		sr.linkage = l.name(e, attrMIPSLinkageName)
	}
	if f, ok := e.int(dwarf.AttrDeclFile); ok {
		sr.file = l.cuFile(cu, f)
	}
	if n, ok := e.int(dwarf.AttrDeclLine); ok {
		sr.line = int32(n)
	}
	sr.decl = e.flag(dwarf.AttrDeclaration)
	if !sr.decl {
		sr.ranges = l.ranges(e)
		if fb, ok := e.bytes(dwarf.AttrFrameBase); ok {
			sr.frameBase = l.exprList[l.expr(fb)]
		}
	}
	return sr
}

// unnamedScope names a C++ class, struct or union that has no name, for
// the functions defined in it. A lambda's closure type is such a class
// (neither gcc nor clang names it), so without this every lambda's body
// would be the one function "::operator()" in every report, whatever
// function it is written in. The name says where the type is defined, as
// clang's diagnostics do: "setup(long)::(lambda at jobs.cpp:7)" for one
// written in function setup (an unnamed class with code, inside a
// function, is a lambda's), "ns::(unnamed at x.h:3)" elsewhere.
func (l *loader) unnamedScope(e *die, cu int32, parent *frame) string {
	where := ""
	if f, ok := e.int(dwarf.AttrDeclFile); ok {
		if i := l.cuFile(cu, f); i >= 0 && int(i) < len(l.s.Files) {
			where = filepath.Base(l.s.Files[i])
		}
	}
	if n, ok := e.int(dwarf.AttrDeclLine); ok {
		where += ":" + strconv.FormatInt(n, 10)
	}
	if where == "" {
		where = "?"
	}
	if parent.container >= 0 && int(parent.container) < l.subs.len() {
		// A function defined outside its class or namespace names itself
		// through its declaration (DW_AT_specification), met earlier.
		for i, n := int(parent.container), 0; i >= 0 && n < maxOriginChain; n++ {
			sr := l.subs.at(i)
			if sr.name != "" {
				return sr.name + "::(lambda at " + where + ")"
			}
			if sr.origin == 0 {
				break
			}
			if l.part != nil && sr.origin < l.part.start {
				// The one walk would know the records of the units
				// before this run; this loader does not.
				l.part.inexact = true
			}
			i = l.subAt(sr.origin)
		}
		return "(lambda at " + where + ")"
	}
	return parent.prefix + "(unnamed at " + where + ")"
}

func (l *loader) typeRec(e *die, prefix string) typeRec {
	tr := typeRec{off: l.base + dieOff(e.off), tag: e.tag, size: -1}
	tr.typ, tr.hasType = l.ref(e, dwarf.AttrType)
	tr.name = l.name(e, dwarf.AttrName)
	if tr.name != "" && prefix != "" {
		tr.name = l.qualify(prefix, tr.name)
	}
	if n, ok := e.int(dwarf.AttrByteSize); ok {
		tr.size = n
	}
	if n, ok := e.int(dwarf.AttrEncoding); ok {
		tr.enc = uint8(n)
	}
	return tr
}

// variable records a variable or parameter DIE and turns its location into
// Locs.
func (l *loader) variable(e *die, cu int32, parent *frame) error {
	vr := varRec{off: l.base + dieOff(e.off), file: -1, container: parent.container, cu: cu}
	vr.param = e.tag == dwarf.TagFormalParameter
	if o, ok := l.ref(e, dwarf.AttrAbstractOrigin); ok {
		vr.origin = o
	} else if o, ok := l.ref(e, dwarf.AttrSpecification); ok {
		vr.origin = o
	}
	vr.name = l.name(e, dwarf.AttrName)
	if vr.name != "" && parent.prefix != "" && parent.container == noContainer {
		vr.name = l.qualify(parent.prefix, vr.name)
	}
	if f, ok := e.int(dwarf.AttrDeclFile); ok {
		vr.file = l.cuFile(cu, f)
	}
	if n, ok := e.int(dwarf.AttrDeclLine); ok {
		vr.line = int32(n)
	}
	vr.typ, vr.hasType = l.ref(e, dwarf.AttrType)
	vr.decl = e.flag(dwarf.AttrDeclaration)
	idx := int32(l.vars.len())

	if lf := e.field(dwarf.AttrLocation); lf != nil && !vr.decl {
		switch lf.class {
		case dwarf.ClassExprLoc, dwarf.ClassBlock:
			var b []byte
			if lf.kind == kBytes {
				b = lf.b
			}
			if len(b) == 0 {
				break
			}
			loc := l.classify(b, &l.cus[cu])
			loc.v = idx
			switch {
			case parent.container == noContainer:
				// A global: its address holds over the whole object.
				loc.lo, loc.hi = 0, ^uint64(0)
				l.locs.add(loc)
			case parent.scope == nil:
				// In an abstract function: valid wherever its code is.
				vr.static = loc.kind == model.LocAddr
				l.pending = append(l.pending, pendingStatic{loc})
			default:
				vr.static = loc.kind == model.LocAddr
				l.scopeLocs(parent.scope, loc)
			}
		case dwarf.ClassLocListPtr, dwarf.ClassLocList:
			var off uint64
			switch lf.kind {
			case kInt: // DW_FORM_sec_offset
				off = lf.u
			case kUint64: // DW_FORM_loclistx: the index as is
				off = lf.u
			}
			if parent.container == noContainer {
				break // a global with a location list: not a fixed place
			}
			if err := l.locList(idx, cu, lf.class == dwarf.ClassLocList, off); err != nil {
				return fmt.Errorf("variable %q (DIE %#x): %w", vr.name, e.off, err)
			}
		}
	} else if cf := e.field(dwarf.AttrConstValue); cf != nil && parent.scope != nil && parent.container != noContainer {
		loc := locRec{v: idx}
		switch cf.kind {
		case kInt:
			v := int64(cf.u)
			loc.kind, loc.val, loc.expr = model.LocConst, uint64(v), l.expr(dwarfexpr.Const(v))
		case kBytes:
			loc.kind, loc.expr = model.LocExpr, l.expr(dwarfexpr.ImplicitValue(cf.b))
		}
		if loc.kind != 0 {
			l.scopeLocs(parent.scope, loc)
		}
	}
	l.vars.add(vr)
	return nil
}

// scopeLocs adds loc over every range of a scope.
func (l *loader) scopeLocs(scope []model.PCRange, loc locRec) {
	for _, r := range scope {
		loc.lo, loc.hi = r.Lo, r.Hi
		l.locs.add(loc)
	}
}

// parseAddr wraps godwarf.ParseAddr, which reads the header without
// checking that the section is long enough for it. Only 8-byte addresses
// without segment selectors are accepted: debugAddr's bounds checks assume
// them (DebugAddr.Get itself slices unchecked).
func parseAddr(b []byte) *godwarf.DebugAddrSection {
	h := 6 // length (4), version (2), then address_size, segment_selector_size
	if len(b) >= 4 && binary.LittleEndian.Uint32(b) == 0xffffffff {
		h = 14
	}
	if len(b) < h+2 || b[h] != 8 || b[h+1] != 0 {
		return nil
	}
	return godwarf.ParseAddr(b)
}

// lineTable opens the line table of unit e (DW_AT_stmt_list, with
// DW_AT_comp_dir as debug/dwarf's LineReader reads them); nil when there
// is none.
func (l *loader) lineTable(e *die) (*lineTable, error) {
	if l.w.line == nil {
		return nil, nil
	}
	f := e.field(dwarf.AttrStmtList)
	if f == nil || f.kind != kInt {
		return nil, nil
	}
	var compDir string
	if c := e.field(dwarf.AttrCompDir); c != nil && c.kind == kString {
		compDir = string(c.b)
	}
	if l.paths == nil {
		l.paths = newLinePaths()
	}
	return newLineTable(l.w.line, int64(f.u), l.w.str, l.w.lineStr, e.unit.asize, compDir, l.paths)
}
