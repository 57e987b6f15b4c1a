package rank

import (
	"strings"
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// patternCase runs helper (under work under main) through normal and slow
// runs with the variables that extra adds to helper, and returns helper's
// row. normal and slow give the values of sample i of a run; runs slow
// runs are fed (one normal run, as many slow ones).
func patternCase(t *testing.T, extra []model.Var, runs int, normal, slow func(vars []int32, i int) []model.Value) *Function {
	t.Helper()
	return findFunc(t, patternResult(t, extra, runs, normal, slow), "helper")
}

// patternResult is patternCase's whole result.
func patternResult(t *testing.T, extra []model.Var, runs int, normal, slow func(vars []int32, i int) []model.Value) *Result {
	t.Helper()
	hdr := header()
	s := hdr[0].(*model.Object).Schema
	ids := make([]int32, len(extra))
	base := int32(len(s.Vars))
	for i, v := range extra {
		ids[i] = base + int32(i)
		if v.Field != nil {
			v.Field = &model.Field{Of: base + v.Field.Of, Offset: v.Field.Offset, Deref: true}
		}
		s.Vars = append(s.Vars, v)
	}
	stack := []uint64{P(pcHelper), P(pcWork), P(pcMain)}
	a := New(DefaultOptions())
	for r := range runs {
		var n []ev
		for i := range 120 {
			addEv(&n, stack, normal(ids, i+r*120)...)
		}
		feedWith(t, a, Normal, "n", hdr, n)
	}
	for r := range runs {
		var b []ev
		for i := range 300 {
			addEv(&b, stack, slow(ids, i+r*300)...)
		}
		feedWith(t, a, Buggy, "b", hdr, b)
	}
	return a.Result()
}

func checkPattern(t *testing.T, f *Function, want, inReason string) {
	t.Helper()
	if f.Discount >= DefaultOptions().DefaultDiscount {
		t.Fatalf("helper: r %g (%s), want an anomaly", f.Discount, f.PatternReason)
	}
	if f.Pattern != want || !strings.Contains(f.PatternReason, inReason) {
		t.Errorf("helper: pattern %q (%s); want %q, reason with %q", f.Pattern, f.PatternReason, want, inReason)
	}
}

// TestPatternOwnClockSpacing pins decision D78: a clock that a condition
// of the function reads (now, compared with each entry's expiry in a
// walk), whose deltas went wrong while its loop steps as in the normal
// runs, says how often the code that holds it was sampled (a time passed
// in and held through a longer walk: deltas of 0), not a value that the
// condition decided on: missing constraint. A count under the same
// values (its delta is its rate) keeps rule 3's wrong constraint, and so
// does a clock beside a loop variable that went wrong.
func TestPatternOwnClockSpacing(t *testing.T) {
	cases := []struct {
		name, varName string
		loopWrong     bool
		want, reason  string
	}{
		{"a clock read by a condition", "now", false, PatternMissing, "only clock now went wrong (delta)"},
		{"a clock by its type", "at", false, PatternMissing, "only clock at went wrong"},
		{"a count, not a clock", "total", false, PatternWrong, "condition variable total takes abnormal values"},
		{"a clock beside a loop gone wrong", "now", true, PatternScalability, "goes further"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			typ := "uint64_t"
			if c.varName == "at" {
				typ = "time_t"
			}
			vars := []model.Var{
				{Name: c.varName, Func: fHelper, Line: 53, Type: typ, Kind: model.KindUint, Size: 8, Tags: model.TagCond},
				{Name: "k", Func: fHelper, Line: 54, Type: "int", Kind: model.KindInt, Size: 4, Tags: model.TagLoop},
			}
			// Each walk holds its time for 4 ticks in both kinds (the
			// durations agree); between two walks the normal runs serve
			// hundreds of requests, the slow ones a few (the walk runs at
			// nearly every request): the deltas differ.
			clock := int64(1000)
			f := patternCase(t, vars, 1, func(v []int32, i int) []model.Value {
				if i%4 == 0 {
					clock += 1000 * (300 + int64(i%70))
				}
				return []model.Value{val(0, v[0], clock), val(0, v[1], int64(i%9))}
			}, func(v []int32, i int) []model.Value {
				if i%4 == 0 {
					clock += 1000 * (1 + int64(i%3))
				}
				k := int64(i % 9)
				if c.loopWrong {
					k = int64(100 + i%50)
				}
				return []model.Value{val(0, v[0], clock), val(0, v[1], k)}
			})
			checkPattern(t, f, c.want, c.reason)
		})
	}
}

