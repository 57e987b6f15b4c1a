package analyze

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/vprof/vprof/analyze/stats"
)

// TestSampleSetAddAll checks that adding observations in chunks (addAll)
// leaves a set exactly as adding them one by one does, through every
// change of mode: the same counts, the same switch to a reservoir at the
// same observation, the same reservoir.
func TestSampleSetAddAll(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	gen := map[string]func(i int) float64{
		"few":        func(i int) float64 { return float64(i % 5) },
		"counter":    func(i int) float64 { return float64(i % 100) },
		"dense edge": func(i int) float64 { return float64(i % 300) },
		"negative":   func(i int) float64 { return float64(-(i % 120)) },
		"floats":     func(i int) float64 { return float64(i%40) + 0.5 },
		"mixed": func(i int) float64 {
			return []float64{1, 2, 3, 2.5, math.Inf(1), math.NaN(), 0, math.Copysign(0, -1), -1e300}[i%9] + float64(i%20)
		},
		"random":         func(i int) float64 { return float64(rng.IntN(3000)) },
		"distinct":       func(i int) float64 { return float64(i) * 1.5 },
		"zeros then far": func(i int) float64 { return float64((i / 700) * (i % 5) * 1000) },
		"signed zeros": func(i int) float64 {
			if i%2 == 0 {
				return math.Copysign(0, -1)
			}
			return float64(i % 3)
		},
	}
	for name, f := range gen {
		for _, limit := range []int{16, 64, 4096} {
			xs := make([]float64, 20000)
			for i := range xs {
				xs[i] = f(i)
			}
			one := newSampleSet(limit, 3)
			for _, x := range xs {
				one.add(x)
			}
			all := newSampleSet(limit, 3)
			chunks := rand.New(rand.NewPCG(uint64(limit), 1))
			for rest := xs; len(rest) > 0; {
				n := min(len(rest), 1+chunks.IntN(40))
				all.addAll(rest[:n])
				rest = rest[n:]
			}
			if setState(one) != setState(all) {
				t.Errorf("%s, limit %d: addAll differs from add: n %g/%g exact %v/%v distinct %d/%d",
					name, limit, one.n, all.n, one.exact(), all.exact(), one.distinct, all.distinct)
			}
		}
	}
}

// setState describes everything in a set, NaNs by their bits, the
// reservoir's random source by its next draws (it consumes them).
func setState(s *sampleSet) string {
	bits := func(xs ...float64) []uint64 {
		var b []uint64
		for _, x := range xs {
			b = append(b, math.Float64bits(x))
		}
		return b
	}
	st := fmt.Sprint(bits(s.n, s.min, s.max), s.base, s.slots, s.nsmall, s.distinct, s.last, s.limit, s.seed, s.small)
	if s.dense != nil {
		st += fmt.Sprint(" dense", *s.dense)
	}
	if r := s.res; r != nil {
		st += fmt.Sprint(" res", bits(r.x...), bits(r.w, r.next), r.rng.Uint64(), r.rng.Uint64())
	}
	return st
}

// TestToReservoir checks the switch to a reservoir against the plain
// statement of the draw (Floyd's algorithm with a set, the positions
// sorted, read off the cumulative counts of the values in slices.Sort's
// order), with the chosen positions marked in a bitset and in a hash set.
func TestToReservoir(t *testing.T) {
	defer func(b int64) { floydBitset = b }(floydBitset)
	for _, bitset := range []int64{1 << 24, 0} {
		floydBitset = bitset
		for _, limit := range []int{16, 100, 1024} {
			// Repeated values, NaN, infinities, negatives and zeros; a
			// table holding more than limit distinct values.
			s := newSampleSet(2*limit, 7)
			for i := range 50 * limit {
				var x float64
				switch {
				case i%7 == 0:
					x = math.NaN()
				case i%11 == 0:
					x = math.Inf(i%2*2 - 1)
				case i%3 == 0:
					x = float64(i%5) - 2
				default:
					x = float64(i%(3*limit/2)) * -0.25
				}
				s.add(x)
			}
			if !s.exact() || s.slots == nil || int(s.distinct) <= limit {
				t.Fatalf("limit %d: want a table of more than %d values, have %d (exact %v)", limit, limit, s.distinct, s.exact())
			}
			s.limit = int32(limit)
			ref := *s
			ref.slots = append([]slot(nil), s.slots...)
			refToReservoir(&ref)
			s.toReservoir()
			if a, b := setState(s), setState(&ref); a != b {
				t.Errorf("bitset %v, limit %d: reservoir differs from the reference:\n%s\n%s", bitset > 0, limit, a, b)
			}
		}
	}
}

// refToReservoir is toReservoir as first written: a map for Floyd's
// choices, stats.Dist for the sorted values.
func refToReservoir(s *sampleSet) {
	rng := rand.New(rand.NewPCG(s.seed, 0x9e3779b97f4a7c15))
	R := int(s.limit)
	N := int64(s.n)
	chosen := make(map[int64]struct{}, R)
	for j := N - int64(R); j < N; j++ {
		t := rng.Int64N(j + 1)
		if _, dup := chosen[t]; dup {
			t = j
		}
		chosen[t] = struct{}{}
	}
	pos := make([]int64, 0, R)
	for p := range chosen {
		pos = append(pos, p)
	}
	slices.Sort(pos)
	var d stats.Dist
	d.FromCounts(s.entries())
	res := &reservoir{x: make([]float64, 0, R), rng: rng}
	var cum int64
	k := 0
	for i, v := range d.Values {
		cum += int64(d.Counts[i])
		for k < len(pos) && pos[k] < cum {
			res.x = append(res.x, v)
			k++
		}
	}
	s.slots, s.distinct = nil, 0
	res.w = distuv.Beta{Alpha: float64(R), Beta: float64(N) - float64(R) + 1, Src: rng}.Rand()
	res.next = s.n
	res.skip()
	s.res = res
}
