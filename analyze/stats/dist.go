// Package stats holds the two statistics of vprof's variable-discounter
// (docs/method.md §5): the k-sample Anderson-Darling test in its
// midrank form (Scholz and Stephens 1987) with the p-value that scipy's
// anderson_ksamp reports, and the Hellinger distance between two empirical
// distributions over the method's bins.
//
// Both statistics depend on a sample only through its distinct values and
// their multiplicities, so they work on a Dist: sorted distinct values with
// counts. A profile's millions of samples of one variable usually take a
// few hundred distinct values, and the analyzer keeps them in that form.
package stats

import (
	"cmp"
	"math"
	"slices"
)

// Dist is an empirical distribution: distinct values in ascending order and
// how often each occurred. Counts are float64 so that sums stay exact up to
// 2^53 observations without conversions in the inner loops.
type Dist struct {
	Values []float64
	Counts []float64
}

// N is the number of observations.
func (d Dist) N() float64 {
	var n float64
	for _, c := range d.Counts {
		n += c
	}
	return n
}

// Len is the number of distinct values.
func (d Dist) Len() int { return len(d.Values) }

// NewDist returns the distribution of x. x is not modified. NaNs sort below
// every number (as slices.Sort orders them) and count as one value.
func NewDist(x []float64) Dist {
	s := slices.Clone(x)
	slices.Sort(s)
	var d Dist
	d.FromSorted(s)
	return d
}

// FromSorted sets d to the distribution of the sorted slice s, reusing d's
// storage. It allocates only when d's slices are too small.
func (d *Dist) FromSorted(s []float64) {
	d.Values, d.Counts = d.Values[:0], d.Counts[:0]
	for i := 0; i < len(s); {
		j := i + 1
		for j < len(s) && same(s[j], s[i]) {
			j++
		}
		d.Values = append(d.Values, s[i])
		d.Counts = append(d.Counts, float64(j-i))
		i = j
	}
}

// FromCounts sets d from unsorted (value, count) pairs with distinct
// values. vals and counts are reordered in place and kept as d's storage.
func (d *Dist) FromCounts(vals, counts []float64) {
	type pair struct{ v, c float64 }
	ps := make([]pair, len(vals))
	for i := range ps {
		ps[i] = pair{vals[i], counts[i]}
	}
	slices.SortFunc(ps, func(a, b pair) int { return cmp.Compare(a.v, b.v) })
	for i, p := range ps {
		vals[i], counts[i] = p.v, p.c
	}
	d.Values, d.Counts = vals, counts
}

// same is equality in the order slices.Sort uses: NaNs are equal to each
// other, so they form one distinct value.
func same(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

// less is the order of slices.Sort (cmp.Less): NaN below everything.
func less(a, b float64) bool { return cmp.Less(a, b) }
