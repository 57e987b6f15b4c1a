package rank

import (
	"strings"
	"testing"
)

// TestExplainedBelow: a dispatcher (work) hands requests to two callees,
// helper most of the time and cmp a fifth of it (too little for D12's
// meeting of anomalies); in the slow runs both take longer and their own
// variables go conclusively wrong (values never seen when normal: r 0),
// while the dispatcher's flag only shifts in mix (r about 0.46). With
// inclusive cost the dispatcher's extra time is its callees' added up and
// outranks either; its own cost is taken on the part of its extra time
// that no descendant with conclusive evidence holds (method.md §7, D185),
// and the callee holding most of it ranks first. A dispatcher whose own
// evidence is conclusive, and one whose callees' evidence is not, keep
// their cost (and their place above the callees).
func TestExplainedBelow(t *testing.T) {
	for _, c := range []struct {
		name     string
		flag     func(i int) int64 // work's flag in the slow runs (i%4 when normal)
		n        func(i int) int64 // helper's n in the slow runs (i%3 when normal)
		want     string            // ranked first
		explains bool              // work's cost taken by D185
	}{
		{"callee conclusive", func(i int) int64 { return int64(i % 2) }, func(i int) int64 { return int64(100 + i%3) }, "helper", true},
		{"its own evidence conclusive", func(i int) int64 { return int64(10 + i%4) }, func(i int) int64 { return int64(100 + i%3) }, "work", false},
		{"callee's evidence not conclusive", func(i int) int64 { return int64(i % 2) }, func(i int) int64 { return int64(i % 2) }, "work", false},
	} {
		a := New(DefaultOptions())
		var normal, buggy []ev
		inHelper := []uint64{P(pcHelper), P(pcWork), P(pcMain)}
		inCmp := []uint64{P(pcCmp), P(pcWork), P(pcMain)}
		// Each request holds one flag value across two samples in both
		// kinds, so that only the mix of values differs.
		for i := range 40 {
			addEv(&normal, inHelper, val(0, vN, int64(i%3)), val(1, vFlag, int64(i%4)))
			if i < 30 {
				addEv(&normal, inCmp, val(1, vFlag, int64(i%4)))
			} else {
				addEv(&normal, inHelper, val(0, vN, int64(i%3)), val(1, vFlag, int64(i%4)))
			}
		}
		for range 60 {
			addEv(&normal, []uint64{P(pcMain)})
		}
		for i := range 100 {
			addEv(&buggy, inHelper, val(0, vN, c.n(i)), val(1, vFlag, c.flag(i)))
			addEv(&buggy, inCmp, val(1, vFlag, c.flag(i)))
		}
		for range 60 {
			addEv(&buggy, []uint64{P(pcMain)})
		}
		feed(t, a, Normal, "n", normal)
		feed(t, a, Buggy, "b", buggy)
		res := a.Result()
		w, h := findFunc(t, res, "work"), findFunc(t, res, "helper")
		// The evidence each case is about: work's flag conclusive or a
		// shift in mix; the callees' conclusive or not.
		workR0, calleesR0 := c.name == "its own evidence conclusive", c.name != "callee's evidence not conclusive"
		if w.Variable != "flag" || (w.Discount == 0) != workR0 || w.Discount >= DefaultOptions().DefaultDiscount {
			t.Fatalf("%s: work r %g from %s", c.name, w.Discount, w.Variable)
		}
		if (h.Discount == 0) != calleesR0 || h.Discount >= DefaultOptions().DefaultDiscount {
			t.Fatalf("%s: helper r %g", c.name, h.Discount)
		}
		if got := res.Functions[0].Name; got != c.want {
			t.Errorf("%s: ranked %v, want %s first", c.name, names(res), c.want)
		}
		if got := strings.Contains(w.Placed, "D185"); got != c.explains {
			t.Errorf("%s: work placed %q, want D185 %v", c.name, w.Placed, c.explains)
		}
		if c.explains && between(w.Placed, "evidence (", ")") != "helper" {
			t.Errorf("%s: work placed %q: want helper named first", c.name, w.Placed)
		}
	}
}

// between returns the part of s between the first from and the next to.
func between(s, from, to string) string {
	i := strings.Index(s, from)
	if i < 0 {
		return ""
	}
	s = s[i+len(from):]
	if j := strings.Index(s, to); j >= 0 {
		return s[:j]
	}
	return s
}
