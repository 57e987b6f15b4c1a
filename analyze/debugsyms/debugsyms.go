// Package debugsyms names library code that the library's own symbol
// table does not, from the library's separate debug file.
package debugsyms

import (
	"debug/elf"
	"path/filepath"
	"sort"
)

// Dir is where separate debug files are looked up by build-id
// (<Dir>/.build-id/xx/yyyy.debug), as gdb and the schema loader do.
var Dir = "/usr/lib/debug"

// Table names library code that the library's own symbol table does
// not (a distribution's stripped libc keeps only its exported symbols:
// memset's AVX2 variant, __libc_start_call_main are local): from the
// symbol table of the library's separate debug file, found by build-id,
// when one is installed (Debian: libc6-dbg, the -dbgsym packages). Files
// are read once per build-id. The zero Table is ready to use; it is not
// safe for concurrent use.
type Table struct {
	byID map[string][]elf.Symbol // sorted by Value; nil: none found
}

// Name returns the function symbol of the object with build-id id that
// holds link-time address link.
func (d *Table) Name(id string, link uint64) (string, bool) {
	if len(id) < 3 {
		return "", false
	}
	if d.byID == nil {
		d.byID = map[string][]elf.Symbol{}
	}
	syms, ok := d.byID[id]
	if !ok {
		syms = readDebugSyms(filepath.Join(Dir, ".build-id", id[:2], id[2:]+".debug"))
		d.byID[id] = syms
	}
	i := sort.Search(len(syms), func(i int) bool { return syms[i].Value > link }) - 1
	if i < 0 || link >= syms[i].Value+max(syms[i].Size, 1) {
		return "", false
	}
	return syms[i].Name, true
}

// readDebugSyms reads the function symbols of a debug file, sorted by
// address; nil when there is no such file or it has none.
func readDebugSyms(path string) []elf.Symbol {
	ef, err := elf.Open(path)
	if err != nil {
		return nil
	}
	defer ef.Close()
	all, err := ef.Symbols()
	if err != nil {
		return nil
	}
	var out []elf.Symbol
	for _, s := range all {
		t := elf.ST_TYPE(s.Info)
		if (t == elf.STT_FUNC || t == elf.STT_GNU_IFUNC) && s.Value != 0 && s.Section != elf.SHN_UNDEF {
			out = append(out, s)
		}
	}
	// Aliases share an address: keep the global one, else the first by name.
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Value != out[j].Value {
			return out[i].Value < out[j].Value
		}
		gi, gj := elf.ST_BIND(out[i].Info) == elf.STB_GLOBAL, elf.ST_BIND(out[j].Info) == elf.STB_GLOBAL
		if gi != gj {
			return gi
		}
		return out[i].Name < out[j].Name
	})
	w := 0
	for i := range out {
		if w > 0 && out[w-1].Value == out[i].Value {
			continue
		}
		out[w] = out[i]
		w++
	}
	return out[:w]
}
