package rank

import (
	"strings"
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// TestDriverCaller pins decision D251: a driver frame (D5: on the stack of
// every sample, in both kinds of run) that is entered again and again (a
// parameter of its own takes a new value at each call) and whose direct
// callee is all of its slow-run time takes the callee's place when the
// callee's strongest evidence is what it was given (a parameter): the
// driver computed that argument. A driver entered once (its parameter
// keeps one value), a callee whose strongest evidence is a local of its
// own, and a callee that holds only part of the driver's time keep their
// places (the callee first, the driver with its own few instructions'
// cost).
func TestDriverCaller(t *testing.T) {
	for _, c := range []struct {
		name       string
		entered    bool // work's parameter takes a new value at each call
		calleeArg  bool // helper's strongest evidence is its parameter
		ownSlow    int  // samples of work's own instructions in the slow runs
		wantFirst  string
		wantPlaced bool
	}{
		{"a driver entered at each call gives its callee a larger length", true, true, 2, "work", true},
		{"a driver entered once", false, true, 2, "helper", false},
		{"the callee's own loop went wrong", true, false, 2, "helper", false},
		{"the callee holds part of the driver's time", true, true, 30, "helper", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := progSchema()
			vDoc := int32(len(s.Vars))
			vLen, vK := vDoc+1, vDoc+2
			s.Vars = append(s.Vars,
				model.Var{Name: "off", Func: fWork, Line: 20, Type: "unsigned long", Kind: model.KindUint, Size: 8, Param: true, Tags: model.TagArgs},
				model.Var{Name: "length", Func: fHelper, Line: 50, Type: "unsigned long", Kind: model.KindUint, Size: 8, Param: true, Tags: model.TagCond},
				model.Var{Name: "k", Func: fHelper, Line: 53, Type: "unsigned long", Kind: model.KindUint, Size: 8, Tags: model.TagLoop},
			)
			hdr := headerWith(s)
			inHelper := []uint64{P(pcHelper), P(pcWork), P(pcMain)}
			own := []uint64{P(pcWork), P(pcMain)}
			off := func(i int) int64 {
				if c.entered {
					return int64(i / 4 * 80)
				}
				return 0
			}
			// Normal runs: helper is given short lengths and loops over
			// few items; work's own instructions are a fifth of its time.
			var normal, buggy []ev
			for i := range 120 {
				addEv(&normal, inHelper, val(0, vLen, int64(1500+i%20*10)), val(0, vK, int64(i%20)), val(1, vDoc, off(i)))
				if i%4 == 0 {
					addEv(&normal, own, val(0, vDoc, off(i)))
				}
			}
			// Slow runs: helper is given the whole document (its length
			// grows) and loops over as many items as in the normal runs,
			// unless the case makes its own loop go further.
			for i := range 400 {
				k := int64(i % 20)
				length := int64(100000 + i*80)
				if !c.calleeArg {
					k, length = int64(i%20*50), int64(1500+i%20*10)
				}
				addEv(&buggy, inHelper, val(0, vLen, length), val(0, vK, k), val(1, vDoc, off(i)))
			}
			for i := range c.ownSlow {
				addEv(&buggy, own, val(0, vDoc, off(i)))
			}
			a := New(DefaultOptions())
			feedWith(t, a, Normal, "n", hdr, normal)
			feedWith(t, a, Buggy, "b", hdr, buggy)
			res := a.Result()
			w, h := findFunc(t, res, "work"), findFunc(t, res, "helper")
			if dd := DefaultOptions().DefaultDiscount; h.Discount >= dd {
				t.Fatalf("helper r %g: want it anomalous", h.Discount)
			}
			if !a.drivers()[fWork] {
				t.Fatalf("work is no driver frame: the case does not test D251")
			}
			got := names(res)
			if got[0] != c.wantFirst {
				t.Errorf("ranked %v, want %s first (work placed %q, helper %q)", got, c.wantFirst, w.Placed, h.Placed)
			}
			if placed := strings.Contains(w.Placed, "D251"); placed != c.wantPlaced {
				t.Errorf("work placed %q: want D251's note %v", w.Placed, c.wantPlaced)
			}
			if c.wantPlaced && (got[1] != "helper" || !strings.Contains(h.Placed, "D251")) {
				t.Errorf("ranked %v, helper placed %q: want helper second, just below its caller", got, h.Placed)
			}
		})
	}
}
