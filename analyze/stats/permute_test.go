package stats

import "testing"

func dist(vals ...float64) Dist {
	var d Dist
	for _, v := range vals {
		if n := len(d.Values); n > 0 && d.Values[n-1] == v {
			d.Counts[n-1]++
			continue
		}
		d.Values = append(d.Values, v)
		d.Counts = append(d.Counts, 1)
	}
	return d
}

func seq(from, n, step int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(from + i*step)
	}
	return out
}

func TestHellingerChance(t *testing.T) {
	for _, c := range []struct {
		name   string
		a, b   Dist
		signif bool // p < 0.05
	}{
		// Three values each of one loop index: distance 1, by chance.
		{"three values each", dist(3, 917, 2040), dist(120, 1555, 2999), false},
		// A hundred values each, disjoint ranges: far beyond chance.
		{"disjoint ranges", dist(seq(0, 100, 1)...), dist(seq(1000, 100, 1)...), true},
		// A hundred values each, interleaved from one range: no difference.
		{"one range", dist(seq(0, 100, 2)...), dist(seq(1, 100, 2)...), false},
	} {
		p := HellingerChance(c.a, c.b, 199)
		if (p < 0.05) != c.signif {
			t.Errorf("%s: p %g (distance %g), want significant %v", c.name, p, Hellinger(c.a, c.b), c.signif)
		}
		if p2 := HellingerChance(c.a, c.b, 199); p2 != p {
			t.Errorf("%s: p %g then %g: want the same", c.name, p, p2)
		}
	}
	if p := HellingerChance(Dist{}, dist(1, 2, 3), 199); p != 1 {
		t.Errorf("empty side: p %g, want 1", p)
	}
}
