package rank

import (
	"cmp"
	"math"
	mathbits "math/bits"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/vprof/vprof/analyze/stats"
)

// sampleSet accumulates the observations of one variable in one dimension
// for one kind of run, in memory bounded by its limit, whatever the number
// of observations.
//
// It counts distinct values exactly while there are at most limit of them:
// then the tests see exactly the samples scipy would. Up to smallN distinct
// values live in the set itself (flags, enums, durations and deltas mostly
// take a handful of values, and a short linear scan beside the counters
// costs no cache miss); integers within a window of denseN (loop counters)
// are counted in an array indexed by value, a few cache lines; anything else
// goes to an open-addressing table of value -> count. A set that exceeds limit turns into a uniform reservoir sample of
// limit observations (Li's algorithm L), drawn so that it is a uniform
// sample of everything seen, before and after the switch. Count, minimum
// and maximum stay exact in every mode: the degenerate cases of method.md §5
// and the normal range of §8 use them.
type sampleSet struct {
	// The first cache line holds what every observation reads.
	n        float64 // observations
	min, max float64
	base     int64           // dense mode: value of dense[0]
	dense    *[denseN]uint32 // dense mode, for integers within a window
	slots    []slot          // table mode: a slot is used when its count is non-zero
	nsmall   int32           // used entries of small, before any other mode
	distinct int32           // in dense or slots
	last     int32           // slot of the previous observation: runs skip the hash
	limit    int32           //
	res      *reservoir      // reservoir mode
	seed     uint64          //
	small    [smallN]slot    // inline mode: keys are canonical float64 bits
}

const (
	smallN = 8
	denseN = 256
)

// slot is one entry of the exact table or of the inline entries: key
// (canonical float64 bits: +0 for ±0, one NaN) and count side by side, so
// an observation touches one cache line.
type slot struct {
	key   uint64
	count float64
}

// reservoir is algorithm L's state.
type reservoir struct {
	x    []float64
	rng  *rand.Rand
	w    float64 // the reservoir's largest priority
	next float64 // observation number (1-based) that enters the reservoir next
}

const canonicalNaN = 0x7ff8000000000001

func newSampleSet(limit int, seed uint64) *sampleSet {
	s := &sampleSet{}
	s.init(limit, seed)
	return s
}

func (s *sampleSet) init(limit int, seed uint64) {
	*s = sampleSet{limit: int32(limit), seed: seed, min: math.Inf(1), max: math.Inf(-1)}
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
		s.res.add(x, s.n)
		return
	}
	if s.dense != nil {
		if i := int64(x) - s.base; float64(int64(x)) == x && i >= 0 && i < denseN && s.dense[i] < math.MaxUint32 {
			if s.dense[i] == 0 {
				s.distinct++
			}
			s.dense[i]++
			return
		}
		s.denseToTable()
	}
	k := canon(x)
	if s.slots == nil {
		for i := int32(0); i < s.nsmall; i++ {
			if s.small[i].key == k {
				s.small[i].count++
				return
			}
		}
		if s.nsmall < smallN {
			s.small[s.nsmall] = slot{k, 1}
			s.nsmall++
			return
		}
		if s.toDense(x) {
			return
		}
		s.toTable()
	}
	if l := s.last; s.slots[l].key == k && s.slots[l].count != 0 {
		s.slots[l].count++
		return
	}
	mask := uint64(len(s.slots) - 1)
	for i := hash64(k) & mask; ; i = (i + 1) & mask {
		sl := &s.slots[i]
		if sl.count == 0 {
			sl.key, sl.count = k, 1
			s.last = int32(i)
			s.distinct++
			if 2*int(s.distinct) > len(s.slots) {
				s.grow()
			}
			return
		}
		if sl.key == k {
			sl.count++
			s.last = int32(i)
			return
		}
	}
}

// addAll records the observations xs in order. It is add for each, with
// the same result (the same counts, the switch to a reservoir at the same
// observation), the header kept in registers while no change of mode is
// due: a value that needs one goes through add.
func (s *sampleSet) addAll(xs []float64) {
	for len(xs) > 0 {
		var n int
		switch {
		case s.res != nil:
			s.addReservoir(xs)
			return
		case s.dense != nil:
			n = s.addDense(xs)
		case s.slots == nil:
			n = s.addSmall(xs)
		default:
			n = s.addTable(xs)
		}
		if xs = xs[n:]; len(xs) > 0 {
			s.add(xs[0])
			xs = xs[1:]
		}
	}
}

