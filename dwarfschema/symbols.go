package dwarfschema

import (
	"bytes"
	"cmp"
	"debug/elf"
	"fmt"
	"io"
	"strings"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/symname"
)

// LoadSymbols reads the object at path as Load does but only for naming its
// code: the ELF identity (type, build-id) and the function symbols, as
// Symbols (one per address and size: no aliases) and as Funcs, with no
// DWARF work (HasDWARF false, no Vars, Locs
// or CallSites, even if the object has debugging information). It is the
// schema of a shared library or of the dynamic loader, whose frames the
// sampler passes through (method.md §3), and it is fast: the C library's
// takes a few milliseconds (BenchmarkLoadSymbols).
func LoadSymbols(path string) (*model.Schema, error) {
	f, ef, err := openPath(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return loadSymbols(path, ef)
}

// LoadSymbolsFrom is LoadSymbols on an image read from r (size bytes), such
// as the vDSO copied from a process's memory; name is the Schema's Path
// and what errors name.
func LoadSymbolsFrom(name string, r io.ReaderAt, size int64) (*model.Schema, error) {
	ef, err := openELF(name, r, size)
	if err != nil {
		return nil, err
	}
	return loadSymbols(name, ef)
}

// loadSymbols keeps one symbol per address and size, the alias that names
// the function: the others name nothing more, and the schema is stored in
// every profile (the C library has some 600 aliases).
func loadSymbols(name string, ef *elf.File) (*model.Schema, error) {
	s, err := symbolSchema(name, ef)
	if err != nil {
		return nil, err
	}
	syms := make([]model.Symbol, 0, len(s.Symbols))
	for i := range s.Symbols {
		if _, ok := aliasName(s.Symbols, i); ok {
			syms = append(syms, s.Symbols[i])
		}
	}
	s.Symbols = withPLT(ef, syms)
	s.Funcs = funcsFromSymbols(nil, s.Symbols)
	return s, nil
}

// symbolSchema is what Load and LoadSymbols read first: the identity of ef
// (type, build-id) and its function symbols.
func symbolSchema(name string, ef *elf.File) (*model.Schema, error) {
	s := &model.Schema{Path: name, Type: "exec", BuildID: buildID(ef)}
	if ef.Type == elf.ET_DYN {
		s.Type = "dyn"
	}
	syms, err := readSymbols(ef)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s.Symbols = syms
	return s, nil
}

// LoadSymbolsImage is LoadSymbolsFrom on an image in memory.
func LoadSymbolsImage(name string, image []byte) (*model.Schema, error) {
	return LoadSymbolsFrom(name, bytes.NewReader(image), int64(len(image)))
}

// aliasName returns the function name of syms[i] (sorted by Value), and
// false when another symbol of the same address and size names it better,
// so that aliases give one function: the C library's lseek, lseek64 and
// __lseek; fgets and _IO_fgets; a C++ constructor's C1 and C2 entries. The
// best name has the fewest leading underscores (the public name, not the
// internal one), then is the shortest (lseek before lseek64), then the
// first in byte order.
func aliasName(syms []model.Symbol, i int) (string, bool) {
	name := symname.FuncName(syms[i].Name)
	v, size := syms[i].Value, syms[i].Size
	lo := i
	for lo > 0 && syms[lo-1].Value == v {
		lo--
	}
	for j := lo; j < len(syms) && syms[j].Value == v; j++ {
		if j == i || syms[j].Size != size {
			continue
		}
		other := symname.FuncName(syms[j].Name)
		if c := compareAliases(other, name); c < 0 || (c == 0 && j < i) {
			return name, false
		}
	}
	return name, true
}

func compareAliases(a, b string) int {
	ua := len(a) - len(strings.TrimLeft(a, "_"))
	ub := len(b) - len(strings.TrimLeft(b, "_"))
	if ua != ub {
		return cmp.Compare(ua, ub)
	}
	if len(a) != len(b) {
		return cmp.Compare(len(a), len(b))
	}
	return strings.Compare(a, b)
}
