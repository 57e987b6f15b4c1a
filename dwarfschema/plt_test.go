package dwarfschema

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/pcindex"
)

// objdumpPLT returns the PLT stubs objdump -d names in path's PLT sections:
// address -> name ("realloc@plt"), as objdump's synthetic symbols give them.
func objdumpPLT(t *testing.T, path string) map[uint64]string {
	t.Helper()
	objdump, err := exec.LookPath("objdump")
	if err != nil {
		t.Skip("no objdump")
	}
	out, err := exec.Command(objdump, "-d", "-j", ".plt", "-j", ".plt.sec", "-j", ".plt.got", path).Output()
	if err != nil {
		t.Fatalf("objdump -d %s: %v", path, err)
	}
	m := map[uint64]string{}
	re := regexp.MustCompile(`(?m)^([0-9a-f]+) <(.+@plt)>:$`)
	for _, g := range re.FindAllStringSubmatch(string(out), -1) {
		a, _ := strconv.ParseUint(g[1], 16, 64)
		m[a] = g[2]
	}
	return m
}

// checkPLT compares the PLT symbols of s (a schema of path) with
// objdump's: every stub objdump names by a symbol is named so, at the
// same address, and a PC inside it resolves to it through the schema's
// functions (what a sample there is charged to). objdump names an
// IRELATIVE stub by its addend (*ABS*+0x9f550@plt); vprof by the
// function symbol there, if any.
func checkPLT(t *testing.T, path string, s *model.Schema) {
	t.Helper()
	want := objdumpPLT(t, path)
	if len(want) == 0 {
		t.Fatalf("%s: objdump names no PLT stub", path)
	}
	got := map[uint64]string{}
	for _, sy := range s.Symbols {
		if strings.HasSuffix(sy.Name, "@plt") {
			got[sy.Value] = sy.Name
		}
	}
	ix := pcindex.New(s)
	named, abs := 0, 0
	for a, w := range want {
		g, ok := got[a]
		if strings.HasPrefix(w, "*ABS*") {
			abs++
			if ok {
				named++
			}
			continue
		}
		// objdump keeps a symbol's version (memcpy@GLIBC_2.14@plt): the
		// function is what comes before it.
		if i := strings.IndexByte(w, '@'); i > 0 {
			w = w[:i] + "@plt"
		}
		if g != w {
			t.Errorf("%s: stub at %#x named %q, objdump %q", path, a, g, w)
			continue
		}
		named++
		if f, ok := ix.Func(a + 6); !ok || s.Funcs[f].Name != w {
			name := ""
			if ok {
				name = s.Funcs[f].Name
			}
			t.Errorf("%s: pc %#x in stub %s resolves to function %d %q", path, a+6, w, f, name)
		}
	}
	// objdump names an IBT binary's .plt.sec stubs only; vprof names
	// the lazy stubs of its .plt too (a sample there is the first call's
	// jump to the resolver), by the same names.
	wantNames := map[string]bool{}
	for _, w := range want {
		wantNames[w] = true
	}
	ef, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	lazy := ef.Section(".plt")
	ibt := ef.Section(".plt.sec") != nil
	for a, g := range got {
		if _, ok := want[a]; ok {
			continue
		}
		if ibt && lazy != nil && a >= lazy.Addr && a < lazy.Addr+lazy.Size && wantNames[g] {
			continue
		}
		t.Errorf("%s: stub %s at %#x that objdump does not name", path, g, a)
	}
	t.Logf("%s: %d of %d stubs objdump names are named (%d IRELATIVE stubs objdump names by address)", path, named, len(want), abs)
}

// TestPLTSymbolsLibc: the C library's PLT (lazy stubs, IRELATIVE calls of
// its own IFUNCs, .plt.got), read as the sampler reads a library.
func TestPLTSymbolsLibc(t *testing.T) {
	out, err := exec.Command("gcc", "-print-file-name=libc.so.6").Output()
	libc := strings.TrimSpace(string(out))
	if err != nil || !filepath.IsAbs(libc) {
		t.Skip("no libc.so.6 found by gcc")
	}
	s, err := LoadSymbols(libc)
	if err != nil {
		t.Fatal(err)
	}
	checkPLT(t, libc, s)
	// The stub of the test's sample (exports_test.go): __tunable_get_val,
	// ld.so's, called from libc's start-up.
	found := false
	for _, sy := range s.Symbols {
		found = found || sy.Name == "__tunable_get_val@plt"
	}
	if !found {
		t.Errorf("libc: no __tunable_get_val@plt")
	}
}