// addReservoir offers xs to the reservoir: algorithm L skips most of
// them, and only their count, minimum and maximum change then.
func (s *sampleSet) addReservoir(xs []float64) {
	n, lo, hi := s.n, s.min, s.max
	r := s.res
	for _, x := range xs {
		n++
		if x < lo {
			lo = x
		}
		if x > hi {
			hi = x
		}
		if n >= r.next {
			r.add(x, n)
		}
	}
	s.n, s.min, s.max = n, lo, hi
}

// addDense counts the leading observations of xs that fit the dense
// window, and returns how many.
func (s *sampleSet) addDense(xs []float64) int {
	n, lo, hi, distinct := s.n, s.min, s.max, s.distinct
	d, base := s.dense, s.base
	i := 0
	for ; i < len(xs); i++ {
		x := xs[i]
		j := int64(x) - base
		if float64(int64(x)) != x || j < 0 || j >= denseN || d[j] == math.MaxUint32 {
			break
		}
		if d[j] == 0 {
			distinct++
		}
		d[j]++
		n++
		if x < lo {
			lo = x
		}
		if x > hi {
			hi = x
		}
	}
	s.n, s.min, s.max, s.distinct = n, lo, hi, distinct
	return i
}

// addSmall counts the leading observations of xs that the inline entries
// hold or have room for, and returns how many.
func (s *sampleSet) addSmall(xs []float64) int {
	n, lo, hi, ns := s.n, s.min, s.max, s.nsmall
	i := 0
outer:
	for ; i < len(xs); i++ {
		x := xs[i]
		k := canon(x)
		found := false
		for j := int32(0); j < ns; j++ {
			if s.small[j].key == k {
				s.small[j].count++
				found = true
				break
			}
		}
		if !found {
			if ns >= smallN {
				break outer
			}
			s.small[ns] = slot{k, 1}
			ns++
		}
		n++
		if x < lo {
			lo = x
		}
		if x > hi {
			hi = x
		}
	}
	s.n, s.min, s.max, s.nsmall = n, lo, hi, ns
	return i
}

// addTable counts the leading observations of xs that the table holds or
// has room for without growing, and returns how many.
func (s *sampleSet) addTable(xs []float64) int {
	n, lo, hi, distinct, last := s.n, s.min, s.max, s.distinct, s.last
	slots := s.slots
	mask := uint64(len(slots) - 1)
	i := 0
outer:
	for ; i < len(xs); i++ {
		x := xs[i]
		k := canon(x)
		if sl := &slots[last]; sl.key == k && sl.count != 0 {
			sl.count++
		} else {
			for p := hash64(k) & mask; ; p = (p + 1) & mask {
				sl := &slots[p]
				if sl.count == 0 {
					if 2*(int(distinct)+1) > len(slots) {
						break outer // add grows the table
					}
					sl.key, sl.count = k, 1
					last = int32(p)
					distinct++
					break
				}
				if sl.key == k {
					sl.count++
					last = int32(p)
					break
				}
			}
		}
		n++
		if x < lo {
			lo = x
		}
		if x > hi {
			hi = x
		}
	}
	s.n, s.min, s.max, s.distinct, s.last = n, lo, hi, distinct, last
	return i
}

func hash64(k uint64) uint64 { return (k ^ k>>29) * 0x9e3779b97f4a7c15 >> 17 }

// toDense moves the inline entries and x to a dense window if they are all
// integers spanning less than denseN, and counts x there.
func (s *sampleSet) toDense(x float64) bool {
	lo, hi := x, x
	for i := range s.nsmall {
		v := math.Float64frombits(s.small[i].key)
		lo, hi = min(lo, v), max(hi, v)
	}
	if !(lo >= -1<<52 && hi <= 1<<52 && hi-lo < denseN/2) { // NaN fails too
		return false
	}
	for i := range s.nsmall {
		if v := math.Float64frombits(s.small[i].key); float64(int64(v)) != v {
			return false
		}
	}
	if float64(int64(x)) != x {
		return false
	}
	// Room mostly above: counters grow.
	s.base = int64(lo) - int64(denseN-(hi-lo))/4
	s.dense = new([denseN]uint32)
	for i := range s.nsmall {
		s.dense[int64(math.Float64frombits(s.small[i].key))-s.base] = uint32(s.small[i].count)
	}
	s.dense[int64(x)-s.base]++
	s.distinct, s.nsmall = s.nsmall+1, 0
	return true
}

