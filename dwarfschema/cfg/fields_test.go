package cfg

import (
	"math/rand/v2"
	"testing"
)

// TestFieldList: NewFieldList finds what a map set from the same list in
// order holds (the later of equal keys), and nothing else.
func TestFieldList(t *testing.T) {
	for _, tc := range []struct {
		name string
		list []FieldVar
	}{
		{"empty", nil},
		{"no variable", []FieldVar{{FieldKey{-1, 0}, 3}}},
		{"one", []FieldVar{{FieldKey{5, 8}, 1}}},
		{"later wins", []FieldVar{{FieldKey{5, 8}, 1}, {FieldKey{5, 0}, 2}, {FieldKey{5, 8}, 3}}},
		{"word edges", []FieldVar{{FieldKey{63, -4}, 1}, {FieldKey{64, 4}, 2}, {FieldKey{0, 0}, 3}, {FieldKey{128, 1 << 40}, 4}}},
	} {
		t.Run(tc.name, func(t *testing.T) { checkFields(t, tc.list) })
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		var list []FieldVar
		for k := range r.IntN(300) {
			list = append(list, FieldVar{FieldKey{int32(r.IntN(200)) - 5, int64(r.IntN(40)) - 8}, int32(k)})
		}
		checkFields(t, list)
	}
}

func checkFields(t *testing.T, list []FieldVar) {
	t.Helper()
	want := map[FieldKey]int32{}
	ptrs := map[int32]bool{}
	for _, e := range list {
		if e.Key.Ptr >= 0 {
			want[e.Key] = e.Var
			ptrs[e.Key.Ptr] = true
		}
	}
	for name, f := range map[string]*Fields{"list": NewFieldList(list), "map": NewFields(want)} {
		if f.n != len(ptrs) {
			t.Errorf("%s: %d pointers with fields, want %d", name, f.n, len(ptrs))
		}
		for p := int32(-6); p < 260; p++ {
			if f.HasFields(p) != ptrs[p] {
				t.Errorf("%s: HasFields(%d) = %v", name, p, f.HasFields(p))
			}
			for off := int64(-10); off < 40; off++ {
				v, ok := f.find(p, off)
				w, wok := want[FieldKey{p, off}]
				if ok != wok || v != w {
					t.Errorf("%s: find(%d, %d) = %d, %v; want %d, %v", name, p, off, v, ok, w, wok)
				}
			}
		}
	}
	// Add, one at a time, gives the same.
	f := NewFields(map[FieldKey]int32{})
	for _, e := range list {
		f.Add(e.Key, e.Var)
	}
	for k, w := range want {
		if v, ok := f.find(k.Ptr, k.Off); !ok || v != w {
			t.Errorf("after Add: find(%d, %d) = %d, %v; want %d", k.Ptr, k.Off, v, ok, w)
		}
	}
}

// TestLoadTable: a load from the same address in the same epoch is the
// same node, in another epoch or from another address a new one, also
// across the table's growth.
func TestLoadTable(t *testing.T) {
	tab := newLoadTable(4)
	type key struct {
		node  int32
		off   int64
		epoch int32
	}
	seen := map[key]int32{}
	vals := map[int32]bool{}
	r := rand.New(rand.NewPCG(3, 4))
	epoch := int32(0)
	for range 20000 {
		if r.IntN(50) == 0 {
			epoch++
		}
		k := key{int32(r.IntN(20)), int64(r.IntN(300)) - 100, epoch}
		v := tab.intern(k.node, k.off, k.epoch)
		if w, ok := seen[k]; ok {
			if v != w {
				t.Fatalf("load %+v: node %d, earlier %d", k, v, w)
			}
			continue
		}
		if v < symLoads || vals[v] {
			t.Fatalf("load %+v: node %d, not new", k, v)
		}
		seen[k], vals[v] = v, true
	}
	if len(tab.ents) <= 4 {
		t.Errorf("table never grew: %d entries", len(tab.ents))
	}
}
