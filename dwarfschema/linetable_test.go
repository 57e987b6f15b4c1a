package dwarfschema

import (
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// lineSections are the sections a line table refers to.
type lineSections struct{ line, str, lineStr []byte }

func lineSectionsOf(tb testing.TB, ef *elf.File) lineSections {
	tb.Helper()
	get := func(name string) []byte {
		s := ef.Section(name)
		if s == nil {
			return nil
		}
		b, err := s.Data()
		if err != nil {
			tb.Fatalf("%s: %v", name, err)
		}
		return b
	}
	return lineSections{get(".debug_line"), get(".debug_str"), get(".debug_line_str")}
}

// compareLineTable reads the line table of unit cu both ways and reports
// the first difference; it returns the rows compared. A panic of
// debug/dwarf's reader (it indexes with unchecked numbers of the input)
// leaves only the requirement that lineTable does not panic. paths is
// the loader's cache of names and joined paths (nil: none).
func compareLineTable(t *testing.T, d *dwarf.Data, cu *dwarf.Entry, asize int, secs lineSections, paths *linePaths) (rows int) {
	t.Helper()
	var stmt int64
	hasStmt := false
	compDir, _ := cu.Val(dwarf.AttrCompDir).(string)
	if v, ok := cu.Val(dwarf.AttrStmtList).(int64); ok {
		stmt, hasStmt = v, true
	}
	type row struct {
		addr       uint64
		file       string
		noFile     bool
		line       int
		stmt, eseq bool
	}
	var lt *lineTable
	var err error
	if hasStmt && secs.line != nil {
		lt, err = newLineTable(secs.line, stmt, secs.str, secs.lineStr, asize, compDir, paths)
		if errors.Is(err, errLineCount) {
			return 0 // debug/dwarf would allocate the count given
		}
	}
	// debug/dwarf's rows, its file table and how it ended.
	var want []row
	var wantFiles []*dwarf.LineFile
	var wantErr error
	panicked := func() (p bool) {
		defer func() {
			if recover() != nil {
				p = true
			}
		}()
		lr, err := d.LineReader(cu)
		if err != nil {
			wantErr = err
			return false
		}
		if lr == nil {
			return false
		}
		wantFiles = lr.Files()
		var le dwarf.LineEntry
		for {
			if err := lr.Next(&le); err != nil {
				wantErr = err
				break
			}
			r := row{addr: le.Address, noFile: le.File == nil, line: le.Line, stmt: le.IsStmt, eseq: le.EndSequence}
			if le.File != nil {
				r.file = le.File.Name
			}
			if le.EndSequence {
				r = row{addr: le.Address, eseq: true}
			}
			want = append(want, r)
		}
		return false
	}()

	if !hasStmt || secs.line == nil {
		if !panicked && (wantFiles != nil || wantErr != nil) {
			t.Errorf("unit at %#x: debug/dwarf reads a line table (%v), lineTable none", cu.Offset, wantErr)
		}
		return 0
	}
	if panicked {
		if lt != nil {
			var r lineRow
			for lt.next(&r) == nil {
			}
		}
		return 0
	}
	if err != nil {
		if wantErr == nil || wantFiles != nil {
			t.Errorf("unit at %#x: lineTable: %v, debug/dwarf reads the header", cu.Offset, err)
		}
		return 0
	}
	if wantFiles == nil {
		t.Errorf("unit at %#x: debug/dwarf: %v, lineTable reads the header", cu.Offset, wantErr)
		return 0
	}
	// The header's files (debug/dwarf's table grows with the program's
	// DW_LNE_define_file: compare the first ones).
	if len(wantFiles) < lt.initialFiles {
		t.Errorf("unit at %#x: %d files, debug/dwarf %d", cu.Offset, lt.initialFiles, len(wantFiles))
		return 0
	}
	for i := range lt.initialFiles {
		w := wantFiles[i]
		if (w == nil) != (lt.fileOf(i) < 0) || w != nil && w.Name != lt.files[i] {
			t.Errorf("unit at %#x: file %d is %q (none %v), debug/dwarf %+v", cu.Offset, i, lt.files[i], lt.fileOf(i) < 0, w)
			return 0
		}
	}
	var r lineRow
	for n := 0; ; n++ {
		err := lt.next(&r)
		if n == len(want) {
			if err == nil || errors.Is(err, io.EOF) != errors.Is(wantErr, io.EOF) {
				t.Errorf("unit at %#x: row %d: lineTable %v (%+v), debug/dwarf ends with %v", cu.Offset, n, err, r, wantErr)
			}
			return n
		}
		if err != nil {
			t.Errorf("unit at %#x: row %d: lineTable %v, debug/dwarf %+v", cu.Offset, n, err, want[n])
			return n
		}
		got := row{addr: r.Address, noFile: r.File < 0, line: r.Line, stmt: r.IsStmt, eseq: r.EndSequence}
		if r.File >= 0 {
			got.file = lt.files[r.File]
		}
		if r.EndSequence {
			got = row{addr: r.Address, eseq: true}
		}
		if got != want[n] {
			t.Errorf("unit at %#x: row %d: %+v, debug/dwarf %+v", cu.Offset, n, got, want[n])
			return n
		}
	}
}

// compareLineTables compares every compile unit's line table of ef, read
// as the loader reads them: with one linePaths for all units.
func compareLineTables(t *testing.T, ef *elf.File) (units, rows int) {
	t.Helper()
	d, err := ef.DWARF()
	if err != nil {
		t.Fatal(err)
	}
	secs := lineSectionsOf(t, ef)
	paths := newLinePaths()
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if e == nil {
			break
		}
		if e.Tag == dwarf.TagCompileUnit || e.Tag == dwarf.TagPartialUnit {
			rows += compareLineTable(t, d, e, r.AddressSize(), secs, paths)
			units++
		}
		r.SkipChildren()
	}
	return units, rows
}

