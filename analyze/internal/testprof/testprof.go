// Package testprof writes small synthetic vprof profiles for the tests of
// the analysis' outputs (report, timeline): a program whose recover_loop
// calls do_work while its loop variable budget takes the values given.
//
// Use: WriteRun(path, budgets, workTicks), or Runs(dir) for a normal and a
// slow run that the analyzer tells apart (budget unlike the normal run).
package testprof

import (
	"path/filepath"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/proffile"
)

// WriteRun writes a profile of a program whose loop() calls work() while
// its loop variable budget counts down: each value of budgets lasts 10
// ticks, workTicks of which are spent in work().
func WriteRun(path string, budgets []int64, workTicks int) error {
	r := func(lo, hi uint64) []model.PCRange { return []model.PCRange{{Lo: lo, Hi: hi}} }
	schema := &model.Schema{
		Path: "/bin/srv", Type: "exec", HasDWARF: true, Files: []string{"/src/srv.c"},
		Funcs: []model.Func{
			{Name: "main", Display: "main", Line: 10, Ranges: r(0x1000, 0x1100)},
			{Name: "recover_loop", Display: "recover_loop", Line: 20, Ranges: r(0x1100, 0x1200)},
			{Name: "do_work", Display: "do_work", Line: 40, Ranges: r(0x1200, 0x1300)},
		},
		Vars: []model.Var{
			{Name: "budget", Func: 1, Line: 21, Type: "long", Kind: model.KindInt, Size: 8, Tags: model.TagLoop | model.TagCond},
		},
		Locs:  []model.Loc{{Var: 0, PCStart: 0x1100, PCEnd: 0x1200, Kind: model.LocFrame, Offset: -24, Size: 8}},
		Lines: []model.LineRow{{PC: 0x1000, Line: 10}, {PC: 0x1100, Line: 20}, {PC: 0x1200, Line: 40}, {PC: 0x1300}},
	}
	const bias = 0x400000
	w, err := proffile.Create(path, model.Header{Target: "/bin/srv", PID: 5, IntervalNS: 1e6, Clock: model.ClockCPU, Depth: 3, Stack: 64})
	if err != nil {
		return err
	}
	w.AddObject(&model.Object{ID: 0, Path: "/bin/srv", Program: true, Schema: schema})
	w.AddMapping(model.Mapping{PID: 5, Start: bias + 0x1000, End: bias + 0x2000, Bias: bias, Obj: 0})
	w.AddProc(model.ProcEvent{Kind: model.ProcStart, PID: 5, Path: "/bin/srv"})
	w.AddThread(model.ThreadEvent{PID: 5, TID: 6, Name: "recovery"})
	tick := uint64(1)
	// main's own start-up: recover_loop is not on every sample of the
	// thread (no driver frame, method.md §4).
	for ; tick <= 10; tick++ {
		s := model.Sample{Tick: tick, TimeNS: int64(tick) * 1e6, WeightNS: 1e6, Stack: []uint64{bias + 0x1011}}
		if err := w.AddSample(5, 6, &s); err != nil {
			return err
		}
	}
	for _, b := range budgets {
		for k := 0; k < 10; k++ {
			s := model.Sample{Tick: tick, TimeNS: int64(tick) * 1e6, WeightNS: 1e6}
			if k < workTicks {
				s.Stack = []uint64{bias + 0x1210, bias + 0x1121, bias + 0x1011}
				s.Values = []model.Value{{Frame: 1, Obj: 0, Var: 0, Bits: uint64(b)}}
			} else {
				s.Stack = []uint64{bias + 0x1110, bias + 0x1011}
				s.Values = []model.Value{{Frame: 0, Obj: 0, Var: 0, Bits: uint64(b)}}
			}
			if err := w.AddSample(5, 6, &s); err != nil {
				return err
			}
			tick++
		}
	}
	return w.Close(model.Trailer{EndNS: int64(tick) * 1e6})
}

// Runs writes a normal run (budget 1 to 5 over and over, 2 ticks in 10 in
// do_work) and a slow one (values from 1000 up, 8 ticks in 10) into dir.
// normalN and buggyN are the numbers of values of budget in each.
func Runs(dir string, normalN, buggyN int) (normal, buggy string, err error) {
	normal, buggy = filepath.Join(dir, "normal.vprof"), filepath.Join(dir, "buggy.vprof")
	var nb, bb []int64
	for i := 0; i < normalN; i++ {
		nb = append(nb, int64(i%5+1))
	}
	for i := 0; i < buggyN; i++ {
		bb = append(bb, int64(1000+37*i))
	}
	if err := WriteRun(normal, nb, 2); err != nil {
		return "", "", err
	}
	if err := WriteRun(buggy, bb, 8); err != nil {
		return "", "", err
	}
	return normal, buggy, nil
}
