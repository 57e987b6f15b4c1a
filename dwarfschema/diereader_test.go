package dwarfschema

import (
	"bytes"
	"debug/dwarf"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// dieSections are the sections a dieData reads, as the fuzz target's
// arguments.
type dieSections struct {
	info, abbrev, str, addr, strOffsets, rnglists, ranges, lineStr []byte
}

func sectionsOf(t testing.TB, path string) dieSections {
	t.Helper()
	ef, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	get := func(name string) []byte {
		s := ef.Section(name)
		if s == nil {
			return nil
		}
		b, err := s.Data()
		if err != nil {
			t.Fatalf("%s: %s: %v", path, name, err)
		}
		return b
	}
	return dieSections{
		info: get(".debug_info"), abbrev: get(".debug_abbrev"), str: get(".debug_str"),
		addr: get(".debug_addr"), strOffsets: get(".debug_str_offsets"), rnglists: get(".debug_rnglists"),
		ranges: get(".debug_ranges"), lineStr: get(".debug_line_str"),
	}
}

// compareWithDebugDwarf walks the DIEs of sec with a dieReader and with
// debug/dwarf's Reader side by side: while debug/dwarf reads an entry, the
// dieReader must read the same one (offset, tag, children, and every
// attribute's class and value, as debug/dwarf types it), and the same code
// ranges. It returns the number of entries compared. Where debug/dwarf
// rejects the data (New or Next fails), the dieReader may read or fail as
// it likes, but must not panic or loop.
func compareWithDebugDwarf(t testing.TB, sec dieSections) int {
	t.Helper()
	w := &dwarfFile{info: sec.info, abbrev: sec.abbrev, str: sec.str, addr: sec.addr,
		strOffsets: sec.strOffsets, rnglists: sec.rnglists, ranges: sec.ranges, lineStr: sec.lineStr}
	dd, myErr := newDieData(w)
	d, err := dwarf.New(sec.abbrev, nil, nil, sec.info, nil, nil, sec.ranges, sec.str)
	for _, s := range []struct {
		name string
		b    []byte
	}{{"addr", sec.addr}, {"line_str", sec.lineStr}, {"str_offsets", sec.strOffsets}, {"rnglists", sec.rnglists}} {
		if err == nil && s.b != nil {
			err = d.AddSection(".debug_"+s.name, s.b)
		}
	}
	if myErr != nil {
		if err == nil && len(sec.info) > 0 {
			// debug/dwarf accepted the headers: so must newDieData.
			t.Fatalf("newDieData: %v; debug/dwarf accepts the units", myErr)
		}
		return 0
	}
	mine := dd.reader(0, ^uint64(0))
	if err != nil {
		// Only robustness: read to the end or the first error.
		for n := 0; n <= len(sec.info); n++ {
			e, err := mine.next()
			if err != nil || e == nil {
				return 0
			}
			if e.tag != 0 {
				dd.rangesOf(e, nil)
			}
		}
		t.Fatalf("more entries than bytes")
	}
	theirs := d.Reader()
	n := 0
	for ; n <= len(sec.info)+1; n++ {
		te, terr := theirs.Next()
		if terr != nil {
			return n
		}
		me, merr := mine.next()
		if te == nil {
			if merr == nil && me != nil {
				t.Fatalf("entry %d: dieReader reads an entry at %#x past debug/dwarf's end", n, me.off)
			}
			return n
		}
		if merr != nil {
			t.Fatalf("entry %d at %#x: dieReader: %v; debug/dwarf reads %+v", n, te.Offset, merr, te)
		}
		if me == nil {
			t.Fatalf("entry %d at %#x: dieReader ends; debug/dwarf reads %+v", n, te.Offset, te)
		}
		if me.off != te.Offset || me.tag != te.Tag || me.children != te.Children || len(me.fields) != len(te.Field) {
			t.Fatalf("entry %d: dieReader reads %#x %v children=%v %d fields; debug/dwarf %#x %v children=%v %d fields",
				n, me.off, me.tag, me.children, len(me.fields), te.Offset, te.Tag, te.Children, len(te.Field))
		}
		for i, tf := range te.Field {
			mf := me.fields[i]
			if mf.attr != tf.Attr || mf.class != tf.Class || !sameVal(mf, tf.Val) {
				t.Fatalf("entry %#x field %d: dieReader reads %v %v %s; debug/dwarf %v %v %#v",
					te.Offset, i, mf.attr, mf.class, valString(mf), tf.Attr, tf.Class, tf.Val)
			}
		}
		if te.Tag != 0 {
			tr, terr := d.Ranges(te)
			mr, merr := dd.rangesOf(me, nil)
			if terr == nil && merr == nil && fmt.Sprint(tr) != fmt.Sprint(mr) {
				t.Fatalf("entry %#x: dieReader's ranges %x, debug/dwarf's %x", te.Offset, mr, tr)
			}
			if (terr == nil) != (merr == nil) && len(sec.info) > 1<<16 {
				// On a real binary (not a fuzzed fragment) both must agree.
				t.Fatalf("entry %#x: ranges: dieReader %v, debug/dwarf %v", te.Offset, merr, terr)
			}
		}
		// Skip the children of some entries both ways, as the loader does.
		if te.Children && te.Tag != dwarf.TagCompileUnit && n%3 == 0 {
			theirs.SkipChildren()
			mine.skipChildren()
		}
	}
	t.Fatalf("more entries than bytes")
	return n
}

// sameVal reports whether v is the value debug/dwarf gives for f.
func sameVal(f dval, v any) bool {
	switch x := v.(type) {
	case int64:
		return f.kind == kInt && int64(f.u) == x
	case uint64:
		return f.kind == kUint64 && f.u == x
	case uint32:
		return f.kind == kUint32 && f.u == uint64(x)
	case dwarf.Offset:
		return f.kind == kOffset && dwarf.Offset(f.u) == x
	case bool:
		return f.kind == kBool && (f.u != 0) == x
	case []byte:
		return f.kind == kBytes && bytes.Equal(f.b, x)
	case string:
		return f.kind == kString && string(f.b) == x
	case nil:
		return f.kind == kNone
	}
	return false
}

func valString(f dval) string {
	switch f.kind {
	case kBytes:
		return fmt.Sprintf("% x", f.b)
	case kString:
		return fmt.Sprintf("%q", f.b)
	}
	return fmt.Sprintf("kind %d %#x", f.kind, f.u)
}

// dieTestBinaries builds small programs with gcc (DWARF 4 and 5) and
// clang (DWARF 5, which uses strx and addrx forms), the shapes a
// dieReader must read as debug/dwarf does.
func dieTestBinaries(t testing.TB) []string {
	dir := t.TempDir()
	var bins []string
	for _, c := range []struct {
		cc, ext, src string
		flags        []string
	}{
		{"gcc", ".c", sampleC, []string{"-g", "-O2", "-gdwarf-5"}},
		{"gcc", ".c", sampleC, []string{"-g", "-O2", "-gdwarf-4"}},
		{"g++", ".cc", sampleCC, []string{"-g", "-O2"}},
		{"clang", ".c", sampleC, []string{"-g", "-O2", "-gdwarf-5"}},
		{"clang", ".c", sampleC, []string{"-g", "-O2", "-gdwarf-4"}},
	} {
		if _, err := exec.LookPath(c.cc); err != nil {
			continue
		}
		d := filepath.Join(dir, fmt.Sprintf("%d", len(bins)))
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		bins = append(bins, build(t, d, c.cc, c.ext, c.src, c.flags...))
	}
	return bins
}

// TestDIEReaderMatchesDebugDwarf reads real binaries' DIEs both ways: the
// test programs (make -C testprogs), and programs built here.
func TestDIEReaderMatchesDebugDwarf(t *testing.T) {
	bins := dieTestBinaries(t)
	more, _ := filepath.Glob("../testprogs/bin/*")
	for _, b := range more {
		// Only the programs: the directory also holds a build's lock file
		// (filepath.Glob's * matches a leading dot).
		if f, err := elf.Open(b); err == nil {
			f.Close()
			bins = append(bins, b)
		}
	}
	if len(bins) == 0 {
		t.Skip("no compiler and no test programs")
	}
	for _, b := range bins {
		if n := compareWithDebugDwarf(t, sectionsOf(t, b)); n == 0 {
			t.Errorf("%s: no entries compared", b)
		}
	}
}

// FuzzDIEReader feeds arbitrary sections to the dieReader: it must never
// panic or loop, and wherever debug/dwarf reads an entry it must read the
// same. Seeds: small gcc and clang programs' sections.
func FuzzDIEReader(f *testing.F) {
	for _, b := range dieTestBinaries(f) {
		s := sectionsOf(f, b)
		f.Add(s.info, s.abbrev, s.str, s.addr, s.strOffsets, s.rnglists, s.ranges)
	}
	f.Add([]byte{}, []byte{}, []byte{}, []byte{}, []byte{}, []byte{}, []byte{})
	f.Fuzz(func(t *testing.T, info, abbrev, str, addr, strOffsets, rnglists, ranges []byte) {
		compareWithDebugDwarf(t, dieSections{info: info, abbrev: abbrev, str: str, addr: addr,
			strOffsets: strOffsets, rnglists: rnglists, ranges: ranges})
	})
}

// TestExprIntern checks that loader.expr keeps one copy of each
// expression, short (table) or long (map), in first-seen order.
func TestExprIntern(t *testing.T) {
	l := &loader{exprs: map[string]int32{}}
	in := [][]byte{{}, {0x55}, {0x91, 0x6c}, {0x55}, {0x91, 0x6d}, {0x70, 0x08, 0x9f}, {}, {0x91, 0x6c}, {0x70, 0x08, 0x9f}, {0x01, 0x00}, {0x00, 0x01}}
	want := []int32{0, 1, 2, 1, 3, 4, 0, 2, 4, 5, 6}
	for k, b := range in {
		if got := l.expr(b); got != want[k] {
			t.Errorf("expr(% x) = %d, want %d", b, got, want[k])
		}
	}
	for i, e := range l.exprList {
		if l.expr(e) != int32(i) {
			t.Errorf("exprList[%d] = % x is not found again", i, e)
		}
	}
}
