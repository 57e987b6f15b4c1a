package rank

import (
	"github.com/vprof/vprof/runtime/model"
	"strings"
	"testing"
)

// TestCountOrder: D220 and D221 order a caller and its callee among the
// leading rows by their call counts, normal against slow; missing,
// contradicting or ambiguous counts move nothing. Functions: 0 main, 1 A
// (the caller), 2 D (its callee, all of its time under A). Without the
// rule every case keeps the order it starts with.
func TestCountOrder(t *testing.T) {
	type counts map[string]uint64
	for _, tc := range []struct {
		name string
		// slow-run rows in the order the samples gave, by key
		start []string
		// seconds on the stack per run: normal and slow, of D
		dNormal, dSlow float64
		normal, slow   []counts // one per counted run; nil: none
		missing        string   // a counted slow run without counts (no uprobes)
		want           []string
		above          string // the A/D pair's verdict
		why            string // in its Why
	}{
		{
			// compact_cycle's shape: D called 0.135 -> 0.834 times per
			// call of A, each call about as long: A decided.
			name: "caller decided", start: []string{"D", "A", "main"},
			dNormal: 0.26, dSlow: 1.18,
			normal: []counts{{"A": 1000, "D": 135}}, slow: []counts{{"A": 1000, "D": 834}},
			want: []string{"A", "D", "main"}, above: "caller", why: "decided to call it more often",
		},
		{
			// tagged_flush's shape: one call of D per call of A in both,
			// each call far longer when slow: D's work.
			name: "callee's work", start: []string{"A", "D", "main"},
			dNormal: 0.001, dSlow: 0.7,
			normal: []counts{{"A": 12016, "D": 12016}}, slow: []counts{{"A": 12016, "D": 12016}},
			want: []string{"D", "A", "main"}, above: "callee", why: "own work per call grew",
		},
		{
			name: "callee's work, two counted runs of a kind", start: []string{"A", "D", "main"},
			dNormal: 0.001, dSlow: 0.7,
			normal: []counts{{"A": 100, "D": 600}, {"A": 120, "D": 720}}, slow: []counts{{"A": 110, "D": 660}},
			want: []string{"D", "A", "main"}, above: "callee",
		},
		{
			name: "counts missing in the normal runs", start: []string{"D", "A", "main"},
			dNormal: 0.26, dSlow: 1.18,
			slow: []counts{{"A": 1000, "D": 834}},
			want: []string{"D", "A", "main"}, above: "", why: "no count of",
		},
		{
			name: "no uprobes in the slow run", start: []string{"D", "A", "main"},
			dNormal: 0.26, dSlow: 1.18,
			normal: []counts{{"A": 1000, "D": 135}}, missing: "this kernel has no uprobe PMU",
			want: []string{"D", "A", "main"}, above: "", why: "no uprobe PMU",
		},
		{
			name: "ambiguous: both grew", start: []string{"D", "A", "main"},
			dNormal: 0.1, dSlow: 5,
			normal: []counts{{"A": 1000, "D": 1000}}, slow: []counts{{"A": 1000, "D": 5000}},
			want: []string{"D", "A", "main"}, above: "", why: "both grew",
		},
		{
			name: "ambiguous: neither grew", start: []string{"D", "A", "main"},
			dNormal: 0.5, dSlow: 0.6,
			normal: []counts{{"A": 1000, "D": 1000}}, slow: []counts{{"A": 1000, "D": 1100}},
			want: []string{"D", "A", "main"}, above: "", why: "neither grew",
		},
		{
			// spill_check's shape: D never called in the normal runs, A
			// was: where the slow runs' own work begins (D221).
			name: "callee never called when normal", start: []string{"A", "D", "main"},
			dNormal: 0, dSlow: 0.4,
			normal: []counts{{"A": 80400, "D": 0}}, slow: []counts{{"A": 84144, "D": 78095}},
			want: []string{"D", "A", "main"}, above: "callee", why: "never called in the normal runs",
		},
		{
			name: "caller never called when normal", start: []string{"D", "A", "main"},
			dNormal: 0, dSlow: 0.4,
			normal: []counts{{"A": 0, "D": 0}}, slow: []counts{{"A": 78095, "D": 624760}},
			want: []string{"A", "D", "main"}, above: "caller", why: "outermost frame",
		},
		{
			// Only the row a verdict names moves: D rises above A, main
			// (between them) keeps its place relative to A.
			name: "only the named row moves", start: []string{"A", "main", "D"},
			dNormal: 0.001, dSlow: 0.7,
			normal: []counts{{"A": 12016, "D": 12016}}, slow: []counts{{"A": 12016, "D": 12016}},
			want: []string{"D", "A", "main"}, above: "callee",
		},
		{
			name: "counted slow run never called them", start: []string{"D", "A", "main"},
			dNormal: 0.2, dSlow: 0.4,
			normal: []counts{{"A": 10, "D": 10}}, slow: []counts{{"A": 0, "D": 0}},
			want: []string{"D", "A", "main"}, above: "", why: "not the runs sampled",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := New(DefaultOptions())
			a.funcIdx = map[string]int32{"main": 0, "A": 1, "D": 2}
			// main above A above D on every slow stack; D holds 90% of A's time.
			a.stk.on = []float64{3 * (tc.dSlow + 0.1), 3 * (tc.dSlow + 0.1), 3 * tc.dSlow}
			a.stk.lists = []stackEntry{{funcs: []int32{2, 1, 0}, w: 3 * tc.dSlow}, {funcs: []int32{1, 0}, w: 0.3}}
			a.stkNormal.on = []float64{3, 3 * (tc.dNormal + 0.1), 3 * tc.dNormal}
			for _, c := range tc.normal {
				a.countRuns = append(a.countRuns, countRun{kind: Normal, name: "n", counts: c})
			}
			for _, c := range tc.slow {
				a.countRuns = append(a.countRuns, countRun{kind: Buggy, name: "b", counts: c})
			}
			if tc.missing != "" {
				a.countRuns = append(a.countRuns, countRun{kind: Buggy, name: "b-count", counts: map[string]uint64{}, missing: tc.missing})
			}
			var fns []Function
			for i, k := range tc.start {
				fns = append(fns, Function{Name: k, Key: k, Calibrated: float64(10 - i)})
			}
			pairs := a.countOrder(fns, 3, 3, nil)
			var got []string
			for i, f := range fns {
				got = append(got, f.Key)
				if f.Calibrated != float64(10-i) {
					t.Errorf("row %d (%s): calibrated %g, want the place's %d", i, f.Key, f.Calibrated, 10-i)
				}
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("order %v, want %v (pairs %+v)", got, tc.want, pairs)
			}
			var ad *CountPair
			for i := range pairs {
				if pairs[i].CallerKey == "A" && pairs[i].CalleeKey == "D" {
					ad = &pairs[i]
				}
			}
			if ad == nil {
				t.Fatalf("no A/D pair read: %+v", pairs)
			}
			if ad.Above != tc.above || !strings.Contains(ad.Why, tc.why) {
				t.Errorf("A/D: above %q (%s), want %q with %q", ad.Above, ad.Why, tc.above, tc.why)
			}
			if tc.above != "" {
				moved := fns[0]
				if !strings.Contains(moved.Placed, "D220") {
					t.Errorf("the row moved to the top says %q, want the counts' reason", moved.Placed)
				}
			}
		})
	}
}