// denseToTable moves the dense window's counts into a table.
func (s *sampleSet) denseToTable() {
	n := 4 * smallN
	for 2*int(s.distinct) >= n {
		n *= 2
	}
	s.slots = make([]slot, n)
	mask := uint64(n - 1)
	for j, c := range s.dense {
		if c == 0 {
			continue
		}
		k := canon(float64(s.base + int64(j)))
		i := hash64(k) & mask
		for s.slots[i].count != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = slot{k, float64(c)}
	}
	s.dense, s.last = nil, 0
}

// toTable moves the inline entries into a table.
func (s *sampleSet) toTable() {
	s.slots = make([]slot, 4*smallN)
	mask := uint64(len(s.slots) - 1)
	for j := range s.nsmall {
		i := hash64(s.small[j].key) & mask
		for s.slots[i].count != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = s.small[j]
	}
	s.distinct, s.nsmall = s.nsmall, 0
}

func (s *sampleSet) grow() {
	s.last = 0
	if s.distinct > s.limit {
		s.toReservoir()
		return
	}
	old := s.slots
	s.slots = make([]slot, 2*len(old))
	mask := uint64(len(s.slots) - 1)
	for _, o := range old {
		if o.count == 0 {
			continue
		}
		i := hash64(o.key) & mask
		for s.slots[i].count != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = o
	}
}

// entries returns the exact (value, count) pairs in a fixed order.
func (s *sampleSet) entries() (vals, counts []float64) {
	if s.dense != nil {
		vals = make([]float64, 0, s.distinct)
		counts = make([]float64, 0, s.distinct)
		for j, c := range s.dense {
			if c != 0 {
				vals = append(vals, float64(s.base+int64(j)))
				counts = append(counts, float64(c))
			}
		}
		return vals, counts
	}
	if s.slots == nil {
		for i := range s.nsmall {
			vals = append(vals, math.Float64frombits(s.small[i].key))
			counts = append(counts, s.small[i].count)
		}
		return vals, counts
	}
	vals = make([]float64, 0, s.distinct)
	counts = make([]float64, 0, s.distinct)
	for _, sl := range s.slots {
		if sl.count != 0 {
			vals = append(vals, math.Float64frombits(sl.key))
			counts = append(counts, sl.count)
		}
	}
	return vals, counts
}

