package dwarfschema

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
)

// lineTable reads one unit's line number program (.debug_line, DWARF 2-5)
// into rows, as debug/dwarf's LineReader does and with the same results
// (its file names, rows and errors on the same input; TestLineTableMatches
// and FuzzLineTable compare them), but without what the schema does not
// use: no LineFile per file, no column, discriminator or ISA kept, and
// no second parse of the units and abbreviations (dwarf.New) to find the
// unit's address size. Little-endian only, as dieData.
type lineTable struct {
	sec          []byte // the whole .debug_line
	str, lineStr []byte

	version       int
	asize         int
	dwarf64       bool
	minInstLen    int
	maxOps        int
	defaultIsStmt bool
	lineBase      int
	lineRange     int
	opcodeBase    int
	opcodeLengths []int
	dirs          []string
	files         []string // file names by number
	noFile        []bool   // file number without a file (DWARF 2-4's 0)
	programOff    uint64
	end           uint64
	initialFiles  int
	off           uint64 // next byte of the program
	err           error
	state         lineRow
	fileIdx       int
	opIndex       int
	inProgram     bool
	paths         *linePaths
}

// linePaths keeps the directory and file names of the line tables read so
// far, and the paths joined from them, one copy each. Each unit's table
// names the same headers as the others (a C program's units include
// mostly the same ones): a string and a path.Join per entry were 48,000
// allocations per load of redis-server. nil keeps nothing.
type linePaths struct {
	strs   map[string]string
	joined map[[2]string]string
}

func newLinePaths() *linePaths {
	return &linePaths{strs: map[string]string{}, joined: map[[2]string]string{}}
}

// str returns b as a string: the kept copy when there is one.
func (p *linePaths) str(b []byte) string {
	if p == nil {
		return string(b)
	}
	if s, ok := p.strs[string(b)]; ok {
		return s
	}
	s := string(b)
	p.strs[s] = s
	return s
}

// join is pathJoin(dir, name), kept.
func (p *linePaths) join(dir, name string) string {
	if p == nil {
		return pathJoin(dir, name)
	}
	k := [2]string{dir, name}
	if s, ok := p.joined[k]; ok {
		return s
	}
	s := pathJoin(dir, name)
	p.joined[k] = s
	return s
}

// lineRow is one row of a line table: the address, the file number (an
// index in lineTable.files; the row has no file when it is out of range
// or noFile), the line, and the two flags the schema reads.
type lineRow struct {
	Address     uint64
	File        int
	Line        int
	IsStmt      bool
	EndSequence bool
}

// errLineCount is a header's count of directories or files larger than
// the bytes left in the section: debug/dwarf would allocate that many
// (and fail, or take all memory); this reader refuses.
var errLineCount = errors.New("more directories or files than bytes in the section")

// The standard and extended opcodes, and the DWARF 5 content types.
const (
	lnsCopy             = 1
	lnsAdvancePC        = 2
	lnsAdvanceLine      = 3
	lnsSetFile          = 4
	lnsSetColumn        = 5
	lnsNegateStmt       = 6
	lnsSetBasicBlock    = 7
	lnsConstAddPC       = 8
	lnsFixedAdvancePC   = 9
	lnsSetPrologueEnd   = 10
	lnsSetEpilogueBegin = 11
	lnsSetISA           = 12

	lneEndSequence      = 1
	lneSetAddress       = 2
	lneDefineFile       = 3
	lneSetDiscriminator = 4

	lnctPath           = 1
	lnctDirectoryIndex = 2
)

// knownOpcodeLength is the number of LEB128 arguments of the standard
// opcodes whose length the header must state as it is (-1: not checked,
// as debug/dwarf checks them).
var knownOpcodeLength = [...]int{-1, 0, 1, 1, 1, -1, 0, 0, 0, -1, 0, 0, 1}

