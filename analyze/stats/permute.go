package stats

import (
	"math"
	"math/rand/v2"
	"slices"
)

// HellingerChance returns the permutation p-value of the Hellinger distance
// between a and b: the share of k random re-splits of their pooled
// observations into groups of their sizes whose distance is at least
// theirs (counting the observed split, (1 + hits) / (1 + k)). Two small
// samples of one distribution are far apart by chance alone (two runs with
// three values of a loop index each are at distance 1 whatever the loop
// does); a small p says their distance is more than their sizes explain.
// Counts are rounded to whole observations. The re-splits come from a
// fixed seed, so the result is the same from call to call.
func HellingerChance(a, b Dist, k int) float64 {
	h := Hellinger(a, b)
	na, nb := int(math.Round(a.N())), int(math.Round(b.N()))
	if na == 0 || nb == 0 || k <= 0 {
		return 1
	}
	// The pooled observations, ascending: a split taken in this order
	// gives both groups sorted, as Dist wants them.
	z := make([]float64, 0, na+nb)
	for _, d := range [2]Dist{a, b} {
		for i, v := range d.Values {
			for range int(math.Round(d.Counts[i])) {
				z = append(z, v)
			}
		}
	}
	slices.SortFunc(z, func(x, y float64) int {
		switch {
		case less(x, y):
			return -1
		case less(y, x):
			return 1
		}
		return 0
	})
	inA := make([]bool, len(z))
	for i := range na {
		inA[i] = true
	}
	rng := rand.New(rand.NewPCG(uint64(na), uint64(nb)))
	var pa, pb Dist
	hits := 0
	for range k {
		rng.Shuffle(len(inA), func(i, j int) { inA[i], inA[j] = inA[j], inA[i] })
		pa, pb = group(pa, z, inA, true), group(pb, z, inA, false)
		if Hellinger(pa, pb) >= h {
			hits++
		}
	}
	return float64(1+hits) / float64(1+k)
}

// group fills d with the observations of z (ascending) whose mask is want.
func group(d Dist, z []float64, mask []bool, want bool) Dist {
	d.Values, d.Counts = d.Values[:0], d.Counts[:0]
	for i, v := range z {
		if mask[i] != want {
			continue
		}
		if n := len(d.Values); n > 0 && !less(d.Values[n-1], v) {
			d.Counts[n-1]++
			continue
		}
		d.Values = append(d.Values, v)
		d.Counts = append(d.Counts, 1)
	}
	return d
}
