package trace

import (
	"path/filepath"
	"testing"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/proffile"
)

func TestReadProfile(t *testing.T) {
	// Link-time layout: main [0x1000,0x1100), loop [0x1100,0x1200),
	// work [0x1200,0x1300); the process maps it at bias 0x400000.
	schema := &model.Schema{
		HasDWARF: true,
		Funcs: []model.Func{
			{Name: "main", Display: "main", Ranges: []model.PCRange{{Lo: 0x1000, Hi: 0x1100}}},
			{Name: "loop", Display: "loop", Ranges: []model.PCRange{{Lo: 0x1100, Hi: 0x1200}}},
			{Name: "_Z4workIiEvT_", Display: "void work<int>(int)", Ranges: []model.PCRange{{Lo: 0x1200, Hi: 0x1300}}},
		},
		Vars: []model.Var{{Name: "n", Func: 1, Kind: model.KindInt, Size: 4, Tags: model.TagLoop}},
	}
	const bias = 0x400000
	const main0, loopA, loopB, work = bias + 0x1010, bias + 0x1110, bias + 0x1120, bias + 0x1210
	path := filepath.Join(t.TempDir(), "p.vprof")
	w, err := proffile.Create(path, model.Header{Target: "/bin/t", PID: 10, IntervalNS: 1e6, Clock: model.ClockCPU, Stack: 64})
	if err != nil {
		t.Fatal(err)
	}
	w.AddObject(&model.Object{ID: 0, Path: "/bin/t", Program: true, Schema: schema})
	w.AddMapping(model.Mapping{PID: 10, Start: bias + 0x1000, End: bias + 0x2000, Bias: bias, Obj: 0})
	w.AddProc(model.ProcEvent{Kind: model.ProcStart, PID: 10, Path: "/bin/t"})
	w.AddThread(model.ThreadEvent{PID: 10, TID: 11, Name: "worker"})
	// Stacks innermost first. Ticks 1-2: main>loop(site A)>work; tick 3:
	// main>loop(site A); ticks 4-5: main>loop called from site B (a new
	// call though the same function); tick 7 (6 not sampled): same stack,
	// so the same call; tick 8: main only.
	stacks := []struct {
		tick  uint64
		stack []uint64
	}{
		{1, []uint64{work, loopA + 1, main0 + 1}},
		{2, []uint64{work + 4, loopA + 1, main0 + 1}},
		{3, []uint64{loopA, main0 + 1}},
		{4, []uint64{loopB, main0 + 0x21}},
		{5, []uint64{loopB, main0 + 0x21}},
		{7, []uint64{loopB + 2, main0 + 0x21}},
		{8, []uint64{main0}},
	}
	for i, s := range stacks {
		smp := model.Sample{Tick: s.tick, TimeNS: int64(s.tick) * 1e6, WeightNS: 1e6, Stack: s.stack,
			Values: []model.Value{{Frame: 1, Obj: 0, Var: 0, Bits: uint64(i)}}}
		if err := w.AddSample(10, 11, &smp); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(model.Trailer{EndNS: 9e6}); err != nil {
		t.Fatal(err)
	}

	tr, prof, err := ReadProfile(path, ProfileOptions{KeepValue: func(o *model.Object, v model.VarID) bool { return o.Schema.Vars[v].Name == "n" }})
	if err != nil {
		t.Fatal(err)
	}
	const ms = 1_000_000
	checkTrace(t, tr, []threadWant{{name: "worker (tid 11)", calls: "main[1000000,9000000] .loop[1000000,4000000] ..void work<int>(int)[1000000,3000000] .loop[4000000,8000000]"}})
	if d, err := Detect(path); err != nil || d != "vprof" {
		t.Errorf("Detect = %q, %v", d, err)
	}
	vs := prof.Values[tr.Threads[0]]
	if len(vs) != 7 || vs[6].Time != 8*ms || vs[6].Bits != 6 {
		t.Errorf("values %+v", vs)
	}
	// Streamed, the events rebuild the same calls and the threads come
	// back without them.
	sameStream(t, tr, func(sinks func(pid, tid int64) Sink) (*Trace, error) {
		tr, _, err := ReadProfile(path, ProfileOptions{Sinks: sinks})
		return tr, err
	})
}