// newLineTable reads the header of the line table at off in sec, for a
// unit whose addresses are asize bytes (DWARF 2-4; DWARF 5's header says
// it) and whose compilation directory is compDir. paths, if not nil,
// keeps the names and joined paths for the next tables.
func newLineTable(sec []byte, off int64, str, lineStr []byte, asize int, compDir string, paths *linePaths) (*lineTable, error) {
	if off < 0 || off > int64(len(sec)) {
		return nil, errors.New("AttrStmtList value out of range")
	}
	t := &lineTable{sec: sec, str: str, lineStr: lineStr, off: uint64(off), paths: paths}
	if err := t.readHeader(compDir, asize); err != nil {
		return nil, err
	}
	t.initialFiles = len(t.files)
	t.off = t.programOff
	t.resetState()
	return t, nil
}

func (t *lineTable) fail(at uint64, why string) {
	if t.err == nil {
		t.err = fmt.Errorf("decoding dwarf section line at offset %#x: %s", at, why)
	}
}

// limit is the end of the bytes readable now: the section while reading
// the header (as debug/dwarf), the table's end while running the program.
func (t *lineTable) limit() uint64 {
	if t.inProgram {
		return t.end
	}
	return uint64(len(t.sec))
}

func (t *lineTable) bytes(n int) []byte {
	if t.err != nil {
		return nil
	}
	if n < 0 || t.limit()-t.off < uint64(n) {
		t.fail(t.off, "underflow")
		return nil
	}
	b := t.sec[t.off : t.off+uint64(n)]
	t.off += uint64(n)
	return b
}

func (t *lineTable) u8() uint8 {
	if b := t.bytes(1); b != nil {
		return b[0]
	}
	return 0
}

func (t *lineTable) u16() uint16 {
	if b := t.bytes(2); b != nil {
		return binary.LittleEndian.Uint16(b)
	}
	return 0
}

