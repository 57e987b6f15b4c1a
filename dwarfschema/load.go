package dwarfschema

import (
	"bytes"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/symname"
)

// Options selects what Load keeps. Functions are always all kept (the
// sampler needs them to name stack frames); the filters select variables.
type Options struct {
	// Components keeps only variables declared in source files whose path
	// starts with one of these prefixes (method.md §2, --component). A
	// relative prefix is also matched against the path relative to the
	// compilation directory, so "src/" selects /build/proj/src/a.c when the
	// project was compiled in /build/proj. Empty keeps all.
	Components []string
	// FuncRegex keeps only locals and parameters of functions whose linkage
	// Name or Display name it matches (--func). Globals have no function:
	// they are kept only if FuncRegex matches "#global" (so --func
	// 'lookup|#global' keeps lookup's variables and the globals).
	FuncRegex *regexp.Regexp
	// DebugDirs are the roots searched for separate debug files (by build-id
	// and .gnu_debuglink). Nil means /usr/lib/debug.
	DebugDirs []string
	// All keeps locals and parameters without any tag (by default Load drops
	// them, method.md §2): the full view of what DWARF describes.
	All bool
	// NoFields makes no field variables (method.md §2): struct globals are
	// one hash each and nothing is read behind pointers, as before issue
	// 14. For measuring what fields cost (make bench).
	NoFields bool
	// StrLens adds a string length variable for each monitored local or
	// parameter of type pointer to char (method.md §2, decision D140:
	// vprof record --strlen).
	StrLens bool
}

// walkGCPercent is the collector's goal (GOGC) while the DIEs are walked.
const walkGCPercent = 200

// gcGoal sets the collector's goal (GOGC) to percent for one step of Load
// and returns what puts the old goal back. Where collections are off or
// paused (GOGC=off, or a recording's start, which pauses them under a
// heap limit until the first collection the limit forces: sampler/gc.go)
// it changes nothing: putting the pause's -1 back after a collection in
// the step had ended the pause would leave collections off, with no
// limit, for the rest of the recording.
func gcGoal(percent int) (restore func()) {
	old := debug.SetGCPercent(percent)
	if old < 0 {
		debug.SetGCPercent(old)
		return func() {}
	}
	return func() { debug.SetGCPercent(old) }
}

// ErrNoDWARF is wrapped by Load's error for a binary without debugging
// information; the Schema returned with it still lists functions from the
// symbol table.
var ErrNoDWARF = errors.New("no DWARF debugging information")

