package rank

import (
	"slices"
	"strings"
	"testing"
)

// TestLiftToPlainRank checks D172: a function of strong evidence is not
// left below its plain-profile rank by rows of weaker evidence, and only
// by those.
func TestLiftToPlainRank(t *testing.T) {
	type row struct {
		name  string
		cal   float64
		r     float64
		plain int
		hist  bool
	}
	// The shape of blocked_clients (dev18 trial 1): the root cause, r 0,
	// plain 3, sits 6th under rows of r 0.54-0.57 that have more extra time.
	base := []row{
		{"a", 0.47, 0, 19, false},
		{"b", 0.29, 0.43, 23, false},
		{"c", 0.27, 0.54, 21, false},
		{"d", 0.27, 0.54, 6, false},
		{"e", 0.25, 0.57, 31, false},
		{"root", 0.17, 0, 3, false},
	}
	with := func(f func(rs []row)) []row { rs := slices.Clone(base); f(rs); return rs }
	for _, c := range []struct {
		name string
		rows []row
		want string // names, best first
	}{
		{"lifted over weaker rows to its plain rank", base, "a b root c d e"},
		{"a row of equal evidence stops it", with(func(rs []row) { rs[3].r = 0 }), "a b c d root e"},
		{"never above its plain rank", with(func(rs []row) { rs[5].plain = 5 }), "a b c d root e"},
		{"already at its plain rank", with(func(rs []row) { rs[5].plain = 6 }), "a b c d e root"},
		{"no plain rank", with(func(rs []row) { rs[5].plain = 0 }), "a b c d e root"},
		{"its evidence is the hist-discounter's", with(func(rs []row) { rs[5].hist = true }), "a b c d e root"},
		{"its variables look normal", with(func(rs []row) { rs[5].r = 0.8 }), "a b c d e root"},
		{"no extra time to explain", with(func(rs []row) { rs[5].cal = 0 }), "a b c d e root"},
		{"weaker than the rows above", with(func(rs []row) { rs[5].r = 0.6 }), "a b c d e root"},
	} {
		fns := make([]Function, len(c.rows))
		for i, x := range c.rows {
			fns[i] = Function{Name: x.name, Calibrated: x.cal, Discount: x.r, PlainRank: x.plain, Source: SourceVariable}
			if x.hist {
				fns[i].Source = SourceHist
			}
		}
		moved := liftToPlainRank(fns, 0.8)
		var got []string
		for i, f := range fns {
			got = append(got, f.Name)
			if i > 0 && fns[i-1].Calibrated < f.Calibrated {
				t.Errorf("%s: %s (%g) ranks below %s (%g): the table is not ordered by cost", c.name, fns[i-1].Name, fns[i-1].Calibrated, f.Name, f.Calibrated)
			}
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("%s: order %q, want %q", c.name, g, c.want)
		}
		if (moved > 0) != (strings.Join(got, " ") != "a b c d e root") {
			t.Errorf("%s: %d moved", c.name, moved)
		}
		for _, f := range fns {
			if f.Name == "root" && moved > 0 && !strings.Contains(f.Placed, "D172") {
				t.Errorf("%s: the lifted row says nothing (Placed %q)", c.name, f.Placed)
			}
		}
	}
}
