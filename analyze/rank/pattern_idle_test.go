package rank

import (
	"strings"
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// TestPatternIdleWalk pins decision D83: work's loop goes further in the
// slow runs (rule 2, scalability), while the field its per-element test
// reads behind a pointer local, elem->btype, keeps one value at every
// step in both kinds of runs: the walk does nothing per element, a
// missing constraint. A test whose field differs from element to
// element, or a walk that passes the element on (elem->bkey to a call),
// does work per element: scalability.
func TestPatternIdleWalk(t *testing.T) {
	n := int32(len(progSchema().Vars))
	vElem, vBtype, vBkey := n, n+1, n+2
	cases := []struct {
		name    string
		btype   func(i int) int64
		passed  bool // elem->bkey is passed to a call
		want    string
		inWhy   string
		normalN int
	}{
		{"one outcome at every step", func(int) int64 { return 1 }, false, PatternMissing, "elem->btype", 60},
		{"the test differs by element", func(i int) int64 { return int64(1 + i%3) }, false, PatternScalability, "loop variable i", 60},
		{"the element is passed on", func(int) int64 { return 1 }, true, PatternScalability, "loop variable i", 60},
		// Without MinSamples normal samples of the test, nothing says the
		// normal runs' walk had the same outcome: not D83 (rule 3 here).
		{"too few normal samples of the test", func(int) int64 { return 1 }, false, "", "", 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sc := progSchema()
			bkeyTags := model.Tags(0)
			if c.passed {
				bkeyTags = model.TagArgs
			}
			sc.Vars = append(sc.Vars,
				model.Var{Name: "elem", Func: fWork, Line: 24, Type: "struct client *", Kind: model.KindPointer, Size: 8},
				model.Var{Name: "elem->btype", Func: fWork, Line: 24, Type: "int", Kind: model.KindInt, Size: 4, Tags: model.TagCond,
					Field: &model.Field{Of: model.VarID(vElem), Offset: 4, Deref: true}},
				model.Var{Name: "elem->bkey", Func: fWork, Line: 24, Type: "robj *", Kind: model.KindPointer, Size: 8, Tags: bkeyTags,
					Field: &model.Field{Of: model.VarID(vElem), Offset: 8, Deref: true}})
			hdr := header()
			hdr[0] = &model.Object{ID: 0, Path: "/bin/prog", BuildID: "b1", Program: true, Schema: sc}
			run := func(n, steps int) []ev {
				var evs []ev
				for k := range n {
					vals := []model.Value{val(0, vI, int64(k%steps)), val(0, vBtype, c.btype(k))}
					if c.passed {
						vals = append(vals, val(0, vBkey, 0x5000+int64(k)))
					}
					if k >= c.normalN && steps == 10 {
						vals = vals[:1]
					}
					evs = append(evs, ev{tid: 1, tick: uint64(k), stack: []uint64{P(pcWork)}, vals: vals})
				}
				return evs
			}
			a := New(DefaultOptions())
			feedWith(t, a, Normal, "n", hdr, run(60, 10))
			feedWith(t, a, Buggy, "b", hdr, run(300, 100))
			w := findFunc(t, a.Result(), "work")
			if c.want == "" {
				if strings.Contains(w.PatternReason, "D83") {
					t.Errorf("work: pattern %q (%s), want no D83", w.Pattern, w.PatternReason)
				}
				return
			}
			if w.Pattern != c.want || !strings.Contains(w.PatternReason, c.inWhy) {
				t.Errorf("work: pattern %q (%s), v* %s (%s, r %.2f); want %q, reason with %q",
					w.Pattern, w.PatternReason, w.Variable, w.Dimension, w.Discount, c.want, c.inWhy)
			}
		})
	}
}

