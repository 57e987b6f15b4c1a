package rank

import "testing"

// TestSoleCallerNearTie pins decision D206: a caller most of whose time is
// one callee (PresentShare, less than D10's SoleCallee), with no loop of
// its own gone wrong and evidence no stronger than the callee's, ranks
// just below the callee when their costs are within 1 - SoleCallee of
// each other: its lead is then the few samples outside the callee, the
// part of its time that load stretches. Further apart (not a near-tie) it
// keeps its place.
func TestSoleCallerNearTie(t *testing.T) {
	for _, c := range []struct {
		name      string
		ownNormal int // normal samples of work outside helper
		want      string
	}{
		{"near-tie", 12, "helper"},
		{"apart", 0, "work"},
	} {
		a := New(DefaultOptions())
		var normal, buggy []ev
		inHelper := []uint64{P(pcHelper), P(pcWork), P(pcMain)}
		inWork := []uint64{P(pcWork), P(pcMain)}
		for i := range 40 {
			addEv(&normal, inHelper, val(0, vN, int64(i%5)), val(1, vFlag, int64(i%4)))
			addEv(&normal, []uint64{P(pcMain)})
		}
		for i := range c.ownNormal {
			addEv(&normal, inWork, val(0, vFlag, int64(i%4)))
		}
		for i := range 130 {
			addEv(&buggy, inHelper, val(0, vN, int64(100+i%5)), val(1, vFlag, int64(50+i%4)))
		}
		for i := range 20 {
			addEv(&buggy, inWork, val(0, vFlag, int64(50+i%4)))
		}
		for range 40 {
			addEv(&buggy, []uint64{P(pcMain)})
		}
		feed(t, a, Normal, "n", normal)
		feed(t, a, Buggy, "b", buggy)
		res := a.Result()
		w, h := findFunc(t, res, "work"), findFunc(t, res, "helper")
		if w.Discount != 0 || h.Discount != 0 {
			t.Fatalf("%s: work r %g, helper r %g: want both 0", c.name, w.Discount, h.Discount)
		}
		if got := res.Functions[0].Name; got != c.want {
			t.Errorf("%s: ranked %v (work %g, helper %g), want %s first", c.name, names(res), w.Calibrated, h.Calibrated, c.want)
		}
		if placed := w.Placed != ""; placed != (c.want == "helper") {
			t.Errorf("%s: work placed %q", c.name, w.Placed)
		}
	}
}
