package rank

import (
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// TestPresenceByCaller: a parameter located as an entry value (DWARF
// DW_OP_entry_value: readable only where a caller's call-site record gives
// it), read once or never in the normal runs and 100 times in the slow
// ones, in a frame whose variables were read at 100 normal sampling events,
// has no presence verdict (method.md §5, decision D335): its few normal
// reads are its callers' records, not its frame's absence. Without the
// rule it is "rare when normal" or "present only when slow" (r 0). The
// same parameter in a register keeps its verdict, and so does one whose
// frame did not run in the normal runs (2 events), and one read 5 times
// there is compared as any variable (one value pooled here).
func TestPresenceByCaller(t *testing.T) {
	entry := []byte{0xa3, 1, 0x55, 0x9f} // DW_OP_entry_value(DW_OP_reg5); DW_OP_stack_value
	gnuEntry := []byte{0xf3, 1, 0x55, 0x9f}
	for _, c := range []struct {
		name         string
		loc          model.Loc
		helperNormal int // normal samples in helper (of 600), each reading node
		nNormal      int // of those, the ones that read n too
		reason       string
	}{
		{"entry value, 1 normal read, frame in 100", model.Loc{Kind: model.LocExpr, Expr: entry}, 100, 1, ReasonByCaller},
		{"entry value, no normal read, frame in 100", model.Loc{Kind: model.LocExpr, Expr: entry}, 100, 0, ReasonByCaller},
		{"GNU entry value, 2 normal reads, frame in 100", model.Loc{Kind: model.LocExpr, Expr: gnuEntry}, 100, 2, ReasonByCaller},
		{"in a register, 1 normal read, frame in 100", model.Loc{Kind: model.LocReg, Reg: 5}, 100, 1, ReasonRare},
		{"in a register, no normal read, frame in 100", model.Loc{Kind: model.LocReg, Reg: 5}, 100, 0, ReasonBuggyOnly},
		{"entry value, no normal read, frame in 2", model.Loc{Kind: model.LocExpr, Expr: entry}, 2, 0, ReasonBuggyOnly},
		{"entry value, 5 normal reads, frame in 100", model.Loc{Kind: model.LocExpr, Expr: entry}, 100, 5, ReasonOneValue},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := progSchema()
			s.Vars[vN].Param = true
			l := c.loc
			l.Var, l.PCStart, l.PCEnd, l.Size = vN, 0x1280, 0x1300, 4
			s.Locs = []model.Loc{l}
			a := New(DefaultOptions())
			var normal, buggy []ev
			inHelper := []uint64{P(pcHelper), P(pcWork), P(pcMain)}
			for i := range 600 {
				switch {
				case i < c.nNormal:
					addEv(&normal, inHelper, val(0, vNode, int64(i%7)), val(0, vN, 4))
				case i < c.helperNormal:
					addEv(&normal, inHelper, val(0, vNode, int64(i%7)))
				default:
					addEv(&normal, []uint64{P(pcWork), P(pcMain)}, val(0, vFlag, int64(i%4)))
				}
				if i < 100 {
					addEv(&buggy, inHelper, val(0, vNode, int64(i%7)), val(0, vN, 4))
				} else {
					addEv(&buggy, inHelper, val(0, vNode, int64(i%7)))
				}
			}
			feedWith(t, a, Normal, "n", headerWith(s), normal)
			feedWith(t, a, Buggy, "b", headerWith(s), buggy)
			if v := findVar(t, a.Result(), "helper", "n"); v.Reason != c.reason {
				t.Errorf("helper's n: %q (r %g), want %q", v.Reason, v.R, c.reason)
			}
		})
	}
}

// TestHasEntryValue: an entry value anywhere at the top level of a
// location expression, in either spelling; an operand byte of another
// operation that happens to be 0xa3 is none, and an expression that does
// not decode answers false.
func TestHasEntryValue(t *testing.T) {
	for _, c := range []struct {
		name string
		e    []byte
		want bool
	}{
		{"entry_value(reg5); stack_value", []byte{0xa3, 1, 0x55, 0x9f}, true},
		{"GNU_entry_value(reg5); stack_value", []byte{0xf3, 1, 0x55, 0x9f}, true},
		{"breg3 1; entry_value(reg4); plus; stack_value", []byte{0x73, 1, 0xa3, 1, 0x54, 0x22, 0x9f}, true},
		{"fbreg -93 (an operand 0xa3)", []byte{0x91, 0xa3, 0x7f}, false},
		{"reg5", []byte{0x55}, false},
		{"truncated entry value", []byte{0xa3, 5, 0x55}, false},
		{"empty", nil, false},
	} {
		if got := hasEntryValue(c.e); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
