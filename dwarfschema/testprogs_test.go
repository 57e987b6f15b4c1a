package dwarfschema

import (
	"path/filepath"
	"testing"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/testprogs"
)

// TestRootCauseFunctions checks, on every manifest program, that the
// root-cause function is one Func holding all its code (the symbol and any
// .constprop/.isra/.part clone or .cold part of it), declared in the
// program's source, and that the line table maps code inside it to the
// root-cause line.
func TestRootCauseFunctions(t *testing.T) {
	progs, err := testprogs.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range progs {
		t.Run(p.Name, func(t *testing.T) {
			s, err := Load(testprogs.Path(t, p.Name), Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, s)
			var fn model.FuncID = -1
			for i := range s.Funcs {
				if s.Funcs[i].Name == p.RootCauseFunction {
					if fn >= 0 {
						t.Fatalf("two functions named %s", p.RootCauseFunction)
					}
					fn = model.FuncID(i)
				}
			}
			if fn < 0 {
				t.Fatalf("no function %s", p.RootCauseFunction)
			}
			f := &s.Funcs[fn]
			if f.Display != p.RootCauseDisplay && p.RootCauseDisplay != "" {
				t.Errorf("display %q, want %q", f.Display, p.RootCauseDisplay)
			}
			if f.File < 0 || filepath.Base(s.Files[f.File]) != p.Source {
				t.Errorf("declared in file %d, want %s", f.File, p.Source)
			}
			if len(f.Ranges) == 0 {
				// Entirely inlined: its code is its inlined instances'.
				if !slicesContainsFunc(s.Inlines, func(in model.Inline) bool { return in.Func == fn }) {
					t.Fatalf("%s has neither code nor inlined instances", f.Name)
				}
			}
			syms := 0
			for _, sy := range s.Symbols {
				if !p.MatchesSymbol(sy.Name) || sy.Size == 0 {
					continue
				}
				syms++
				if !inRanges(f.Ranges, sy.Value) || !inRanges(f.Ranges, sy.Value+sy.Size-1) {
					t.Errorf("symbol %s [%#x,%#x) outside %s's ranges %v", sy.Name, sy.Value, sy.Value+sy.Size, f.Name, f.Ranges)
				}
			}
			// The root-cause line has code in the function (out of line or
			// inlined into it).
			code := append([]model.PCRange(nil), f.Ranges...)
			for _, in := range s.Inlines {
				if in.Func == fn {
					code = append(code, in.Ranges...)
				}
			}
			// A call inlined at the line counts: the line table maps its
			// PCs to the inlined function's lines, the Inline to the call.
			found := false
			for _, in := range s.Inlines {
				if int(in.CallLine) == p.RootCauseLine && in.CallFile >= 0 && filepath.Base(s.Files[in.CallFile]) == p.Source && inRanges(code, in.Ranges[0].Lo) {
					found = true
				}
			}
			for _, r := range s.Lines {
				if r.File >= 0 && int(r.Line) == p.RootCauseLine && filepath.Base(s.Files[r.File]) == p.Source && inRanges(code, r.PC) {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("no line-table row for %s:%d inside %s (%d symbols, ranges %v)", p.Source, p.RootCauseLine, f.Name, syms, f.Ranges)
			}
		})
	}
}

func slicesContainsFunc[T any](s []T, f func(T) bool) bool {
	for _, x := range s {
		if f(x) {
			return true
		}
	}
	return false
}
