package dwarfschema

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad feeds arbitrary files to Load and LoadSymbols: they must return
// a schema or an error, never panic, and a schema they return must keep
// its invariants.
// The seed corpus (testdata/fuzz/FuzzLoad) holds small static binaries
// built with gcc (DWARF 4 and 5) and clang, a shared object, a stripped
// binary and truncated copies.
func FuzzLoad(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x7fELF"))
	f.Add([]byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x3e\x00"))
	f.Add([]byte("\x7fELF\x01\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x03\x00"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "in")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Load(p, Options{All: true, DebugDirs: []string{dir}})
		// LoadSymbols reads the same identity and symbols, nothing more:
		// it fails where Load fails before DWARF, and agrees with Load.
		sym, symErr := LoadSymbols(p)
		if symErr == nil {
			checkInvariants(t, sym)
			if s != nil && s.DebugFile == "" {
				if sym.BuildID != s.BuildID || sym.Type != s.Type {
					t.Fatalf("LoadSymbols says %q %s, Load %q %s", sym.BuildID, sym.Type, s.BuildID, s.Type)
				}
				checkAliasesOf(t, sym.Symbols, s.Symbols)
			}
		} else if s != nil {
			t.Fatalf("LoadSymbols failed (%v) where Load gave a schema", symErr)
		}
		if err != nil && s == nil {
			return
		}
		if s == nil {
			t.Fatal("nil schema without an error")
		}
		checkInvariants(t, s)
	})
}