// Load reads the ELF64 x86-64 executable or shared object at path (and its
// separate debug file, if any) and builds its Schema.
//
// Errors name the file and what is wrong. For a binary without DWARF, Load
// returns a Schema with HasDWARF false, Funcs and Symbols from the symbol
// table, and an error wrapping ErrNoDWARF that says how to get DWARF.
func Load(path string, opt Options) (*model.Schema, error) {
	ph := startPhases()
	f, ef, err := openPath(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s, err := symbolSchema(path, ef)
	if err != nil {
		return nil, err
	}
	dw, dwPath, err := findDWARF(path, ef, s.BuildID, opt.DebugDirs)
	if err != nil {
		return nil, err
	}
	if dw == nil {
		s.Symbols = withPLT(ef, s.Symbols)
		s.Funcs = funcsFromSymbols(nil, s.Symbols)
		return s, fmt.Errorf("%s: %w: build it with -g, or install its debug symbols "+
			"(Debian: the -dbgsym package, into /usr/lib/debug)", path, ErrNoDWARF)
	}
	defer dw.close()
	if dwPath != path {
		s.DebugFile = dwPath
		// A stripped binary's own .symtab is gone; the debug file keeps it.
		if len(s.Symbols) == 0 || !hasSection(ef, ".symtab") {
			if ds, err := readSymbols(dw.ef); err == nil && len(ds) > len(s.Symbols) {
				s.Symbols = ds
			}
		}
	}
	// The PLT stubs' names come from the binary: a debug file has no
	// code.
	s.Symbols = withPLT(ef, s.Symbols)
	s.HasDWARF = true
	ph.end("open")
	// The walk's records are all read by build, and the collections in
	// the middle of the walk (at 22, 45 and 79 MB of heap on
	// redis-server) free little of what they mark: a goal of 3x what is
	// live, not 2x, leaves one (at 33 MB). The heap at the walk's end
	// stays under build's peak (redis-server 85 MB against 90; gold 404
	// MB against 427, where main's walk reached 474 and GOGC 400's 515:
	// 7% more peak RSS; docs/benchmarks.md, hschema7).
	restoreGC := gcGoal(walkGCPercent)
	ci := startCallInfo(dw.dies, s.Symbols) // while the loader walks the DIEs
	l := newLoader(s, opt, dw)
	err = l.read()
	<-ci.done // dw is closed on return, and released below
	restoreGC()
	ph.end("walk")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dwPath, err)
	}
	// Each phase drops what the next does not need and the collector
	// runs at once, so that the heap's next goal is twice what is live
	// then, not twice what was live at a collection in the middle of the
	// phase before (on redis-server, 121 MB of peak RSS against 85). The
	// pages freed stay with the process for the next phase's allocations
	// (runtime.GC, not debug.FreeOSMemory): returned, each phase faulted
	// its peak in again, and the faults cost more than the pages kept
	// (redis-server, 2026-11-27: 42,000 faults a run against 61,000,
	// system CPU 0.57 s against 0.86; peak RSS 120 MB against 110, gdb
	// -readnow's 133; docs/benchmarks.md, issue 18's thirteenth pass).
	// The records are read: the sections go before build() makes the
	// schema.
	dw.release()
	runtime.GC()
	// build makes the schema beside the records it reads: the heap's
	// peak. A goal of 1.5x what is live there, not 2x, keeps vprof's
	// peak RSS under gdb -readnow's on redis-server (65 MB against 68,
	// for 0.05 s more CPU; gold: 484 MB against 586 at GOGC 100).
	restoreGC = gcGoal(50)
	err = l.build()
	restoreGC()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dwPath, err)
	}
	// The schema is made: the records go before the tagger's own
	// allocations.
	l.release()
	runtime.GC()
	ph.end("build")
	// The globals, found before tagging: the tagger notes where code
	// reads them while it has the code decoded, for narrowGlobals.
	gl := newGlobalSet(s, ef, nil)
	stored, read, xtags, walks, err := inferTagsWith(s, ef, ci, gl, l.extras)
	if err != nil {
		return nil, fmt.Errorf("%s: inferring tags: %w", path, err)
	}
	read = useExtras(s, read, l.fieldDecl, l.extras, xtags)
	if newV := trimFields(s, read, l.fieldDecl); newV != nil {
		stored = renumber(stored, newV)
		l.replaced = renumber(l.replaced, newV)
	}
	l.fieldDecl, l.extras = nil, nil
	inheritFieldTags(s, stored)
	if !opt.All {
		l.replaced = renumber(l.replaced, dropUntagged(s))
	}
	var keep func(model.FuncID) bool
	for _, c := range opt.Components {
		if c != "" {
			s.Components = append(s.Components, c)
		}
	}
	if len(s.Components) > 0 {
		for i, f := range s.Files {
			if l.inComponent(int32(i)) {
				s.ComponentFiles = append(s.ComponentFiles, f)
			}
		}
	}
	if len(opt.Components) > 0 {
		keep = func(fn model.FuncID) bool {
			return fn >= 0 && int(fn) < len(s.Funcs) && l.inComponent(s.Funcs[fn].File)
		}
	}
	ph.end("tags")
	runtime.GC() // the tagger's garbage, before narrowGlobals' copy of the Locs
	for _, w := range walks {
		gl.spareLocs += len(w.W.Ranges)
	}
	narrowGlobals(s, ef, keep, gl)
	dropReplaced(s, l.replaced)
	ph.end("narrow")
	addWalks(s, walks, func(fn model.FuncID) bool {
		if keep != nil && !keep(fn) {
			return false
		}
		f := &s.Funcs[fn]
		return opt.FuncRegex == nil || opt.FuncRegex.MatchString(f.Name) || opt.FuncRegex.MatchString(f.Display)
	})
	if opt.StrLens {
		addStrLens(s)
	}
	return s, nil
}

// openPath opens the file at path and checks it with openELF. The caller
// closes the file.
func openPath(path string) (*os.File, *elf.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err // *PathError already names the file
	}
	st, err := f.Stat()
	if err == nil && st.IsDir() {
		err = fmt.Errorf("%s: is a directory, not an ELF file", path)
	}
	var ef *elf.File
	if err == nil {
		ef, err = openELF(path, f, st.Size())
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, ef, nil
}

