package rank

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// meetSchema is a lookup done from a loop: main (the driver) calls dec,
// whose loop (k) calls look once per item; look hashes the key (hash) and
// walks the bucket (probe), each about half of it. With direct, dec calls
// hash and probe itself (no look between).
func meetSchema() *model.Schema {
	r := func(lo, hi uint64) []model.PCRange { return []model.PCRange{{Lo: lo, Hi: hi}} }
	return &model.Schema{
		Path: "/bin/prog", BuildID: "b1", Type: "exec", HasDWARF: true,
		Files: []string{"/src/prog.c"},
		Funcs: []model.Func{
			{Name: "main", Display: "main", File: 0, Line: 10, Ranges: r(0x1000, 0x1100)},
			{Name: "dec", Display: "dec", File: 0, Line: 20, Ranges: r(0x1100, 0x1200)},
			{Name: "look", Display: "look", File: 0, Line: 40, Ranges: r(0x1200, 0x1280)},
			{Name: "hash", Display: "hash", File: 0, Line: 50, Ranges: r(0x1280, 0x1300)},
			{Name: "probe", Display: "probe", File: 0, Line: 60, Ranges: r(0x1300, 0x1380)},
		},
		Vars: []model.Var{
			{Name: "k", Func: 1, Line: 21, Type: "int", Kind: model.KindInt, Size: 4, Tags: model.TagLoop},
			{Name: "key", Func: 2, Line: 41, Type: "int", Kind: model.KindInt, Size: 4, Tags: model.TagArgs},
			{Name: "h", Func: 3, Line: 51, Type: "int", Kind: model.KindInt, Size: 4, Tags: model.TagCond},
			{Name: "i", Func: 4, Line: 61, Type: "int", Kind: model.KindInt, Size: 4, Tags: model.TagLoop},
		},
		Lines: []model.LineRow{
			{PC: 0x1000, File: 0, Line: 10}, {PC: 0x1100, File: 0, Line: 20}, {PC: 0x1200, File: 0, Line: 40},
			{PC: 0x1280, File: 0, Line: 50}, {PC: 0x1300, File: 0, Line: 60}, {PC: 0x1380, File: 0, Line: 0},
		},
	}
}

// TestMeetInSoleCallee: two anomalous callees (hash and probe, each about
// half of the time) meet in look, and dec, whose own loop went wrong,
// spends all of its time in look (method.md §7, D317). D12 caps look,
// where they meet; dec is above the meeting point, one piece of work with
// look, and is left to D10: it ranks above both anomalies. Without the
// rule D12 capped every frame above them (dec just below hash or probe).
// Where dec itself is where they meet (it calls both), D12 caps it as
// before.
func TestMeetInSoleCallee(t *testing.T) {
	const (
		pMain, pDec, pLook, pHash, pProbe = 0x1010, 0x1110, 0x1210, 0x1290, 0x1310
		vk, vkey, vh, vi                  = 0, 1, 2, 3
	)
	for _, c := range []struct {
		name   string
		direct bool // dec calls hash and probe itself
		capped bool // dec ranks below the better anomaly (D12, or D51 where its evidence is a duration)
	}{
		{"they meet in a callee that is all of dec's time", false, false},
		{"they meet in dec", true, true},
	} {
		a := New(DefaultOptions())
		s := meetSchema()
		inHash := []uint64{P(pHash), P(pLook), P(pDec), P(pMain)}
		inProbe := []uint64{P(pProbe), P(pLook), P(pDec), P(pMain)}
		hv := func(k int, slow bool) []model.Value {
			x := int64(k % 10)
			if slow {
				x = int64(k % 40)
			}
			return []model.Value{val(0, vh, x%7+x/10*3), val(1, vkey, int64(k%5)), val(2, vk, x)}
		}
		pv := func(k int, slow bool) []model.Value {
			x := int64(k % 10)
			if slow {
				x = int64(k % 40)
			}
			return []model.Value{val(0, vi, x), val(1, vkey, int64(k%5)), val(2, vk, x)}
		}
		if c.direct {
			inHash = []uint64{P(pHash), P(pDec), P(pMain)}
			inProbe = []uint64{P(pProbe), P(pDec), P(pMain)}
			hv = func(k int, slow bool) []model.Value {
				x := int64(k % 10)
				if slow {
					x = int64(k % 40)
				}
				return []model.Value{val(0, vh, x%7+x/10*3), val(1, vk, x)}
			}
			pv = func(k int, slow bool) []model.Value {
				x := int64(k % 10)
				if slow {
					x = int64(k % 40)
				}
				return []model.Value{val(0, vi, x), val(1, vk, x)}
			}
		}
		var normal, buggy []ev
		for k := range 20 {
			addEv(&normal, inHash, hv(k, false)...)
			addEv(&normal, inProbe, pv(k, false)...)
			addEv(&normal, []uint64{P(pMain)})
		}
		for k := range 90 {
			addEv(&buggy, inHash, hv(k, true)...)
		}
		for k := range 80 {
			addEv(&buggy, inProbe, pv(k, true)...)
		}
		for range 20 {
			addEv(&buggy, []uint64{P(pMain)})
		}
		feedWith(t, a, Normal, "n", headerWith(s), normal)
		feedWith(t, a, Buggy, "b", headerWith(s), buggy)
		res := a.Result()
		d, h, p := findFunc(t, res, "dec"), findFunc(t, res, "hash"), findFunc(t, res, "probe")
		if d.Discount >= DefaultOptions().DefaultDiscount || h.Discount >= DefaultOptions().DefaultDiscount || p.Discount >= DefaultOptions().DefaultDiscount {
			t.Fatalf("%s: r dec %g hash %g probe %g: want all wrong (%v)", c.name, d.Discount, h.Discount, p.Discount, names(res))
		}
		below := d.Calibrated < h.Calibrated || d.Calibrated < p.Calibrated
		if below != c.capped || !c.capped && strings.Contains(d.Placed, "D12") {
			t.Errorf("%s: dec placed %q, %g against hash %g, probe %g (%v): want capped by D12 %v", c.name, d.Placed, d.Calibrated, h.Calibrated, p.Calibrated, names(res), c.capped)
		}
		if !c.direct {
			if l := findFunc(t, res, "look"); l.Calibrated >= h.Calibrated {
				t.Errorf("%s: look %g (placed %q) against hash %g: want it capped where the two meet", c.name, l.Calibrated, l.Placed, h.Calibrated)
			}
		}
	}
}

