package rank

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/vprof/vprof/analyze/stats"
	"github.com/vprof/vprof/runtime/model"
)

func TestCosts(t *testing.T) {
	a := New(DefaultOptions())
	feed(t, a, Normal, "n1", []ev{{tid: 1, tick: 1, ms: 4, stack: []uint64{P(pcWork)}}})
	buggy := []ev{
		// work, with i read in it: PC cost and variable-based cost 1.
		{tid: 1, tick: 1, stack: []uint64{P(pcWork)}, vals: []model.Value{val(0, vI, 1)}},
		// memcpy inside qsort called by work: charged to work, via qsort.
		{tid: 1, tick: 2, stack: []uint64{L(pcMemcpy), L(pcQsort), P(pcWork)}},
		// the comparator called back by qsort keeps its own sample.
		{tid: 1, tick: 3, stack: []uint64{P(pcCmp), L(pcQsort), P(pcWork)}},
		// helper called by main: n read in helper, start_time in main's frame.
		{tid: 1, tick: 4, stack: []uint64{P(pcHelper), P(pcMain)}, vals: []model.Value{val(0, vN, 1), val(1, vStart, 5)}},
		// two variables read in helper at one event count once; g read
		// again in a caller frame is ignored (read once per tick).
		{tid: 1, tick: 5, stack: []uint64{P(pcHelper), P(pcMain)}, vals: []model.Value{val(0, vN, 2), val(0, vG, 3), val(1, vG, 4)}},
		// no program frame at all: only the flat profile sees it.
		{tid: 2, tick: 5, stack: []uint64{L(pcMemcpy)}},
		// the inlined body belongs to the inlined function.
		{tid: 2, tick: 6, ms: 3, stack: []uint64{P(pcWorkInl)}, vals: []model.Value{val(0, vX, 1)}},
		// work's own variable read inside the body inlined into it: read in
		// work's logical frame, as at a call site of a callee not inlined.
		{tid: 2, tick: 7, ms: 2, stack: []uint64{P(pcWorkInl)}, vals: []model.Value{val(0, vI, 2)}},
		// a global read there is read in the code of inl, the innermost.
		{tid: 2, tick: 8, stack: []uint64{P(pcWorkInl)}, vals: []model.Value{val(0, vG, 7)}},
	}
	b1 := feed(t, a, Buggy, "b1", buggy)
	feed(t, a, Buggy, "b2", nil) // absent from b2: means halve
	res := a.Result()

	cases := []struct {
		name                string
		pc, vc, raw, plain  float64
		wantPlain           int
		wantVia             string
		wantViaShare        float64
		wantVars, wantCount int
	}{
		// work holds the inlined inl: its self time is work's (the symbol);
		// an event in inl's body counts for work's variable-based cost when
		// work's own variable was read there.
		{name: "work", pc: 2, vc: 3, raw: 3, wantPlain: 1, wantVia: "qsort", wantViaShare: 0.5},
		{name: "cmp", pc: 1, vc: 0, raw: 1, wantPlain: 4},
		{name: "helper", pc: 2, vc: 2, raw: 2, wantPlain: 2},
		{name: "main", pc: 0, vc: 1, raw: 1, wantPlain: 0},
		{name: "inl", pc: 6, vc: 4, raw: 6, wantPlain: 0},
	}
	for _, c := range cases {
		f := findFunc(t, res, c.name)
		// Means over the two buggy runs, in seconds.
		if !near(f.PCCost, c.pc/2e3) || !near(f.VarCost, c.vc/2e3) || !near(f.Raw, c.raw/2e3) {
			t.Errorf("%s: pc %g var %g raw %g, want %g %g %g (ms, over 2 runs)", c.name, f.PCCost*2e3, f.VarCost*2e3, f.Raw*2e3, c.pc, c.vc, c.raw)
		}
		if f.PlainRank != c.wantPlain {
			t.Errorf("%s: plain rank %d, want %d", c.name, f.PlainRank, c.wantPlain)
		}
		if c.wantVia != "" {
			if len(f.Via) != 1 || f.Via[0].Func != c.wantVia || !near(f.Via[0].Share, c.wantViaShare) {
				t.Errorf("%s: via %+v, want %s %g", c.name, f.Via, c.wantVia, c.wantViaShare)
			}
		} else if len(f.Via) != 0 {
			t.Errorf("%s: via %+v, want none", c.name, f.Via)
		}
	}
	// The global g counts for the functions whose code it was read in:
	// helper, and inl (not work, which holds inl's body).
	for name, want := range map[string]bool{"helper": true, "inl": true, "work": false, "main": false} {
		got := false
		for _, j := range findFunc(t, res, name).Vars {
			got = got || res.Variables[j].Name == "g"
		}
		if got != want {
			t.Errorf("%s: has global g %v, want %v", name, got, want)
		}
	}
	if !near(b1.unattributed, 1e-3) || !near(b1.total, 12e-3) {
		t.Errorf("unattributed %g total %g", b1.unattributed, b1.total)
	}
	// Flat: every symbol by self time (memcpy 2 ms: ties broken by name).
	fl := a.Flat()
	var names []string
	for _, e := range fl.Entries {
		names = append(names, e.Name)
	}
	// Means over all three runs: work has 4 ms in the normal run; inl's
	// samples are work's, the symbol's (flat is the plain-profiler
	// baseline, as perf and gprof count).
	want := []string{"work", "helper", "memcpy", "cmp"}
	if !slices.Equal(names, want) {
		t.Errorf("flat order %v, want %v", names, want)
	}
	last := fl.Entries[len(fl.Entries)-1]
	if !near(last.Cumulative, fl.Total) || !near(fl.Entries[0].Percent, 100*fl.Entries[0].Self/fl.Total) {
		t.Errorf("flat cumulative %g of %g, percent %g", last.Cumulative, fl.Total, fl.Entries[0].Percent)
	}
}

// sets returns the samples of variable fn.name (fn "#global" for globals)
// in each dimension for kind k, as sorted slices expanded from the counts.
func samplesOf(t *testing.T, a *Analyzer, fn, name string, k Kind) [numDims][]float64 {
	t.Helper()
	i, ok := a.varIdx[fn+"\x00"+name]
	if !ok {
		t.Fatalf("no variable %s.%s", fn, name)
	}
	var out [numDims][]float64
	for d := range numDims {
		s := a.vars[i].sets[k][d]
		if s == nil {
			continue
		}
		dist := s.dist()
		for j, v := range dist.Values {
			for range int(dist.Counts[j]) {
				out[d] = append(out[d], v)
			}
		}
	}
	return out
}

