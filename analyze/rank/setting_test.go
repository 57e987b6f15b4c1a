package rank

import (
	"strings"
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// TestSettingAbove: a caller all of whose time is one callee, whose
// strongest evidence is a value kept through each run (a setting: the
// global g is 1 in every normal run and 2 in every slow one), ranks below
// the callee when the callee's own loop went further (its loop variable's
// slow values hold the normal range and reach beyond it) (D160). A setting
// that changes within the run, a caller with a stronger local of its own,
// and a callee whose loop took other values without going further keep
// D10's reading (the caller first). In every case the caller has a
// weaker local anomaly too (flag), as a request loop's counters have, so
// that D70 (a caller whose every anomaly is a run's value) does not apply.
func TestSettingAbove(t *testing.T) {
	for _, c := range []struct {
		name                       string
		settingChanges, localWrong bool
		notFurther                 bool
		want                       string
	}{
		{"a setting above a walk that went further", false, false, false, "helper"},
		{"the setting changes within the run", true, false, false, "work"},
		{"the caller's own local went wrong too", false, true, false, "work"},
		{"the callee's loop took other values, no further", false, false, true, "work"},
	} {
		// n is helper's loop index here.
		s := progSchema()
		s.Vars[vN].Tags = model.TagLoop
		hdr := headerWith(s)

		a := New(DefaultOptions())
		inHelper := []uint64{P(pcHelper), P(pcWork), P(pcMain)}
		var normal, buggy []ev
		// Normal runs: helper walks 10 items (n 0..9, or 0..99 when the
		// slow runs' walk is the shorter one).
		for i := range 60 {
			n := int64(i % 10)
			if c.notFurther {
				n = int64(i * 7 % 100)
			}
			addEv(&normal, inHelper, val(0, vN, n), val(1, vG, 1), val(1, vFlag, int64(i%4)))
			if i%10 == 0 {
				addEv(&normal, []uint64{P(pcMain)})
			}
		}
		// Slow runs: the same calls, and walks of 100 items (n 0..99), or
		// of 5 (n 0..4) when the loop does not go further.
		for i := range 200 {
			// work's flag takes more values than in the normal runs (r
			// about 0.46): a local that went wrong, weaker than the
			// setting, so that D70 leaves D10 its reading.
			n, g, flag := int64(i%100), int64(2), int64(i%8)
			if c.notFurther {
				n = int64(i % 5)
			}
			if c.settingChanges && i%2 == 1 {
				g = 3
			}
			if c.localWrong {
				flag += 50
			}
			addEv(&buggy, inHelper, val(0, vN, n), val(1, vG, g), val(1, vFlag, flag))
			if i%40 == 0 {
				addEv(&buggy, []uint64{P(pcMain)})
			}
		}
		feedWith(t, a, Normal, "n", hdr, normal)
		feedWith(t, a, Buggy, "b", hdr, buggy)
		res := a.Result()
		w, h := findFunc(t, res, "work"), findFunc(t, res, "helper")
		if w.Discount >= DefaultOptions().DefaultDiscount || h.Discount >= DefaultOptions().DefaultDiscount {
			t.Fatalf("%s: work r %g (%s), helper r %g: want both anomalous", c.name, w.Discount, w.Reason, h.Discount)
		}
		if got := names(res); got[0] != c.want {
			t.Errorf("%s: ranked %v, want %s first (work placed %q, helper %q)", c.name, got, c.want, w.Placed, h.Placed)
		}
		if c.want == "helper" && (res.Functions[1].Name != "work" || !strings.Contains(w.Placed, "D160")) {
			t.Errorf("%s: ranked %v, work placed %q: want work second, by D160", c.name, names(res), w.Placed)
		}
	}
}