// TestLineTableMatches reads every unit's line table of real binaries
// with lineTable and debug/dwarf's LineReader: programs built here (gcc
// and clang, DWARF 4 and 5), the test programs (make -C testprogs), and
// $VPROF_BENCH_BINARY (a real server, as for BenchmarkLoadBinary).
func TestLineTableMatches(t *testing.T) {
	bins := dieTestBinaries(t)
	more, _ := filepath.Glob("../testprogs/bin/*")
	if b := os.Getenv("VPROF_BENCH_BINARY"); b != "" {
		more = append(more, b)
	}
	for _, b := range more {
		if f, err := elf.Open(b); err == nil {
			f.Close()
			bins = append(bins, b)
		}
	}
	if len(bins) == 0 {
		t.Skip("no compiler and no test programs")
	}
	for _, b := range bins {
		ef, err := elf.Open(b)
		if err != nil {
			t.Fatal(err)
		}
		units, rows := compareLineTables(t, ef)
		ef.Close()
		if rows == 0 {
			t.Errorf("%s: no rows compared (%d units)", b, units)
		}
		t.Logf("%s: %d units, %d rows", b, units, rows)
	}
}

// fuzzUnit makes .debug_abbrev and .debug_info of one compile unit of
// the given DWARF version and address size whose line table is at offset
// 0, with compilation directory compDir.
func fuzzUnit(version uint16, asize uint8, compDir string) (abbrev, info []byte) {
	const (
		attrStmtList = 0x10
		attrCompDir  = 0x1b
	)
	abbrev = []byte{1, 0x11, 0, attrStmtList, formSecOffset, attrCompDir, formString, 0, 0, 0}
	if version < 4 {
		abbrev[4] = formData4
	}
	var die []byte
	die = append(die, 1, 0, 0, 0, 0)
	die = append(die, compDir...)
	die = append(die, 0)
	var hdr []byte
	hdr = binary.LittleEndian.AppendUint16(hdr, version)
	if version >= 5 {
		hdr = append(hdr, 1, asize) // DW_UT_compile
		hdr = binary.LittleEndian.AppendUint32(hdr, 0)
	} else {
		hdr = binary.LittleEndian.AppendUint32(hdr, 0)
		hdr = append(hdr, asize)
	}
	info = binary.LittleEndian.AppendUint32(nil, uint32(len(hdr)+len(die)))
	info = append(append(info, hdr...), die...)
	return abbrev, info
}

