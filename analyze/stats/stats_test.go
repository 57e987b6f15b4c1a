package stats

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
)

// The reference file lives in the shared directory beside the repository.
const refPath = "../../../shared/testdata/anderson_ksamp.json"

type refCase struct {
	Name      string    `json:"name"`
	Normal    []float64 `json:"normal"`
	Buggy     []float64 `json:"buggy"`
	Statistic float64   `json:"statistic"`
	Critical  []float64 `json:"critical_values"`
	P         float64   `json:"significance_level_capped"`
}

func loadRef(t testing.TB) []refCase {
	t.Helper()
	b, err := os.ReadFile(filepath.FromSlash(refPath))
	if err != nil {
		t.Fatalf("reference statistics: %v", err)
	}
	var f struct {
		Cases []refCase `json:"cases"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("%s: %v", refPath, err)
	}
	if len(f.Cases) == 0 {
		t.Fatalf("%s: no cases", refPath)
	}
	return f.Cases
}

func TestAndersonKSampScipy(t *testing.T) {
	for _, c := range loadRef(t) {
		t.Run(c.Name, func(t *testing.T) {
			r, err := AndersonKSamp(c.Normal, c.Buggy)
			if err != nil {
				t.Fatal(err)
			}
			if d := math.Abs(r.Statistic - c.Statistic); d > 1e-6*math.Abs(c.Statistic) {
				t.Errorf("statistic = %.12g, scipy %.12g (rel. err %.2g)", r.Statistic, c.Statistic, d/math.Abs(c.Statistic))
			}
			if math.Abs(r.P-c.P) > 1e-3 {
				t.Errorf("p = %.6g, scipy %.6g", r.P, c.P)
			}
			for i, cv := range c.Critical {
				if math.Abs(r.Critical[i]-cv) > 1e-12 {
					t.Errorf("critical[%d] = %g, scipy %g", i, r.Critical[i], cv)
				}
			}
			// The same test on the distributions, in either order of samples.
			r2, err := AndersonKSampDist(NewDist(c.Buggy), NewDist(c.Normal))
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(r2.Statistic-r.Statistic) > 1e-9*math.Abs(r.Statistic) || r2.P != r.P {
				t.Errorf("swapped samples: statistic %g p %g, want %g %g", r2.Statistic, r2.P, r.Statistic, r.P)
			}
		})
	}
}

// naiveA2akN is scipy's _anderson_ksamp_midrank transcribed literally
// (searchsorted over the pooled sorted sample), as an independent check of
// the merge walk, for any k.
func naiveA2akN(samples [][]float64) float64 {
	var Z []float64
	for _, s := range samples {
		Z = append(Z, s...)
	}
	sort.Float64s(Z)
	N := float64(len(Z))
	var Zstar []float64
	for i, z := range Z {
		if i == 0 || z != Z[i-1] {
			Zstar = append(Zstar, z)
		}
	}
	left := func(a []float64, v float64) float64 { return float64(sort.SearchFloat64s(a, v)) }
	right := func(a []float64, v float64) float64 {
		return float64(sort.Search(len(a), func(i int) bool { return a[i] > v }))
	}
	var A float64
	for _, s0 := range samples {
		s := slices.Clone(s0)
		sort.Float64s(s)
		ni := float64(len(s))
		var inner float64
		for _, z := range Zstar {
			lj := right(Z, z) - left(Z, z)
			Bj := left(Z, z) + lj/2
			fij := right(s, z) - left(s, z)
			Mij := right(s, z) - fij/2
			inner += lj / N * (N*Mij - Bj*ni) * (N*Mij - Bj*ni) / (Bj*(N-Bj) - N*lj/4)
		}
		A += inner / ni
	}
	return A * (N - 1) / N
}

// naiveHG is scipy's h and g by the literal sums.
func naiveHG(N int) (h, g float64) {
	var cs []float64
	var acc float64
	for t := N - 1; t > 1; t-- {
		acc += 1 / float64(t)
		cs = append(cs, acc)
	}
	h = cs[len(cs)-1] + 1
	for i, c := range cs {
		g += c / float64(i+2)
	}
	return h, g
}

func TestHarmonicClosedForm(t *testing.T) {
	for _, N := range []int{4, 5, 10, 63, 64, 65, 100, 1000, 12345, 1 << 20} {
		wh, wg := naiveHG(N)
		h, g := harmonicHG(float64(N))
		if math.Abs(h-wh) > 1e-12*wh || math.Abs(g-wg) > 1e-12*wg {
			t.Errorf("N=%d: h,g = %.17g,%.17g, sums give %.17g,%.17g", N, h, g, wh, wg)
		}
	}
}

func TestMidrankMatchesLiteral(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 60 {
		k := 2 + trial%3
		samples := make([][]float64, k)
		ds := make([]Dist, k)
		for i := range samples {
			n := 3 + rng.IntN(40)
			for range n {
				v := rng.NormFloat64()
				if trial%2 == 0 { // many ties
					v = math.Round(v * 2)
				}
				samples[i] = append(samples[i], v+float64(i)*0.3*float64(trial%4))
			}
			ds[i] = NewDist(samples[i])
		}
		want := naiveA2akN(samples)
		var n []float64
		var N float64
		for _, d := range ds {
			n = append(n, d.N())
			N += d.N()
		}
		got, _ := midrank(ds, n, N)
		if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Errorf("trial %d (k=%d): A2akN = %.15g, literal scipy %.15g", trial, k, got, want)
		}
	}
}

func TestAndersonErrors(t *testing.T) {
	cases := []struct {
		name    string
		samples [][]float64
		want    error
	}{
		{"one sample", [][]float64{{1, 2, 3}}, ErrTooFewSamples},
		{"empty sample", [][]float64{{1, 2, 3}, {}}, ErrEmptySample},
		{"one value", [][]float64{{1, 1, 1}, {1, 1}}, ErrOneValue},
		{"too small", [][]float64{{1}, {2, 3}}, ErrTooSmall},
	}
	for _, c := range cases {
		if _, err := AndersonKSamp(c.samples...); !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.want)
		}
	}
}

func TestPValueCaps(t *testing.T) {
	crit := criticalValues(1)
	cases := []struct {
		a2, want float64
	}{
		{-5, PMax},
		{crit[0] - 1e-9, PMax},
		{crit[6] + 1e-9, PMin},
		{100, PMin},
	}
	for _, c := range cases {
		if got := pValue(c.a2, &crit); got != c.want {
			t.Errorf("p(%g) = %g, want %g", c.a2, got, c.want)
		}
	}
	// Inside the table the fit passes close to the table's own points.
	for i, c := range crit {
		if p := pValue(c, &crit); math.Abs(math.Log(p)-math.Log(sigLevels[i])) > 0.15 {
			t.Errorf("p(critical %g) = %g, table %g", c, p, sigLevels[i])
		}
	}
}

func TestHellinger(t *testing.T) {
	seq := func(lo, hi int) []float64 {
		var s []float64
		for i := lo; i < hi; i++ {
			s = append(s, float64(i))
		}
		return s
	}
	cases := []struct {
		name string
		a, b []float64
		want float64
	}{
		{"identical", []float64{1, 2, 2, 3}, []float64{3, 2, 1, 2}, 0},
		{"disjoint exact", []float64{1, 1, 2}, []float64{5, 6}, 1},
		// p = (1/2, 1/2, 0), q = (0, 1/2, 1/2): BC = 1/2.
		{"half overlap", []float64{1, 2}, []float64{2, 3}, math.Sqrt(0.5)},
		// p = (1, 0), q = (1/4, 3/4): BC = 1/2.
		{"quarter", []float64{0, 0}, []float64{0, 1, 1, 1}, math.Sqrt(0.5)},
		{"empty side", nil, []float64{1}, 0},
		// 128 + 128 distinct pooled values: 64 bins of 4 pooled values,
		// the first 32 bins all from a, the last 32 all from b.
		{"binned disjoint", seq(0, 128), seq(128, 256), 1},
		// a and b interleave: every bin holds 2 of each.
		{"binned interleaved", evens(256), odds(256), 0},
		// 65 distinct values: binned. a = 0..64 once each (65), b = 0 x 65:
		// pooled N = 130, cut t at index floor(130t/64) ...
		{"binned skew", seq(0, 65), repeat(0, 65), binnedSkew()},
	}
	for _, c := range cases {
		got := Hellinger(NewDist(c.a), NewDist(c.b))
		if math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: H = %.15g, want %.15g", c.name, got, c.want)
		}
	}
}

func evens(n int) []float64 {
	var s []float64
	for i := 0; i < n; i += 2 {
		s = append(s, float64(i))
	}
	return s
}

func odds(n int) []float64 {
	var s []float64
	for i := 1; i < n; i += 2 {
		s = append(s, float64(i))
	}
	return s
}

func repeat(v float64, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// binnedSkew computes the expected distance of the "binned skew" case by
// the definition, with explicit cut points over the pooled sorted sample.
func binnedSkew() float64 {
	var Z []float64
	for i := range 65 {
		Z = append(Z, float64(i))
	}
	Z = append(Z, repeat(0, 65)...)
	sort.Float64s(Z)
	N := len(Z)
	var cuts []float64
	for t := 1; t < Bins; t++ {
		cuts = append(cuts, Z[t*N/Bins])
	}
	bin := func(x float64) int {
		n := 0
		for _, c := range cuts {
			if c <= x {
				n++
			}
		}
		return n
	}
	var p, q [Bins]float64
	for i := range 65 {
		p[bin(float64(i))] += 1.0 / 65
	}
	q[bin(0)] = 1
	var bc float64
	for i := range p {
		bc += math.Sqrt(p[i] * q[i])
	}
	return math.Sqrt(1 - bc)
}

func TestHellingerEqualFrequency(t *testing.T) {
	// Without ties every one of the 64 bins holds N/64 pooled values: a
	// pooled sample split evenly by a random labelling has p ~ q.
	rng := rand.New(rand.NewPCG(3, 4))
	var a, b []float64
	for i := range 64 * 100 {
		if rng.IntN(2) == 0 {
			a = append(a, float64(i))
		} else {
			b = append(b, float64(i))
		}
	}
	if h := Hellinger(NewDist(a), NewDist(b)); h > 0.1 {
		t.Errorf("random split of one sample: H = %g, want near 0", h)
	}
	// Shifting b by half the range makes them mostly disjoint.
	for i := range b {
		b[i] += 3200
	}
	if h := Hellinger(NewDist(a), NewDist(b)); h < 0.6 {
		t.Errorf("shifted: H = %g, want large", h)
	}
}

func TestFromCounts(t *testing.T) {
	var d Dist
	d.FromCounts([]float64{3, 1, 2}, []float64{30, 10, 20})
	if !slices.Equal(d.Values, []float64{1, 2, 3}) || !slices.Equal(d.Counts, []float64{10, 20, 30}) {
		t.Errorf("FromCounts: %v %v", d.Values, d.Counts)
	}
	if d.N() != 60 {
		t.Errorf("N = %g", d.N())
	}
}

func BenchmarkAndersonKSamp1M(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	x := make([]float64, 1<<20)
	y := make([]float64, 1<<20)
	for i := range x {
		x[i] = rng.NormFloat64()
		y[i] = rng.NormFloat64() + 0.01
	}
	b.SetBytes(int64(8 * (len(x) + len(y))))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := AndersonKSamp(x, y); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAndersonKSampDist(b *testing.B) {
	// A loop counter's typical shape: few distinct values, many samples.
	rng := rand.New(rand.NewPCG(7, 8))
	x := make([]float64, 1<<20)
	y := make([]float64, 1<<20)
	for i := range x {
		x[i] = float64(rng.IntN(1000))
		y[i] = float64(rng.IntN(1200))
	}
	dx, dy := NewDist(x), NewDist(y)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := AndersonKSampDist(dx, dy); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHellinger(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 10))
	x := make([]float64, 1<<16)
	y := make([]float64, 1<<16)
	for i := range x {
		x[i] = rng.NormFloat64()
		y[i] = rng.NormFloat64()
	}
	dx, dy := NewDist(x), NewDist(y)
	b.ReportAllocs()
	for b.Loop() {
		Hellinger(dx, dy)
	}
}

func TestSortFloats(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{0, 1, 100, 5000, 70000} {
		x := make([]float64, n)
		for i := range x {
			switch rng.IntN(10) {
			case 0:
				x[i] = math.Inf(1 - 2*rng.IntN(2))
			case 1:
				x[i] = math.NaN()
			case 2:
				x[i] = math.Copysign(0, -1)
			default:
				x[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(40)-20))
			}
		}
		want := slices.Clone(x)
		slices.Sort(want)
		sortFloats(x)
		for i := range x {
			if !same(x[i], want[i]) {
				t.Fatalf("n=%d: at %d got %g, want %g", n, i, x[i], want[i])
			}
		}
	}
}