// TestPatternWalkElement pins decision D80: a condition variable that is
// a field read through a pointer loop variable of the function (a walk's
// element, key->seq of a walk over key) and takes other values in the
// slow runs says that the walk reaches other elements, as the iterator's
// own values would if a pointer's value were compared: scalability. The
// same field behind a pointer that is no loop variable (a configuration
// read through a parameter) keeps rule 3's wrong constraint.
func TestPatternWalkElement(t *testing.T) {
	for _, c := range []struct {
		name         string
		tags         model.Tags
		want, reason string
	}{
		{"behind the walk's iterator", model.TagLoop | model.TagCond, PatternScalability, "read through loop variable key"},
		{"behind a parameter", model.TagArgs, PatternWrong, "condition variable key->seq takes abnormal values"},
	} {
		t.Run(c.name, func(t *testing.T) {
			vars := []model.Var{
				{Name: "key", Func: fHelper, Line: 53, Type: "struct key *", Kind: model.KindPointer, Size: 8, Tags: c.tags},
				{Name: "key->seq", Func: fHelper, Line: 53, Type: "long", Kind: model.KindInt, Size: 8, Tags: model.TagCond, Field: &model.Field{Of: 0, Offset: 8}},
			}
			f := patternCase(t, vars, 1, func(v []int32, i int) []model.Value {
				return []model.Value{val(0, v[0], int64(0x10000+64*(i%10))), val(0, v[1], int64(i%10))}
			}, func(v []int32, i int) []model.Value {
				return []model.Value{val(0, v[0], int64(0x10000+64*(i%400))), val(0, v[1], int64(i%400))}
			})
			checkPattern(t, f, c.want, c.reason)
		})
	}
}

// TestPatternOneObjectWalked pins decision D79: a pointer compared as
// null or not (its condition a null test) that kept one address through
// each slow run, where the normal runs moved to a new one every few
// calls, is one object that each call finds grown by the calls before:
// with a loop in the function that walks it, scalability. Without a loop
// variable, or for a number stuck at one value (what a condition reads),
// D14's wrong constraint stays.
func TestPatternOneObjectWalked(t *testing.T) {
	for _, c := range []struct {
		name         string
		pointer      bool
		loop         bool
		want, reason string
	}{
		{"a pointer and a walk", true, true, PatternScalability, "pointer list keeps one object"},
		{"a pointer and no walk", true, false, PatternWrong, "keeps one value through each slow run"},
		{"a number and a walk", false, true, PatternWrong, "keeps one value through each slow run"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v0 := model.Var{Name: "list", Func: fHelper, Line: 53, Type: "struct list *", Kind: model.KindPointer, Size: 8, Tags: model.TagCond}
			if !c.pointer {
				v0 = model.Var{Name: "list", Func: fHelper, Line: 53, Type: "long", Kind: model.KindInt, Size: 8, Tags: model.TagCond}
			}
			loopTags := model.TagArgs
			if c.loop {
				loopTags = model.TagLoop
			}
			vars := []model.Var{v0, {Name: "k", Func: fHelper, Line: 54, Type: "int", Kind: model.KindInt, Size: 4, Tags: loopTags}}
			// The normal runs take a new list every 10 calls, the slow
			// runs keep one; k steps every tick in the normal runs, and in the
			// slow ones stays 2 ticks at every 4th step: its
			// durations differ, less than the list's.
			f := patternCase(t, vars, 3, func(v []int32, i int) []model.Value {
				return []model.Value{val(0, v[0], int64(0x10000+64*(i/10))), val(0, v[1], int64(i%9))}
			}, func(v []int32, i int) []model.Value {
				return []model.Value{val(0, v[0], int64(0x10000+64*(i/300))), val(0, v[1], int64((i-i/4)%9))}
			})
			checkPattern(t, f, c.want, c.reason)
		})
	}
}

// TestPatternIdentityDuration pins decision D81: a number holding address
// bits (its values differ from run to run as much as between the kinds,
// so §5 gives its value no verdict) whose durations went wrong (one page
// held ten ticks in the slow runs, one tick in the normal ones), tied at
// r = 0 with a condition variable whose values went wrong: its durations
// say how long one object stayed in use, not a value a condition read,
// and the condition decides the pattern (rule 3, wrong constraint) rather
// than the longer durations (rule 1). Alone, its durations keep rule 1.
func TestPatternIdentityDuration(t *testing.T) {
	for _, c := range []struct {
		name         string
		withCond     bool
		want, reason string
	}{
		{"beside a condition gone wrong", true, PatternWrong, "condition variable wake takes abnormal values"},
		{"alone", false, PatternMissing, "page_id (cond) holds its values longer"},
	} {
		t.Run(c.name, func(t *testing.T) {
			vars := []model.Var{
				{Name: "page_id", Func: fHelper, Line: 53, Type: "unsigned int", Kind: model.KindUint, Size: 4, Tags: model.TagCond},
				{Name: "wake", Func: fHelper, Line: 54, Type: "long", Kind: model.KindInt, Size: 8, Tags: model.TagCond},
			}
			wake := func(v []int32, x int64) []model.Value {
				if !c.withCond {
					return nil
				}
				return []model.Value{val(0, v[1], x)}
			}
			// Each run maps its pages elsewhere (a base per run, as
			// ASLR does); within a run the pages come in no order.
			page := func(run, k int) int64 { return int64(0x100000*(run+1) + (k*7919)%4096) }
			res := patternResult(t, vars, 3, func(v []int32, i int) []model.Value {
				return append(wake(v, int64(i%10)), val(0, v[0], page(i/120, i)))
			}, func(v []int32, i int) []model.Value {
				return append(wake(v, int64(1000+i%10)), val(0, v[0], page(10+i/300, i/10)))
			})
			noise := false
			for _, d := range findVar(t, res, "helper", "page_id").Dims {
				noise = noise || d.Dim == DimValue && d.Reason == ReasonRunNoise
			}
			if !noise {
				t.Fatalf("page_id: value not dropped as run noise: %+v", findVar(t, res, "helper", "page_id").Dims)
			}
			checkPattern(t, findFunc(t, res, "helper"), c.want, c.reason)
		})
	}
}

