package rank

import (
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// TestObjectListedTwice: a program started through a shell's exec can be
// listed in one run first as a library object without a schema and then as
// the program. When that run is the report's first, the other runs must
// still get the program's schema: its functions ranked, its values read.
func TestObjectListedTwice(t *testing.T) {
	dup := append([]any{&model.Object{ID: 2, Path: "/bin/prog", BuildID: "b1"}}, header()...)
	a := New(DefaultOptions())
	var normal, buggy []ev
	for i := range 50 {
		normal = append(normal, ev{tid: 1, tick: uint64(i), stack: []uint64{P(pcWork)}, vals: []model.Value{val(0, vI, int64(i%10))}})
	}
	for i := range 150 {
		buggy = append(buggy, ev{tid: 1, tick: uint64(i), stack: []uint64{P(pcWork)}, vals: []model.Value{val(0, vI, int64(1000+i))}})
	}
	n := feedWith(t, a, Normal, "n", dup, normal)
	b := feed(t, a, Buggy, "b", buggy)
	for _, r := range []*Run{n, b} {
		if r.badValues != 0 {
			t.Errorf("run %s: %d value samples skipped as unknown", r.Name, r.badValues)
		}
	}
	res := a.Result()
	w := findFunc(t, res, "work")
	if !near(w.PCCost, 150e-3) {
		t.Errorf("work: pc cost %g ms in the slow run, want 150", w.PCCost*1e3)
	}
	findVar(t, res, "work", "i")
}
