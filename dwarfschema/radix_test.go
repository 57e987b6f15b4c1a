package dwarfschema

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// TestRadixOrder checks radixOrder against a stable comparison sort, on
// keys shaped like addresses (shared high bytes), small keys with many
// ties, sorted and reversed input, and full 64-bit keys.
func TestRadixOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	gens := map[string]func(i, n int) uint64{
		"addresses": func(i, n int) uint64 { return 0x400000 + r.Uint64N(1<<22) },
		"ties":      func(i, n int) uint64 { return r.Uint64N(7) },
		"sorted":    func(i, n int) uint64 { return uint64(i / 3) },
		"reversed":  func(i, n int) uint64 { return uint64(n - i) },
		"wide":      func(i, n int) uint64 { return r.Uint64() },
		"constant":  func(i, n int) uint64 { return 42 },
	}
	for name, gen := range gens {
		for _, n := range []int{0, 1, 2, 3, 100, 5000} {
			keys := make([]uint64, n)
			for i := range keys {
				keys[i] = gen(i, n)
			}
			got := stableOrder(n, func(i int32) uint64 { return keys[i] })
			want := make([]int32, n)
			for i := range want {
				want[i] = int32(i)
			}
			slices.SortStableFunc(want, func(a, b int32) int { return cmp.Compare(keys[a], keys[b]) })
			if !slices.Equal(got, want) {
				t.Errorf("%s, n=%d: radix order differs from a stable sort", name, n)
			}
		}
	}
}

// TestSortVarIDs checks sortVarIDs against the stable comparison sort it
// replaces: ties in function, file and line broken by name, equal Vars in
// their first order, globals (NoFunc) and unknown files (-1) first, and
// values too wide for the packed key (the comparison sort then).
func TestSortVarIDs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	names := []string{"a", "b", "i", "n", "p->next", "s.len", ""}
	for _, tc := range []struct {
		name            string
		nfunc, nfile, n int32
		line            func() int32
	}{
		{"small", 5, 3, 2000, func() int32 { return r.Int32N(20) }},
		{"many funcs", 50000, 400, 3000, func() int32 { return r.Int32N(100000) }},
		{"wide lines", 10, 3, 500, func() int32 { return r.Int32N(1 << 30) }},
		{"wide funcs", 1 << 25, 3, 500, func() int32 { return r.Int32N(50) }},
	} {
		vars := make([]model.Var, tc.n)
		for i := range vars {
			vars[i] = model.Var{Func: model.FuncID(r.Int32N(tc.nfunc+1) - 1), File: r.Int32N(tc.nfile+1) - 1,
				Line: tc.line(), Name: names[r.IntN(len(names))]}
		}
		ids := make([]model.VarID, len(vars))
		for i := range ids {
			ids[i] = model.VarID(len(ids) - 1 - i)
		}
		want := slices.Clone(ids)
		slices.SortStableFunc(want, func(a, b model.VarID) int { return compareVars(&vars[a], &vars[b]) })
		sortVarIDs(ids, vars)
		if !slices.Equal(ids, want) {
			t.Errorf("%s: sortVarIDs differs from a stable sort by compareVars", tc.name)
		}
	}
}

// TestLocOrder checks locOrder against a stable comparison sort by start,
// variable and end: records equal in all three (one variable over one
// range at two locations) in their first order, on code spans that fit
// its packed key and one that does not (over 4 GB).
func TestLocOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct {
		name       string
		base, span uint64
		nvar       int32
		n          int
	}{
		{"empty", 0x401000, 1 << 20, 10, 0},
		{"one", 0x401000, 1 << 20, 10, 1},
		{"code", 0x401000, 1 << 22, 30000, 5000},
		{"ties", 0x401000, 16, 3, 3000},
		{"wide code", 0x1000, 1 << 40, 100, 2000},
	} {
		recs := make([]locRec, tc.n)
		for i := range recs {
			lo := tc.base + r.Uint64N(tc.span)
			recs[i] = locRec{lo: lo, hi: lo + 1 + r.Uint64N(8), v: r.Int32N(tc.nvar),
				kind: model.LocKind(1 + r.IntN(4)), reg: int16(r.IntN(16)), val: uint64(i)}
		}
		got := locOrder(recs)
		want := make([]int32, tc.n)
		for i := range want {
			want[i] = int32(i)
		}
		slices.SortStableFunc(want, func(a, b int32) int {
			x, y := &recs[a], &recs[b]
			if c := cmp.Compare(x.lo, y.lo); c != 0 {
				return c
			}
			if c := cmp.Compare(x.v, y.v); c != 0 {
				return c
			}
			return cmp.Compare(x.hi, y.hi)
		})
		if !slices.Equal(got, want) {
			t.Errorf("%s: locOrder differs from a stable sort by start, variable, end", tc.name)
		}
	}
}
