package rank

import (
	"strings"
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// TestStringLength (D141): in a function whose walk is the library's
// (its samples in memcpy under it) and whose loop looks normal, a string
// length variable (D140) whose slow values all lie above the normal ones
// reads scalability, not rule 6's missing constraint. The same numbers
// in a variable of the program's own (a length it keeps) stay rule 6's:
// D124 asks such a number to take the normal values too.
func TestStringLength(t *testing.T) {
	for _, c := range []struct {
		name, v string
		want    string
	}{
		{"a string's length", model.StrLenPrefix + "buf)", PatternScalability},
		{"a length of the program's own", "len", PatternMissing},
	} {
		s := progSchema()
		vLen := int32(len(s.Vars))
		s.Vars = append(s.Vars, model.Var{Name: c.v, Func: fWork, Line: 23, Type: "size_t", Kind: model.KindUint, Size: 8, Tags: model.TagArgs})
		hdr := headerWith(s)
		a := New(DefaultOptions())
		var normal, buggy []ev
		stack := []uint64{L(pcMemcpy), P(pcWork), P(pcMain)}
		for range 40 {
			addEv(&normal, []uint64{P(pcMain)})
			addEv(&buggy, []uint64{P(pcMain)})
		}
		for i := range 100 {
			addEv(&normal, stack, val(1, vI, int64(i%5)), val(1, vLen, int64(8*(i%20))))
		}
		for i := range 300 {
			// Each build starts empty, but the slow runs' samples land
			// on the long strings: none takes a normal length.
			addEv(&buggy, stack, val(1, vI, int64(i%5)), val(1, vLen, int64(1000+8*(i%200))))
		}
		feedWith(t, a, Normal, "n", hdr, normal)
		feedWith(t, a, Buggy, "b", hdr, buggy)
		w := findFunc(t, a.Result(), "work")
		if w.Pattern != c.want || (c.want == PatternScalability) != strings.Contains(w.PatternReason, "D141") {
			t.Errorf("%s: pattern %q (%s), want %q", c.name, w.Pattern, w.PatternReason, c.want)
		}
	}
}
