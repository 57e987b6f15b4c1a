package stats

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// Significance levels of the critical-value table (Scholz and Stephens 1987,
// Table 2, as scipy.stats.anderson_ksamp uses them). The p-value is capped to
// [0.001, 0.25], the ends of this table.
var sigLevels = [7]float64{0.25, 0.1, 0.05, 0.025, 0.01, 0.005, 0.001}

// Interpolation coefficients b0, b1, b2 of the critical values:
// critical = b0 + b1/sqrt(m) + b2/m with m = k-1.
var (
	critB0 = [7]float64{0.675, 1.281, 1.645, 1.96, 2.326, 2.573, 3.085}
	critB1 = [7]float64{-0.245, 0.25, 0.678, 1.149, 1.822, 2.364, 3.615}
	critB2 = [7]float64{-0.105, -0.305, -0.362, -0.391, -0.396, -0.345, -0.154}
)

// PMin and PMax are the ends of the table: p-values are capped to them.
const (
	PMin = 0.001
	PMax = 0.25
)

// ADResult is the outcome of a k-sample Anderson-Darling test.
type ADResult struct {
	// Statistic is the standardized statistic (A2akN - (k-1)) / sigma, the
	// value scipy reports as `statistic`.
	Statistic float64
	// A2akN is the unstandardized midrank statistic.
	A2akN float64
	// Critical holds the critical values for the significance levels
	// 0.25, 0.1, 0.05, 0.025, 0.01, 0.005, 0.001.
	Critical [7]float64
	// P is the approximate p-value interpolated from the table, in
	// [PMin, PMax]; it is capped at the table's ends.
	P float64
}

// Errors of the k-sample test, for the same inputs scipy rejects.
var (
	ErrTooFewSamples = errors.New("anderson-darling: need at least two samples")
	ErrEmptySample   = errors.New("anderson-darling: a sample has no observations")
	ErrOneValue      = errors.New("anderson-darling: need more than one distinct observation")
	ErrTooSmall      = errors.New("anderson-darling: need at least 4 observations in all")
)

// AndersonKSamp runs the k-sample Anderson-Darling test, midrank version, on
// raw samples, like scipy.stats.anderson_ksamp(samples, midrank=True).
// The samples are not modified. Cost: one sort per sample, O(N log N).
func AndersonKSamp(samples ...[]float64) (ADResult, error) {
	ds := make([]Dist, len(samples))
	for i, s := range samples {
		ds[i] = sortedDist(s)
	}
	return AndersonKSampDist(ds...)
}

// sortedDist returns the distribution of x in two allocations: a sorted
// copy of x, compacted in place to its distinct values, and the counts.
func sortedDist(x []float64) Dist {
	s := slices.Clone(x)
	sortFloats(s)
	distinct := 0
	for i := range s {
		if i == 0 || !same(s[i], s[i-1]) {
			distinct++
		}
	}
	counts := make([]float64, 0, distinct)
	w := 0
	for i := 0; i < len(s); {
		j := i + 1
		for j < len(s) && same(s[j], s[i]) {
			j++
		}
		s[w] = s[i]
		counts = append(counts, float64(j-i))
		w++
		i = j
	}
	return Dist{Values: s[:w:w], Counts: counts}
}

// AndersonKSampDist is AndersonKSamp on distributions (distinct values with
// counts): the statistic depends on the data only through these. It runs in
// O(D k) for D distinct pooled values and allocates only O(k).
func AndersonKSampDist(samples ...Dist) (ADResult, error) {
	var res ADResult
	k := len(samples)
	if k < 2 {
		return res, ErrTooFewSamples
	}
	n := make([]float64, k)
	var N float64
	for i, s := range samples {
		if len(s.Values) != len(s.Counts) {
			return res, fmt.Errorf("anderson-darling: sample %d has %d values and %d counts", i, len(s.Values), len(s.Counts))
		}
		n[i] = s.N()
		if n[i] <= 0 {
			return res, ErrEmptySample
		}
		N += n[i]
	}
	if N < 4 {
		return res, ErrTooSmall
	}
	a2, distinct := midrank(samples, n, N)
	if distinct < 2 {
		return res, ErrOneValue
	}
	res.A2akN = a2

	// Variance of A2akN under the null hypothesis (Scholz and Stephens
	// 1987, eq. 4), with scipy's h and g.
	var H float64
	for _, ni := range n {
		H += 1 / ni
	}
	h, g := harmonicHG(N)
	fk := float64(k)
	a := (4*g-6)*(fk-1) + (10-6*g)*H
	b := (2*g-4)*fk*fk + 8*h*fk + (2*g-14*h-4)*H - 8*h + 4*g - 6
	c := (6*h+2*g-2)*fk*fk + (4*h-4*g+6)*fk + (2*h-6)*H + 4*h
	d := (2*h+6)*fk*fk - 4*h*fk
	sigmasq := (a*N*N*N + b*N*N + c*N + d) / ((N - 1) * (N - 2) * (N - 3))
	m := fk - 1
	res.Statistic = (a2 - m) / math.Sqrt(sigmasq)
	res.Critical = criticalValues(m)
	res.P = pValue(res.Statistic, &res.Critical)
	return res, nil
}

