package rank

import "testing"

// TestAbsentByChance: a variable seen in a few slow-run samples and in no
// normal one is "present only when slow" only when the normal runs would
// have shown it MinSamples times at the same share of their samples;
// else its absence there is what their length gives, and it has no
// verdict (method.md §5, D37).
func TestAbsentByChance(t *testing.T) {
	for _, c := range []struct {
		name         string
		seen, normal int // slow-run samples of n (of 300), normal samples
		reason       string
	}{
		{"3 of 300, normal runs of 100", 3, 100, ReasonTooFew},
		{"8 of 300, normal runs of 100", 8, 100, ReasonTooFew},
		{"9 of 300, normal runs of 100", 9, 100, ReasonBuggyOnly},
		{"3 of 300, normal runs of 300", 3, 300, ReasonBuggyOnly},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := New(DefaultOptions())
			var normal, buggy []ev
			for range c.normal {
				addEv(&normal, []uint64{P(pcWork), P(pcMain)}, val(0, vFlag, 1))
			}
			for i := range 300 {
				if i < c.seen {
					addEv(&buggy, []uint64{P(pcHelper), P(pcWork), P(pcMain)}, val(0, vN, int64(i)), val(1, vFlag, 1))
				} else {
					addEv(&buggy, []uint64{P(pcWork), P(pcMain)}, val(0, vFlag, 1))
				}
			}
			feed(t, a, Normal, "n", normal)
			feed(t, a, Buggy, "b", buggy)
			if v := findVar(t, a.Result(), "helper", "n"); v.Reason != c.reason {
				t.Errorf("helper's n: %q (r %g), want %q", v.Reason, v.R, c.reason)
			}
		})
	}
}
