package dwarfschema

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vprof/vprof/dwarfschema/cfg"
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

// TestAddWalksOrder: the walk variables do not depend on the order the
// tagger's workers gave the walks in (which worker analysed which
// function): walks of one function and register over code of one span
// (a tie in the order addWalks needs) come out alike from every order,
// including which of them is nested in another and dropped.
func TestAddWalksOrder(t *testing.T) {
	w := func(f int32, reg int16, load uint64, rs ...cfg.Range) funcWalk {
		return funcWalk{F: f, W: cfg.Walk{Reg: reg, Load: load, Ranges: rs}}
	}
	cases := []struct {
		name  string
		walks []funcWalk
		want  int // walk variables
	}{
		{"one span, two loads", []funcWalk{
			w(0, 3, 0x108, cfg.Range{Lo: 0x100, Hi: 0x110}, cfg.Range{Lo: 0x120, Hi: 0x130}),
			w(0, 3, 0x104, cfg.Range{Lo: 0x100, Hi: 0x110}, cfg.Range{Lo: 0x120, Hi: 0x130}),
		}, 1},
		{"one span, one inside the other", []funcWalk{
			w(0, 3, 0x104, cfg.Range{Lo: 0x100, Hi: 0x130}),
			w(0, 3, 0x108, cfg.Range{Lo: 0x100, Hi: 0x110}, cfg.Range{Lo: 0x120, Hi: 0x130}),
		}, 2},
		{"one span, apart", []funcWalk{
			w(1, 0, 0x204, cfg.Range{Lo: 0x200, Hi: 0x208}, cfg.Range{Lo: 0x220, Hi: 0x230}),
			w(1, 0, 0x214, cfg.Range{Lo: 0x200, Hi: 0x204}, cfg.Range{Lo: 0x210, Hi: 0x230}),
			w(1, 0, 0x224, cfg.Range{Lo: 0x200, Hi: 0x202}, cfg.Range{Lo: 0x228, Hi: 0x230}),
			w(0, 5, 0x104, cfg.Range{Lo: 0x100, Hi: 0x110}),
		}, 4},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var first string
			perm := make([]int, len(tc.walks))
			for i := range perm {
				perm[i] = i
			}
			for n := 0; ; n++ {
				walks := make([]funcWalk, len(perm))
				for i, p := range perm {
					walks[i] = tc.walks[p]
				}
				s := &model.Schema{Funcs: make([]model.Func, 2)}
				addWalks(s, walks, func(model.FuncID) bool { return true })
				got := fmt.Sprintf("%+v %+v", s.Vars, s.Locs)
				if n == 0 {
					first = got
					if len(s.Vars) != tc.want {
						t.Fatalf("%d walk variables, want %d: %+v", len(s.Vars), tc.want, s.Vars)
					}
				} else if got != first {
					t.Fatalf("order %v gives\n%s\nwant (order 0..n)\n%s", perm, got, first)
				}
				if !nextPerm(perm) {
					break
				}
			}
		})
	}
}

// nextPerm steps p to its next permutation in lexical order; false after
// the last.
func nextPerm(p []int) bool {
	i := len(p) - 2
	for i >= 0 && p[i] >= p[i+1] {
		i--
	}
	if i < 0 {
		return false
	}
	j := len(p) - 1
	for p[j] <= p[i] {
		j--
	}
	p[i], p[j] = p[j], p[i]
	slices.Reverse(p[i+1:])
	return true
}