// TestPatternSkipWalk pins decision D225: work's loop goes further in the
// slow runs (rule 2, scalability) while the field its per-element test
// reads behind a pointer local, elem->ref, keeps one value at every step
// of the slow runs' walk, a value other than the normal runs' (DAOS-8343:
// every cached item is referenced when slow, none can be evicted; when
// normal, each item visited is evicted), and all of work's time is its
// own instructions: the walk visits elements it never acts on, a missing
// constraint. A walk whose time is mostly a callee's (the outcome makes a
// call on each element: HDF5's insertion of every dirty entry), a test
// whose field differs from element to element, or an element passed to a
// call does work per element, and a field behind a pointer that is no
// loop cursor is no element's outcome: scalability.
func TestPatternSkipWalk(t *testing.T) {
	// One outcome at 98% of the steps: the field changes from element
	// to element now and then (an item held twice), so it is no state
	// kept through the run (D31's reading).
	oneOutcome := func(i int) int64 {
		if i%50 == 0 {
			return 2
		}
		return 1
	}
	n := int32(len(progSchema().Vars))
	vElem, vRef, vKey := n, n+1, n+2
	cases := []struct {
		name   string
		ref    func(i int) int64 // slow runs' elem->ref at step i
		passed bool              // elem->key is passed to a call
		callee bool              // two thirds of work's slow samples are in helper, under it
		still  bool              // elem is no loop cursor: a pointer that stays put
		want   string
		inWhy  string
	}{
		{"one slow outcome, its own time", oneOutcome, false, false, false, PatternMissing, "(D225)"},
		{"the time is a callee's", oneOutcome, false, true, false, PatternScalability, "further"},
		{"the test differs by element", func(i int) int64 { return int64(1 + i%3) }, false, false, false, PatternScalability, "further"},
		{"the element is passed on", oneOutcome, true, false, false, PatternScalability, "further"},
		// A field behind a pointer that is no loop's cursor (a page's
		// item count read at every step, the walk's bound) is no
		// element's outcome.
		{"the field is behind no cursor", oneOutcome, false, false, true, PatternScalability, "further"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sc := progSchema()
			keyTags := model.Tags(0)
			if c.passed {
				keyTags = model.TagArgs
			}
			elemTags := model.TagLoop // the walk's cursor
			if c.still {
				elemTags = 0
			}
			sc.Vars = append(sc.Vars,
				model.Var{Name: "elem", Func: fWork, Line: 24, Type: "struct item *", Kind: model.KindPointer, Size: 8, Tags: elemTags},
				model.Var{Name: "elem->ref", Func: fWork, Line: 24, Type: "unsigned", Kind: model.KindUint, Size: 4, Tags: model.TagCond,
					Field: &model.Field{Of: model.VarID(vElem), Offset: 4, Deref: true}},
				model.Var{Name: "elem->key", Func: fWork, Line: 24, Type: "long", Kind: model.KindInt, Size: 8, Tags: keyTags,
					Field: &model.Field{Of: model.VarID(vElem), Offset: 8, Deref: true}})
			hdr := header()
			hdr[0] = &model.Object{ID: 0, Path: "/bin/prog", BuildID: "b1", Program: true, Schema: sc}
			// The normal runs walk rarely (2 of 300 samples, the rest in
			// main), so that the loop variable and the test are both
			// "rare when normal", tied, as DAOS-8343's walk and its
			// ll_ref: rule 2 reads the loop first.
			run := func(slow bool) []ev {
				var evs []ev
				for k := range 300 {
					if !slow && k >= 2 {
						evs = append(evs, ev{tid: 1, tick: uint64(k), stack: []uint64{P(pcMain)}})
						continue
					}
					ref := int64(0) // the normal runs' outcome: evict
					if slow {
						ref = c.ref(k)
					}
					vals := []model.Value{val(0, vI, int64(k%100)), val(0, vRef, ref)}
					if c.passed {
						vals = append(vals, val(0, vKey, 0x5000+int64(k)))
					}
					stack := []uint64{P(pcWork)}
					if slow && c.callee && k%3 != 0 {
						stack = []uint64{P(pcHelper), P(pcWork)}
						for i := range vals {
							vals[i].Frame = 1
						}
					}
					evs = append(evs, ev{tid: 1, tick: uint64(k), stack: stack, vals: vals})
				}
				return evs
			}
			a := New(DefaultOptions())
			feedWith(t, a, Normal, "n", hdr, run(false))
			feedWith(t, a, Buggy, "b", hdr, run(true))
			w := findFunc(t, a.Result(), "work")
			if w.Pattern != c.want || !strings.Contains(w.PatternReason, c.inWhy) {
				t.Errorf("work: pattern %q (%s), v* %s (%s, r %.2f); want %q, reason with %q",
					w.Pattern, w.PatternReason, w.Variable, w.Dimension, w.Discount, c.want, c.inWhy)
			}
		})
	}
}
