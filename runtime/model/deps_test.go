package model

import (
	"os/exec"
	"strings"
	"testing"
)

// What the layers must not link (go list -deps): the data model is the
// standard library's alone; the profile file and every reader of profiles
// need no DWARF decoder (delve), disassembler (x86asm) or schema loader;
// the outputs beside the analyzer no statistics library (gonum) either.
const (
	module      = "github.com/vprof/vprof/"
	delve       = "github.com/go-delve/delve"
	x86asm      = "golang.org/x/arch/x86/x86asm"
	gonum       = "gonum.org/v1/gonum"
	dwarfschema = module + "dwarfschema"
)

func TestDeps(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command:", err)
	}
	for _, tc := range []struct {
		pkgs   string // a package or a pattern
		banned []string
	}{
		{module + "runtime/proffile", []string{delve, x86asm, gonum, dwarfschema}},
		{module + "runtime/pcindex", []string{delve, x86asm, gonum, dwarfschema}},
		{module + "runtime/symtab", []string{delve, x86asm, gonum, dwarfschema}},
		{module + "runtime/symname", []string{delve, x86asm, gonum, dwarfschema}},
		{module + "runtime/tailcall", []string{delve, x86asm, gonum, dwarfschema}},
		{module + "analyze/...", []string{delve, x86asm, dwarfschema}},
		{module + "analyze/timeline", []string{delve, x86asm, gonum, dwarfschema}},
		{module + "analyze/export", []string{delve, x86asm, gonum, dwarfschema}},
	} {
		out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, tc.pkgs).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", tc.pkgs, err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			pkg, deps, _ := strings.Cut(line, " ")
			for _, d := range strings.Fields(deps) {
				for _, b := range tc.banned {
					if d == b || strings.HasPrefix(d, b+"/") {
						t.Errorf("%s depends on %s", pkg, d)
					}
				}
			}
		}
	}
	// The model: the standard library only.
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", module+"runtime/model").Output()
	if err != nil {
		t.Fatalf("go list runtime/model: %v", err)
	}
	for _, d := range strings.Fields(string(out)) {
		if d != module+"runtime/model" {
			t.Errorf("runtime/model depends on %s, not the standard library", d)
		}
	}
}