// toReservoir draws a uniform sample without replacement of limit
// observations from the counted multiset: limit distinct positions in
// [0, n) (Floyd's algorithm), sorted, read off the cumulative counts of the
// values in ascending order (so the result does not depend on the table's
// layout). Then algorithm L continues from observation n with its priority
// threshold w drawn from its distribution at that point,
// Beta(limit, n-limit+1).
func (s *sampleSet) toReservoir() {
	rng := rand.New(rand.NewPCG(s.seed, 0x9e3779b97f4a7c15))
	R := int(s.limit)
	N := int64(s.n)
	pos := floyd(rng, N, R)
	// The table's entries in ascending order of value (NaN first, as
	// slices.Sort orders floats; keys are distinct and canonical).
	ent := make([]slot, 0, s.distinct)
	for _, sl := range s.slots {
		if sl.count != 0 {
			ent = append(ent, slot{orderKey(sl.key), sl.count})
		}
	}
	sortByKey(ent)
	res := &reservoir{x: make([]float64, 0, R), rng: rng}
	var cum int64
	k := 0
	for _, e := range ent {
		cum += int64(e.count)
		v := math.Float64frombits(fromOrderKey(e.key))
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

// floydBitset bounds the population (bits) for which floyd marks its
// choices in a bitset rather than a hash set; a variable so tests both.
var floydBitset int64 = 1 << 24

// floyd draws r distinct positions in [0, n) uniformly (Floyd's
// algorithm) and returns them in ascending order.
func floyd(rng *rand.Rand, n int64, r int) []int64 {
	pos := make([]int64, 0, r)
	if n <= floydBitset {
		bits := make([]uint64, (n+63)/64)
		for j := n - int64(r); j < n; j++ {
			t := rng.Int64N(j + 1)
			if bits[t>>6]&(1<<(t&63)) != 0 {
				t = j
			}
			bits[t>>6] |= 1 << (t & 63)
		}
		for w, b := range bits {
			for ; b != 0; b &= b - 1 {
				pos = append(pos, int64(w)<<6+int64(mathbits.TrailingZeros64(b)))
			}
		}
		return pos
	}
	chosen := make(map[int64]struct{}, r)
	for j := n - int64(r); j < n; j++ {
		t := rng.Int64N(j + 1)
		if _, dup := chosen[t]; dup {
			t = j
		}
		chosen[t] = struct{}{}
	}
	for p := range chosen {
		pos = append(pos, p)
	}
	slices.Sort(pos)
	return pos
}

// sortByKey sorts slots by distinct keys: a least-significant-digit radix
// sort on bytes, skipping the bytes every key shares, for the thousands of
// entries of a table; a plain sort for a few.
func sortByKey(s []slot) {
	if len(s) < 256 {
		slices.SortFunc(s, func(x, y slot) int { return cmp.Compare(x.key, y.key) })
		return
	}
	tmp := make([]slot, len(s))
	src, dst := s, tmp
	for shift := uint(0); shift < 64; shift += 8 {
		var count [256]int
		for i := range src {
			count[byte(src[i].key>>shift)]++
		}
		if count[byte(src[0].key>>shift)] == len(src) {
			continue
		}
		sum := 0
		for i, c := range count {
			count[i] = sum
			sum += c
		}
		for i := range src {
			d := byte(src[i].key >> shift)
			dst[count[d]] = src[i]
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &s[0] {
		copy(s, src)
	}
}

// orderKey maps canonical float64 bits to a key with the order of
// slices.Sort on the floats: NaN first, then ascending.
func orderKey(k uint64) uint64 {
	switch {
	case k == canonicalNaN:
		return 0
	case k>>63 != 0:
		return ^k
	}
	return k | 1<<63
}

func fromOrderKey(o uint64) uint64 {
	switch {
	case o == 0:
		return canonicalNaN
	case o>>63 != 0:
		return o &^ (1 << 63)
	}
	return ^o
}

// skip advances next past the observations that algorithm L skips.
func (r *reservoir) skip() {
	u := 1 - r.rng.Float64() // in (0, 1]
	r.next += math.Floor(math.Log(u)/math.Log1p(-r.w)) + 1
}

// add offers observation number n.
func (r *reservoir) add(x, n float64) {
	if n < r.next {
		return
	}
	r.x[r.rng.IntN(len(r.x))] = x
	r.w *= math.Exp(math.Log(1-r.rng.Float64()) / float64(len(r.x)))
	r.skip()
}

// exact reports whether the set still holds every observation.
// count is the number of observations; 0 for a nil set.
func (s *sampleSet) count() float64 {
	if s == nil {
		return 0
	}
	return s.n
}

func (s *sampleSet) exact() bool { return s.res == nil }

// constant reports whether every observation had the same value.
func (s *sampleSet) constant() bool { return s.n > 0 && s.min == s.max }

// dist returns the set's (or its reservoir's) empirical distribution:
// the distribution stats.NewDist gives of the observations, sorted here
// by order keys (one integer comparison) rather than as floats.
func (s *sampleSet) dist() stats.Dist {
	if s == nil || s.n == 0 {
		return stats.Dist{}
	}
	if s.res != nil {
		return reservoirDist(s.res.x)
	}
	var d stats.Dist
	if s.dense != nil {
		// Ascending already.
		d.Values, d.Counts = s.entries()
		return d
	}
	var ent []slot
	if s.slots == nil {
		ent = make([]slot, s.nsmall)
		copy(ent, s.small[:s.nsmall])
	} else {
		ent = make([]slot, 0, s.distinct)
		for _, sl := range s.slots {
			if sl.count != 0 {
				ent = append(ent, sl)
			}
		}
	}
	for i := range ent {
		ent[i].key = orderKey(ent[i].key)
	}
	sortByKey(ent)
	d.Values, d.Counts = make([]float64, len(ent)), make([]float64, len(ent))
	for i, e := range ent {
		d.Values[i], d.Counts[i] = math.Float64frombits(fromOrderKey(e.key)), e.count
	}
	return d
}

// reservoirDist is stats.NewDist(x). Values equal as floats but not in
// bits (-0 and +0, NaNs of different payloads) leave it to NewDist, which
// keeps whichever its sort puts first.
func reservoirDist(x []float64) stats.Dist {
	keys := make([]uint64, len(x))
	for i, v := range x {
		k := canon(v)
		if k != math.Float64bits(v) {
			return stats.NewDist(x)
		}
		keys[i] = orderKey(k)
	}
	slices.Sort(keys)
	n := 0
	for i := range keys {
		if i == 0 || keys[i] != keys[i-1] {
			n++
		}
	}
	d := stats.Dist{Values: make([]float64, 0, n), Counts: make([]float64, 0, n)}
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && keys[j] == keys[i] {
			j++
		}
		d.Values = append(d.Values, math.Float64frombits(fromOrderKey(keys[i])))
		d.Counts = append(d.Counts, float64(j-i))
		i = j
	}
	return d
}