func TestDimensions(t *testing.T) {
	a := New(DefaultOptions())
	at := func(tid int32, tick uint64, pc uint64, vs ...model.Value) ev {
		return ev{tid: tid, tick: tick, stack: []uint64{P(pc)}, vals: vs}
	}
	feed(t, a, Normal, "n", []ev{
		// i on thread 1: 5 5 _ _ 5 7 5 (a gap does not break a run).
		at(1, 1, pcWork, val(0, vI, 5)),
		at(1, 2, pcWork, val(0, vI, 5)),
		at(1, 5, pcWork, val(0, vI, 5)),
		at(1, 6, pcWork, val(0, vI, 7)),
		at(1, 7, pcWork, val(0, vI, 5)),
		// i on thread 2: one sample: no delta, one duration of 1.
		at(2, 3, pcWork, val(0, vI, 100)),
		// p: a pointer to int, analysed on its pointee.
		at(3, 1, pcWork, ptr(0, vP, 0x1000, 3)),
		at(3, 2, pcWork, ptr(0, vP, 0x2000, 3)),
		at(3, 3, pcWork, ptr(0, vP, 0x3000, 4)),
		at(3, 4, pcWork, model.Value{Frame: 0, Var: vP, Bits: 0}), // NULL: skipped
		// node: a pointer to a struct: null (0) or not (1) in value and
		// delta, never its address; duration of its address.
		at(4, 1, pcHelper, val(0, vNode, 0xa0)),
		at(4, 2, pcHelper, val(0, vNode, 0xa0)),
		at(4, 3, pcHelper, val(0, vNode, 0xb0)),
		at(4, 5, pcHelper, val(0, vNode, 0)),
		// table: hashed aggregate global: duration only.
		at(4, 4, pcHelper, val(0, vAgg, 77)),
		// start_time varies by nature: no value dimension.
		at(5, 1, pcMain, val(0, vStart, 1000)),
		at(5, 2, pcMain, val(0, vStart, 1010)),
		// unsigned going down: a negative delta.
		at(6, 1, pcHelper, val(0, vN, 9)),
		at(6, 2, pcHelper, val(0, vN, 4)),
	})
	cases := []struct {
		fn, name             string
		value, delta, length []float64
	}{
		{"work", "i", []float64{5, 5, 5, 5, 7, 100}, []float64{-2, 0, 0, 2}, []float64{1, 1, 1, 5}},
		{"work", "p", []float64{3, 3, 4}, []float64{0, 1}, []float64{1, 2}},
		{"helper", "node", []float64{0, 1, 1, 1}, []float64{-1, 0, 0}, []float64{1, 1, 2}},
		{"#global", "table", nil, nil, []float64{1}},
		{"main", "start_time", nil, []float64{10}, []float64{1, 1}},
		{"helper", "n", []float64{4, 9}, []float64{-5}, []float64{1, 1}},
	}
	for _, c := range cases {
		got := samplesOf(t, a, c.fn, c.name, Normal)
		for d, want := range [][]float64{c.value, c.delta, c.length} {
			if !slices.Equal(got[d], want) {
				t.Errorf("%s.%s %s: %v, want %v", c.fn, c.name, Dimension(d), got[d], want)
			}
		}
	}
	// The NULL read counts as a sample of p but in no dimension.
	if n := a.vars[a.varIdx["work\x00p"]].count[Normal]; n != 4 {
		t.Errorf("p samples = %g, want 4", n)
	}
}

func TestNaturallyVarying(t *testing.T) {
	cases := []struct {
		name, typ string
		want      bool
	}{
		{"start_time", "long", true},
		{"startTime", "long", true},
		{"t0now", "long", true},
		{"ts2", "long", true},
		{"childPid", "int", true},
		{"getpid", "int", false}, // one word
		{"timeout", "int", false},
		{"HTTPServerClock", "int", true},
		{"deadline", "time_t", true},
		{"deadline", "const time_t", true},
		{"tp", "struct timespec *", true},
		{"tv", "struct  timeval", true},
		{"count", "unsigned long", false},
		{"thread_count", "int", true},
	}
	for _, c := range cases {
		if got := naturallyVarying(c.name, c.typ); got != c.want {
			t.Errorf("naturallyVarying(%q, %q) = %v, want %v (words %q)", c.name, c.typ, got, c.want, nameWords(c.name))
		}
	}
}

func setOf(xs ...float64) *sampleSet {
	s := newSampleSet(4096, 1)
	for _, x := range xs {
		s.add(x)
	}
	return s
}

func seq(lo, hi int) []float64 {
	var s []float64
	for i := lo; i < hi; i++ {
		s = append(s, float64(i))
	}
	return s
}

func TestDimVerdict(t *testing.T) {
	o := DefaultOptions()
	shifted := 1 - stats.Hellinger(stats.NewDist(seq(0, 100)), stats.NewDist(seq(60, 160)))
	cases := []struct {
		name          string
		normal, buggy []float64
		ok, tested    bool
		r             float64
		def           bool
		reason        string
	}{
		{"too few normal", []float64{1, 2}, []float64{1, 2, 3}, false, false, 0, false, ReasonTooFew},
		{"too few buggy", []float64{1, 2, 3}, nil, false, false, 0, false, ReasonTooFew},
		{"single value pooled", []float64{4, 4, 4}, []float64{4, 4, 4, 4}, true, false, 0.8, true, ReasonOneValue},
		{"constant sides differ", []float64{4, 4, 4}, []float64{5, 5, 5}, true, false, 0, false, ReasonConstants},
		{"same distribution", seq(0, 100), seq(0, 100), true, true, 0.8, false, ReasonSame},
		{"disjoint: H=1, r<0.1 -> 0", seq(0, 100), seq(1000, 1100), true, true, 0, false, ReasonDiffer},
		{"shifted: r = 1-H", seq(0, 100), seq(60, 160), true, true, shifted, false, ReasonDiffer},
		// D280: 4 observations wholly below 3 are one of the 2 most
		// extreme of C(7, 3) = 35 splits (p at least 0.057), whatever the
		// asymptotic p-value says (0.02); 5 against 3 can be apart
		// (2/56 = 0.036).
		{"4 against 3 wholly apart: chance", seq(0, 4), seq(10, 13), true, true, 0.8, false, ReasonSame},
		{"3 against 4 wholly apart: chance", seq(0, 3), seq(10, 14), true, true, 0.8, false, ReasonSame},
		{"5 against 3 wholly apart", seq(0, 5), seq(10, 13), true, true, 0, false, ReasonDiffer},
	}
	for _, c := range cases {
		v := o.dimVerdict(DimValue, setOf(c.normal...), setOf(c.buggy...))
		if v.OK != c.ok || v.Tested != c.tested || !near(v.R, c.r) || v.Default != c.def || v.Reason != c.reason {
			t.Errorf("%s: ok %v tested %v r %g default %v reason %q; want %v %v %g %v %q",
				c.name, v.OK, v.Tested, v.R, v.Default, v.Reason, c.ok, c.tested, c.r, c.def, c.reason)
		}
	}
	if shifted < 0.1 || shifted > 0.8 {
		t.Fatalf("shifted case r = %g: not a partial discount, fix the test", shifted)
	}
	// The asymptotic p-value of the 4-against-3 case is below Alpha: the
	// floor, not the test, makes it "same distribution".
	if res, err := stats.AndersonKSampDist(stats.NewDist(seq(0, 4)), stats.NewDist(seq(10, 13))); err != nil || res.P >= o.Alpha {
		t.Fatalf("4 against 3 wholly apart: AD p %g (err %v), want below %g: fix the test", res.P, err, o.Alpha)
	}
}

