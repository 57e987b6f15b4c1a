package rank

import (
	"strings"
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// TestSliverEvidence pins decision D246: a local of a caller that went
// wrong but was read during less than 1 - SoleCallee of the caller's
// slow-run time (a value read only at the caller's own instructions,
// after the callee returned) is no evidence of the caller against the
// callee that holds the rest of its time: D10 does not read it as the
// caller that decided (its other anomalies are the queue it hands on,
// D135's kind), and the callee ranks first on its own cost. With the local
// read while the callee ran, or read during more than a twentieth of the
// caller's time, the caller keeps D10's reading (first).
func TestSliverEvidence(t *testing.T) {
	for _, c := range []struct {
		name      string
		underSlow int // slow samples under helper where work's flag is read (and went wrong)
		ownSlow   int // slow samples at work's own instructions, flag wrong there
		want      string
	}{
		{"the caller's local is read only at its own instructions, a sliver of its time", 0, 6, "helper"},
		{"the caller's local went wrong while the callee ran", 150, 6, "work"},
		{"the caller's local is read during a tenth of its time", 10, 6, "work"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := progSchema()
			vWQ := int32(len(s.Vars))
			vWLen, vHQ, vHLen := vWQ+1, vWQ+2, vWQ+3
			s.Vars = append(s.Vars,
				model.Var{Name: "q", Func: fWork, Line: 20, Type: "struct queue *", Kind: model.KindPointer, Size: 8, Param: true, Tags: model.TagArgs},
				model.Var{Name: "q->wpos", Func: fWork, Line: 20, Type: "unsigned long", Kind: model.KindUint, Size: 8, Tags: model.TagCond,
					Field: &model.Field{Of: model.VarID(vWQ), Offset: 8, Deref: true}},
				model.Var{Name: "q", Func: fHelper, Line: 50, Type: "struct queue *", Kind: model.KindPointer, Size: 8, Param: true, Tags: model.TagArgs},
				model.Var{Name: "q->wpos", Func: fHelper, Line: 50, Type: "unsigned long", Kind: model.KindUint, Size: 8, Tags: model.TagArgs,
					Field: &model.Field{Of: model.VarID(vHQ), Offset: 8, Deref: true}},
			)
			hdr := headerWith(s)

			a := New(DefaultOptions())
			inHelper := []uint64{P(pcHelper), P(pcWork), P(pcMain)}
			own := []uint64{P(pcWork), P(pcMain)}
			const q = 0x7000
			var normal, buggy []ev
			for i := range 40 {
				n := int64(100 + i%7*10)
				vals := []model.Value{val(0, vHQ, q), val(0, vHLen, n), val(1, vWQ, q), val(1, vWLen, n)}
				if c.underSlow == 150 {
					vals = append(vals, val(1, vFlag, int64(i%4)))
				}
				addEv(&normal, inHelper, vals...)
				addEv(&normal, []uint64{P(pcMain)})
			}
			// work's own instructions in the normal runs (its extra time
			// less than helper's: D10 would swap the two).
			for i := range 20 {
				addEv(&normal, own, val(0, vWQ, q), val(0, vWLen, int64(100+i%7*10)), val(0, vFlag, int64(i%4)))
			}
			// Slow runs: the queue grows, and work's flag goes wrong.
			for i := range 150 {
				n := int64(1000 + i*50)
				vals := []model.Value{val(0, vHQ, q), val(0, vHLen, n), val(1, vWQ, q), val(1, vWLen, n)}
				if i < c.underSlow {
					vals = append(vals, val(1, vFlag, int64(50+i%4)))
				}
				addEv(&buggy, inHelper, vals...)
			}
			for i := range c.ownSlow {
				addEv(&buggy, own, val(0, vWQ, q), val(0, vWLen, 8500), val(0, vFlag, int64(50+i%4)))
			}
			for range 40 {
				addEv(&buggy, []uint64{P(pcMain)})
			}
			feedWith(t, a, Normal, "n", hdr, normal)
			feedWith(t, a, Buggy, "b", hdr, buggy)
			res := a.Result()
			w, h := findFunc(t, res, "work"), findFunc(t, res, "helper")
			if dd := DefaultOptions().DefaultDiscount; w.Discount >= dd || h.Discount >= dd {
				t.Fatalf("work r %g, helper r %g: want both anomalous", w.Discount, h.Discount)
			}
			if w.Variable != "flag" {
				t.Fatalf("work's v* %q: want flag, the local that went wrong", w.Variable)
			}
			if got := names(res); got[0] != c.want {
				t.Errorf("ranked %v, want %s first (work placed %q)", got, c.want, w.Placed)
			}
			if sliver := c.underSlow == 0; sliver != (len(w.Sliver) == 1 && w.Sliver[0] == "flag") {
				t.Errorf("work's variables left out of the placements %v: want flag only when it is read during a sliver of work's time (%v)", w.Sliver, sliver)
			}
			if c.want == "helper" && strings.Contains(w.Placed, "D10") {
				t.Errorf("work placed %q: want D10 not to apply", w.Placed)
			}
		})
	}
}
