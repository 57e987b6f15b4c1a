package analyze

import (
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/vprof/vprof/analyze/stats"
)

// sampleSet accumulates the observations of one variable in one dimension
// for one kind of run, in memory bounded by maxDistinct, whatever the number
// of observations.
//
// It counts distinct values exactly (an open-addressing table of value ->
// count) while there are at most maxDistinct of them: then the tests see
// exactly the samples scipy would. A set that exceeds maxDistinct turns into
// a uniform reservoir sample of maxDistinct observations (Li's algorithm L),
// drawn so that it is a uniform sample of everything seen, before and after
// the switch. Count, minimum and maximum stay exact in both modes: the
// degenerate cases of method.md §5 and the normal range of §8 use them.
type sampleSet struct {
	n        float64 // observations
	min, max float64

	// Exact mode: keys are float64 bits, canonical (+0 for ±0, one NaN);
	// a slot is used when its count is non-zero.
	keys     []uint64
	counts   []float64
	distinct int

	// Reservoir mode (res != nil).
	res  []float64
	rng  *rand.Rand
	w    float64 // algorithm L: the reservoir's largest priority
	next float64 // observation number (1-based) that enters the reservoir next

	limit int
	seed  uint64
}

const canonicalNaN = 0x7ff8000000000001

func newSampleSet(limit int, seed uint64) *sampleSet {
	return &sampleSet{limit: limit, seed: seed, min: math.Inf(1), max: math.Inf(-1)}
}

func canon(x float64) uint64 {
	switch {
	case x != x:
		return canonicalNaN
	case x == 0:
		return 0
	}
	return math.Float64bits(x)
}

// add records one observation. It does not allocate except when the table
// grows (amortized, bounded by limit).
func (s *sampleSet) add(x float64) {
	s.n++
	if x < s.min {
		s.min = x
	}
	if x > s.max {
		s.max = x
	}
	if s.res != nil {
		s.addReservoir(x)
		return
	}
	k := canon(x)
	if len(s.keys) == 0 {
		s.keys = make([]uint64, 8)
		s.counts = make([]float64, 8)
	}
	mask := uint64(len(s.keys) - 1)
	for i := hash64(k) & mask; ; i = (i + 1) & mask {
		if s.counts[i] == 0 {
			s.keys[i], s.counts[i] = k, 1
			s.distinct++
			if 2*s.distinct > len(s.keys) {
				s.grow()
			}
			return
		}
		if s.keys[i] == k {
			s.counts[i]++
			return
		}
	}
}

func hash64(k uint64) uint64 { return (k ^ k>>29) * 0x9e3779b97f4a7c15 >> 17 }

func (s *sampleSet) grow() {
	if s.distinct > s.limit {
		s.toReservoir()
		return
	}
	keys, counts := s.keys, s.counts
	s.keys = make([]uint64, 2*len(keys))
	s.counts = make([]float64, 2*len(keys))
	mask := uint64(len(s.keys) - 1)
	for j, c := range counts {
		if c == 0 {
			continue
		}
		i := hash64(keys[j]) & mask
		for s.counts[i] != 0 {
			i = (i + 1) & mask
		}
		s.keys[i], s.counts[i] = keys[j], c
	}
}

// toReservoir draws a uniform sample without replacement of limit
// observations from the counted multiset: limit distinct positions in
// [0, n) (Floyd's algorithm), sorted, read off the cumulative counts. Then
// algorithm L continues from observation n with its priority threshold w
// drawn from its distribution at that point, Beta(limit, n-limit+1).
func (s *sampleSet) toReservoir() {
	s.rng = rand.New(rand.NewPCG(s.seed, 0x9e3779b97f4a7c15))
	R := s.limit
	N := int64(s.n)
	chosen := make(map[int64]struct{}, R)
	for j := N - int64(R); j < N; j++ {
		t := s.rng.Int64N(j + 1)
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
	// Walk the multiset in a fixed order (by value) so the result does not
	// depend on the table's layout.
	type vc struct {
		v float64
		c float64
	}
	entries := make([]vc, 0, s.distinct)
	for i, c := range s.counts {
		if c != 0 {
			entries = append(entries, vc{math.Float64frombits(s.keys[i]), c})
		}
	}
	slices.SortFunc(entries, func(a, b vc) int { return cmpFloat(a.v, b.v) })
	s.res = make([]float64, 0, R)
	var cum int64
	k := 0
	for _, e := range entries {
		cum += int64(e.c)
		for k < len(pos) && pos[k] < cum {
			s.res = append(s.res, e.v)
			k++
		}
	}
	s.keys, s.counts, s.distinct = nil, nil, 0
	s.w = distuv.Beta{Alpha: float64(R), Beta: float64(N) - float64(R) + 1, Src: s.rng}.Rand()
	s.next = s.n
	s.skip()
}

// skip advances next past the observations that algorithm L skips.
func (s *sampleSet) skip() {
	u := 1 - s.rng.Float64() // in (0, 1]
	s.next += math.Floor(math.Log(u)/math.Log1p(-s.w)) + 1
}

func (s *sampleSet) addReservoir(x float64) {
	if s.n < s.next {
		return
	}
	s.res[s.rng.IntN(len(s.res))] = x
	s.w *= math.Exp(math.Log(1-s.rng.Float64()) / float64(len(s.res)))
	s.skip()
}

// exact reports whether the set still holds every observation.
func (s *sampleSet) exact() bool { return s.res == nil }

// constant reports whether every observation had the same value.
func (s *sampleSet) constant() bool { return s.n > 0 && s.min == s.max }

// dist returns the set's (or its reservoir's) empirical distribution.
func (s *sampleSet) dist() stats.Dist {
	if s == nil || s.n == 0 {
		return stats.Dist{}
	}
	if s.res != nil {
		x := slices.Clone(s.res)
		slices.Sort(x)
		var d stats.Dist
		d.FromSorted(x)
		return d
	}
	vals := make([]float64, 0, s.distinct)
	counts := make([]float64, 0, s.distinct)
	for i, c := range s.counts {
		if c != 0 {
			vals = append(vals, math.Float64frombits(s.keys[i]))
			counts = append(counts, c)
		}
	}
	var d stats.Dist
	d.FromCounts(vals, counts)
	return d
}

// bytes is the set's memory footprint, for accounting.
func (s *sampleSet) bytes() int {
	return 8*len(s.keys) + 8*len(s.counts) + 8*cap(s.res) + 96
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
