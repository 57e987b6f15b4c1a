package dwarfschema

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// TestGatherInPlace: gatherInPlace gives what a copy into a new array
// gives, for permutations with and without dropped elements, the
// inverse's dropped entries left 0 (as buildVars leaves them without
// extras) or -1.
func TestGatherInPlace(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 2000 {
		n := r.IntN(40)
		all := r.Perm(n)
		perm := make([]model.VarID, 0, n)
		for _, i := range all {
			if trial%3 == 0 || r.IntN(4) != 0 { // a third of the trials drop nothing
				perm = append(perm, model.VarID(i))
			}
		}
		to := make([]model.VarID, n)
		if trial%2 == 0 {
			for i := range to {
				to[i] = -1
			}
		}
		for k, old := range perm {
			to[old] = model.VarID(k)
		}
		xs := make([]*int, n)
		for i := range xs {
			v := i
			xs[i] = &v
		}
		want := make([]*int, len(perm))
		for k, old := range perm {
			want[k] = xs[old]
		}
		got := gatherInPlace(xs, perm, to)
		if !slices.Equal(got, want) {
			t.Fatalf("perm %v: got %v, want %v", perm, deref(got), deref(want))
		}
		for _, p := range xs[len(perm):] {
			if p != nil {
				t.Fatalf("perm %v: a dropped element is kept past the end", perm)
			}
		}
	}
}

func deref(ps []*int) []int {
	out := make([]int, len(ps))
	for i, p := range ps {
		out[i] = *p
	}
	return out
}
