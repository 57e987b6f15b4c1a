package cfg

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// compileC compiles a C source with gcc into a temporary executable.
func compileC(t testing.TB, src string, flags ...string) string {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not installed")
	}
	dir := t.TempDir()
	c := filepath.Join(dir, "p.c")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "p")
	args := append([]string{"-g", "-o", out, c}, flags...)
	if b, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
		t.Fatalf("gcc %v: %v\n%s", args, err, b)
	}
	return out
}

// imageOf maps the allocated sections of an ELF file.
func imageOf(t testing.TB, f *elf.File) *Image {
	t.Helper()
	img := &Image{}
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_ALLOC == 0 || s.Type == elf.SHT_NOBITS {
			continue
		}
		b, err := s.Data()
		if err != nil {
			t.Fatal(err)
		}
		img.Add(s.Addr, b)
	}
	return img
}

// funcRanges returns the code ranges of the named function and of its
// compiler-made parts (name.cold, name.part.N, ...), from the symbol table.
func funcRanges(t testing.TB, f *elf.File, name string) []Range {
	t.Helper()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	var rs []Range
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Size == 0 {
			continue
		}
		if s.Name == name || len(s.Name) > len(name) && s.Name[:len(name)] == name && s.Name[len(name)] == '.' {
			rs = append(rs, Range{s.Value, s.Value + s.Size})
		}
	}
	if len(rs) == 0 {
		t.Fatalf("no function %s", name)
	}
	return rs
}

func buildFunc(t testing.TB, path, name string) *Graph {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := new(Builder).Build(imageOf(t, f), funcRanges(t, f, name))
	if err != nil {
		t.Fatal(err)
	}
	return g
}
