package stats

import (
	"math"

	"gonum.org/v1/gonum/stat"
)

// Bins is the number of bins of the Hellinger distance (method.md §5): the
// exact values when the pooled sample has at most Bins distinct values, else
// Bins equal-frequency bins of the pooled sample.
const Bins = 64

// Hellinger returns the Hellinger distance, in [0, 1], between the empirical
// distributions a and b over the method's common bins. It is 0 when either
// side is empty. It does not allocate.
//
// Equal-frequency bins: with the pooled sample sorted as Z[0..N), the cut
// points are Z[floor(t N / Bins)] for t = 1..Bins-1, and an observation x
// falls in bin #{t : cut_t <= x}. Without ties every bin holds N/Bins pooled
// observations; ties keep equal values together (a repeated cut point leaves
// a bin empty, which changes nothing in the distance).
func Hellinger(a, b Dist) float64 {
	na, nb := a.N(), b.N()
	if na <= 0 || nb <= 0 {
		return 0
	}
	var p, q [Bins]float64
	exact := pooledDistinctAtMost(a, b, Bins)
	N := na + nb
	var cum float64 // pooled observations through the current value
	t := 1          // next cut point
	bin := 0
	i, j := 0, 0
	for i < len(a.Values) || j < len(b.Values) {
		var ca, cb float64
		switch {
		case j == len(b.Values) || (i < len(a.Values) && less(a.Values[i], b.Values[j])):
			ca = a.Counts[i]
			i++
		case i == len(a.Values) || less(b.Values[j], a.Values[i]):
			cb = b.Counts[j]
			j++
		default: // equal
			ca, cb = a.Counts[i], b.Counts[j]
			i++
			j++
		}
		cum += ca + cb
		if !exact {
			// Count the cut points whose index lies below cum: those cut
			// values are <= this value.
			for t < Bins && math.Floor(float64(t)*N/Bins) < cum {
				t++
			}
			bin = t - 1
		}
		p[bin] += ca / na
		q[bin] += cb / nb
		if exact {
			bin++
		}
	}
	h := stat.Hellinger(p[:], q[:])
	if math.IsNaN(h) { // 1 - BC rounded below zero: identical distributions
		return 0
	}
	return min(h, 1)
}

// pooledDistinctAtMost reports whether a and b together have at most limit
// distinct values.
func pooledDistinctAtMost(a, b Dist, limit int) bool {
	if len(a.Values)+len(b.Values) <= limit {
		return true
	}
	if len(a.Values) > limit || len(b.Values) > limit {
		return false
	}
	n, i, j := 0, 0, 0
	for i < len(a.Values) || j < len(b.Values) {
		switch {
		case j == len(b.Values) || (i < len(a.Values) && less(a.Values[i], b.Values[j])):
			i++
		case i == len(a.Values) || less(b.Values[j], a.Values[i]):
			j++
		default:
			i++
			j++
		}
		if n++; n > limit {
			return false
		}
	}
	return true
}