func TestSplitFloor(t *testing.T) {
	for _, c := range []struct{ n, m, want float64 }{
		{3, 3, 0.1},        // 2 / C(6, 3)
		{4, 3, 2.0 / 35},   // C(7, 3) = 35
		{3, 5, 2.0 / 56},   // below Alpha: a test can find them apart
		{4, 4, 2.0 / 70},   // C(8, 4) = 70
		{1, 1, 1},          // 2 / C(2, 1) = 1
		{0, 10, 1},         // nothing to compare
		{100, 1000, 0.001}, // far below the p-value's own floor (the loop stops)
	} {
		got := splitFloor(c.n, c.m)
		if c.want == 0.001 {
			if got > c.want {
				t.Errorf("splitFloor(%g, %g) = %g, want at most %g", c.n, c.m, got, c.want)
			}
			continue
		}
		if !near(got, c.want) {
			t.Errorf("splitFloor(%g, %g) = %g, want %g", c.n, c.m, got, c.want)
		}
	}
}

// threads3 is a run of n equal values x of v on each of threads 1, 2, 3.
func threads3(v int32, pc uint64, x int64, n int) []ev {
	var out []ev
	for tid := int32(1); tid <= 3; tid++ {
		for _, e := range constSeries(v, pc, 1, x, n) {
			e.tid = tid
			out = append(out, e)
		}
	}
	return out
}

// threads3x2 is, on each of threads 1, 2, 3, a run of n values x then a
// run of n values x+1 of v.
func threads3x2(v int32, pc uint64, x int64, n int) []ev {
	var out []ev
	for tid := int32(1); tid <= 3; tid++ {
		for _, e := range append(constSeries(v, pc, 1, x, n), constSeries(v, pc, 1+uint64(n), x+1, n)...) {
			e.tid = tid
			out = append(out, e)
		}
	}
	return out
}

// threadsRuns is, on each of threads 1, 2, 3, a run of n values of v for
// each x of xs in turn.
func threadsRuns(v int32, pc uint64, n int, xs ...int64) []ev {
	var out []ev
	for tid := int32(1); tid <= 3; tid++ {
		for j, x := range xs {
			for _, e := range constSeries(v, pc, 1+uint64(j*n), x, n) {
				e.tid = tid
				out = append(out, e)
			}
		}
	}
	return out
}

// run of n equal values of i at consecutive ticks from tick0.
func constSeries(v int32, pc uint64, tick0 uint64, x int64, n int) []ev {
	xs := make([]int64, n)
	for i := range xs {
		xs[i] = x
	}
	return series(v, pc, tick0, xs...)
}

func TestVarVerdict(t *testing.T) {
	type tc struct {
		name          string
		normal, buggy []ev
		fn, v         string
		ok            bool
		r             float64
		dim           Dimension
		hasDim        bool
		reason        string
	}
	cases := []tc{
		{name: "buggy only", buggy: series(vI, pcWork, 1, 1, 2, 3), fn: "work", v: "i",
			ok: true, r: 0, dim: DimValue, hasDim: true, reason: ReasonBuggyOnly},
		{name: "buggy only, too few", buggy: series(vI, pcWork, 1, 1, 2), fn: "work", v: "i",
			ok: false, reason: ReasonTooFew},
		{name: "normal only", normal: series(vI, pcWork, 1, 1), fn: "work", v: "i",
			ok: true, r: 0.8, hasDim: false, reason: ReasonNormOnly},
		// Three threads with three runs each: values {5,6} vs {7,8} ->
		// H=1, 0; durations all 10 vs all 20 -> constants differ, 0. Tie
		// value/duration: duration wins.
		{name: "tie: duration before value", normal: threadsRuns(vI, pcWork, 10, 5, 6, 5), buggy: threadsRuns(vI, pcWork, 20, 7, 8, 7),
			fn: "work", v: "i", ok: true, r: 0, dim: DimDuration, hasDim: true, reason: ReasonConstants},
		// One change per thread in every run of both kinds: two durations
		// per thread, the thread's span cut in two, 10 vs 20 ticks because
		// the slow runs are longer (D111): no duration evidence. Without
		// the rule, constants that differ: r 0.
		{name: "changes once a run: no duration evidence", normal: threads3x2(vI, pcWork, 5, 10), buggy: threads3x2(vI, pcWork, 5, 20),
			fn: "work", v: "i", ok: true, r: 0.8, dim: DimDuration, hasDim: true, reason: ReasonSpans},
		// Twice a run in the slow runs (three durations a thread) against
		// once in the normal ones: not the spans in both kinds, so the
		// durations keep their verdict.
		{name: "changes twice a run when slow: duration evidence", normal: threads3x2(vI, pcWork, 5, 20), buggy: threadsRuns(vI, pcWork, 10, 5, 6, 5),
			fn: "work", v: "i", ok: true, r: 0, dim: DimDuration, hasDim: true, reason: ReasonConstants},
		// The same, runs as long in both kinds: durations that look
		// alike keep what they say (one duration value pooled), which
		// the patterns read as a loop at its normal pace.
		{name: "changes once a run, spans alike: single value", normal: threads3x2(vI, pcWork, 5, 10), buggy: threads3x2(vI, pcWork, 5, 10),
			fn: "work", v: "i", ok: true, r: 0.8, dim: DimDuration, hasDim: true, reason: ReasonOneValue},
		// Once a thread in the normal runs, never in the slow ones: the
		// value is held through each slow run where the normal runs
		// changed it (the hang, method.md §10), and the durations keep
		// their verdict (10 ticks against 40).
		{name: "held when slow, once a run when normal: duration evidence", normal: threads3x2(vI, pcWork, 5, 10), buggy: threads3(vI, pcWork, 5, 40),
			fn: "work", v: "i", ok: true, r: 0, dim: DimDuration, hasDim: true, reason: ReasonConstants},
		// Never in the normal runs, once a thread in the slow ones: the
		// durations (10 against 20 and 20) are spans (D111), and the
		// values, 5 against 5 and 6, give r = 1 - H, H =
		// sqrt(1 - sqrt(1/2)). Without the rule, constants that differ
		// in duration: r 0.
		{name: "never when normal, once a run when slow: the values decide", normal: threads3(vI, pcWork, 5, 10), buggy: threads3x2(vI, pcWork, 5, 20),
			fn: "work", v: "i", ok: true, r: 1 - math.Sqrt(1-math.Sqrt(0.5)), dim: DimValue, hasDim: true, reason: ReasonDiffer},
		// Stuck in the slow runs (one value a thread) where it changed
		// often in the normal runs: how long the value was held is the
		// anomaly (a hang), and the verdict stays.
		{name: "stuck when slow: duration evidence", normal: threadsRuns(vI, pcWork, 3, 5, 6, 5, 6, 5, 6, 5), buggy: threads3(vI, pcWork, 5, 21),
			fn: "work", v: "i", ok: true, r: 0, dim: DimDuration, hasDim: true, reason: ReasonConstants},
		// One run per thread in every run: the durations are how long the
		// threads were sampled (10 vs 20 ticks), not how long values last.
		{name: "never changes: no duration evidence", normal: threads3(vI, pcWork, 5, 10), buggy: threads3(vI, pcWork, 5, 20),
			fn: "work", v: "i", ok: true, r: 0.8, dim: DimDuration, hasDim: true, reason: ReasonNoChange},
		// Same run lengths: only value differs.
		{name: "value only differs", normal: threads3(vI, pcWork, 5, 10), buggy: threads3(vI, pcWork, 7, 10),
			fn: "work", v: "i", ok: true, r: 0, dim: DimValue, hasDim: true, reason: ReasonConstants},
		// Natural variable: value skipped, delta one value pooled, duration
		// never changes -> 0.8; duration first on the tie.
		{name: "natural: no value dimension", normal: threads3(vStart, pcMain, 5, 10), buggy: threads3(vStart, pcMain, 999, 10),
			fn: "main", v: "start_time", ok: true, r: 0.8, dim: DimDuration, hasDim: true, reason: ReasonNoChange},
		// 3 samples a side: values tested (0.8), 2 deltas a side (no
		// verdict), durations one value pooled (0.8, first on the tie).
		{name: "dimension with too few", normal: series(vI, pcWork, 1, 1, 2, 3), buggy: series(vI, pcWork, 1, 1, 2, 3),
			fn: "work", v: "i", ok: true, r: 0.8, dim: DimDuration, hasDim: true, reason: ReasonOneValue},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := New(DefaultOptions())
			feed(t, a, Normal, "n", c.normal)
			feed(t, a, Buggy, "b", c.buggy)
			res := a.Result()
			vv := findVar(t, res, c.fn, c.v)
			if vv.OK != c.ok || vv.Reason != c.reason {
				t.Fatalf("ok %v reason %q, want %v %q (%+v)", vv.OK, vv.Reason, c.ok, c.reason, vv)
			}
			if !c.ok {
				return
			}
			if !near(vv.R, c.r) || vv.HasDim != c.hasDim || (c.hasDim && vv.Dim != c.dim) {
				t.Errorf("r %g dim %v/%v, want %g %v/%v", vv.R, vv.Dim, vv.HasDim, c.r, c.dim, c.hasDim)
			}
			for _, d := range vv.Dims {
				if min(d.Normal, d.Buggy) < 3 && (d.OK || d.Reason != ReasonTooFew) {
					t.Errorf("%s with %g/%g samples has a verdict %+v", d.Dim, d.Normal, d.Buggy, d)
				}
			}
		})
	}
}

