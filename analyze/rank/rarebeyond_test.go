package rank

import (
	"fmt"
	"testing"
)

// TestRareBeyondTest: a variable read 3 or more times in the normal runs
// but less than ValidDiscount times as often, for their length, as in the
// slow runs is "rare when normal" with r 0, as D4 reads 1 or 2 normal
// samples, whatever a test of its few normal values finds, while it was
// read fewer than MinSamples times per normal run (method.md §5, decision
// D339): the cliff between 2 normal samples (r 0) and 3 (a test of 3
// values) was crossed by which few reads the sampler caught. Its
// dimensions are still tested and shown. A variable read a tenth as often
// or more, or as often per normal run as a test needs, keeps its tests'
// verdict.
func TestRareBeyondTest(t *testing.T) {
	for _, c := range []struct {
		name         string
		runs         int // normal runs of 200 samples; one slow run of 200
		normal, slow int // reads of helper's n, over all normal runs / in the slow run
		apart        bool
		rare         bool
		r            float64
		frame        int // reads of helper's node in the normal runs, n not read (its frame's other time)
	}{
		{"2 normal reads against 150 (D4)", 3, 2, 150, false, true, 0, 0},
		{"3 normal reads against 150, values alike", 3, 3, 150, false, true, 0, 0},
		{"3 normal reads against 150, values apart", 3, 3, 150, true, true, 0, 0},
		{"8 normal reads against 150, values alike", 3, 8, 150, false, true, 0, 0},
		// As many reads per normal run as a test needs: the test decides.
		{"9 normal reads in 3 runs against 150, values alike", 3, 9, 150, false, false, 0.8, 0},
		{"3 normal reads in 1 run against 150, values alike", 1, 3, 150, false, false, 0.8, 0},
		// A tenth as often or more: the test decides.
		{"6 normal reads against 15, values alike", 3, 6, 15, false, false, 0.8, 0},
		// Its frame ran in the normal runs (another of its variables
		// read 60 times there): the test decides.
		{"3 normal reads against 150 in a frame that ran, values alike", 3, 3, 150, false, false, -1, 60},
	} {
		a := New(DefaultOptions())
		stack := []uint64{P(pcHelper), P(pcWork), P(pcMain)}
		run := func(n int, base int64, frame int) []ev {
			var evs []ev
			for i := range n {
				addEv(&evs, stack, val(0, vN, base+int64(i%4)))
			}
			for i := range frame {
				addEv(&evs, stack, ptr(0, vNode, uint64(0x10000+64*i), 0))
			}
			for len(evs) < 200 {
				addEv(&evs, []uint64{P(pcMain)})
			}
			return evs
		}
		slowBase := int64(10)
		if c.apart {
			slowBase = 1000
		}
		for k := range c.runs {
			// The normal reads spread over the runs, the first ones first.
			n := c.normal / c.runs
			if k < c.normal%c.runs {
				n++
			}
			feed(t, a, Normal, fmt.Sprintf("n%d", k), run(n, 10, c.frame/c.runs))
		}
		feed(t, a, Buggy, "b", run(c.slow, slowBase, 0))
		vv := findVar(t, a.Result(), "helper", "n")
		if got := vv.Reason == ReasonRare; got != c.rare {
			t.Errorf("%s: n r %g (%s), want rare when normal: %v", c.name, vv.R, vv.Reason, c.rare)
			continue
		}
		if c.r >= 0 && !near(vv.R, c.r) { // -1: whatever its tests find
			t.Errorf("%s: n r %g (%s), want %g", c.name, vv.R, vv.Reason, c.r)
		}
		if c.normal >= 3 && len(vv.Dims) == 0 {
			t.Errorf("%s: no dimension shown, want the tests of its values", c.name)
		}
	}
}