func (t *lineTable) u32() uint32 {
	if b := t.bytes(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (t *lineTable) u64() uint64 {
	if b := t.bytes(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

// varint reads a LEB128 number and its width in bits. A number that the
// data ends inside reads as 0 and consumes nothing, with no error (as
// debug/dwarf reads it).
func (t *lineTable) varint() (uint64, uint) {
	if t.err != nil {
		return 0, 0
	}
	var c uint64
	var bits uint
	lim := t.limit()
	for p := t.off; p < lim; p++ {
		b := t.sec[p]
		c |= uint64(b&0x7f) << bits
		bits += 7
		if b&0x80 == 0 {
			t.off = p + 1
			return c, bits
		}
	}
	return 0, 0
}

func (t *lineTable) uleb() uint64 {
	v, _ := t.varint()
	return v
}

func (t *lineTable) sleb() int64 {
	u, bits := t.varint()
	x := int64(u)
	if x&(1<<(bits-1)) != 0 {
		x |= -1 << bits
	}
	return x
}

// cstring reads a NUL-terminated string.
func (t *lineTable) cstring() string {
	if t.err != nil {
		return ""
	}
	rest := t.sec[t.off:t.limit()]
	i := bytes.IndexByte(rest, 0)
	if i < 0 {
		t.fail(t.off, "underflow")
		return ""
	}
	s := t.paths.str(rest[:i])
	t.off += uint64(i + 1)
	return s
}

func (t *lineTable) readHeader(compDir string, unitAsize int) error {
	hdr := t.off
	length := uint64(t.u32())
	if length == 0xffffffff {
		t.dwarf64 = true
		length = t.u64()
	} else if length >= 0xfffffff0 {
		t.fail(t.off, "unit length has reserved value")
	}
	// debug/dwarf's offsets are 32 bits: a 64-bit length is cut there.
	t.end = uint64(uint32(t.off) + uint32(length))
	if t.err == nil && t.end > uint64(len(t.sec)) {
		return fmt.Errorf("decoding dwarf section line at offset %#x: line table end %d exceeds section size %d", hdr, t.end, len(t.sec))
	}
	t.version = int(t.u16())
	if t.err == nil && (t.version < 2 || t.version > 5) {
		return fmt.Errorf("decoding dwarf section line at offset %#x: unknown line table version %d", hdr, t.version)
	}
	t.asize = unitAsize
	if t.version >= 5 {
		t.asize = int(t.u8())
		t.u8() // segment selector size
	}
	var headerLength uint64
	if t.dwarf64 {
		headerLength = t.u64()
	} else {
		headerLength = uint64(t.u32())
	}
	t.programOff = uint64(uint32(t.off) + uint32(headerLength))
	if t.programOff > t.end {
		return fmt.Errorf("decoding dwarf section line at offset %#x: malformed line table: program offset %d exceeds end offset %d", hdr, t.programOff, t.end)
	}
	t.minInstLen = int(t.u8())
	t.maxOps = 1
	if t.version >= 4 {
		t.maxOps = int(t.u8())
	}
	t.defaultIsStmt = t.u8() != 0
	t.lineBase = int(int8(t.u8()))
	t.lineRange = int(t.u8())
	if t.err != nil {
		return t.err
	}
	if t.maxOps == 0 {
		return fmt.Errorf("decoding dwarf section line at offset %#x: invalid maximum operations per instruction: 0", hdr)
	}
	if t.lineRange == 0 {
		return fmt.Errorf("decoding dwarf section line at offset %#x: invalid line range: 0", hdr)
	}
	t.opcodeBase = int(t.u8())
	t.opcodeLengths = make([]int, t.opcodeBase)
	for i := 1; i < t.opcodeBase; i++ {
		t.opcodeLengths[i] = int(t.u8())
	}
	if t.err != nil {
		return t.err
	}
	for i, n := range t.opcodeLengths {
		if i < len(knownOpcodeLength) && knownOpcodeLength[i] >= 0 && knownOpcodeLength[i] != n {
			return fmt.Errorf("decoding dwarf section line at offset %#x: opcode %d expected to have length %d, but has length %d", hdr, i, knownOpcodeLength[i], n)
		}
	}
	if t.version < 5 {
		t.dirs = append(t.dirs, compDir)
		for {
			dir := t.cstring()
			if t.err != nil {
				return t.err
			}
			if dir == "" {
				break
			}
			if !pathIsAbs(dir) {
				dir = t.paths.join(compDir, dir)
			}
			t.dirs = append(t.dirs, dir)
		}
		// File numbers start at 1.
		t.files, t.noFile = append(t.files, ""), append(t.noFile, true)
		for {
			done, err := t.readFileEntry()
			if err != nil {
				return err
			}
			if done {
				break
			}
		}
		return t.err
	}
	dirFormat := t.readFormat()
	n := t.uleb()
	if n > uint64(len(t.sec)) {
		return errLineCount
	}
	t.dirs = make([]string, n)
	for i := range t.dirs {
		dir, err := t.readEntry(dirFormat)
		if err != nil {
			return err
		}
		t.dirs[i] = dir
	}
	fileFormat := t.readFormat()
	n = t.uleb()
	if n > uint64(len(t.sec)) {
		return errLineCount
	}
	t.files, t.noFile = make([]string, n), make([]bool, n)
	for i := range t.files {
		name, err := t.readEntry(fileFormat)
		if err != nil {
			return err
		}
		t.files[i] = name
	}
	return t.err
}

// lnctForm is one (content type, form) pair of a DWARF 5 entry format.
type lnctForm struct{ lnct, form uint64 }

func (t *lineTable) readFormat() []lnctForm {
	f := make([]lnctForm, t.u8())
	for i := range f {
		f[i].lnct = t.uleb()
		f[i].form = t.uleb()
	}
	return f
}

// readEntry reads one DWARF 5 directory or file entry and returns its
// path, joined to its directory. Forms debug/dwarf does not read are
// skipped over nothing, as there.
func (t *lineTable) readEntry(format []lnctForm) (string, error) {
	var p, dir string
	for _, lf := range format {
		var s string
		var val uint64
		switch lf.form {
		case formString:
			s = t.cstring()
		case formStrp, formLineStrp:
			var off uint64
			if t.dwarf64 {
				off = t.u64()
			} else {
				off = uint64(t.u32())
			}
			if uint64(int(off)) != off {
				return "", fmt.Errorf("decoding dwarf section line at offset %#x: strp/line_strp offset out of range", t.off)
			}
			sec := t.str
			if lf.form == formLineStrp {
				sec = t.lineStr
			}
			var i int
			if off <= uint64(len(sec)) {
				i = bytes.IndexByte(sec[off:], 0)
			}
			if off > uint64(len(sec)) || i < 0 {
				return "", fmt.Errorf("decoding dwarf section line at offset %#x: underflow", t.off)
			}
			s = t.paths.str(sec[off : off+uint64(i)])
		case formStrpSup:
			if t.dwarf64 {
				t.u64()
			} else {
				t.u32()
			}
		case formStrx:
			t.uleb()
		case formStrx1:
			t.u8()
		case formStrx2:
			t.u16()
		case formStrx3:
			t.bytes(3)
		case formStrx4:
			t.u32()
		case formData1:
			val = uint64(t.u8())
		case formData2:
			val = uint64(t.u16())
		case formData4:
			val = uint64(t.u32())
		case formData8:
			val = t.u64()
		case formData16:
			t.bytes(16)
		case formDwarfBlock:
			t.bytes(int(t.uleb()))
		case formUdata:
			val = t.uleb()
		}
		switch lf.lnct {
		case lnctPath:
			p = s
		case lnctDirectoryIndex:
			if val >= uint64(len(t.dirs)) {
				return "", fmt.Errorf("decoding dwarf section line at offset %#x: directory index out of range", t.off)
			}
			dir = t.dirs[val]
		}
	}
	if dir != "" && p != "" {
		p = t.paths.join(dir, p)
	}
	return p, nil
}

// readFileEntry reads a DWARF 2-4 file entry (the header's or
// DW_LNE_define_file's); done at the empty name that ends the list.
func (t *lineTable) readFileEntry() (done bool, err error) {
	name := t.cstring()
	if t.err != nil {
		return false, t.err
	}
	if name == "" {
		return true, nil
	}
	off := t.off
	dir := int(t.uleb())
	if !pathIsAbs(name) {
		if dir < 0 || dir >= len(t.dirs) {
			return false, fmt.Errorf("decoding dwarf section line at offset %#x: directory index too large", off)
		}
		name = t.paths.join(t.dirs[dir], name)
	}
	t.uleb() // modification time
	t.uleb() // length
	t.files, t.noFile = append(t.files, name), append(t.noFile, false)
	return false, nil
}

func (t *lineTable) resetState() {
	t.state = lineRow{Line: 1, IsStmt: t.defaultIsStmt}
	t.opIndex = 0
	t.fileIdx = 1
}

// fileOf is the row's file number, -1 when the row has no file.
func (t *lineTable) fileOf(i int) int {
	if i < 0 || i >= len(t.files) || t.noFile[i] {
		return -1
	}
	return i
}

func (t *lineTable) advancePC(n int) {
	op := t.opIndex + n
	t.state.Address += uint64(t.minInstLen * (op / t.maxOps))
	t.opIndex = op % t.maxOps
}

// next sets *row to the next row; io.EOF at the end of the table.
// row.File is the file number or -1.
func (t *lineTable) next(row *lineRow) error {
	t.inProgram = true // from here on, reads stop at the table's end
	for {
		if t.err != nil {
			return t.err
		}
		if t.off >= t.end {
			return io.EOF
		}
		emit := t.step(row)
		if t.err != nil {
			return t.err
		}
		if emit {
			return nil
		}
	}
}

// step runs one opcode; it reports whether the opcode made a row.
func (t *lineTable) step(row *lineRow) bool {
	op := int(t.u8())
	if op >= t.opcodeBase {
		adj := op - t.opcodeBase
		t.advancePC(adj / t.lineRange)
		t.state.Line += t.lineBase + adj%t.lineRange
		goto emit
	}
	switch op {
	case 0:
		length := uint32(t.uleb())
		start := uint32(t.off)
		sub := t.u8()
		switch sub {
		case lneEndSequence:
			t.state.EndSequence = true
			*row = t.state
			row.File = t.fileOf(t.fileIdx)
			t.resetState()
		case lneSetAddress:
			switch t.asize {
			case 1:
				t.state.Address = uint64(t.u8())
			case 2:
				t.state.Address = uint64(t.u16())
			case 4:
				t.state.Address = uint64(t.u32())
			case 8:
				t.state.Address = t.u64()
			default:
				t.fail(t.off, "unknown address size")
			}
		case lneDefineFile:
			done, err := t.readFileEntry()
			if err != nil {
				if t.err == nil {
					t.err = err
				}
				return false
			}
			if done {
				t.fail(uint64(start), "malformed DW_LNE_define_file operation")
				return false
			}
		case lneSetDiscriminator:
			t.uleb()
		}
		t.bytes(int(start + length - uint32(t.off)))
		return sub == lneEndSequence
	case lnsCopy:
		goto emit
	case lnsAdvancePC:
		t.advancePC(int(t.uleb()))
	case lnsAdvanceLine:
		t.state.Line += int(t.sleb())
	case lnsSetFile:
		t.fileIdx = int(t.uleb())
	case lnsSetColumn:
		t.uleb()
	case lnsNegateStmt:
		t.state.IsStmt = !t.state.IsStmt
	case lnsSetBasicBlock, lnsSetPrologueEnd, lnsSetEpilogueBegin:
	case lnsConstAddPC:
		t.advancePC((255 - t.opcodeBase) / t.lineRange)
	case lnsFixedAdvancePC:
		t.state.Address += uint64(t.u16())
	case lnsSetISA:
		t.uleb()
	default:
		for range t.opcodeLengths[op] {
			t.uleb()
		}
	}
	return false
emit:
	*row = t.state
	row.File = t.fileOf(t.fileIdx)
	return true
}

// pathIsAbs and pathJoin treat paths as debug/dwarf does (UNIX or DOS
// style, whatever the host): the names it gave are the schema's.
func pathIsAbs(p string) bool {
	_, p = splitDrive(p)
	return len(p) > 0 && (p[0] == '/' || p[0] == '\\')
}

// pathJoin joins dir and name (name taken as relative, even if it is
// not).
func pathJoin(dir, name string) string {
	if dir == "" {
		return name
	}
	drive, dir := splitDrive(dir)
	if drive == "" {
		return path.Join(dir, name)
	}
	drive2, name := splitDrive(name)
	if drive2 != "" {
		if !strings.EqualFold(drive, drive2) {
			return drive2 + name
		}
	}
	if !strings.HasSuffix(dir, "/") && !strings.HasSuffix(dir, `\`) && dir != "" {
		if strings.HasPrefix(dir, "/") {
			dir += "/"
		} else {
			dir += `\`
		}
	}
	return drive + dir + name
}

// splitDrive splits a DOS drive letter or UNC share from p.
func splitDrive(p string) (drive, rest string) {
	if len(p) >= 2 && p[1] == ':' {
		if c := p[0]; 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
			return p[:2], p[2:]
		}
	}
	if len(p) > 3 && (p[0] == '\\' || p[0] == '/') && (p[1] == '\\' || p[1] == '/') {
		np := strings.ReplaceAll(p, "/", `\`)
		if s1 := strings.IndexByte(np[2:], '\\') + 2; s1 > 2 {
			if s2 := strings.IndexByte(np[s1+1:], '\\') + s1 + 1; s2 > s1 {
				return p[:s2], p[s2:]
			}
		}
	}
	return "", p
}