func TestFunctionDiscount(t *testing.T) {
	// helper: n is the same in both (0.8 from a test); node is a pointer
	// whose durations are one value pooled (0.8, a default). Tie at 0.8:
	// the tested variable n wins.
	// main: g (global, sampled in main and helper) differs: r = 0 for both
	// main and helper? helper's minimum becomes g's 0.
	a := New(DefaultOptions())
	mk := func(gv []int64) []ev {
		var evs []ev
		for i := range 30 {
			evs = append(evs, ev{tid: 1, tick: uint64(2 * i), stack: []uint64{P(pcHelper), P(pcMain)},
				vals: []model.Value{val(0, vN, int64(i%5)), val(0, vNode, 0x10)}})
		}
		for i, x := range gv {
			evs = append(evs, ev{tid: 2, tick: uint64(i), stack: []uint64{P(pcMain)}, vals: []model.Value{val(0, vG, x)}})
		}
		return evs
	}
	feed(t, a, Normal, "n", mk([]int64{1, 2, 3, 1, 2, 3}))
	feed(t, a, Buggy, "b", mk([]int64{1, 2, 3, 1, 2, 3}))
	res := a.Result()
	h := findFunc(t, res, "helper")
	if h.Variable != "n" || !near(h.Discount, 0.8) || h.Source != SourceVariable {
		t.Errorf("helper: variable %q r %g source %s, want n 0.8 variable", h.Variable, h.Discount, h.Source)
	}
	m := findFunc(t, res, "main")
	if m.Variable != "g" || m.Source != SourceVariable {
		t.Errorf("main: variable %q source %s, want g", m.Variable, m.Source)
	}

	// Now g is sampled in helper too and differs in the buggy run: helper
	// takes g's r = 0.
	a = New(DefaultOptions())
	gIn := func(x []int64) []ev {
		var evs []ev
		for i, v := range x {
			evs = append(evs, ev{tid: 3, tick: uint64(i), stack: []uint64{P(pcHelper)}, vals: []model.Value{val(0, vG, v), val(0, vN, 1)}})
		}
		return evs
	}
	feed(t, a, Normal, "n", gIn([]int64{1, 1, 1, 1}))
	feed(t, a, Buggy, "b", gIn([]int64{9, 9, 9, 9}))
	res = a.Result()
	h = findFunc(t, res, "helper")
	if h.Variable != "g" || h.Discount != 0 {
		t.Errorf("helper with g: variable %q r %g, want g 0", h.Variable, h.Discount)
	}
}

func TestHistNear(t *testing.T) {
	cases := []struct {
		name        string
		buggy, norm []int32
		near, pairs int
	}{
		// The thesis' ratio 19/25 = 0.76 with n = m = 5.
		{"thesis 19/25", []int32{1, 1, 1, 2, 2}, []int32{1, 1, 1, 5, 5}, 19, 25},
		{"one pair near", []int32{4}, []int32{1}, 1, 1},
		{"one pair far", []int32{5}, []int32{1}, 0, 1},
		{"unranked in normal", []int32{1}, []int32{0}, 0, 1},
		{"unranked in buggy", []int32{0, 0}, []int32{1, 2}, 0, 4},
	}
	for _, c := range cases {
		n, p := histNear(c.buggy, c.norm, 3)
		if n != c.near || p != c.pairs {
			t.Errorf("%s: %d/%d, want %d/%d", c.name, n, p, c.near, c.pairs)
		}
	}
}

