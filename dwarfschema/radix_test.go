package dwarfschema

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
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
