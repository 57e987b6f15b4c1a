package rank

import (
	"strings"
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// dispatchSchema is a request path: main (the driver) calls disp once
// per request; disp calls walka and walkb, each a loop of its own. disp's
// n is what the request brings (tagged loop when loopN: then it is disp's
// own repetition).
func dispatchSchema(loopN bool) *model.Schema {
	r := func(lo, hi uint64) []model.PCRange { return []model.PCRange{{Lo: lo, Hi: hi}} }
	tag := model.TagArgs
	if loopN {
		tag = model.TagLoop
	}
	return &model.Schema{
		Path: "/bin/prog", BuildID: "b1", Type: "exec", HasDWARF: true,
		Files: []string{"/src/prog.c"},
		Funcs: []model.Func{
			{Name: "main", Display: "main", File: 0, Line: 10, Ranges: r(0x1000, 0x1100)},
			{Name: "disp", Display: "disp", File: 0, Line: 20, Ranges: r(0x1100, 0x1200)},
			{Name: "walka", Display: "walka", File: 0, Line: 40, Ranges: r(0x1200, 0x1280)},
			{Name: "walkb", Display: "walkb", File: 0, Line: 50, Ranges: r(0x1280, 0x1300)},
		},
		Vars: []model.Var{
			{Name: "n", Func: 1, Line: 21, Type: "int", Kind: model.KindInt, Size: 4, Tags: tag},
			{Name: "i", Func: 2, Line: 41, Type: "int", Kind: model.KindInt, Size: 4, Tags: model.TagLoop},
			{Name: "j", Func: 3, Line: 51, Type: "int", Kind: model.KindInt, Size: 4, Tags: model.TagLoop},
		},
		Lines: []model.LineRow{
			{PC: 0x1000, File: 0, Line: 10}, {PC: 0x1100, File: 0, Line: 20}, {PC: 0x1200, File: 0, Line: 40},
			{PC: 0x1280, File: 0, Line: 50}, {PC: 0x1300, File: 0, Line: 0},
		},
	}
}

// TestDispatcherBelowWalks: a frame that runs once per request (its
// variable is what each request brings, not a loop of its own) above two
// walks whose own loops went further ranks below both (method.md §7,
// D204): its inclusive cost is theirs, and its evidence is what a frame
// above slower work gets by construction. Without the rule it ranks
// between them (D12 puts it just below the better one when each holds
// MergeShare of its time, and its own cost puts it there when the
// smaller holds less). A frame whose strongest evidence is its own loop
// (a root cause that calls the work too often), one above a single walk
// (D10's piece of work), and one whose own instructions hold much of its
// extra time keep their places.
func TestDispatcherBelowWalks(t *testing.T) {
	const (
		pMain, pDisp, pA, pB = 0x1010, 0x1110, 0x1210, 0x1290
		vn, vi, vj           = 0, 1, 2
	)
	for _, c := range []struct {
		name   string
		loopN  bool   // disp's n is tagged loop
		b      int    // slow samples in walkb
		bWrong bool   // walkb's loop went further
		own    int    // slow samples in disp's own instructions
		below  string // D204 places disp just below this walk ("": not placed)
		within bool   // disp's n stays within its normal range when slow
	}{
		{"two walks", false, 60, true, 4, "walkb", false},
		// The smaller walk holds less than MergeShare of disp's extra
		// time: disp goes below the larger only.
		{"the smaller walk under MergeShare", false, 30, true, 4, "walka", false},
		{"its own loop went wrong", true, 60, true, 4, "", false},
		// A loop of its own whose slow values stay within the normal
		// runs' range went over other items (a handler table's index),
		// not further.
		{"its own loop, other items", true, 60, true, 4, "walkb", true},
		{"one walk", false, 60, false, 4, "", false},
		{"its own instructions", false, 60, true, 80, "", false},
	} {
		a := New(DefaultOptions())
		s := dispatchSchema(c.loopN)
		inA := []uint64{P(pA), P(pDisp), P(pMain)}
		inB := []uint64{P(pB), P(pDisp), P(pMain)}
		slowN := func(k int) int64 { return int64(3 + k%3) }
		if c.within {
			slowN = func(k int) int64 { return int64(2 * (k % 2)) }
		}
		var normal, buggy []ev
		for k := range 40 {
			addEv(&normal, inA, val(0, vi, int64(k%10)), val(1, vn, int64(k%3)))
			if k%2 == 0 {
				addEv(&normal, inB, val(0, vj, int64(k%10)), val(1, vn, int64(k%3)))
				addEv(&normal, []uint64{P(pDisp), P(pMain)}, val(0, vn, int64(k%3)))
			}
			addEv(&normal, []uint64{P(pMain)})
		}
		for k := range 160 {
			addEv(&buggy, inA, val(0, vi, int64(k%40)), val(1, vn, slowN(k)))
		}
		for k := range c.b {
			if !c.bWrong { // walkb read nothing: no loop of its own went wrong
				addEv(&buggy, inB, val(1, vn, slowN(k)))
				continue
			}
			addEv(&buggy, inB, val(0, vj, int64(k%40)), val(1, vn, slowN(k)))
		}
		for k := range c.own {
			addEv(&buggy, []uint64{P(pDisp), P(pMain)}, val(0, vn, slowN(k)))
		}
		for range 40 {
			addEv(&buggy, []uint64{P(pMain)})
		}
		feedWith(t, a, Normal, "n", headerWith(s), normal)
		feedWith(t, a, Buggy, "b", headerWith(s), buggy)
		res := a.Result()
		d, wa, wb := findFunc(t, res, "disp"), findFunc(t, res, "walka"), findFunc(t, res, "walkb")
		if d.Variable != "n" || d.Discount >= DefaultOptions().DefaultDiscount || wa.Discount >= DefaultOptions().DefaultDiscount {
			t.Fatalf("%s: disp r %g from %s, walka r %g: want both wrong, disp on n", c.name, d.Discount, d.Variable, wa.Discount)
		}
		if got := strings.Contains(d.Placed, "D204"); got != (c.below != "") || got && !strings.HasPrefix(d.Placed, "just below "+c.below+",") {
			t.Errorf("%s: disp placed %q (%v), want below %q by D204", c.name, d.Placed, names(res), c.below)
		}
		switch {
		case c.below == "walkb" && (d.Calibrated >= wb.Calibrated || d.Calibrated >= wa.Calibrated):
			t.Errorf("%s: ranked %v (disp %g, walka %g, walkb %g): want disp below both walks", c.name, names(res), d.Calibrated, wa.Calibrated, wb.Calibrated)
		case c.below == "" && c.bWrong && d.Calibrated < wb.Calibrated:
			t.Errorf("%s: ranked %v (disp %g, walkb %g): want disp above walkb", c.name, names(res), d.Calibrated, wb.Calibrated)
		}
	}
}

// TestDispatcherOwnWalk: a frame whose own loop is a pointer walk (a list
// cursor, whose addresses are never compared by value) shows its
// repetition through a field behind the cursor (e->dirty). That is its
// own loop's evidence, not what a request brought: D204 leaves it where
// its cost puts it, above the walks it calls, as the root cause that
// walks every entry to pick a few.
func TestDispatcherOwnWalk(t *testing.T) {
	const (
		pMain, pDisp, pA, pB = 0x1010, 0x1110, 0x1210, 0x1290
		vn, vi, vj, ve, vd   = 0, 1, 2, 3, 4
	)
	for _, field := range []bool{false, true} {
		s := dispatchSchema(false)
		s.Vars = append(s.Vars,
			model.Var{Name: "e", Func: 1, Line: 22, Type: "struct ent *", Kind: model.KindPointer, Size: 8, Tags: model.TagLoop},
			model.Var{Name: "e->dirty", Func: 1, Line: 22, Type: "int", Kind: model.KindInt, Size: 4, Tags: model.TagCond,
				Field: &model.Field{Of: ve, Offset: 8, Deref: true}})
		a := New(DefaultOptions())
		inA := []uint64{P(pA), P(pDisp), P(pMain)}
		inB := []uint64{P(pB), P(pDisp), P(pMain)}
		dirty := func(k int, slow bool) []model.Value {
			if !field {
				return nil
			}
			x := int64(k % 2)
			if slow {
				x = int64(5 + k%3)
			}
			return []model.Value{val(1, vd, x)}
		}
		var normal, buggy []ev
		for k := range 40 {
			addEv(&normal, inA, append([]model.Value{val(0, vi, int64(k%10)), val(1, vn, int64(k%3))}, dirty(k, false)...)...)
			if k%2 == 0 {
				addEv(&normal, inB, append([]model.Value{val(0, vj, int64(k%10)), val(1, vn, int64(k%3))}, dirty(k, false)...)...)
				addEv(&normal, []uint64{P(pDisp), P(pMain)}, val(0, vn, int64(k%3)))
			}
			addEv(&normal, []uint64{P(pMain)})
		}
		for k := range 160 {
			addEv(&buggy, inA, append([]model.Value{val(0, vi, int64(k%40)), val(1, vn, int64(3+k%3))}, dirty(k, true)...)...)
		}
		for k := range 60 {
			addEv(&buggy, inB, append([]model.Value{val(0, vj, int64(k%40)), val(1, vn, int64(3+k%3))}, dirty(k, true)...)...)
		}
		for k := range 4 {
			addEv(&buggy, []uint64{P(pDisp), P(pMain)}, val(0, vn, int64(3+k%3)))
		}
		for range 40 {
			addEv(&buggy, []uint64{P(pMain)})
		}
		feedWith(t, a, Normal, "n", headerWith(s), normal)
		feedWith(t, a, Buggy, "b", headerWith(s), buggy)
		res := a.Result()
		d := findFunc(t, res, "disp")
		if placed := strings.Contains(d.Placed, "D204"); placed == field {
			t.Errorf("field behind its cursor read: %v; disp placed %q (%v)", field, d.Placed, names(res))
		}
	}
}
