package callcount

import (
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
