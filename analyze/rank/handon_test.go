package rank

import (
	"strings"
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// TestHandingCaller pins decision D135: a caller all of whose time is one
// callee, every variable of which that went wrong is a struct pointer it
// was given, or a field behind one, that the callee was given too and that
// went wrong there (a queue that grew, read by both frames), ranks below
// the callee: D10 does not read it as the function that decided. A caller
// with a local of its own that went wrong, or whose field the callee does
// not read (another offset, another type of object), keeps D10's reading
// (the caller first).
func TestHandingCaller(t *testing.T) {
	for _, c := range []struct {
		name        string
		normalOwn   bool   // work ran its own instructions in the normal runs
		callerLocal bool   // work's flag went wrong too
		calleeOff   int64  // offset of the field helper reads behind its q
		calleeType  string // the type of helper's q
		want        string
	}{
		{"the caller hands on the queue", true, false, 8, "struct queue *", "helper"},
		{"the caller hands on the queue, its own cost the larger", false, false, 8, "struct queue *", "helper"},
		{"the caller's own local went wrong", true, true, 8, "struct queue *", "work"},
		{"the callee reads another field", true, false, 16, "struct queue *", "work"},
		{"the callee is given another kind of object", true, false, 8, "struct other *", "work"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := progSchema()
			vWQ := int32(len(s.Vars))
			vWLen, vHQ, vHLen := vWQ+1, vWQ+2, vWQ+3
			s.Vars = append(s.Vars,
				model.Var{Name: "q", Func: fWork, Line: 20, Type: "struct queue *", Kind: model.KindPointer, Size: 8, Param: true, Tags: model.TagArgs},
				model.Var{Name: "q->wpos", Func: fWork, Line: 20, Type: "unsigned long", Kind: model.KindUint, Size: 8, Tags: model.TagCond,
					Field: &model.Field{Of: model.VarID(vWQ), Offset: 8, Deref: true}},
				model.Var{Name: "q", Func: fHelper, Line: 50, Type: c.calleeType, Kind: model.KindPointer, Size: 8, Param: true, Tags: model.TagArgs},
				model.Var{Name: "q->wpos", Func: fHelper, Line: 50, Type: "unsigned long", Kind: model.KindUint, Size: 8, Tags: model.TagArgs,
					Field: &model.Field{Of: model.VarID(vHQ), Offset: c.calleeOff, Deref: true}},
			)
			hdr := headerWith(s)

			a := New(DefaultOptions())
			inHelper := []uint64{P(pcHelper), P(pcWork), P(pcMain)}
			const q = 0x7000
			// Normal runs: short queues; helper reads the queue's length
			// work was given, through the same pointer.
			var normal, buggy []ev
			for i := range 40 {
				n := int64(100 + i%7*10)
				addEv(&normal, inHelper, val(0, vHQ, q), val(0, vHLen, n), val(1, vWQ, q), val(1, vWLen, n), val(1, vFlag, int64(i%4)))
				addEv(&normal, []uint64{P(pcMain)})
			}
			// work's own instructions in the normal runs: its extra time
			// is less than helper's, so that D10 would swap the two.
			// Without them work's own cost is the larger, and D135 places
			// it below helper.
			for i := range 20 {
				if !c.normalOwn {
					break
				}
				addEv(&normal, []uint64{P(pcWork), P(pcMain)}, val(0, vWQ, q), val(0, vWLen, int64(100+i%7*10)), val(0, vFlag, int64(i%4)))
			}
			// Slow runs: the queue grows; work's flag keeps its values
			// unless the case says otherwise.
			for i := range 150 {
				n, flag := int64(1000+i*50), int64(i%4)
				if c.callerLocal {
					flag += 50
				}
				addEv(&buggy, inHelper, val(0, vHQ, q), val(0, vHLen, n), val(1, vWQ, q), val(1, vWLen, n), val(1, vFlag, flag))
			}
			for range 3 { // work's own instructions: 2% of its time
				addEv(&buggy, []uint64{P(pcWork), P(pcMain)}, val(0, vWQ, q), val(0, vWLen, 8500))
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
			if got := names(res); got[0] != c.want || got[1] != map[string]string{"work": "helper", "helper": "work"}[c.want] {
				t.Errorf("ranked %v, want %s first, the other second (work placed %q)", got, c.want, w.Placed)
			}
			if c.want == "helper" && !c.normalOwn && !strings.Contains(w.Placed, "D135") {
				t.Errorf("work placed %q: want D135's note", w.Placed)
			}
			if c.want == "helper" && strings.Contains(h.Placed, "D10") {
				t.Errorf("helper placed %q: want D10 not to apply", h.Placed)
			}
			if c.want == "work" && !strings.Contains(w.Placed, "D10") {
				t.Errorf("work placed %q: want D10's", w.Placed)
			}
		})
	}
}
