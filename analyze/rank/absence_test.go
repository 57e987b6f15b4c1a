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

// TestAbsentAtFrameShare: a local read during a sliver of its frame's
// time (less than 1 - SoleCallee, D246), absent from the normal runs (or
// seen there once or twice), is judged at its frame's share of their
// samples where the frame ran there (decision D297): work runs in 100
// normal samples and 600 slow ones, and a local of work read in 9 of the
// 600 is expected about 1.5 times in the normal runs at that share, so its
// absence there is the frame's shorter time (no verdict), though at the
// runs' share (600 samples of each kind, D37) it would have shown 9
// times. A frame that never ran in the normal runs, or ran there at fewer
// than MinSamples events, keeps the runs' share, and so does a variable
// read over more of its frame's time: their presence is the frame's own.
func TestAbsentAtFrameShare(t *testing.T) {
	for _, c := range []struct {
		name             string
		seen, seenNormal int // slow-run samples of work's i (of 600 in work), normal ones
		workNormal       int // normal samples in work (of 600)
		reason           string
	}{
		{"9 of 600, work in 100 normal samples", 9, 0, 100, ReasonTooFew},
		{"25 of 600, work in 200 normal samples", 25, 0, 200, ReasonBuggyOnly},
		{"9 of 600, work in 600 normal samples", 9, 0, 600, ReasonBuggyOnly},
		{"9 of 600, work never in the normal runs", 9, 0, 0, ReasonBuggyOnly},
		{"9 of 600, work in 2 normal samples", 9, 0, 2, ReasonBuggyOnly},
		{"300 of 600 (no sliver), work in 4 normal samples", 300, 0, 4, ReasonBuggyOnly},
		{"12 of 600 and 1 normal, work in 100 normal samples", 12, 1, 100, ReasonTooFew},
		{"12 of 600 and 1 normal, work in 600 normal samples", 12, 1, 600, ReasonRare},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := New(DefaultOptions())
			var normal, buggy []ev
			inWork := []uint64{P(pcWork), P(pcMain)}
			for i := range 600 {
				switch {
				case i < c.seenNormal:
					addEv(&normal, inWork, val(0, vFlag, int64(i%4)), val(0, vI, int64(i%5)))
				case i < c.workNormal:
					addEv(&normal, inWork, val(0, vFlag, int64(i%4)))
				default:
					addEv(&normal, []uint64{P(pcMain)})
				}
				if i < c.seen {
					addEv(&buggy, inWork, val(0, vFlag, int64(i%4)), val(0, vI, int64(i%5)))
				} else {
					addEv(&buggy, inWork, val(0, vFlag, int64(i%4)))
				}
			}
			feed(t, a, Normal, "n", normal)
			feed(t, a, Buggy, "b", buggy)
			if v := findVar(t, a.Result(), "work", "i"); v.Reason != c.reason {
				t.Errorf("work's i: %q (r %g), want %q", v.Reason, v.R, c.reason)
			}
		})
	}
}
