package rank

import "testing"

// TestChanceLevel: a function's discount is the lowest r over all the
// tests of its variables, so one test that finds a difference at p just
// below Alpha among many is what chance gives (D166): with k tests of one
// function's own variables a difference counts only below Alpha / k, or
// at the table's floor (PFloor). A global's tests, a function with one
// test, and presence verdicts are left alone.
func TestChanceLevel(t *testing.T) {
	for _, c := range []struct {
		name   string
		fn     int32   // the variables' function; -1: globals
		vars   int     // variables, three tested dimensions each
		p      float64 // p of the one difference (variable 0, duration)
		wantR  float64 // variable 0's r afterwards
		reason string
	}{
		{"one of 18 tests at p 0.035 (a comparator's six variables)", fWork, 6, 0.035, 0.8, ReasonChance},
		{"one of 18 tests at the floor", fWork, 6, 0.001, 0.66, ReasonDiffer},
		{"one of 18 tests below Alpha / 18", fWork, 6, 0.002, 0.66, ReasonDiffer},
		{"one of 3 tests at p 0.012", fWork, 1, 0.012, 0.66, ReasonDiffer},
		{"one of 3 tests at p 0.035", fWork, 1, 0.035, 0.8, ReasonChance},
		{"globals", -1, 6, 0.035, 0.66, ReasonDiffer},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := New(DefaultOptions())
			var vs []VarVerdict
			for v := range c.vars {
				a.vars = append(a.vars, varInfo{fn: c.fn})
				vv := VarVerdict{Var: int32(v), OK: true, HasDim: true, R: 0.8, Dim: DimDuration, Reason: ReasonSame}
				for _, d := range tieOrder {
					vv.Dims = append(vv.Dims, DimVerdict{Dim: d, OK: true, Tested: true, P: 0.25, R: 0.8, Reason: ReasonSame})
				}
				if v == 0 {
					vv.Dims[0] = DimVerdict{Dim: DimDuration, OK: true, Tested: true, P: c.p, Hellinger: 0.34, R: 0.66, Reason: ReasonDiffer}
					vv.R, vv.Reason = 0.66, ReasonDiffer
				}
				vs = append(vs, vv)
			}
			a.chanceLevel(vs)
			if vv := vs[0]; vv.R != c.wantR || vv.Dims[0].Reason != c.reason || !vv.OK {
				t.Errorf("r %.2f (%s, duration %s), want %.2f (%s)", vv.R, vv.Reason, vv.Dims[0].Reason, c.wantR, c.reason)
			}
		})
	}
}
