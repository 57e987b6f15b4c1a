package callcount

import (
	"maps"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vprof/vprof/testprogs"
)

// TestBind: a lazy set binds to the first executable that has every
// function named (a script's interpreter has none of them), and says why
// none did when none does.
func TestBind(t *testing.T) {
	if _, err := UprobeType(); err != nil {
		t.Skip(err)
	}
	s, err := NewLazySet(ParseNames(" DB::MemoryTracker::alloc , _ZN2DB26QueryOperatorSpillContexts16triggerAutoSpillEl,"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Open(1); err != nil || s.Bound() {
		t.Fatalf("unbound set: Open %v, bound %v", err, s.Bound())
	}
	if err := s.Bind("/bin/sh"); err == nil || s.Bound() || !strings.Contains(s.Unbound(), "no program run had them all: /bin/sh") {
		t.Fatalf("bound to /bin/sh: %v, %q", err, s.Unbound())
	}
	bin := testprogs.Path(t, "spill_check")
	if err := s.Bind(bin); err != nil || !s.Bound() || s.Path != bin || len(s.Targets) != 2 || s.Targets[1].Symbol != "_ZN2DB26QueryOperatorSpillContexts16triggerAutoSpillEl" {
		t.Fatalf("Bind(%s): %v, %+v", bin, err, s.Targets)
	}
	if err := s.Bind("/bin/sh"); err != nil || s.Path != bin {
		t.Errorf("a bound set rebinds: %v, %s", err, s.Path)
	}
}

// buildShapes compiles testdata/shapes.c as the corpus is built (gcc -g
// -O2): a function split by partial inlining, a constant-argument clone,
// a function inlined at every call.
func buildShapes(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no gcc")
	}
	bin := filepath.Join(t.TempDir(), "shapes")
	if out, err := exec.Command("gcc", "-g", "-O2", "-o", bin, "testdata/shapes.c").CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	return bin
}

// TestResolveShapes: where a call of each function of shapes.c begins
// (D256, D257). find: its symbol and its head inlined at each of check's
// three calls, its split part (find.part.0...) apart; scale: only its
// clone scale.constprop.0 (no symbol scale); step: inlined at its two
// calls, not at the instances of its split rare branch inlined back into
// it (DWARF "calls" them at step's own declaration).
func TestResolveShapes(t *testing.T) {
	bin := buildShapes(t)
	got, err := Resolve(bin, []string{"find", "scale", "step", "check"})
	if err != nil {
		t.Fatal(err)
	}
	kinds := func(sites []Site) map[string]int {
		m := map[string]int{}
		for _, s := range sites {
			m[strings.Fields(s.What)[0]]++
		}
		return m
	}
	for i, want := range []struct {
		symbol       string
		entries      map[string]int
		parts, inlin int
	}{
		{"find", map[string]int{"symbol": 1, "inlined": 3}, 1, 3},
		{"scale", map[string]int{"clone": 1}, 0, 0},
		{"step", map[string]int{"inlined": 2}, 0, 2},
		{"check", map[string]int{"symbol": 1}, 0, 0},
	} {
		g := got[i]
		if g.Symbol != want.symbol || !maps.Equal(kinds(g.Entries), want.entries) || len(g.Parts) != want.parts || g.Inlined != want.inlin {
			t.Errorf("%s: symbol %s, entries %v, parts %v, inlined %d; want %s, %v, %d parts, %d inlined", g.Name, g.Symbol, g.Entries, g.Parts, g.Inlined, want.symbol, want.entries, want.parts, want.inlin)
		}
	}
	for _, s := range got[0].Parts {
		if !strings.HasPrefix(s.What, "part find.part.") {
			t.Errorf("find's part: %+v", s)
		}
	}
	// A cold part is not an entry, nor a name to count.
	if _, err := Resolve(bin, []string{"find.part.0"}); err == nil {
		t.Error("find.part.0 resolved: a part is counted with its function")
	}
}