// TestHistDiscounter builds 5 normal and 5 buggy runs in which helper (no
// variables read) ranks 1,1,1,2,2 (buggy) and 1,1,1,5,5 (normal): r = 0.76.
func TestHistDiscounter(t *testing.T) {
	a := New(DefaultOptions())
	// Filler functions are main, work, cmp, inl (by PC) with costs that
	// push helper down to the wanted rank.
	pcs := []uint64{pcMain, pcWork, pcCmp, pcWorkInl}
	mk := func(rank int, helperMs float64) []ev {
		var evs []ev
		tick := uint64(0)
		add := func(pc uint64, ms float64) {
			evs = append(evs, ev{tid: 1, tick: tick, ms: ms, stack: []uint64{P(pc)}})
			tick++
		}
		add(pcHelper, helperMs)
		for i := 0; i < rank-1; i++ {
			add(pcs[i], 20+float64(i))
		}
		for i := rank - 1; i < len(pcs); i++ {
			add(pcs[i], 5-float64(i)*0.5)
		}
		return evs
	}
	for i, r := range []int{1, 1, 1, 5, 5} {
		feed(t, a, Normal, "n"+string(rune('0'+i)), mk(r, 10))
	}
	// helper costs 2 ms more in the slow runs (its ranks do not change).
	for i, r := range []int{1, 1, 1, 2, 2} {
		feed(t, a, Buggy, "b"+string(rune('0'+i)), mk(r, 12))
	}
	res := a.Result()
	h := findFunc(t, res, "helper")
	if h.Source != SourceHist || h.HistNear != 19 || h.HistPairs != 25 || !near(h.Discount, 0.76) || h.Dimension != "hist" {
		t.Errorf("helper: source %s %d/%d r %g dim %q, want hist 19/25 0.76", h.Source, h.HistNear, h.HistPairs, h.Discount, h.Dimension)
	}
	// Calibrated = (1 - r) x extra x extra / raw (method.md §7, D8). The
	// normal runs are the longer ones (their fillers: 54.6 ms a run against
	// 35 ms), so helper's 10 ms of a normal run count at the slow runs'
	// length (D56): extra = 12 - 10 x 35 / 54.6 ms.
	if want := 12e-3 - 10e-3*35/54.6; !near(h.Extra, want) || !near(h.Calibrated, 0.24*h.Extra*h.Extra/h.Raw) {
		t.Errorf("extra %g, calibrated %g, want extra %g and 0.24 x extra x extra / %g", h.Extra, h.Calibrated, want, h.Raw)
	}
	if h.Pattern != "" {
		t.Errorf("hist-only function classified %q", h.Pattern)
	}

	// One run of each kind: r is 0 or 1; a low ratio becomes 0.
	a = New(DefaultOptions())
	feed(t, a, Normal, "n", mk(1, 10))
	feed(t, a, Buggy, "b", mk(5, 10))
	if h := findFunc(t, a.Result(), "helper"); h.Discount != 0 || h.HistNear != 0 {
		t.Errorf("1x1 far: r %g", h.Discount)
	}
	a = New(DefaultOptions())
	feed(t, a, Normal, "n", mk(2, 10))
	feed(t, a, Buggy, "b", mk(4, 10))
	if h := findFunc(t, a.Result(), "helper"); h.Discount != 1 || h.Calibrated != 0 {
		t.Errorf("1x1 near: r %g calibrated %g", h.Discount, h.Calibrated)
	}
}

func TestValidDiscountHist(t *testing.T) {
	o := DefaultOptions()
	// 1 near pair of 11 x 1 = 0.09 < 0.1 -> 0.
	a := New(o)
	feed(t, a, Normal, "n", []ev{{tid: 1, tick: 1, stack: []uint64{P(pcHelper)}}})
	for i := range 11 {
		var evs []ev
		if i == 0 {
			evs = []ev{{tid: 1, tick: 1, stack: []uint64{P(pcHelper)}}}
		} else {
			evs = []ev{{tid: 1, tick: 1, stack: []uint64{P(pcMain)}}}
		}
		feed(t, a, Buggy, "b", evs)
	}
	if h := findFunc(t, a.Result(), "helper"); h.HistNear != 1 || h.HistPairs != 11 || h.Discount != 0 {
		t.Errorf("helper: %d/%d r %g, want 1/11 r 0", h.HistNear, h.HistPairs, h.Discount)
	}
}

func TestRankingOrder(t *testing.T) {
	a := New(DefaultOptions())
	// Buggy only, no variables: 1x1 hist with normal empty: r = 0.
	feed(t, a, Normal, "n", nil)
	feed(t, a, Buggy, "b", []ev{
		{tid: 1, tick: 1, ms: 2, stack: []uint64{P(pcWork)}},
		{tid: 1, tick: 2, ms: 2, stack: []uint64{P(pcCmp)}},
		{tid: 1, tick: 3, ms: 3, stack: []uint64{P(pcMain)}},
		{tid: 1, tick: 4, ms: 1, stack: []uint64{P(pcHelper)}},
	})
	res := a.Result()
	var got []string
	var ranks []int
	for _, f := range res.Functions {
		got = append(got, f.Name)
		ranks = append(ranks, f.Rank)
	}
	// cmp and work are equal on every key: one rank, listed by name.
	if want := []string{"main", "cmp", "work", "helper"}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	if want := []int{1, 2, 2, 4}; !slices.Equal(ranks, want) {
		t.Errorf("ranks %v, want %v", ranks, want)
	}
}

// withDur adds to v a duration verdict with discount r and reason why (no
// verdict when why is ReasonTooFew).
func withDur(v *VarVerdict, r float64, why string) *VarVerdict {
	v.Dims = append(v.Dims, DimVerdict{Dim: DimDuration, OK: why != ReasonTooFew, R: r, Reason: why})
	return v
}

func TestClassify(t *testing.T) {
	o := DefaultOptions()
	L, C, A := model.TagLoop, model.TagCond, model.TagArgs
	vv := func(r float64, d Dimension, n, b float64) *VarVerdict {
		return &VarVerdict{OK: true, R: r, Dim: d, HasDim: true, Normal: n, Buggy: b}
	}
	cases := []struct {
		name  string
		tags  model.Tags
		v     *VarVerdict
		want  string
		short bool // durations not longer than normal (Analyzer.longer false)
	}{
		{"1 loop duration", L, vv(0.2, DimDuration, 9, 9), PatternMissing, false},
		{"1 cond duration", C, vv(0, DimDuration, 9, 9), PatternMissing, false},
		{"cond duration, not longer: rule 3", C, vv(0, DimDuration, 9, 9), PatternWrong, true},
		{"loop duration, not longer: none", L, vv(0, DimDuration, 9, 9), "", true},
		{"2 loop value", L, vv(0.3, DimValue, 9, 9), PatternScalability, false},
		{"2 loop delta", L | C, vv(0.3, DimDelta, 9, 9), PatternScalability, false},
		{"3 cond value", C, vv(0.5, DimValue, 9, 9), PatternWrong, false},
		{"3 cond delta", C | A, vv(0.1, DimDelta, 9, 9), PatternWrong, false},
		{"4 duration default", A, vv(0.8, DimDuration, 9, 9), PatternScalability, false},
		{"4 loop duration default", L, vv(0.8, DimDuration, 9, 9), PatternScalability, false},
		{"5 buggy only", A, vv(0, DimValue, 0, 9), PatternScalability, false},
		{"5 buggy only global", 0, vv(0, DimValue, 0, 9), PatternScalability, false},
		{"loop buggy only: rule 2", L, vv(0, DimValue, 0, 9), PatternScalability, false},
		{"cond buggy only: rule 3", C, vv(0, DimValue, 0, 9), PatternWrong, false},
		{"args value anomaly", A, vv(0.2, DimValue, 9, 9), "", false},
		{"value default", L, vv(0.8, DimValue, 9, 9), "", false},
		// D54: v* took its r from a delta or value by the tie order, and
		// its durations were compared and look normal: rule 4.
		{"4 delta default, durations normal", A, withDur(vv(0.8, DimDelta, 9, 9), 0.83, ReasonDiffer), PatternScalability, false},
		{"4 value default, one duration each side", A, withDur(vv(0.8, DimValue, 9, 9), 0.8, ReasonOneValue), PatternScalability, false},
		{"delta default, durations never change", A, withDur(vv(0.8, DimDelta, 9, 9), 0.8, ReasonNoChange), "", false},
		{"delta default, durations not compared", A, withDur(vv(0.8, DimDelta, 9, 9), 0, ReasonTooFew), "", false},
		{"absent when slow", L, &VarVerdict{OK: true, R: 0.8, Normal: 9}, "", false},
	}
	for _, c := range cases {
		got, why := classify(c.tags, c.v, &o, !c.short)
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
		if why == "" {
			t.Errorf("%s: no reason given", c.name)
		}
	}
}