// openELF checks that r is an ELF64 x86-64 executable or shared object whose
// sections all lie within the file.
func openELF(path string, r io.ReaderAt, size int64) (*elf.File, error) {
	return openELFKind(path, r, size, false)
}

// openELFKind is openELF; anyType accepts any ELF type (dwz writes its
// supplementary files as ET_REL).
func openELFKind(path string, r io.ReaderAt, size int64, anyType bool) (*elf.File, error) {
	var ident [elf.EI_NIDENT]byte
	if n, _ := r.ReadAt(ident[:], 0); n < 4 || !bytes.Equal(ident[:4], []byte(elf.ELFMAG)) {
		return nil, fmt.Errorf("%s: not an ELF file (no \\x7fELF magic)", path)
	}
	if size < elf.EI_NIDENT {
		return nil, fmt.Errorf("%s: truncated ELF file (%d bytes)", path, size)
	}
	switch elf.Class(ident[elf.EI_CLASS]) {
	case elf.ELFCLASS64:
	case elf.ELFCLASS32:
		return nil, fmt.Errorf("%s: 32-bit ELF (ELFCLASS32); vprof reads 64-bit x86-64 executables and shared objects only", path)
	default:
		return nil, fmt.Errorf("%s: ELF file with invalid class %d", path, ident[elf.EI_CLASS])
	}
	ef, err := elf.NewFile(r)
	if err != nil {
		if size < 64 {
			return nil, fmt.Errorf("%s: truncated ELF file (%d bytes, the ELF64 header alone is 64)", path, size)
		}
		return nil, fmt.Errorf("%s: corrupt or truncated ELF file: %w", path, err)
	}
	if ef.Machine != elf.EM_X86_64 {
		return nil, fmt.Errorf("%s: ELF for %v; vprof supports x86-64 (EM_X86_64) only", path, ef.Machine)
	}
	switch ef.Type {
	case elf.ET_EXEC, elf.ET_DYN:
	case elf.ET_REL:
		if anyType {
			break
		}
		return nil, fmt.Errorf("%s: relocatable object file (ET_REL); link it into an executable or shared object first", path)
	default:
		if !anyType {
			return nil, fmt.Errorf("%s: ELF type %v; vprof reads executables and shared objects", path, ef.Type)
		}
	}
	for _, sec := range ef.Sections {
		if sec.Type == elf.SHT_NOBITS || sec.Type == elf.SHT_NULL {
			continue
		}
		if end := sec.Offset + sec.FileSize; end < sec.Offset || end > uint64(size) {
			return nil, fmt.Errorf("%s: truncated file: section %s ends at byte %d but the file has %d bytes", path, sec.Name, end, size)
		}
	}
	return ef, nil
}

func hasSection(ef *elf.File, name string) bool { return ef.Section(name) != nil }

// buildID returns the hex NT_GNU_BUILD_ID of ef, or "".
func buildID(ef *elf.File) string {
	for _, sec := range ef.Sections {
		if sec.Type != elf.SHT_NOTE {
			continue
		}
		b, err := sec.Data()
		if err != nil {
			continue
		}
		for len(b) >= 12 {
			bo := ef.ByteOrder
			namesz, descsz, typ := bo.Uint32(b), bo.Uint32(b[4:]), bo.Uint32(b[8:])
			b = b[12:]
			nlen, dlen := align4(uint64(namesz)), align4(uint64(descsz))
			if nlen > uint64(len(b)) || dlen > uint64(len(b))-nlen {
				break
			}
			name := b[:namesz]
			desc := b[nlen : nlen+uint64(descsz)]
			b = b[nlen+dlen:]
			if typ == 3 && string(name) == "GNU\x00" { // NT_GNU_BUILD_ID
				return hex.EncodeToString(desc)
			}
		}
	}
	return ""
}

func align4(n uint64) uint64 { return (n + 3) &^ 3 }