// midrank computes A2akN by walking the k sorted distributions in step
// over the pooled distinct values z_j. For each z_j with multiplicity l_j
// among N pooled observations, B_j = #{Z < z_j} + l_j/2 and, for sample i,
// M_ij = #{X_i < z_j} + f_ij/2:
//
//	A2akN = (N-1)/N * sum_i 1/n_i * sum_j l_j/N * (N M_ij - B_j n_i)^2 / (B_j (N - B_j) - N l_j/4)
func midrank(samples []Dist, n []float64, N float64) (a2 float64, distinct int) {
	k := len(samples)
	scratch := make([]float64, 3*k)
	below := scratch[:k]   // #{X_i < z}
	f := scratch[k : 2*k]  // f_ij
	inner := scratch[2*k:] // per-sample sums over j
	pos := make([]int, k)  // next distinct value of each sample
	var L float64          // #{Z < z}
	for {
		var z float64
		found := false
		for i, s := range samples {
			if pos[i] < len(s.Values) {
				if v := s.Values[pos[i]]; !found || less(v, z) {
					z, found = v, true
				}
			}
		}
		if !found {
			break
		}
		distinct++
		var l float64
		for i, s := range samples {
			f[i] = 0
			if p := pos[i]; p < len(s.Values) && same(s.Values[p], z) {
				f[i] = s.Counts[p]
				l += f[i]
				pos[i]++
			}
		}
		B := L + l/2
		den := B*(N-B) - N*l/4
		if den > 0 { // zero only when every observation equals z
			w := l / N / den
			for i := range samples {
				t := N*(below[i]+f[i]/2) - B*n[i]
				inner[i] += w * t * t
			}
		}
		L += l
		for i := range samples {
			below[i] += f[i]
		}
	}
	for i := range samples {
		a2 += inner[i] / n[i]
	}
	return a2 * (N - 1) / N, distinct
}

// harmonicHG returns scipy's h = sum_{i=1}^{N-1} 1/i and
// g = sum_{i=1}^{N-2} sum_{j=i+1}^{N-1} 1/((N-i) j).
// The double sum has the closed form g = H2(N) - (2 H(N) - 1/N) / N, with
// H(N) and H2(N) the harmonic numbers of order 1 and 2, so large N costs
// O(1): exact sums below 64, asymptotic series (error below 1e-16) above.
func harmonicHG(N float64) (h, g float64) {
	if N < 64 {
		var H1, H2 float64
		for i := 1.0; i <= N; i++ {
			H1 += 1 / i
			H2 += 1 / (i * i)
		}
		return H1 - 1/N, H2 - (2*H1-1/N)/N
	}
	H1 := harmonic(N)
	H2 := harmonic2(N)
	return H1 - 1/N, H2 - (2*H1-1/N)/N
}

// harmonic is H(n) = ln n + gamma + 1/(2n) - 1/(12n^2) + 1/(120n^4) - 1/(252n^6).
func harmonic(n float64) float64 {
	const gamma = 0.57721566490153286060651209008240243
	x := 1 / (n * n)
	return math.Log(n) + gamma + 1/(2*n) - x*(1.0/12-x*(1.0/120-x/252))
}

// harmonic2 is H2(n) = pi^2/6 - psi1(n+1), with the trigamma asymptotic
// series psi1(n+1) = 1/n - 1/(2n^2) + 1/(6n^3) - 1/(30n^5) + 1/(42n^7).
func harmonic2(n float64) float64 {
	x := 1 / n
	x2 := x * x
	psi1 := x - x2/2 + x2*x*(1.0/6-x2*(1.0/30-x2/42))
	return math.Pi*math.Pi/6 - psi1
}

func criticalValues(m float64) [7]float64 {
	var c [7]float64
	for i := range c {
		c[i] = critB0[i] + critB1[i]/math.Sqrt(m) + critB2[i]/m
	}
	return c
}

// pValue interpolates log(significance) as a quadratic in the critical
// value (a least-squares fit through the 7 table points, numpy.polyfit
// degree 2) and caps at the table's ends, as scipy >= 1.5 does.
func pValue(a2 float64, crit *[7]float64) float64 {
	lo, hi := crit[0], crit[0]
	for _, c := range crit {
		lo, hi = min(lo, c), max(hi, c)
	}
	switch {
	case math.IsNaN(a2):
		return PMax
	case a2 < lo:
		return PMax
	case a2 > hi:
		return PMin
	}
	p0, p1, p2 := quadFit(crit)
	return math.Exp(p0*a2*a2 + p1*a2 + p2)
}

// quadFit is numpy.polyfit(crit, log(sigLevels), 2): the coefficients of
// the least-squares quadratic, highest degree first.
func quadFit(crit *[7]float64) (c2, c1, c0 float64) {
	a := mat.NewDense(7, 3, nil)
	b := mat.NewVecDense(7, nil)
	for i, x := range crit {
		a.Set(i, 0, x*x)
		a.Set(i, 1, x)
		a.Set(i, 2, 1)
		b.SetVec(i, math.Log(sigLevels[i]))
	}
	var qr mat.QR
	qr.Factorize(a)
	var x mat.VecDense
	if err := qr.SolveVecTo(&x, false, b); err != nil {
		// The table's critical values are distinct for every k, so the
		// system always has full rank; fall back to the nearest level.
		return 0, 0, math.Log(PMax)
	}
	return x.AtVec(0), x.AtVec(1), x.AtVec(2)
}