// FuzzLineTable feeds arbitrary line sections to lineTable: it must never
// panic or loop, and read the same files and rows as debug/dwarf's
// LineReader (or fail where it fails). Seeds: the start of the line
// tables of small gcc and clang programs, DWARF 4 and 5.
func FuzzLineTable(f *testing.F) {
	for _, b := range dieTestBinaries(f) {
		ef, err := elf.Open(b)
		if err != nil {
			f.Fatal(err)
		}
		s := lineSectionsOf(f, ef)
		ef.Close()
		line := s.line
		if n := binary.LittleEndian.Uint32(line); int(n)+4 <= len(line) {
			line = line[:n+4]
		}
		for _, v := range []uint16{4, 5} {
			f.Add(line, s.str, s.lineStr, v, true, "/src")
		}
	}
	f.Add([]byte{}, []byte{}, []byte{}, uint16(4), true, "")
	f.Fuzz(func(t *testing.T, line, str, lineStr []byte, version uint16, addr8 bool, compDir string) {
		if version < 2 || version > 5 || len(compDir) > 64 {
			return
		}
		for _, c := range []byte(compDir) {
			if c == 0 {
				return
			}
		}
		asize := uint8(4)
		if addr8 {
			asize = 8
		}
		abbrev, info := fuzzUnit(version, asize, compDir)
		d, err := dwarf.New(abbrev, nil, nil, info, line, nil, nil, str)
		if err != nil {
			t.Fatalf("the unit made for the test: %v", err)
		}
		if err := d.AddSection(".debug_line_str", lineStr); err != nil {
			t.Fatal(err)
		}
		r := d.Reader()
		cu, err := r.Next()
		if err != nil || cu == nil {
			t.Fatalf("the unit made for the test: %v", err)
		}
		compareLineTable(t, d, cu, int(asize), lineSections{line, str, lineStr}, nil)
	})
}

// TestLineTableSmall runs hand-made tables through the comparison: the
// opcodes and header shapes the compilers at hand may not emit.
func TestLineTableSmall(t *testing.T) {
	// A DWARF 4 header: no directories, files a.c (dir 0) and b.c.
	v4 := func(program ...byte) []byte {
		var h []byte
		h = append(h, 1, 1, 1, 0xfb, 14, 13)              // min_inst 1, max_ops 1, default_is_stmt 1, line_base -5, line_range 14, opcode_base 13
		h = append(h, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1) // standard opcode lengths
		h = append(h, 0)                                  // no include directories
		h = append(h, "a.c\x00\x00\x00\x00b.c\x00\x00\x00\x00\x00"...)
		var b []byte
		b = binary.LittleEndian.AppendUint16(b, 4)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(h)))
		b = append(append(b, h...), program...)
		return append(binary.LittleEndian.AppendUint32(nil, uint32(len(b))), b...)
	}
	setAddr := []byte{0, 9, lneSetAddress, 0x00, 0x10, 0x40, 0, 0, 0, 0, 0}
	endSeq := []byte{0, 1, lneEndSequence}
	cases := map[string][]byte{
		"special opcodes": v4(append(append(append([]byte{}, setAddr...), 0x14, 0x4b, 0x83), endSeq...)...),
		"standard opcodes": v4(append(append(append([]byte{}, setAddr...),
			lnsAdvancePC, 4, lnsAdvanceLine, 0x7d, lnsCopy, lnsSetFile, 2, lnsSetColumn, 3, lnsNegateStmt,
			lnsSetBasicBlock, lnsConstAddPC, lnsCopy, lnsFixedAdvancePC, 0x10, 0, lnsSetPrologueEnd,
			lnsSetEpilogueBegin, lnsSetISA, 1, lnsCopy, lnsSetFile, 0, lnsCopy, lnsSetFile, 9, lnsCopy), endSeq...)...),
		"define_file": v4(append(append(append([]byte{}, setAddr...),
			lnsSetFile, 3, lnsCopy, 0, 8, lneDefineFile, 'c', '.', 'c', 0, 0, 0, 0, lnsCopy,
			0, 2, lneSetDiscriminator, 5, lnsCopy), endSeq...)...),
		"truncated":      v4(append(append([]byte{}, setAddr...), lnsAdvancePC)...),
		"bad define":     v4(0, 2, lneDefineFile, 0),
		"short extended": v4(0, 0, lneSetAddress, 1, 2, 3),
		"empty program":  v4(),
	}
	for name, line := range cases {
		t.Run(name, func(t *testing.T) {
			abbrev, info := fuzzUnit(4, 8, "/src")
			d, err := dwarf.New(abbrev, nil, nil, info, line, nil, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			cu, err := d.Reader().Next()
			if err != nil {
				t.Fatal(err)
			}
			n := compareLineTable(t, d, cu, 8, lineSections{line: line}, nil)
			t.Logf("%d rows", n)
		})
	}
}

