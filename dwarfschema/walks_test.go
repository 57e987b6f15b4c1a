package dwarfschema

import (
	"strings"
	"testing"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/testprogs"
)

// TestWalkVariables checks the synthetic walk variables (method.md §2,
// D118) on the test programs whose root cause walks a chain with a
// cursor that gcc -O2 keeps in a register no variable of the function
// names over the loop: the root cause gets `<walk@LINE>`, at the line of
// its walk (its test or its step), a pointer tagged loop that lives in a register over code of
// that line; and a schema without it loses nothing else.
func TestWalkVariables(t *testing.T) {
	progs, err := testprogs.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"glyph_cache", "heap_firstfit"} {
		t.Run(name, func(t *testing.T) {
			var p *testprogs.Program
			for i := range progs {
				if progs[i].Name == name {
					p = &progs[i]
				}
			}
			if p == nil {
				t.Fatalf("%s not in the manifest", name)
			}
			s, err := Load(testprogs.Path(t, name), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.CheckValid(); err != nil {
				t.Fatal(err)
			}
			var walk model.VarID = -1
			for i := range s.Vars {
				v := &s.Vars[i]
				if v.Func >= 0 && s.Funcs[v.Func].Name == p.RootCauseFunction && strings.HasPrefix(v.Name, WalkPrefix) {
					walk = model.VarID(i)
				}
			}
			if walk < 0 {
				t.Fatalf("%s has no %s...> variable", p.RootCauseFunction, WalkPrefix)
			}
			v := &s.Vars[walk]
			// Its line is the chasing load's: the loop's test or its step.
			if d := int(v.Line) - p.RootCauseLine; v.Kind != model.KindPointer || v.Size != 8 || v.Tags != model.TagLoop || d < 0 || d > 1 {
				t.Errorf("%s: kind %v size %d tags %v line %d, want a pointer of 8 bytes tagged loop at line %d or the next",
					v.Name, v.Kind, v.Size, v.Tags, v.Line, p.RootCauseLine)
			}
			onLine := false
			n := 0
			for _, l := range s.Locs {
				if l.Var != walk {
					continue
				}
				n++
				if l.Kind != model.LocReg || l.Size != 8 {
					t.Errorf("location %+v, want a register", l)
				}
				// The row in effect at the start, and those inside.
				for k, r := range s.Lines {
					inside := r.PC >= l.PCStart && r.PC < l.PCEnd
					atStart := r.PC <= l.PCStart && (k+1 == len(s.Lines) || s.Lines[k+1].PC > l.PCStart)
					if (inside || atStart) && int(r.Line) == int(v.Line) {
						onLine = true
					}
				}
			}
			if n == 0 || !onLine {
				t.Errorf("%d locations, on line %d: %v", n, v.Line, onLine)
			}
		})
	}
}
