package rank

import (
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// TestBeforeDecl (D181): a local's location covers its whole block, also
// the code before its declaration, where what it holds (a C++ object not
// yet constructed, a slot shared with an earlier temporary) is not its
// value. Values read at a PC whose line in the variable's function lies
// before the declaration line are not analysed: in a caller frame (the
// call's line), and where the PC is in a body inlined into the function
// (the inlined call's line). Read after the declaration, or a parameter
// (whose declaration is the function's line), the same values go wrong.
func TestBeforeDecl(t *testing.T) {
	const (
		retBefore = 0x1121 // work's call at 0x1120: line 21
		retAfter  = 0x1161 // work's call at 0x1160: line 25
		pcInlined = 0x1190 // in inl's body inlined into work, called from line 22
	)
	for _, c := range []struct {
		name      string
		param     bool
		inner     bool   // the bad values are read with the PC innermost, not as a caller
		pc        uint64 // where the slow runs read the bad values
		wantWrong bool
	}{
		{"a local read in a caller frame before its declaration", false, false, retBefore, false},
		{"a local read in code inlined before its declaration", false, true, pcInlined, false},
		{"a local read after its declaration", false, false, retAfter, true},
		{"a parameter read before a local's line", true, false, retBefore, true},
		{"a local read at its function's own line", false, false, 0x1111, true},
	} {
		s := progSchema()
		s.Inlines[0].CallFile, s.Inlines[0].CallLine = 0, 22
		s.Lines = append(s.Lines[:2], append([]model.LineRow{{PC: 0x1120, File: 0, Line: 21}}, s.Lines[2:]...)...)
		v := int32(len(s.Vars))
		line := int32(24)
		if c.param {
			line = 20
		}
		s.Vars = append(s.Vars, model.Var{Name: "obj", Func: fWork, File: 0, Line: line, Type: "long",
			Kind: model.KindInt, Size: 8, Param: c.param, Tags: model.TagArgs})
		hdr := headerWith(s)
		a := New(DefaultOptions())
		var normal, buggy []ev
		after := []uint64{L(pcMemcpy), P(retAfter), P(pcMain)}
		for i := range 200 {
			addEv(&normal, after, val(1, v, int64(i%10)))
			addEv(&buggy, after, val(1, v, int64(i%10)))
		}
		for i := range 200 {
			// Stack bytes of another object: addresses, far above the
			// normal range.
			if c.inner {
				addEv(&buggy, []uint64{P(c.pc), P(pcMain)}, val(0, v, int64(0x7ffd00000000+i*8)))
			} else {
				addEv(&buggy, []uint64{L(pcMemcpy), P(c.pc), P(pcMain)}, val(1, v, int64(0x7ffd00000000+i*8)))
			}
		}
		feedWith(t, a, Normal, "n", hdr, normal)
		feedWith(t, a, Buggy, "b", hdr, buggy)
		vv := findVar(t, a.Result(), "work", "obj")
		if wrong := vv.OK && vv.R < a.opt.DefaultDiscount; wrong != c.wantWrong {
			t.Errorf("%s: went wrong %v (r %.2f, %s), want %v", c.name, wrong, vv.R, vv.Reason, c.wantWrong)
		}
	}
}