// BenchmarkLineTables reads every line table of $VPROF_BENCH_BINARY both
// ways: debug/dwarf (dwarf.New, as Load did, then a LineReader per unit)
// and lineTable (on the units' offsets found beforehand).
func BenchmarkLineTables(b *testing.B) {
	bin := os.Getenv("VPROF_BENCH_BINARY")
	if bin == "" {
		b.Skip("VPROF_BENCH_BINARY is not set")
	}
	ef, err := elf.Open(bin)
	if err != nil {
		b.Fatal(err)
	}
	defer ef.Close()
	secs := lineSectionsOf(b, ef)
	sec := func(name string) []byte {
		s := ef.Section(name)
		if s == nil {
			return nil
		}
		d, err := s.Data()
		if err != nil {
			b.Fatal(err)
		}
		return d
	}
	abbrev, info, ranges := sec(".debug_abbrev"), sec(".debug_info"), sec(".debug_ranges")
	type unit struct {
		stmt    int64
		asize   int
		compDir string
	}
	var units []unit
	d0, err := ef.DWARF()
	if err != nil {
		b.Fatal(err)
	}
	r := d0.Reader()
	for {
		e, err := r.Next()
		if err != nil || e == nil {
			break
		}
		if v, ok := e.Val(dwarf.AttrStmtList).(int64); ok {
			c, _ := e.Val(dwarf.AttrCompDir).(string)
			units = append(units, unit{v, r.AddressSize(), c})
		}
		r.SkipChildren()
	}
	b.Run("debug-dwarf", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			d, err := dwarf.New(abbrev, nil, nil, info, secs.line, nil, ranges, secs.str)
			if err != nil {
				b.Fatal(err)
			}
			if err := d.AddSection(".debug_line_str", secs.lineStr); err != nil {
				b.Fatal(err)
			}
			r := d.Reader()
			var le dwarf.LineEntry
			for {
				e, err := r.Next()
				if err != nil || e == nil {
					break
				}
				if lr, err := d.LineReader(e); err == nil && lr != nil {
					for lr.Next(&le) == nil {
					}
				}
				r.SkipChildren()
			}
		}
	})
	b.Run("lineTable", func(b *testing.B) {
		b.ReportAllocs()
		var row lineRow
		for b.Loop() {
			for _, u := range units {
				lt, err := newLineTable(secs.line, u.stmt, secs.str, secs.lineStr, u.asize, u.compDir, nil)
				if err != nil {
					b.Fatal(err)
				}
				for lt.next(&row) == nil {
				}
			}
		}
	})
}