// TestCountNextStep: the first two rows a caller and its callee with no
// counts: the report names the functions of the leading rows' pairs to
// count; once both kinds hold their counts, it says nothing.
func TestCountNextStep(t *testing.T) {
	a := New(DefaultOptions())
	a.funcIdx = map[string]int32{"main": 0, "A": 1, "D": 2}
	a.stk.on = []float64{3, 3, 2.7}
	a.stk.lists = []stackEntry{{funcs: []int32{2, 1, 0}, w: 2.7}, {funcs: []int32{1, 0}, w: 0.3}}
	fns := []Function{{Name: "D", Key: "D"}, {Name: "A", Key: "A"}, {Name: "main", Key: "main"}}
	nr := &Run{Kind: Normal}
	nr.hdr.Args = []string{"./prog", "normal"}
	br := &Run{Kind: Buggy}
	br.hdr.Args = []string{"./prog", "slow input"}
	var drivers []bool
	ns := a.nextStep(fns, []*Run{nr}, []*Run{br}, drivers)
	if ns == nil || strings.Join(ns.Count, ",") != "D,A,main" ||
		!strings.Contains(ns.Text, "vprof record --count D,A,main -o normal-count.vprof -- ./prog normal,") ||
		!strings.Contains(ns.Text, "-o slow-count.vprof -- ./prog 'slow input'") || !strings.Contains(ns.Text, "a callee and its caller") {
		t.Fatalf("next step %+v", ns)
	}
	// main a driver frame: no caller; a lambda: no symbol to count.
	if ns := a.nextStep(fns, []*Run{nr}, []*Run{br}, []bool{true, false, false}); ns == nil || strings.Join(ns.Count, ",") != "D,A" {
		t.Errorf("main a driver frame: next step %+v, want D and A only", ns)
	}
	lam := []Function{{Name: "D", Key: "D"}, {Name: "f::(lambda at f.cpp:9)::operator()", Key: "f::(lambda at f.cpp:9)::operator()"}, {Name: "main", Key: "main"}}
	a.funcIdx["f::(lambda at f.cpp:9)::operator()"] = 1
	if ns := a.nextStep(lam, []*Run{nr}, []*Run{br}, []bool{true, false, false}); ns != nil {
		t.Errorf("a lambda in the first pair: next step %+v", ns)
	}
	// A inlined at every call: no symbol to count, so no pair to name.
	a.funcIdx["f::(lambda at f.cpp:9)::operator()"] = 3
	a.funcs = []funcInfo{{key: "main"}, {key: "A", inlineOnly: true}, {key: "D"}}
	if ns := a.nextStep(fns, []*Run{nr}, []*Run{br}, drivers); ns != nil {
		t.Errorf("A inlined at every call, still a next step: %+v", ns)
	}
	a.funcs = nil
	a.countRuns = []countRun{{kind: Normal, counts: map[string]uint64{"A": 1, "D": 1, "main": 1}}, {kind: Buggy, counts: map[string]uint64{"A": 1, "D": 1, "main": 1}}}
	if ns := a.nextStep(fns, []*Run{nr}, []*Run{br}, drivers); ns != nil {
		t.Errorf("counted, still a next step: %+v", ns)
	}
	// Rows 1 and 2 not a pair (D runs under main only): nothing to say.
	a.countRuns = nil
	a.funcIdx["A"] = 1
	a.stk.lists = []stackEntry{{funcs: []int32{2, 0}, w: 2.7}, {funcs: []int32{1, 0}, w: 0.3}}
	if ns := a.nextStep(fns, []*Run{nr}, []*Run{br}, drivers); ns != nil {
		t.Errorf("first rows not a pair, still a next step: %+v", ns)
	}
}

