package dwarfschema

import (
	"debug/dwarf"
	"math/rand"
	"testing"
)

// TestOffTable checks offTable's lookups against a map, across chunk
// boundaries, after merges of tables of every size (the workers' tables
// adopted by the first) and after sort (a walk that went back).
func TestOffTable(t *testing.T) {
	const full = 1 << chunkBits
	rng := rand.New(rand.NewSource(1))
	for _, sizes := range [][]int{{0}, {1}, {full}, {full + 1}, {0, 5}, {3, 0, full - 1, 2}, {full, full}, {full - 3, 7, 2*full + 5}, {1, 1, 1}} {
		var all offTable[int]
		want := map[dwarf.Offset]int{}
		off := dwarf.Offset(11)
		for p, n := range sizes {
			var part offTable[int]
			for range n {
				off += dwarf.Offset(1 + rng.Intn(3))
				v := int(off)*7 + p
				part.add(off, v)
				want[off] = v
			}
			if p == 0 {
				all = part
			} else {
				all.merge(&part)
				if part.len() != 0 {
					t.Fatalf("sizes %v: merged table not emptied", sizes)
				}
			}
		}
		check := func(what string) {
			t.Helper()
			if all.len() != len(want) {
				t.Fatalf("sizes %v %s: len %d, want %d", sizes, what, all.len(), len(want))
			}
			prev := dwarf.Offset(0)
			for i := range all.len() {
				o := all.off(i)
				if o <= prev {
					t.Fatalf("sizes %v %s: offsets out of order at %d", sizes, what, i)
				}
				prev = o
				if *all.at(i) != want[o] || all.index(o) != i || all.get(o) != want[o] {
					t.Fatalf("sizes %v %s: record %d (offset %d) wrong", sizes, what, i, o)
				}
			}
			for _, o := range []dwarf.Offset{0, 11, off + 1, off + 100} {
				if _, ok := want[o]; !ok && (all.index(o) != -1 || all.get(o) != 0) {
					t.Fatalf("sizes %v %s: offset %d found", sizes, what, o)
				}
			}
			for o := dwarf.Offset(12); o < off; o++ {
				if _, ok := want[o]; !ok && all.index(o) != -1 {
					t.Fatalf("sizes %v %s: absent offset %d found", sizes, what, o)
				}
			}
		}
		check("merged")
		all.sort() // sorted already: unchanged
		check("sorted")
	}
	// A walk that went back: sort orders by offset, keeping each record.
	var tb offTable[int]
	offs := rng.Perm(full + 100)
	for _, o := range offs {
		tb.add(dwarf.Offset(o+1), o*3)
	}
	tb.sort()
	for i := range tb.len() {
		if tb.off(i) != dwarf.Offset(i+1) || *tb.at(i) != i*3 || tb.index(dwarf.Offset(i+1)) != i {
			t.Fatalf("after sort: record %d wrong", i)
		}
	}
}
