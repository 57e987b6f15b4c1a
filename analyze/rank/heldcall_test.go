package rank

import (
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// TestCallerByConstruction: a caller all of whose slow-run time is one
// callee, whose own variable went wrong while the callee ran, takes the
// callee's place (D10) only when that is no consequence of the shape of
// the stacks (method.md §7, D35): not when it runs inside the callee's
// own work (the callee called it further out: recursion), not when its
// frame is one restored from a tail call (it is on the stack only while
// the function it jumped to runs), and not on the durations of its values
// alone (a value held across the call lasts as long as the call).
func TestCallerByConstruction(t *testing.T) {
	inHelper := []uint64{P(pcHelper), P(pcWork), P(pcMain)}
	recursive := []uint64{P(pcHelper), P(pcWork), P(pcHelper), P(pcMain)}
	selfRecursive := []uint64{P(pcHelper), P(pcWork), P(pcWork2), P(pcMain)}
	for _, c := range []struct {
		name  string
		stack []uint64
		tail  uint64 // work's frame (1) restored from a tail call
		flag  func(i int) int64
		want  string
	}{
		// work's flag takes values it never takes in the normal runs:
		// it decided to call helper (D10).
		{"decided", inHelper, 0, func(i int) int64 { return int64(i % 8) }, "work"},
		{"inside the callee's work", recursive, 0, func(i int) int64 { return int64(i % 8) }, "helper"},
		{"restored from a tail call", inHelper, 1 << 1, func(i int) int64 { return int64(i % 8) }, "helper"},
		// work's innermost level jumped to helper; its outer level waits
		// in a call of its own (jq's jv_setpath): D10 reads it as before.
		{"restored, with a frame of its own", selfRecursive, 1 << 1, func(i int) int64 { return int64(i % 8) }, "work"},
		// work's pointer keeps its normal values (non-null) and each
		// address lasts longer: the calls it spans took longer.
		{"durations of a held pointer", inHelper, 0, nil, "work"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := New(DefaultOptions())
			var normal, buggy []ev
			// cur, in the pointer's case: the items' addresses, each held
			// for 1 or 2 calls in the normal runs, 1, 2 or 6 in the slow.
			held := func(sizes ...int) func(i int) int64 {
				var addr []int64
				for g := 0; len(addr) < 200; g++ {
					for range sizes[g%len(sizes)] {
						addr = append(addr, int64(0x1000+16*g))
					}
				}
				return func(i int) int64 { return addr[i] }
			}
			curN, curB := held(1, 2), held(1, 2, 6)
			for i := range 40 {
				vals := []model.Value{val(0, vN, int64(i%5)), val(1, vFlag, int64(i%4))}
				if c.flag == nil {
					vals = append(vals, val(1, vCur, curN(i)))
				}
				addEv(&normal, c.stack, vals...)
				addEv(&normal, []uint64{P(pcMain)})
			}
			for i := range 150 {
				vals := []model.Value{val(0, vN, int64(100+i%5))} // helper: r = 0
				if c.flag != nil {
					vals = append(vals, val(1, vFlag, c.flag(i)))
				} else {
					vals = append(vals, val(1, vFlag, int64(i%4)), val(1, vCur, curB(i)))
				}
				buggy = append(buggy, ev{tid: 1, tick: uint64(len(buggy)), stack: c.stack, vals: vals, tail: c.tail})
			}
			for range 40 {
				addEv(&buggy, []uint64{P(pcMain)}) // main: the driver
			}
			feed(t, a, Normal, "n", normal)
			feed(t, a, Buggy, "b", buggy)
			res := a.Result()
			w, h := findFunc(t, res, "work"), findFunc(t, res, "helper")
			if w.Discount <= h.Discount || w.Discount >= DefaultOptions().DefaultDiscount {
				t.Fatalf("work r %g (%s, %s), helper r %g: want helper's evidence stronger, work's below the default", w.Discount, w.Variable, w.Dimension, h.Discount)
			}
			if got := res.Functions[0].Name; got != c.want {
				t.Errorf("ranked %v, want %s first", names(res), c.want)
			}
			if placed := w.Placed != ""; placed != (c.want == "work") {
				t.Errorf("work placed %q", w.Placed)
			}
		})
	}
}
