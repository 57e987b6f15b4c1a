package rank

import (
	"strings"
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// siblingSchema is a program whose reader loop calls decide (which returns
// how much it consumed) and then drop (which moves the rest of a buffer
// with memcpy); other calls drop too. takeTags and dropTags are the tags
// of decide's and drop's one variable.
func siblingSchema(takeTags, dropTags model.Tags) *model.Schema {
	r := func(lo, hi uint64) []model.PCRange { return []model.PCRange{{Lo: lo, Hi: hi}} }
	return &model.Schema{
		Path: "/bin/prog", BuildID: "b1", Type: "exec", HasDWARF: true,
		Files: []string{"/src/prog.c"},
		Funcs: []model.Func{
			{Name: "main", Display: "main", File: 0, Line: 10, Ranges: r(0x1000, 0x1100)},
			{Name: "reader", Display: "reader", File: 0, Line: 20, Ranges: r(0x1100, 0x1200)},
			{Name: "decide", Display: "decide", File: 0, Line: 40, Ranges: r(0x1200, 0x1280)},
			{Name: "drop", Display: "drop", File: 0, Line: 50, Ranges: r(0x1280, 0x1300)},
			{Name: "other", Display: "other", File: 0, Line: 60, Ranges: r(0x1300, 0x1380)},
		},
		Vars: []model.Var{
			{Name: "want", Func: 1, Line: 21, Type: "int", Kind: model.KindInt, Size: 4, Tags: model.TagCond},
			{Name: "take", Func: 2, Line: 41, Type: "int", Kind: model.KindInt, Size: 4, Tags: takeTags},
			{Name: "n", Func: 3, Line: 51, Type: "unsigned", Kind: model.KindUint, Size: 4, Tags: dropTags},
			{Name: "count", Func: model.NoFunc, Line: 2, Type: "long", Kind: model.KindInt, Size: 8, Tags: model.TagCond},
		},
		Lines: []model.LineRow{
			{PC: 0x1000, File: 0, Line: 10}, {PC: 0x1100, File: 0, Line: 20}, {PC: 0x1200, File: 0, Line: 40},
			{PC: 0x1280, File: 0, Line: 50}, {PC: 0x1300, File: 0, Line: 60}, {PC: 0x1380, File: 0, Line: 0},
		},
	}
}

// TestSiblingDecider: a loop calls decide, whose result (how much it
// consumed) went wrong, then drop, a library call (memcpy) that runs far
// more often when slow and holds most of the extra time: decide takes
// drop's place and drop decide's (method.md §7, D145). A drop that does
// half of its work in its own instructions, one with a loop of its own, a
// decide whose variables look normal, a decide whose variable that went
// wrong is no condition (it only saw other data) or a global (a counter
// of the whole program), and a drop that another function calls for most
// of its time keep drop first.
func TestSiblingDecider(t *testing.T) {
	const (
		pMain, pReader, pDecide, pDrop, pOther = 0x1010, 0x1110, 0x1210, 0x1290, 0x1310
		vWant, vTake, vN, vCount               = 0, 1, 2, 3
	)
	for _, c := range []struct {
		name     string
		ownHalf  bool       // every second drop sample is in its own code
		takeTags model.Tags // tags of decide's variable
		dropTags model.Tags // tags of drop's variable
		takeNorm bool       // decide's take looks as in the normal runs
		global   bool       // decide reads a global counter instead of take
		byOther  bool       // drop runs under other for most of its slow time
		want     string
	}{
		{"a library call paid for its sibling's result", false, model.TagCond | model.TagArgs, model.TagArgs, false, false, false, "decide"},
		{"its own instructions do half of its work", true, model.TagCond | model.TagArgs, model.TagArgs, false, false, false, "drop"},
		{"the library caller has a loop of its own", false, model.TagCond | model.TagArgs, model.TagLoop, false, false, false, "drop"},
		{"the sibling's variables look normal", false, model.TagCond | model.TagArgs, model.TagArgs, true, false, false, "drop"},
		{"the sibling's variable is no condition", false, model.TagArgs, model.TagArgs, false, false, false, "drop"},
		{"the sibling's evidence is a global counter", false, model.TagCond | model.TagArgs, model.TagArgs, false, true, false, "drop"},
		{"another function makes most of its calls", false, model.TagCond | model.TagArgs, model.TagArgs, false, false, true, "drop"},
	} {
		hdr := []any{
			&model.Object{ID: 0, Path: "/bin/prog", BuildID: "b1", Program: true, Schema: siblingSchema(c.takeTags, c.dropTags)},
			&model.Object{ID: 1, Path: "/lib/libc.so.6", BuildID: "c1", Schema: libSchema()},
			&model.Mapping{PID: 1, Start: progBias + 0x1000, End: progBias + 0x2000, Bias: progBias, Obj: 0},
			&model.Mapping{PID: 1, Start: libBias + 0x5000, End: libBias + 0x6000, Bias: libBias, Obj: 1},
			&model.ProcEvent{Kind: model.ProcStart, PID: 1},
		}
		a := New(DefaultOptions())
		var normal, buggy []ev
		for range 60 { // main's own work: reader is no driver frame
			addEv(&normal, []uint64{P(pMain)})
			addEv(&buggy, []uint64{P(pMain)})
		}
		dropStack := func(i int, caller uint64) ([]uint64, uint8) {
			if c.ownHalf && i%2 == 1 {
				return []uint64{P(pDrop), P(caller), P(pMain)}, 0
			}
			return []uint64{L(pcMemcpy), P(pDrop), P(caller), P(pMain)}, 1
		}
		for i := range 40 { // the normal loop: decide consumes much, drop moves little
			addEv(&normal, []uint64{P(pReader), P(pMain)}, val(0, vWant, int64(4000+i%7)))
			addEv(&normal, []uint64{P(pDecide), P(pReader), P(pMain)}, val(0, vTake, int64(3900+i%50)), val(0, vCount, int64(i%3)))
			st, d := dropStack(i, pReader)
			addEv(&normal, st, val(d, vN, int64(100+i%30)))
		}
		for i := range 50 { // the slow loop: decide consumes little, drop runs again and again
			take := int64(5 + i%4)
			if c.takeNorm {
				take = int64(3900 + i%50)
			}
			addEv(&buggy, []uint64{P(pReader), P(pMain)}, val(0, vWant, int64(4000+i%7)))
			if c.global {
				addEv(&buggy, []uint64{P(pDecide), P(pReader), P(pMain)}, val(0, vCount, int64(90000+i)), val(0, vTake, int64(3900+i%50)))
			} else {
				addEv(&buggy, []uint64{P(pDecide), P(pReader), P(pMain)}, val(0, vTake, take))
			}
		}
		for i := range 300 {
			caller := uint64(pReader)
			if c.byOther && i%3 != 0 {
				caller = pOther
			}
			st, d := dropStack(i, caller)
			addEv(&buggy, st, val(d, vN, int64(90000+i%300)))
		}
		feedWith(t, a, Normal, "n", hdr, normal)
		feedWith(t, a, Buggy, "b", hdr, buggy)
		res := a.Result()
		got := names(res)
		if got[0] != c.want {
			dec := findFunc(t, res, "decide")
			t.Errorf("%s: ranked %v, want %s first (decide placed %q, r %g)", c.name, got, c.want, dec.Placed, dec.Discount)
			continue
		}
		dec, drop := findFunc(t, res, "decide"), findFunc(t, res, "drop")
		swapped := strings.Contains(dec.Placed, "D145") && strings.Contains(drop.Placed, "D145")
		if swapped != (c.want == "decide") {
			t.Errorf("%s: decide placed %q, drop placed %q: want D145 to apply: %v", c.name, dec.Placed, drop.Placed, c.want == "decide")
		}
	}
}
