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
// One exception: the analyzer reads the DWARF expressions a profile carries
// (whether a variable is located as an entry value, method.md D335) with
// runtime/dwarfexpr, which names opcodes with delve's op package; it links
// that package's closure (exprDecoder) and nothing else of delve: no
// loader, frame or line-table reader.
const (
	module      = "github.com/vprof/vprof/"
	delve       = "github.com/go-delve/delve"
	x86asm      = "golang.org/x/arch/x86/x86asm"
	gonum       = "gonum.org/v1/gonum"
	dwarfschema = module + "dwarfschema"
)

// exprDecoder is delve's op package and what it imports: the expression
// decoder runtime/dwarfexpr builds on.
var exprDecoder = map[string]bool{
	delve + "/pkg/dwarf":        true,
	delve + "/pkg/dwarf/op":     true,
	delve + "/pkg/dwarf/leb128": true,
	delve + "/pkg/dwarf/regnum": true,
}

func TestDeps(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command:", err)
	}
	for _, tc := range []struct {
		pkgs   string // a package or a pattern
		banned []string
		exprs  bool // runtime/dwarfexpr's decoder allowed (exprDecoder)
	}{
		{module + "runtime/proffile", []string{delve, x86asm, gonum, dwarfschema}, false},
		{module + "runtime/pcindex", []string{delve, x86asm, gonum, dwarfschema}, false},
		{module + "runtime/symtab", []string{delve, x86asm, gonum, dwarfschema}, false},
		{module + "runtime/symname", []string{delve, x86asm, gonum, dwarfschema}, false},
		{module + "runtime/tailcall", []string{delve, x86asm, gonum, dwarfschema}, false},
		{module + "analyze/...", []string{delve, x86asm, dwarfschema}, true},
		{module + "analyze/timeline", []string{delve, x86asm, gonum, dwarfschema}, false},
		{module + "analyze/export", []string{delve, x86asm, gonum, dwarfschema}, false},
	} {
		out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, tc.pkgs).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", tc.pkgs, err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			pkg, deps, _ := strings.Cut(line, " ")
			for _, d := range strings.Fields(deps) {
				if tc.exprs && exprDecoder[d] {
					continue
				}
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