// chainSchema is main (the driver) -> out -> dec -> get, each with a loop
// variable of its own (o, k, g).
func chainSchema() *model.Schema {
	r := func(lo, hi uint64) []model.PCRange { return []model.PCRange{{Lo: lo, Hi: hi}} }
	return &model.Schema{
		Path: "/bin/prog", BuildID: "b1", Type: "exec", HasDWARF: true,
		Files: []string{"/src/prog.c"},
		Funcs: []model.Func{
			{Name: "main", Display: "main", File: 0, Line: 10, Ranges: r(0x1000, 0x1100)},
			{Name: "out", Display: "out", File: 0, Line: 20, Ranges: r(0x1100, 0x1200)},
			{Name: "dec", Display: "dec", File: 0, Line: 40, Ranges: r(0x1200, 0x1280)},
			{Name: "get", Display: "get", File: 0, Line: 50, Ranges: r(0x1280, 0x1300)},
		},
		Vars: []model.Var{
			{Name: "o", Func: 1, Line: 21, Type: "int", Kind: model.KindInt, Size: 4, Tags: model.TagLoop},
			{Name: "k", Func: 2, Line: 41, Type: "int", Kind: model.KindInt, Size: 4, Tags: model.TagLoop},
			{Name: "g", Func: 3, Line: 51, Type: "int", Kind: model.KindInt, Size: 4, Tags: model.TagLoop},
		},
		Lines: []model.LineRow{
			{PC: 0x1000, File: 0, Line: 10}, {PC: 0x1100, File: 0, Line: 20}, {PC: 0x1200, File: 0, Line: 40},
			{PC: 0x1280, File: 0, Line: 50}, {PC: 0x1300, File: 0, Line: 0},
		},
	}
}

// TestDecidedPlaceKept: dec decided the call to get that is all of its
// time and takes get's place (D10); out calls dec and qualifies as its
// decider, but get is less than SoleCallee of out's time (out reads its
// input between calls), so out does not qualify for get. dec keeps the
// place it took (method.md §7, D318): without the rule D10 handed get's
// cost on to out through dec. Where out's own work is small enough for get
// to be all of its time too, out is get's outermost decider and takes the
// place as before.
func TestDecidedPlaceKept(t *testing.T) {
	const (
		pMain, pOut, pDec, pGet = 0x1010, 0x1110, 0x1210, 0x1290
		vo, vk, vg              = 0, 1, 2
	)
	for _, c := range []struct {
		name  string
		own   int    // slow samples in out's own instructions
		first string // the row ranked first
	}{
		{"get is less than all of out's time", 4, "dec"},
		{"get is all of out's time", 0, "out"},
	} {
		a := New(DefaultOptions())
		s := chainSchema()
		inGet := []uint64{P(pGet), P(pDec), P(pOut), P(pMain)}
		inDec := []uint64{P(pDec), P(pOut), P(pMain)}
		inOut := []uint64{P(pOut), P(pMain)}
		var normal, buggy []ev
		for k := range 40 {
			addEv(&normal, inGet, val(0, vg, int64(k%10)), val(1, vk, int64(k%10)), val(2, vo, int64(k%5)))
		}
		for k := range 30 {
			addEv(&normal, inDec, val(0, vk, int64(k%10)), val(1, vo, int64(k%5)))
		}
		for k := range 10 {
			addEv(&normal, inOut, val(0, vo, int64(k%5)))
		}
		for range 20 {
			addEv(&normal, []uint64{P(pMain)})
		}
		for k := range 91 {
			addEv(&buggy, inGet, val(0, vg, int64(k%40)), val(1, vk, int64(k%40)), val(2, vo, int64(10+k%5)))
		}
		for k := range 4 {
			addEv(&buggy, inDec, val(0, vk, int64(k%40)), val(1, vo, int64(10+k%5)))
		}
		for k := range c.own {
			addEv(&buggy, inOut, val(0, vo, int64(10+k%5)))
		}
		for range 20 {
			addEv(&buggy, []uint64{P(pMain)})
		}
		feedWith(t, a, Normal, "n", headerWith(s), normal)
		feedWith(t, a, Buggy, "b", headerWith(s), buggy)
		res := a.Result()
		if got := res.Functions[0].Name; got != c.first {
			var rows []string
			for _, f := range res.Functions {
				rows = append(rows, fmt.Sprintf("%s %.4g r %.2g %q", f.Name, f.Calibrated, f.Discount, f.Placed))
			}
			t.Errorf("%s: first %s, want %s: %s", c.name, got, c.first, strings.Join(rows, "; "))
		}
	}
}
