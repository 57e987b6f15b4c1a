package rank

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

// TestDist checks the distributions of sets in every mode, and of
// reservoirs with and without values equal as floats but not in bits,
// against stats.NewDist, bit for bit.
func TestDist(t *testing.T) {
	same := func(a, b stats.Dist) bool {
		return fmt.Sprint(bitsOf(a.Values), a.Counts) == fmt.Sprint(bitsOf(b.Values), b.Counts)
	}
	for _, c := range []struct {
		name string
		xs   []float64
		mode func(s *sampleSet) bool
	}{
		{"small", []float64{3, 1, math.NaN(), -2, 1, math.Inf(-1)}, func(s *sampleSet) bool { return s.slots == nil && s.dense == nil }},
		{"dense", []float64{5, 9, 7, 5, 6, 8, 10, 11, 12, 5, 20, 13, 1}, func(s *sampleSet) bool { return s.dense != nil }},
		{"table", []float64{1.5, -3.25, math.NaN(), 1e300, -1e-300, 0, 7, 7, 1.5, math.Inf(1), 2, 3, 4, 5, 6}, func(s *sampleSet) bool { return s.slots != nil }},
		{"one", []float64{42}, func(s *sampleSet) bool { return true }},
	} {
		s := newSampleSet(4096, 1)
		for _, x := range c.xs {
			s.add(x)
		}
		if !c.mode(s) {
			t.Fatalf("%s: set not in the intended mode", c.name)
		}
		if got, want := s.dist(), stats.NewDist(c.xs); !same(got, want) {
			t.Errorf("%s: %v %v, want %v %v", c.name, got.Values, got.Counts, want.Values, want.Counts)
		}
	}
	nan2 := math.Float64frombits(0x7ff8000000000002)
	for name, xs := range map[string][]float64{
		"plain":         {4, 2, math.NaN(), -1, 0, 2, 4, 4, math.Inf(1), -1e300},
		"signed zeros":  {0, math.Copysign(0, -1), 1, 0, math.Copysign(0, -1)},
		"nan payloads":  {nan2, 1, math.NaN(), nan2},
		"all negatives": {-1, -5, -3, -5},
	} {
		if got, want := reservoirDist(xs), stats.NewDist(xs); !same(got, want) {
			t.Errorf("reservoir %s: %v %v, want %v %v", name, bitsOf(got.Values), got.Counts, bitsOf(want.Values), want.Counts)
		}
	}
}

func bitsOf(xs []float64) []uint64 {
	var b []uint64
	for _, x := range xs {
		b = append(b, math.Float64bits(x))
	}
	return b
}