func TestAbnormalLocations(t *testing.T) {
	a := New(DefaultOptions())
	var normal []ev
	for i := range 101 {
		normal = append(normal, ev{tid: 1, tick: uint64(i), stack: []uint64{P(pcWork)}, vals: []model.Value{val(0, vI, int64(i))}})
	}
	feed(t, a, Normal, "n", normal)
	// Normal range [0, 100]; with 5% slack abnormal is > 105 or < 0.
	buggy := []ev{
		{tid: 1, tick: 1, stack: []uint64{P(pcWork)}, vals: []model.Value{val(0, vI, 104)}},  // inside slack
		{tid: 1, tick: 2, stack: []uint64{P(pcWork2)}, vals: []model.Value{val(0, vI, 106)}}, // line 25, bb1
		{tid: 1, tick: 3, stack: []uint64{P(pcWork2)}, vals: []model.Value{val(0, vI, 300)}},
		{tid: 1, tick: 4, stack: []uint64{P(pcWork2 + 4)}, vals: []model.Value{val(0, vI, 301)}},
		{tid: 1, tick: 5, stack: []uint64{P(pcWork)}, vals: []model.Value{val(0, vI, -1)}}, // line 20, bb0
		{tid: 1, tick: 6, stack: []uint64{P(pcWork)}, vals: []model.Value{val(0, vI, 50)}},
		// read in a caller frame: located at the return address - 1.
		{tid: 1, tick: 7, stack: []uint64{P(pcHelper), P(0x11a1)}, vals: []model.Value{val(1, vI, 500)}}, // 0x11a0: line 26
	}
	feed(t, a, Buggy, "b", buggy)
	gi := a.varIdx["work\x00i"]
	fw := a.funcIdx["work"]
	str := func(locs []Location) []string {
		var got []string
		for _, l := range locs {
			got = append(got, strings.Join([]string{l.String(), itoa(l.Block), itoa(int(l.Samples))}, " "))
		}
		return got
	}
	got := str(a.locations(a.abnormalIndex()[abGroup{gi, DimValue}], fw, false, 5))
	want := []string{"prog.c:25 1 3", "prog.c:20 0 1", "prog.c:26 1 1"}
	if !slices.Equal(got, want) {
		t.Errorf("locations %q, want %q", got, want)
	}

	// A global counts where its function is the innermost one: work's own
	// code, not the body of inl inlined into it, whose samples are inl's.
	a = New(DefaultOptions())
	normal = nil
	for i := range 101 {
		normal = append(normal, ev{tid: 1, tick: uint64(i), stack: []uint64{P(pcWork)}, vals: []model.Value{val(0, vG, int64(i))}})
	}
	feed(t, a, Normal, "n", normal)
	feed(t, a, Buggy, "b", []ev{
		{tid: 1, tick: 1, stack: []uint64{P(pcWork)}, vals: []model.Value{val(0, vG, 500)}},    // line 20
		{tid: 1, tick: 2, stack: []uint64{P(pcWorkInl)}, vals: []model.Value{val(0, vG, 600)}}, // line 30, inl
	})
	gg := a.abnormalIndex()[abGroup{a.varIdx["#global\x00g"], DimValue}]
	for _, c := range []struct {
		fn   string
		want []string
	}{{"work", []string{"prog.c:20 0 1"}}, {"inl", []string{"prog.c:30 1 1"}}} {
		if got := str(a.locations(gg, a.funcIdx[c.fn], true, 5)); !slices.Equal(got, c.want) {
			t.Errorf("global g in %s: locations %q, want %q", c.fn, got, c.want)
		}
	}
}

// TestComponentInlined: with a component (here recorded in the schema, as
// record --component does), code of another file inlined into a component
// function is that function's PC cost, via the inlined function, and its
// abnormal samples are located at the component's line that calls it.
func TestComponentInlined(t *testing.T) {
	hdrWith := func(comps []string) []any {
		h := header()
		s := progSchema()
		s.Files = append(s.Files, "/src/inl.h")
		s.Funcs[fInl].File = 1
		// An out-of-line copy too: a header function inlined at every
		// call is its callers' code with or without a component (D17).
		s.Funcs[fInl].Ranges = []model.PCRange{{Lo: 0x1900, Hi: 0x1920}}
		s.Inlines[0].CallFile, s.Inlines[0].CallLine = 0, 27
		// As given (a path of the recording machine that matches none of
		// the DWARF paths here); the files it matched decide.
		if comps != nil {
			s.Components, s.ComponentFiles = []string{"../checkout/prog.c"}, comps
		}
		h[0] = &model.Object{ID: 0, Path: "/bin/prog", BuildID: "b1", Program: true, Schema: s}
		return h
	}
	hdr := func() []any { return hdrWith([]string{"/src/prog.c"}) }
	a := New(DefaultOptions())
	var normal []ev
	for i := range 101 {
		normal = append(normal, ev{tid: 1, tick: uint64(i), stack: []uint64{P(pcWork)}, vals: []model.Value{val(0, vI, int64(i))}})
	}
	feedWith(t, a, Normal, "n", hdr(), normal)
	buggy := []ev{
		{tid: 1, tick: 1, ms: 2, stack: []uint64{P(pcWorkInl)}, vals: []model.Value{val(0, vI, 500)}},
		{tid: 1, tick: 2, stack: []uint64{P(pcWorkInl)}, vals: []model.Value{val(0, vI, 501)}},
		{tid: 1, tick: 3, stack: []uint64{P(pcWorkInl)}, vals: []model.Value{val(0, vI, 502)}},
		{tid: 1, tick: 4, stack: []uint64{P(pcWork)}, vals: []model.Value{val(0, vI, 50)}},
	}
	feedWith(t, a, Buggy, "b", hdr(), buggy)
	res := a.Result()
	w := findFunc(t, res, "work")
	if !near(w.PCCost, 5e-3) || len(w.Via) != 1 || w.Via[0].Func != "inl" || !near(w.Via[0].Share, 4.0/5) {
		t.Errorf("work: pc %g ms via %+v, want 5 ms via inl 4/5", w.PCCost*1e3, w.Via)
	}
	for _, f := range res.Functions {
		if f.Name == "inl" && f.PCCost != 0 {
			t.Errorf("inl keeps %g ms of PC cost", f.PCCost*1e3)
		}
	}
	if len(w.Locations) == 0 || w.Locations[0].String() != "prog.c:27" {
		t.Errorf("work: locations %v, want prog.c:27 first (the call of inl)", w.Locations)
	}

	// Without a component the inlined body keeps its PC cost (method.md
	// §2); work's own variable read there counts for work's
	// variable-based cost and is still located at work's line.
	a = New(DefaultOptions())
	feedWith(t, a, Normal, "n", hdrWith(nil), normal)
	// main's own instructions on the same thread: work is no driver frame
	// (on the stack of 99% of its thread's samples, §4).
	for i := range 3 {
		buggy = append(buggy, ev{tid: 1, tick: uint64(10 + i), stack: []uint64{P(pcMain)}})
	}
	feedWith(t, a, Buggy, "b", hdrWith(nil), buggy)
	res = a.Result()
	if f := findFunc(t, res, "inl"); !near(f.PCCost, 4e-3) {
		t.Errorf("no component: inl pc %g ms, want 4", f.PCCost*1e3)
	}
	w = findFunc(t, res, "work")
	if !near(w.Raw, 5e-3) || !near(w.PCCost, 1e-3) {
		t.Errorf("no component: work raw %g ms, pc %g ms, want 5 (its variable read in every sample) and 1", w.Raw*1e3, w.PCCost*1e3)
	}
	if len(w.Locations) == 0 || w.Locations[0].String() != "prog.c:27" {
		t.Errorf("no component: work's locations %v, want prog.c:27 first", w.Locations)
	}
}