// TestPatternSameIterations pins decision D347: a loop variable that went
// wrong in value (rule 2) while nearly all of its slow samples (at least
// DefaultDiscount of them) are values the normal runs had made the same
// iterations as the normal runs, in another mix, more often: it did not
// go further, and the pattern is missing constraint. Slow values beyond
// the normal range (most, or more than 1 - DefaultDiscount of them) keep
// rule 2's scalability, and so does a second loop variable of the
// function that went further while the first stayed in range, and a loop
// variable read in few of the samples of the function's busiest one.
func TestPatternSameIterations(t *testing.T) {
	for _, c := range []struct {
		name         string
		slowK        func(i int) int64
		slowJ        func(i int) int64
		want, reason string
	}{
		{"in the normal range, another mix", func(i int) int64 { return int64(i % 10) }, nil,
			PatternMissing, "did not go further"},
		{"beyond the normal range", func(i int) int64 { return int64(100 + i%50) }, nil,
			PatternScalability, "loop variable k goes further"},
		{"a third of it beyond", func(i int) int64 { return int64(i % 80) }, nil,
			PatternScalability, "loop variable k goes further"},
		{"in range, while another loop goes further", func(i int) int64 { return int64(i % 10) },
			func(i int) int64 { return int64(200 + i%90) }, PatternScalability, "goes further"},
		{"in range, read in few of the walk's samples", func(i int) int64 {
			if i%5 != 0 {
				return -1 // not read: the walk's time is j's
			}
			return int64((i / 5) % 10)
		}, nil, PatternScalability, "loop variable k goes further"},
	} {
		t.Run(c.name, func(t *testing.T) {
			vars := []model.Var{
				{Name: "k", Func: fHelper, Line: 53, Type: "int", Kind: model.KindInt, Size: 4, Tags: model.TagLoop},
				{Name: "j", Func: fHelper, Line: 54, Type: "int", Kind: model.KindInt, Size: 4, Tags: model.TagLoop},
			}
			f := patternCase(t, vars, 1, func(v []int32, i int) []model.Value {
				return []model.Value{val(0, v[0], int64(i%50)), val(0, v[1], int64(i%7))}
			}, func(v []int32, i int) []model.Value {
				j := int64(i % 7)
				if c.slowJ != nil {
					j = c.slowJ(i)
				}
				if k := c.slowK(i); k >= 0 {
					return []model.Value{val(0, v[0], k), val(0, v[1], j)}
				}
				return []model.Value{val(0, v[1], j)}
			})
			checkPattern(t, f, c.want, c.reason)
		})
	}
}

// TestPatternSameIterationsLibrary: D347 leaves rule 2's scalability to a
// function whose time is a library call under its loop (memcpy): an
// iteration may copy more data at the same loop values (D124). The same
// loop with its time its own instructions reads missing constraint.
func TestPatternSameIterationsLibrary(t *testing.T) {
	for _, c := range []struct {
		name string
		lib  bool
		want string
	}{
		{"the loop's own instructions", false, PatternMissing},
		{"memcpy under the loop", true, PatternScalability},
	} {
		t.Run(c.name, func(t *testing.T) {
			hdr := header()
			s := hdr[0].(*model.Object).Schema
			k := int32(len(s.Vars))
			s.Vars = append(s.Vars, model.Var{Name: "k", Func: fHelper, Line: 53, Type: "int", Kind: model.KindInt, Size: 4, Tags: model.TagLoop})
			stack, d := []uint64{P(pcHelper), P(pcWork), P(pcMain)}, uint8(0)
			if c.lib {
				stack, d = []uint64{L(pcMemcpy), P(pcHelper), P(pcWork), P(pcMain)}, 1
			}
			a := New(DefaultOptions())
			var n, b []ev
			for i := range 120 {
				addEv(&n, stack, val(d, k, int64(i%50)))
			}
			for i := range 300 {
				addEv(&b, stack, val(d, k, int64(i%10)))
			}
			feedWith(t, a, Normal, "n", hdr, n)
			feedWith(t, a, Buggy, "b", hdr, b)
			checkPattern(t, findFunc(t, a.Result(), "helper"), c.want, "")
		})
	}
}
