package dwarfschema

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/vprof/vprof/dwarfschema/cfg"
	"github.com/vprof/vprof/runtime/model"
)

// randomInlines makes n inlined instances over [0, span) the way build
// leaves them: each instance's ranges sorted and disjoint, the list
// ordered by first address then depth. Instances nest (a deeper one is
// drawn inside a shallower one) and some have a far second range (a
// cold part), the case that keeps inlineIndex's running maximum high.
func randomInlines(r *rand.Rand, n int, span uint64) []model.Inline {
	var out []model.Inline
	for len(out) < n {
		lo := r.Uint64N(span - 64)
		hi := lo + 1 + r.Uint64N(min(span-lo-1, 256))
		rs := []model.PCRange{{Lo: lo, Hi: hi}}
		if r.IntN(20) == 0 && hi+8 < span {
			far := hi + 8 + r.Uint64N(span-hi-8)
			rs = append(rs, model.PCRange{Lo: far, Hi: min(span, far+1+r.Uint64N(32))})
		}
		depth := int32(1)
		for d := r.IntN(4); d > 0 && len(out) < n; d-- {
			out = append(out, model.Inline{Func: model.FuncID(r.IntN(50)), Ranges: slices.Clone(rs), Depth: depth})
			// The next, deeper, inside the first range.
			l, h := rs[0].Lo, rs[0].Hi
			nl := l + r.Uint64N(h-l)
			rs = []model.PCRange{{Lo: nl, Hi: nl + 1 + r.Uint64N(h-nl)}}
			depth++
		}
		// Some instances share depth and start (equal keys: the first counts).
		if r.IntN(10) == 0 {
			out = append(out, model.Inline{Func: model.FuncID(r.IntN(50)), Ranges: rs, Depth: depth})
		}
	}
	slices.SortStableFunc(out, func(a, c model.Inline) int {
		if x := cmp.Compare(a.Ranges[0].Lo, c.Ranges[0].Lo); x != 0 {
			return x
		}
		return cmp.Compare(a.Depth, c.Depth)
	})
	return out
}

// randomWalk is a loop's code: one to three sorted, disjoint ranges.
func randomWalk(r *rand.Rand, span uint64) cfg.Walk {
	var w cfg.Walk
	at := r.Uint64N(span - 16)
	for k := 1 + r.IntN(3); k > 0 && at+2 < span; k-- {
		hi := at + 1 + r.Uint64N(min(span-at-1, 24))
		w.Ranges = append(w.Ranges, cfg.Range{Lo: at, Hi: hi})
		if r.IntN(2) == 0 {
			at = hi + r.Uint64N(8) // close by, in the same instance or not
		} else {
			at = hi + r.Uint64N(span/4+1)
		}
	}
	return w
}

// TestInlineIndex: inlineIndex.innermost gives innermostFunc's answer
// (the deepest instance holding the whole loop, the first of equal
// depth) on random nests of instances, with far second ranges, equal
// keys, walks of several ranges, an empty walk, and instances out of
// order (where it falls back to innermostFunc).
func TestInlineIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 18))
	inside, deep := 0, 0 // walks in some instance, and in one of depth > 1
	for trial := range 200 {
		span := uint64(256 + r.IntN(4096))
		s := &model.Schema{Inlines: randomInlines(r, 1+r.IntN(80), span)}
		if trial%25 == 24 {
			slices.Reverse(s.Inlines) // not build's order
		}
		x := newInlineIndex(s)
		walks := []cfg.Walk{{}}
		for range 200 {
			walks = append(walks, randomWalk(r, span))
		}
		// Walks exactly on an instance's ranges (the bounds inclusive).
		for _, in := range s.Inlines[:min(len(s.Inlines), 20)] {
			var w cfg.Walk
			for _, pr := range in.Ranges {
				w.Ranges = append(w.Ranges, cfg.Range{Lo: pr.Lo, Hi: pr.Hi})
			}
			walks = append(walks, w)
		}
		for i := range walks {
			w := &walks[i]
			f := int32(r.IntN(50))
			if got, want := x.innermost(f, w), innermostFunc(s, f, w); got != want {
				t.Fatalf("trial %d, walk %v: innermost %d, innermostFunc %d", trial, w.Ranges, got, want)
			}
			for _, in := range s.Inlines {
				if len(w.Ranges) > 0 && withinPC(w.Ranges, in.Ranges) {
					inside++
					if in.Depth > 1 {
						deep++
					}
					break
				}
			}
		}
	}
	if inside < 1000 || deep < 100 {
		t.Errorf("%d walks inside an instance, %d inside a nested one: the draw tests too little", inside, deep)
	}
}

// BenchmarkInnermostFunc: the walk's function over redis-server's number
// of inlined instances (12,000) and a thousand walks, by trying every
// instance (innermostFunc, before) and through inlineIndex (after).
func BenchmarkInnermostFunc(b *testing.B) {
	r := rand.New(rand.NewPCG(2, 18))
	const span = 1 << 22
	s := &model.Schema{Inlines: randomInlines(r, 12000, span)}
	walks := make([]cfg.Walk, 1000)
	for i := range walks {
		walks[i] = randomWalk(r, span)
	}
	b.Run("scan", func(b *testing.B) {
		for b.Loop() {
			for i := range walks {
				innermostFunc(s, 0, &walks[i])
			}
		}
	})
	b.Run("index", func(b *testing.B) {
		for b.Loop() {
			x := newInlineIndex(s)
			for i := range walks {
				x.innermost(0, &walks[i])
			}
		}
	})
}