func itoa(i int) string {
	if i < 0 {
		return "-" + itoa(-i)
	}
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// TestEndToEndPatterns checks the ranking, pattern and locations of whole
// normal/buggy pairs shaped like the thesis' bugs.
func TestEndToEndPatterns(t *testing.T) {
	t.Run("missing constraint: a loop variable stuck", func(t *testing.T) {
		a := New(DefaultOptions())
		// Normal: i advances every tick on 4 threads. Buggy: on each of 4
		// threads i stays at one value for 50 ticks inside work (a hang),
		// while main is costlier but normal.
		var n, b []ev
		for i := range 100 {
			n = append(n, ev{tid: 9, tick: uint64(i), ms: 3, stack: []uint64{P(pcMain)}, vals: []model.Value{val(0, vG, int64(i%7))}})
			b = append(b, ev{tid: 9, tick: uint64(i), ms: 3, stack: []uint64{P(pcMain)}, vals: []model.Value{val(0, vG, int64(i%7))}})
		}
		for tid := int32(1); tid <= 4; tid++ {
			for i := range 50 {
				n = append(n, ev{tid: tid, tick: uint64(i), stack: []uint64{P(pcWork2)}, vals: []model.Value{val(0, vI, int64(i%10))}})
			}
			// The hang makes the slow run longer.
			for i := range 100 {
				b = append(b, ev{tid: tid, tick: uint64(i), stack: []uint64{P(pcWork2)}, vals: []model.Value{val(0, vI, int64(tid+2))}})
			}
		}
		feed(t, a, Normal, "n", n)
		feed(t, a, Buggy, "b", b)
		res := a.Result()
		top := res.Functions[0]
		if top.Name != "work" || top.Pattern != PatternMissing || top.Dimension != "duration" || top.Variable != "i" {
			t.Fatalf("top: %+v", top)
		}
		if len(top.Locations) == 0 || top.Locations[0].String() != "prog.c:25" || top.Locations[0].Block != 1 {
			t.Errorf("locations %+v", top.Locations)
		}
		if m := findFunc(t, res, "main"); m.Discount != 0.8 || m.Rank != 2 {
			t.Errorf("main: r %g rank %d", m.Discount, m.Rank)
		}
	})
	t.Run("wrong constraint: a condition variable off", func(t *testing.T) {
		a := New(DefaultOptions())
		var n, b []ev
		for i := range 100 {
			n = append(n, ev{tid: 1, tick: uint64(2 * i), stack: []uint64{P(pcWork)}, vals: []model.Value{val(0, vFlag, int64(i%4))}})
			b = append(b, ev{tid: 1, tick: uint64(2 * i), stack: []uint64{P(pcWork)}, vals: []model.Value{val(0, vFlag, int64(i%4)+1000)}})
		}
		feed(t, a, Normal, "n", n)
		feed(t, a, Buggy, "b", b)
		top := a.Result().Functions[0]
		if top.Name != "work" || top.Pattern != PatternWrong || top.Variable != "flag" || top.Discount != 0 {
			t.Fatalf("top: %+v", top)
		}
	})
	t.Run("scalability: present only when slow", func(t *testing.T) {
		a := New(DefaultOptions())
		// As many normal samples as slow ones besides helper's: its
		// absence there is no chance (D37).
		xs := []int64{1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4}
		feed(t, a, Normal, "n", series(vI, pcWork, 0, xs...))
		feed(t, a, Buggy, "b", append(series(vI, pcWork, 0, xs...), series(vN, pcHelper, 20, 5, 6, 7, 8)...))
		h := findFunc(t, a.Result(), "helper")
		if h.Pattern != PatternScalability || h.Reason != ReasonBuggyOnly || h.Rank != 1 {
			t.Fatalf("helper: %+v", h)
		}
	})
}

func TestRunOrder(t *testing.T) {
	a := New(DefaultOptions())
	feed(t, a, Buggy, "b", nil)
	if _, err := a.BeginRun(Normal, "n", model.Header{}); err == nil {
		t.Error("normal run after buggy run accepted")
	}
	a = New(DefaultOptions())
	if _, err := a.BeginRun(Normal, "n", model.Header{}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.BeginRun(Buggy, "b", model.Header{}); err == nil {
		t.Error("buggy run begun while a normal run is open")
	}
}

func TestSampleSetReservoir(t *testing.T) {
	// Exact while few distinct values.
	s := newSampleSet(64, 1)
	for i := range 10000 {
		s.add(float64(i % 50))
	}
	if !s.exact() || s.n != 10000 || s.min != 0 || s.max != 49 {
		t.Fatalf("exact mode: exact %v n %g min %g max %g", s.exact(), s.n, s.min, s.max)
	}
	d := s.dist()
	if d.Len() != 50 || d.N() != 10000 || d.Counts[0] != 200 {
		t.Errorf("dist: %d values, N %g, count[0] %g", d.Len(), d.N(), d.Counts[0])
	}
	// Half zeros, then distinct values: the reservoir keeps about half
	// zeros, uniformly over the whole stream.
	s = newSampleSet(1024, 2)
	const n = 200000
	for i := range n {
		if i < n/2 {
			s.add(0)
		} else {
			s.add(float64(i))
		}
	}
	if s.exact() || len(s.res.x) != 1024 || s.n != n || s.min != 0 || s.max != n-1 {
		t.Fatalf("reservoir: exact %v n %g min %g max %g", s.exact(), s.n, s.min, s.max)
	}
	zeros, late := 0, 0
	for _, x := range s.res.x {
		if x == 0 {
			zeros++
		}
		if x >= 3*n/4 {
			late++
		}
	}
	// Binomial(1024, 1/2) and (1024, 1/4): 6 sigma bounds.
	if math.Abs(float64(zeros)-512) > 96 || math.Abs(float64(late)-256) > 84 {
		t.Errorf("reservoir not uniform: %d zeros (want ~512), %d from the last quarter (want ~256)", zeros, late)
	}
	// Deterministic.
	s2 := newSampleSet(1024, 2)
	for i := range n {
		if i < n/2 {
			s2.add(0)
		} else {
			s2.add(float64(i))
		}
	}
	if !slices.Equal(s.res.x, s2.res.x) {
		t.Error("reservoir differs between identical runs")
	}
}

func TestDisplayName(t *testing.T) {
	if d := displayName("_ZN1A3fooEv", ""); d != "A::foo()" {
		t.Errorf("demangled %q", d)
	}
	if d := displayName("_ZN1A3fooEv.cold", ""); d != "A::foo()" {
		t.Errorf("demangled clone %q", d)
	}
	if d := displayName("_ZN1A3fooEv", "A::foo() const"); d != "A::foo() const" {
		t.Errorf("display given: %q", d)
	}
	if d := displayName("_GLOBAL__sub_I_main", ""); d != "_GLOBAL__sub_I_main" {
		t.Errorf("not _Z: %q", d)
	}
}

// TestSampleSetModes checks that every exact mode (inline, dense window,
// table) and the switches between them count exactly what a plain
// distribution of the same data holds.
func TestSampleSetModes(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	gen := map[string]func(i int) float64{
		"few":              func(i int) float64 { return float64(i % 5) },
		"counter":          func(i int) float64 { return float64(i % 100) },
		"negative counter": func(i int) float64 { return float64(-(i % 120)) },
		"counter then far": func(i int) float64 {
			if i == 3000 {
				return 1e6
			}
			return float64(i % 100)
		},
		"window overflow": func(i int) float64 { return float64(i % 600) },
		"floats":          func(i int) float64 { return float64(i%40) + 0.5 },
		"mixed": func(i int) float64 {
			return []float64{1, 2, 3, 2.5, math.Inf(1), math.NaN(), 0, math.Copysign(0, -1)}[i%8] + float64(i%20)
		},
		"random": func(i int) float64 { return float64(rng.IntN(3000)) },
	}
	for name, f := range gen {
		s := newSampleSet(4096, 1)
		var raw []float64
		for i := range 5000 {
			x := f(i)
			s.add(x)
			if x == 0 {
				x = 0 // -0 counts as 0
			}
			raw = append(raw, x)
		}
		got, want := s.dist(), stats.NewDist(raw)
		if !s.exact() || got.Len() != want.Len() || got.N() != want.N() {
			t.Errorf("%s: exact %v, %d values / %g, want %d / %g", name, s.exact(), got.Len(), got.N(), want.Len(), want.N())
			continue
		}
		for i := range got.Values {
			if !(got.Values[i] == want.Values[i] || got.Values[i] != got.Values[i] && want.Values[i] != want.Values[i]) || got.Counts[i] != want.Counts[i] {
				t.Errorf("%s: entry %d: %g x%g, want %g x%g", name, i, got.Values[i], got.Counts[i], want.Values[i], want.Counts[i])
				break
			}
		}
	}
}

// TestPresentOnlyWhenSlowLocations checks that a variable without a value
// dimension (a pointer to a structure) that only the buggy runs sampled is
// located where it was read, as the abnormal samples of its verdict.
func TestPresentOnlyWhenSlowLocations(t *testing.T) {
	a := New(DefaultOptions())
	normal := []ev{{tid: 1, tick: 1, stack: []uint64{P(pcWork)}, vals: []model.Value{val(0, vI, 1)}}}
	for i := range 10 {
		normal = append(normal, ev{tid: 1, tick: uint64(i + 2), stack: []uint64{P(pcMain)}}) // D37: a normal run long enough
	}
	feed(t, a, Normal, "n", normal)
	var buggy []ev
	for i := range 4 {
		buggy = append(buggy, ev{tid: 1, tick: uint64(i + 1), stack: []uint64{P(pcHelper)},
			vals: []model.Value{ptr(0, vNode, 0x5000+uint64(i)*64, 0)}})
	}
	feed(t, a, Buggy, "b", buggy)
	res := a.Result()
	f := findFunc(t, res, "helper")
	if f.Variable != "node" || f.Reason != ReasonBuggyOnly || f.Discount != 0 {
		t.Fatalf("helper: %s %s r %g, want node, %q, 0", f.Variable, f.Reason, f.Discount, ReasonBuggyOnly)
	}
	if len(f.Locations) != 1 || f.Locations[0].String() != "prog.c:50" || f.Locations[0].Samples != 4 {
		t.Errorf("helper: locations %+v, want prog.c:50 with 4 samples", f.Locations)
	}
}

// TestRareWhenNormal: a variable with 1 or 2 normal samples (MinSamples
// is 3) gets r from the ratio of its shares of the samples of each kind
// (method.md §5), continuous down to "present only when slow"; with 3 the
// tests decide. A normal count that chance gives at Alpha or more, had the
// variable taken the same share of the normal runs' samples as of the
// slow runs', gives no verdict (D61, as D37 for "present only when slow").
func TestRareWhenNormal(t *testing.T) {
	for _, c := range []struct {
		nNormal, fill int // normal samples of n, other normal samples
		reason        string
		r             float64
	}{
		{0, 20, ReasonBuggyOnly, 0},
		{1, 19, ReasonRare, 0},   // share 1/20 against 20/20: 0.05, below ValidDiscount
		{2, 0, "", 0},            // 20 slow samples would make 2 of 2 normal ones: no verdict (D61)
		{2, 2, "", 0},            // 2 of 4 against 20 of 20: 4 expected, 2 or fewer has chance 0.24 (D61)
		{2, 6, ReasonRare, 0.25}, // 2 of 8 against 20 of 20: 8 expected, 2 or fewer has chance 0.014
		{3, 17, ReasonDiffer, 0}, // tested
	} {
		a := New(DefaultOptions())
		var normal, buggy []ev
		for i := range c.nNormal {
			normal = append(normal, ev{tid: 1, tick: uint64(i), stack: []uint64{P(pcHelper)}, vals: []model.Value{val(0, vN, int64(i%2))}})
		}
		for i := range c.fill {
			normal = append(normal, ev{tid: 1, tick: uint64(100 + i), stack: []uint64{P(pcWork)}})
		}
		for i := range 20 {
			// Up and down: not a counter (whose value is not compared).
			buggy = append(buggy, ev{tid: 1, tick: uint64(i), stack: []uint64{P(pcHelper)}, vals: []model.Value{val(0, vN, int64(100+i%5))}})
		}
		feed(t, a, Normal, "n", normal)
		feed(t, a, Buggy, "b", buggy)
		res := a.Result()
		f := findFunc(t, res, "helper")
		if c.reason == "" {
			if f.Source == SourceVariable {
				t.Errorf("%d of %d normal samples: %s r %g, want no variable verdict", c.nNormal, c.nNormal+c.fill, f.Reason, f.Discount)
			}
			continue
		}
		if f.Reason != c.reason || !near(f.Discount, c.r) {
			t.Errorf("%d of %d normal samples: %s r %g, want %s r %g", c.nNormal, c.nNormal+c.fill, f.Reason, f.Discount, c.reason, c.r)
		}
	}
}
