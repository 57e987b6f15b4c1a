package rank

import (
	"strings"
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// TestCxxStringLength (D156): a function whose own loop copies or splits a
// string (no library walk), whose condition variable took other values
// (rule 3) and whose v* is tied with the length member of a C++
// std::string that grew above the normal lengths, reads scalability: the
// string is more data. The same numbers in a length of the program's own
// keep rule 3's wrong constraint (a number may be a setting), and so does
// a string that got shorter.
func TestCxxStringLength(t *testing.T) {
	const strType = "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >::size_type"
	for _, c := range []struct {
		name, v, typ string
		base, step   int64
		want         string
	}{
		{"a std::string's length that grew", "line._M_string_length", strType, 1000, 8, PatternScalability},
		{"a length of the program's own", "len", "size_t", 1000, 8, PatternWrong},
		{"a std::string's length that shrank", "line._M_string_length", strType, -1, -1, PatternWrong},
	} {
		s := progSchema()
		vLen := int32(len(s.Vars))
		s.Vars = append(s.Vars, model.Var{Name: c.v, Func: fWork, Line: 23, Type: c.typ, Kind: model.KindUint, Size: 8, Tags: model.TagArgs})
		hdr := header()
		hdr[0] = &model.Object{ID: 0, Path: "/bin/prog", BuildID: "b1", Program: true, Schema: s}
		a := New(DefaultOptions())
		var normal, buggy []ev
		stack := []uint64{P(pcWork), P(pcMain)}
		for range 40 {
			addEv(&normal, []uint64{P(pcMain)})
			addEv(&buggy, []uint64{P(pcMain)})
		}
		for i := range 100 {
			addEv(&normal, stack, val(0, vI, int64(i%5)), val(0, vFlag, int64(1000+i%7)), val(0, vLen, int64(500+8*(i%20))))
		}
		for i := range 300 {
			l := c.base + c.step*int64(i%200)
			if c.base < 0 {
				l = int64(8 * (i % 40)) // below the normal lengths
			}
			addEv(&buggy, stack, val(0, vI, int64(i%5)), val(0, vFlag, int64(5000+7*(i%50))), val(0, vLen, l))
		}
		feedWith(t, a, Normal, "n", hdr, normal)
		feedWith(t, a, Buggy, "b", hdr, buggy)
		w := findFunc(t, a.Result(), "work")
		if w.Pattern != c.want || (c.want == PatternScalability) != strings.Contains(w.PatternReason, "D156") {
			t.Errorf("%s: pattern %q (%s; v* %s), want %q", c.name, w.Pattern, w.PatternReason, w.Variable, c.want)
		}
	}
}
