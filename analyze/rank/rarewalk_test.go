package rank

import (
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// TestRareWalk: a loop variable whose values cannot be compared (a
// pointer iterator: always non-null, each address held one tick, so every
// dimension is one value pooled) but which was read far more often in the
// slow runs than in the normal ones, beyond chance, gets "rare when
// normal" with r its share ratio (method.md §5, D75); the same variable
// read at a like share, or at a lower share only as chance allows, keeps
// DefaultDiscount, and so does a pointer that is no loop's. A pointer
// compared only on presence whose durations a test found alike (D159) is
// read the same way, and so is one whose null share (where its walks end)
// a test found different by less than DefaultDiscount's margin (D275);
// one found different beyond it keeps that verdict.
func TestRareWalk(t *testing.T) {
	for _, c := range []struct {
		name         string
		v            int32 // vNode: helper's loop iterator; vCur: work's argument
		fn, pc       string
		normal, slow int // samples in the walk, of 200 per run
		rare         bool
		held         int // every held-th address is read at two ticks (0: never)
		endN, endB   int // every end-th read of the normal / slow walk is its end, null (0: never)
	}{
		{"a walk that ran far more when slow", vNode, "helper", "helper", 10, 150, true, 0, 0, 0},
		{"a walk at the normal runs' share", vNode, "helper", "helper", 100, 100, false, 0, 0, 0},
		{"fewer when normal, as chance allows", vNode, "helper", "helper", 7, 10, false, 0, 0, 0},
		{"no loop's pointer", vCur, "work", "work", 10, 150, false, 0, 0, 0},
		// D159: an address now and then held two ticks (a thread
		// preempted between two steps) makes the durations a test; one
		// that finds them alike says no more than one value pooled.
		{"a walk far more when slow, durations alike", vNode, "helper", "helper", 10, 150, true, 4, 0, 0},
		{"a walk at the normal runs' share, durations alike", vNode, "helper", "helper", 100, 100, false, 4, 0, 0},
		// D275: longer walks end (read null) less often; a test that
		// finds the null share different, r at or above DefaultDiscount,
		// says no more than one that finds it alike.
		{"a walk far more when slow, its ends a little rarer", vNode, "helper", "helper", 48, 190, true, 0, 8, 50},
		{"a walk at the normal runs' share, its ends a little rarer", vNode, "helper", "helper", 150, 150, false, 0, 8, 50},
		{"a walk far more when slow, its ends far rarer", vNode, "helper", "helper", 48, 190, false, 0, 3, 50},
	} {
		a := New(DefaultOptions())
		walk := []uint64{P(pcHelper), P(pcWork), P(pcMain)}
		if c.pc == "work" {
			walk = walk[1:]
		}
		run := func(n, end int) []ev {
			var evs []ev
			addr := uint64(0x10000)
			for i := range n {
				if c.held == 0 || i%c.held != 1 {
					addr += 64
				}
				if end > 0 && i%end == end-1 {
					addEv(&evs, walk, ptr(0, c.v, 0, 0))
					continue
				}
				addEv(&evs, walk, ptr(0, c.v, addr, 0))
			}
			for len(evs) < 200 {
				addEv(&evs, []uint64{P(pcMain)})
			}
			return evs
		}
		feed(t, a, Normal, "n", run(c.normal, c.endN))
		feed(t, a, Buggy, "b", run(c.slow, c.endB))
		res := a.Result()
		vv := findVar(t, res, c.fn, map[int32]string{vNode: "node", vCur: "cur"}[c.v])
		if c.held > 0 && !hasDim(vv, DimDuration, ReasonSame) {
			t.Errorf("%s: %s's durations %+v, want a test that found them alike", c.name, vv.Name, vv.Dims)
		}
		if got := vv.Reason == ReasonRare; got != c.rare {
			t.Errorf("%s: %s r %g (%s), want rare when normal: %v", c.name, vv.Name, vv.R, vv.Reason, c.rare)
		}
		if c.endN > 0 && !hasDim(vv, DimValue, ReasonDiffer) {
			t.Errorf("%s: %s's values %+v, want a test that found them different", c.name, vv.Name, vv.Dims)
		}
		if c.endN > 0 {
			continue
		}
		if c.rare && !near(vv.R, 0) {
			t.Errorf("%s: r %g, want 0 (share ratio %g below ValidDiscount)", c.name, vv.R, (10.0/200)/(150.0/200))
		}
		if !c.rare && vv.R != DefaultOptions().DefaultDiscount {
			t.Errorf("%s: r %g (%s), want DefaultDiscount", c.name, vv.R, vv.Reason)
		}
	}
}

// TestNextLocations: a row whose v* is a presence verdict with normal
// samples (rare when normal), whose samples are never counted as
// abnormal, names where the function's next strongest anomalous variable
// was read abnormally; without such a variable it names none.
func TestNextLocations(t *testing.T) {
	for _, withN := range []bool{true, false} {
		a := New(DefaultOptions())
		walk := []uint64{P(pcHelper), P(pcWork), P(pcMain)}
		run := func(n int, nv int64) []ev {
			var evs []ev
			for i := range n {
				vals := []model.Value{ptr(0, vNode, uint64(0x10000+64*i), 0)}
				if withN {
					vals = append(vals, val(0, vN, nv+int64(i%3)))
				}
				addEv(&evs, walk, vals...)
			}
			for len(evs) < 200 {
				addEv(&evs, []uint64{P(pcMain)})
			}
			return evs
		}
		feed(t, a, Normal, "n", run(10, 5))
		feed(t, a, Buggy, "b", run(150, 6)) // n: 6-8 against 5-7, wrong but less than node
		res := a.Result()
		h := findFunc(t, res, "helper")
		if h.Variable != "node" || h.Reason != ReasonRare {
			t.Fatalf("withN %v: helper's v* %s (%s), want node, rare when normal", withN, h.Variable, h.Reason)
		}
		if withN && (len(h.Locations) != 1 || h.Locations[0].String() != "prog.c:50") {
			t.Errorf("helper: locations %+v, want prog.c:50 (where n went wrong)", h.Locations)
		}
		if !withN && len(h.Locations) != 0 {
			t.Errorf("helper without n: locations %+v, want none", h.Locations)
		}
	}
}

// hasDim reports whether vv has dimension d with reason.
func hasDim(vv *VarVerdict, d Dimension, reason string) bool {
	for _, dv := range vv.Dims {
		if dv.Dim == d && dv.Reason == reason {
			return true
		}
	}
	return false
}
