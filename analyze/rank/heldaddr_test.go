package rank

import (
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// TestHeldAddress (D158): a loop variable that is a pointer to a basic type
// (compared by its pointee) and that only the slow runs read is held when
// its address stays over several ticks, not when its pointee does: a walk
// over equal bytes (a run of '/') moves at every iteration while it reads
// the same byte, and goes further; a pointer that stays on one element
// for ten ticks is a loop that stays on one iteration.
func TestHeldAddress(t *testing.T) {
	for _, c := range []struct {
		name string
		addr func(i int) uint64
		want string
	}{
		{"a walk over equal bytes", func(i int) uint64 { return 0x9000 + uint64(i) }, PatternScalability},
		{"a pointer that stays on one element", func(i int) uint64 { return 0x9000 + uint64(i/10) }, PatternMissing},
	} {
		s := progSchema()
		vC := int32(len(s.Vars))
		s.Vars = append(s.Vars, model.Var{Name: "c", Func: fWork, Line: 23, Type: "char *", Kind: model.KindPointer, Size: 8, Tags: model.TagLoop | model.TagCond, PointeeKind: model.KindInt, PointeeSize: 1})
		hdr := headerWith(s)
		a := New(DefaultOptions())
		var normal, buggy []ev
		for range 60 {
			addEv(&normal, []uint64{P(pcMain)})
			addEv(&buggy, []uint64{P(pcMain)})
		}
		for range 3 {
			addEv(&normal, []uint64{P(pcWork), P(pcMain)})
		}
		for i := range 200 {
			// Slashes, and another byte now and then: the pointee changes,
			// in runs of 45 and 5 ticks.
			b := int64('/')
			if i%50 >= 45 {
				b = 'a'
			}
			addEv(&buggy, []uint64{P(pcWork), P(pcMain)}, ptr(0, vC, c.addr(i), b))
		}
		feedWith(t, a, Normal, "n", hdr, normal)
		feedWith(t, a, Buggy, "b", hdr, buggy)
		w := findFunc(t, a.Result(), "work")
		if w.Pattern != c.want {
			t.Errorf("%s: pattern %q (%s; v* %s), want %q", c.name, w.Pattern, w.PatternReason, w.Variable, c.want)
		}
	}
}
