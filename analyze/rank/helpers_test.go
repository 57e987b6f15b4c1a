package rank

import (
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// The test program: link-time layout of its functions and variables.
const (
	fMain   = 0
	fWork   = 1
	fCmp    = 2
	fHelper = 3
	fInl    = 4

	vI     = 0 // work: int, loop
	vFlag  = 1 // work: int, cond
	vG     = 2 // global int
	vP     = 3 // work: int * (pointee analysed)
	vNode  = 4 // helper: struct node * (duration only)
	vAgg   = 5 // global aggregate (duration only)
	vStart = 6 // main: start_time, varies by nature
	vN     = 7 // helper: int, args
	vX     = 8 // inl (inlined into work): int, loop
	vI2    = 9 // work: a second "i", loop

	vUsed = 10 // work: a function-scope static int, cond (outlives a call)

	vCur = 11 // work: struct item *, args (null/non-null; address in duration only)

	vWalk = 12 // work: <walk@26>, a walk's cursor with no variable (D118)

	progBias = 0x400000
	libBias  = 0x7f0000000000
)

// Link-time PCs.
const (
	pcMain    = 0x1010
	pcMain2   = 0x1050
	pcWork    = 0x1110
	pcWork2   = 0x1160 // second basic block of work, line 25
	pcWorkInl = 0x1190 // inlined inl inside work, line 30
	pcCmp     = 0x1210
	pcHelper  = 0x1290
	pcQsort   = 0x5010
	pcMemcpy  = 0x5110
)

func progSchema() *model.Schema {
	r := func(lo, hi uint64) []model.PCRange { return []model.PCRange{{Lo: lo, Hi: hi}} }
	return &model.Schema{
		Path: "/bin/prog", BuildID: "b1", Type: "exec", HasDWARF: true,
		Files: []string{"/src/prog.c"},
		Funcs: []model.Func{
			{Name: "main", Display: "main", File: 0, Line: 10, Ranges: r(0x1000, 0x1100), Blocks: []uint64{0x1000, 0x1040, 0x1080}},
			{Name: "work", Display: "work", File: 0, Line: 20, Ranges: r(0x1100, 0x1200), Blocks: []uint64{0x1100, 0x1150}},
			{Name: "cmp", Display: "cmp", File: 0, Line: 40, Ranges: r(0x1200, 0x1280)},
			{Name: "helper", Display: "helper", File: 0, Line: 50, Ranges: r(0x1280, 0x1300)},
			{Name: "inl", Display: "inl", File: 0, Line: 60},
		},
		Inlines: []model.Inline{{Func: fInl, Ranges: r(0x1180, 0x11a0), Depth: 1}},
		Vars: []model.Var{
			{Name: "i", Func: fWork, Line: 21, Type: "int", Kind: model.KindInt, Size: 4, Tags: model.TagLoop},
			{Name: "flag", Func: fWork, Line: 22, Type: "int", Kind: model.KindInt, Size: 4, Tags: model.TagCond},
			{Name: "g", Func: model.NoFunc, Line: 1, Type: "long", Kind: model.KindInt, Size: 8},
			{Name: "p", Func: fWork, Line: 23, Type: "int *", Kind: model.KindPointer, Size: 8, Tags: model.TagArgs, PointeeKind: model.KindInt, PointeeSize: 4},
			{Name: "node", Func: fHelper, Line: 51, Type: "struct node *", Kind: model.KindPointer, Size: 8, Tags: model.TagLoop},
			{Name: "table", Func: model.NoFunc, Line: 2, Type: "struct table", Kind: model.KindAggregate, Size: 64},
			{Name: "start_time", Func: fMain, Line: 11, Type: "long", Kind: model.KindInt, Size: 8, Tags: model.TagCond},
			{Name: "n", Func: fHelper, Line: 52, Type: "unsigned", Kind: model.KindUint, Size: 4, Tags: model.TagArgs},
			{Name: "x", Func: fInl, Line: 61, Type: "int", Kind: model.KindInt, Size: 4, Tags: model.TagLoop},
			{Name: "i", Func: fWork, Line: 28, Type: "int", Kind: model.KindInt, Size: 4, Tags: model.TagLoop},
			{Name: "used", Func: fWork, Line: 29, Type: "int", Kind: model.KindInt, Size: 4, Static: true, Tags: model.TagCond},
			{Name: "cur", Func: fWork, Line: 24, Type: "struct item *", Kind: model.KindPointer, Size: 8, Tags: model.TagArgs},
			{Name: "<walk@26>", Func: fWork, Line: 26, Type: "void *", Kind: model.KindPointer, Size: 8, Tags: model.TagLoop},
		},
		Lines: []model.LineRow{
			{PC: 0x1000, File: 0, Line: 10}, {PC: 0x1100, File: 0, Line: 20}, {PC: 0x1150, File: 0, Line: 25},
			{PC: 0x1180, File: 0, Line: 30}, {PC: 0x11a0, File: 0, Line: 26}, {PC: 0x1200, File: 0, Line: 40},
			{PC: 0x1280, File: 0, Line: 50}, {PC: 0x1300, File: 0, Line: 0},
		},
	}
}

func libSchema() *model.Schema {
	return &model.Schema{
		Path: "/lib/libc.so.6", BuildID: "c1", Type: "dyn",
		Funcs: []model.Func{
			{Name: "qsort", Display: "qsort", File: -1, Ranges: []model.PCRange{{Lo: 0x5000, Hi: 0x5100}}},
			{Name: "memcpy", Display: "memcpy", File: -1, Ranges: []model.PCRange{{Lo: 0x5100, Hi: 0x5200}}},
		},
		Symbols: []model.Symbol{{Name: "qsort", Value: 0x5000, Size: 0x100}, {Name: "memcpy", Value: 0x5100, Size: 0x100}},
	}
}

// header records of the test program: objects and mappings of pid 1.
func header() []any { return headerWith(progSchema()) }

// headerWith is header with the program's schema s (a test's variant of
// progSchema).
func headerWith(s *model.Schema) []any {
	return []any{
		&model.Object{ID: 0, Path: "/bin/prog", BuildID: "b1", Program: true, Schema: s},
		&model.Object{ID: 1, Path: "/lib/libc.so.6", BuildID: "c1", Schema: libSchema()},
		&model.Mapping{PID: 1, Start: progBias + 0x1000, End: progBias + 0x2000, Bias: progBias, Obj: 0},
		&model.Mapping{PID: 1, Start: libBias + 0x5000, End: libBias + 0x6000, Bias: libBias, Obj: 1},
		&model.ProcEvent{Kind: model.ProcStart, PID: 1},
	}
}

// P is a runtime PC of the program, L of libc.
func P(link uint64) uint64 { return link + progBias }
func L(link uint64) uint64 { return link + libBias }

// ev is one sample: thread, tick, weight (ms; 0 means 1), stack, values.
type ev struct {
	tid   int32
	tick  uint64
	ms    float64
	stack []uint64
	vals  []model.Value
	tail  uint64 // Sample.TailFrames: the frames restored from a tail call
}

// val is variable v read in frame f with value bits.
func val(f uint8, v int32, bits int64) model.Value {
	return model.Value{Frame: f, Obj: 0, Var: v, Bits: uint64(bits)}
}

// ptr is pointer variable v (address addr) whose int pointee is x.
func ptr(f uint8, v int32, addr uint64, x int64) model.Value {
	return model.Value{Frame: f, Obj: 0, Var: v, Bits: addr, Pointee: uint64(x), HasPointee: true}
}

// feed adds one run made of the test program's header and evs.
func feed(t testing.TB, a *Analyzer, k Kind, name string, evs []ev) *Run {
	t.Helper()
	return feedWith(t, a, k, name, header(), evs)
}

// feedWith is feed with other header records.
func feedWith(t testing.TB, a *Analyzer, k Kind, name string, hdr []any, evs []ev) *Run {
	t.Helper()
	r, err := a.BeginRun(k, name, model.Header{IntervalNS: 1e6})
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range hdr {
		if err := r.Record(rec); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range evs {
		ms := e.ms
		if ms == 0 {
			ms = 1
		}
		b := &model.Block{PID: 1, TID: e.tid, Samples: []model.Sample{{
			Tick: e.tick, WeightNS: int64(ms * 1e6), Stack: e.stack, Values: e.vals, TailFrames: e.tail,
		}}}
		if err := r.Record(b); err != nil {
			t.Fatal(err)
		}
	}
	r.End()
	return r
}

// series makes one sample per value of xs on thread 1 at consecutive ticks
// from tick0, each reading variable v in frame 0 at pc.
func series(v int32, pc uint64, tick0 uint64, xs ...int64) []ev {
	out := make([]ev, len(xs))
	for i, x := range xs {
		out[i] = ev{tid: 1, tick: tick0 + uint64(i), stack: []uint64{P(pc)}, vals: []model.Value{val(0, v, x)}}
	}
	return out
}

func findFunc(t testing.TB, res *Result, name string) *Function {
	t.Helper()
	for i := range res.Functions {
		if res.Functions[i].Name == name {
			return &res.Functions[i]
		}
	}
	t.Fatalf("function %s not in the result (%d functions)", name, len(res.Functions))
	return nil
}

func findVar(t testing.TB, res *Result, fn, name string) *VarVerdict {
	t.Helper()
	for i := range res.Variables {
		if v := &res.Variables[i]; v.Name == name && v.Function == fn {
			return v
		}
	}
	t.Fatalf("variable %s.%s not in the result", fn, name)
	return nil
}

func near(a, b float64) bool { return abs(a-b) < 1e-9 }
