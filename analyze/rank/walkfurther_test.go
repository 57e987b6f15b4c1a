package rank

import (
	"strings"
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// TestWalkFurther: a condition variable whose values went wrong reads as
// a wrong constraint (§8 rule 3), unless the function's walk (a cursor
// with no variable, sampled as <walk@LINE>: §2, D118) took a larger share
// of the slow runs' samples beyond chance: then the walk went further and
// the condition compares the data it reached (D119). A walk at the normal
// runs' share, or one read too rarely to say, leaves rule 3 as it was.
func TestWalkFurther(t *testing.T) {
	for _, c := range []struct {
		name         string
		normal, slow int // samples in the walk, of 200 per run
		want         string
	}{
		{"the walk took the slow runs", 20, 150, PatternScalability},
		{"the walk at the normal runs' share", 100, 100, PatternWrong},
		{"too few slow samples", 0, 2, PatternWrong},
	} {
		a := New(DefaultOptions())
		stack := []uint64{P(pcWork), P(pcMain)}
		run := func(walk int, flag int64) []ev {
			var evs []ev
			for i := range 200 {
				vals := []model.Value{val(0, vFlag, flag+int64(i%3))}
				if i < walk {
					vals = append(vals, ptr(0, vWalk, uint64(0x10000+64*i), 0))
				}
				addEv(&evs, stack, vals...)
			}
			return evs
		}
		feed(t, a, Normal, "n", run(c.normal, 1))
		feed(t, a, Buggy, "b", run(c.slow, 100))
		res := a.Result()
		f := findFunc(t, res, "work")
		if f.Pattern != c.want {
			t.Errorf("%s: pattern %q (%s), want %q", c.name, f.Pattern, f.PatternReason, c.want)
		}
		if c.want == PatternScalability && !strings.Contains(f.PatternReason, "D119") {
			t.Errorf("%s: reason %q does not name D119", c.name, f.PatternReason)
		}
	}
}