// readSymbols returns the STT_FUNC and STT_GNU_IFUNC symbols that define
// code, from .symtab, or .dynsym when there is no .symtab; sorted by Value.
func readSymbols(ef *elf.File) ([]model.Symbol, error) {
	syms, err := ef.Symbols()
	if errors.Is(err, elf.ErrNoSymbols) || (err == nil && len(syms) == 0) {
		syms, err = ef.DynamicSymbols()
	}
	if errors.Is(err, elf.ErrNoSymbols) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading symbol table: %w", err)
	}
	out := make([]model.Symbol, 0, len(syms)/2)
	for _, sy := range syms {
		t := elf.ST_TYPE(sy.Info)
		if t != elf.STT_FUNC && t != elf.STT_GNU_IFUNC {
			continue
		}
		if sy.Section == elf.SHN_UNDEF || sy.Value == 0 {
			continue
		}
		if symname.FuncName(sy.Name) == "" || sy.Value+sy.Size < sy.Value {
			// A function symbol with no name, or one that runs past the
			// end of the address space (a damaged table), names nothing:
			// every function of a schema has a name and non-empty ranges.
			continue
		}
		out = append(out, model.Symbol{Name: sy.Name, Value: sy.Value, Size: sy.Size})
	}
	slices.SortStableFunc(out, func(a, b model.Symbol) int {
		if a.Value != b.Value {
			if a.Value < b.Value {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out, nil
}

// dwarfFile is an opened DWARF source: the binary itself or its separate
// debug file.
type dwarfFile struct {
	ef   *elf.File
	osf  *os.File // nil when ef is the binary itself (its file is closed by Load)
	info []byte   // .debug_info, for unit headers
	loc  []byte   // .debug_loc (DWARF 2-4)
	locl []byte   // .debug_loclists (DWARF 5)
	addr []byte   // .debug_addr (DWARF 5)
	str  []byte   // .debug_str (read for a supplementary file's strings)
	line []byte   // .debug_line

	// For dieData: the rest of what DIEs refer to.
	abbrev, lineStr, strOffsets, rnglists, ranges []byte
	dies                                          *dieData

	sup     *dwarfFile // supplementary file (dwz's .gnu_debugaltlink, DWARF 5 .debug_sup)
	hasCode bool       // ef has the program's code (not a debug-only file)
}

// release drops the section data once the DIEs are read (the file
// stays open until close).
func (w *dwarfFile) release() {
	w.dies = nil
	w.info, w.loc, w.locl, w.addr, w.str, w.line = nil, nil, nil, nil, nil, nil
	w.abbrev, w.lineStr, w.strOffsets, w.rnglists, w.ranges = nil, nil, nil, nil, nil
	if w.sup != nil {
		w.sup.release()
	}
}

func (w *dwarfFile) close() {
	if w.osf != nil {
		w.osf.Close()
	}
	if w.sup != nil {
		w.sup.close()
	}
}

// loadDWARF reads the DWARF sections of ef that the DIE reader and the line
// tables use (not through debug/dwarf: dwarf.New parsed every unit and
// abbreviation table a second time, for nothing the schema reads). It
// returns nil, nil when ef has no .debug_info.
func loadDWARF(path string, ef *elf.File) (*dwarfFile, error) {
	sec := map[string][]byte{}
	for _, s := range ef.Sections {
		var suffix string
		switch {
		case strings.HasPrefix(s.Name, ".debug_"):
			suffix = s.Name[len(".debug_"):]
		case strings.HasPrefix(s.Name, ".zdebug_"):
			suffix = s.Name[len(".zdebug_"):]
		default:
			continue
		}
		switch suffix {
		case "info", "abbrev", "str", "line", "line_str", "str_offsets", "addr", "rnglists", "ranges", "loc", "loclists":
		default:
			continue // not read (aranges, macro, types, frame, ...)
		}
		if s.Type == elf.SHT_NOBITS {
			continue
		}
		b, err := sectionData(s)
		if err != nil {
			return nil, fmt.Errorf("%s: reading section %s: %w", path, s.Name, err)
		}
		sec[suffix] = b
	}
	if len(sec["info"]) == 0 {
		return nil, nil
	}
	w := &dwarfFile{ef: ef, info: sec["info"], loc: sec["loc"], locl: sec["loclists"], addr: sec["addr"], str: sec["str"], line: sec["line"],
		abbrev: sec["abbrev"], lineStr: sec["line_str"], strOffsets: sec["str_offsets"], rnglists: sec["rnglists"], ranges: sec["ranges"]}
	var err error
	if w.dies, err = newDieData(w); err != nil {
		return nil, fmt.Errorf("%s: bad DWARF: %w", path, err)
	}
	return w, nil
}