// TestCountUnsure: a count that rests on the entries of inlined instances
// (D257: gcc may leave an instance's entry on some of its paths only) is
// not read. float_vector's shape: the inlined function read 0 calls in the
// normal run (its entry on the slow runs' path only) against 128 made;
// read, D221 would put it above its caller as "never called when normal".
func TestCountUnsure(t *testing.T) {
	a := New(DefaultOptions())
	a.funcIdx = map[string]int32{"main": 0, "A": 1, "D": 2}
	a.stk.on = []float64{1.5, 1.5, 1.2}
	a.stk.lists = []stackEntry{{funcs: []int32{2, 1, 0}, w: 1.2}, {funcs: []int32{1, 0}, w: 0.3}}
	a.stkNormal.on = []float64{3, 0.3, 0}
	why := "0 of its 0 calls counted at the entries of its 1 inlined instances"
	a.addCounts(Normal, "n", &model.Trailer{Counts: []model.CallCount{{Function: "A", Symbol: "A", Calls: 900}, {Function: "D", Symbol: "D", Calls: 0, Inlined: 1, Unsure: why}}})
	a.addCounts(Buggy, "b", &model.Trailer{Counts: []model.CallCount{{Function: "A", Symbol: "A", Calls: 900}, {Function: "D", Symbol: "D", Calls: 9, Inlined: 1}}})
	fns := []Function{{Name: "A", Key: "A", Calibrated: 10}, {Name: "D", Key: "D", Calibrated: 9}, {Name: "main", Key: "main", Calibrated: 8}}
	pairs := a.countOrder(fns, 3, 3, nil)
	if fns[0].Key != "A" || fns[1].Key != "D" {
		t.Errorf("order %s %s %s: an unsure count moved a row", fns[0].Key, fns[1].Key, fns[2].Key)
	}
	for _, p := range pairs {
		if p.CallerKey == "A" && p.CalleeKey == "D" && (p.Above != "" || !strings.Contains(p.Why, why)) {
			t.Errorf("A/D: above %q, why %q; want nothing moved, for the unsure count", p.Above, p.Why)
		}
	}
}
