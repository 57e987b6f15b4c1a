package unwind

import (
	"os"
	"reflect"
	"testing"
)

// TestLookupRecent checks the direct-mapped cache in front of the per-PC
// map: a hit, in its slot or behind a colliding PC, returns the row the
// CFA program gives, and runs the program once per PC.
func TestLookupRecent(t *testing.T) {
	const libc = "/lib/x86_64-linux-gnu/libc.so.6"
	if _, err := os.Stat(libc); err != nil {
		t.Skip("no libc at", libc)
	}
	tab, err := Load(libc)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := Load(libc)
	if err != nil {
		t.Fatal(err)
	}
	// PCs inside FDEs (several per slot: 2000 PCs over 256 slots) and
	// one outside every FDE.
	var pcs []uint64
	for i, f := range tab.fdes {
		if i >= 2000 {
			break
		}
		pcs = append(pcs, f.Begin()+1)
	}
	pcs = append(pcs, 1)
	for round := 0; round < 3; round++ {
		for _, pc := range pcs {
			got := tab.Lookup(pc)
			want, ok := ref.compute(pc)
			if (got != nil) != ok {
				t.Fatalf("round %d, pc %#x: row %v, want found=%v", round, pc, got != nil, ok)
			}
			if ok && !sameRow(got, &want) {
				t.Fatalf("round %d, pc %#x: row %+v, want %+v", round, pc, *got, want)
			}
		}
		if tab.Misses != len(pcs) {
			t.Fatalf("round %d: %d CFA programs run for %d PCs", round, tab.Misses, len(pcs))
		}
	}
	// Two PCs in one slot, met in turn: each its own row.
	a := pcs[0]
	var b uint64
	for _, pc := range pcs[1:] {
		if recentSlot(pc) == recentSlot(a) && pc != a {
			b = pc
			break
		}
	}
	if b == 0 {
		t.Skip("no two PCs share a slot")
	}
	for i := 0; i < 4; i++ {
		for _, pc := range []uint64{a, b} {
			want, _ := ref.compute(pc)
			if got := tab.Lookup(pc); got == nil || !sameRow(got, &want) {
				t.Fatalf("pc %#x after a collision: wrong row", pc)
			}
		}
	}
}

// sameRow compares two rows by their rules and expressions (compute
// numbers the expressions in map order).
func sameRow(a, b *Row) bool {
	same := func(x, y Rule) bool {
		var ex, ey []byte
		if x.Expr > 0 {
			ex = a.exprs[x.Expr-1]
		}
		if y.Expr > 0 {
			ey = b.exprs[y.Expr-1]
		}
		x.Expr, y.Expr = 0, 0
		return x == y && reflect.DeepEqual(ex, ey)
	}
	if a.Signal != b.Signal || !same(a.CFA, b.CFA) {
		return false
	}
	for i := range a.Regs {
		if !same(a.Regs[i], b.Regs[i]) {
			return false
		}
	}
	return true
}