// TestPLTSymbolsProgram: a program built here, with and without IBT's
// second PLT (-fcf-protection, -z ibtplt: lazy stubs that push their
// index, .plt.sec stubs that jump), loaded with its DWARF: the stubs are
// functions of the schema, after the DWARF's.
func TestPLTSymbolsProgram(t *testing.T) {
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("no gcc")
	}
	src := filepath.Join(t.TempDir(), "p.c")
	code := `#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
	char *p = malloc(64);
	strcpy(p, argv[0]);
	void (*f)(void *) = free;
	printf("%zu\n", strlen(p));
	f(p);
	return 0;
}
`
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		flags []string
	}{
		{"lazy", []string{"-fcf-protection=none"}},
		{"ibt", []string{"-fcf-protection=full", "-Wl,-z,ibtplt"}},
		{"now", []string{"-fcf-protection=none", "-Wl,-z,now"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bin := filepath.Join(t.TempDir(), "p")
			args := append([]string{"-g", "-O1", "-o", bin, src}, tc.flags...)
			if out, err := exec.Command(gcc, args...).CombinedOutput(); err != nil {
				t.Skipf("gcc %v: %v\n%s", args, err, out)
			}
			s, err := Load(bin, Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkPLT(t, bin, s)
			for _, want := range []string{"malloc@plt", "free@plt", "strlen@plt"} {
				ok := false
				for _, f := range s.Funcs {
					ok = ok || f.Name == want && f.Display == want
				}
				if !ok {
					t.Errorf("no function %s", want)
				}
			}
		})
	}
}

// TestPLTSymbolsServers: the C servers of docs/benchmarks.md, when built
// under /work/real.
func TestPLTSymbolsServers(t *testing.T) {
	for _, p := range []string{"/work/real/nginx/objs/nginx", "/work/real/redis-schema/src/redis-server"} {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		s, err := LoadSymbols(p)
		if err != nil {
			t.Fatal(err)
		}
		checkPLT(t, p, s)
	}
}

// TestStubTarget: the stub layouts, decoded from their bytes.
func TestStubTarget(t *testing.T) {
	got := map[uint64]string{0x2000: "f", 0x3000: "g"}
	rela := []string{"a", "b"}
	jmp := func(at, slot uint64, pre ...byte) []byte {
		end := at + uint64(len(pre)) + 6
		d := int32(int64(slot) - int64(end))
		b := append(pre, 0xff, 0x25, byte(d), byte(d>>8), byte(d>>16), byte(d>>24))
		for len(b) < 16 {
			b = append(b, 0x90)
		}
		return b
	}
	endbr := []byte{0xf3, 0x0f, 0x1e, 0xfa}
	for _, tc := range []struct {
		name string
		code []byte
		at   uint64
		want string
	}{
		{"lazy", jmp(0x1010, 0x2000), 0x1010, "f"},
		{"ibt sec", jmp(0x1020, 0x3000, append(endbr, 0xf2)...), 0x1020, "g"},
		{"bnd", jmp(0x1030, 0x2000, 0xf2), 0x1030, "f"},
		{"unknown slot", jmp(0x1040, 0x2008), 0x1040, ""},
		{"ibt lazy push", append(append([]byte{}, endbr...), 0x68, 1, 0, 0, 0, 0xf2, 0xe9, 0, 0, 0, 0, 0x90), 0x1050, "b"},
		{"push out of range", []byte{0x68, 9, 0, 0, 0, 0xe9, 0, 0, 0, 0}, 0x1060, ""},
		{"resolver", []byte{0xff, 0x35, 1, 2, 3, 4, 0xff, 0x25, 1, 2, 3, 4}, 0x1000, ""},
		{"short", []byte{0xff, 0x25, 1}, 0x1000, ""},
	} {
		if g := stubTarget(tc.code, tc.at, got, rela); g != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, g, tc.want)
		}
	}
}

// BenchmarkPLTSymbols: what naming the C library's PLT stubs adds to
// LoadSymbols (BenchmarkLoadSymbols, which includes it): the relocations
// and the dynamic symbol table, read again.
func BenchmarkPLTSymbols(b *testing.B) {
	out, err := exec.Command("gcc", "-print-file-name=libc.so.6").Output()
	libc := strings.TrimSpace(string(out))
	if err != nil || !filepath.IsAbs(libc) {
		b.Skip("no libc.so.6 found by gcc")
	}
	ef, err := elf.Open(libc)
	if err != nil {
		b.Fatal(err)
	}
	defer ef.Close()
	syms, err := readSymbols(ef)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var plt []model.Symbol
	for b.Loop() {
		plt = pltSymbols(ef, syms)
	}
	b.ReportMetric(float64(len(plt)), "stubs")
}
