package rank

import (
	"slices"
	"strconv"

	"github.com/vprof/vprof/runtime/model"
)

// A caller whose evidence is what it hands on (method.md §7, decision
// D135). D10 puts a caller A above the callee D that is all of its time
// when A's own variables went wrong while D ran: A decided to make the
// call that costs. A struct pointer that A was given and passes on, and
// the fields behind it, are not A's own: A neither computed nor changed
// them, and D reads the same fields of the same kind of object through a
// parameter of its own. When every variable of A that went wrong is such
// a pointer parameter or a field behind one, and D has, for each, a
// pointer parameter of the same type with the same field (the same
// offsets on the way) that went wrong too, the evidence is one, seen from
// two frames: the object both were handed grew (a queue, a table), which
// was decided above them both, and the work done with it is D's. A's
// inclusive cost holds D's, so A would rank first by construction: D10
// does not apply to the pair, and A goes just below D. A caller with any
// other variable that went wrong (a local it computed, a loop of its own,
// a global, a field the callee does not read) keeps D10's reading.

// givenPath is v's path when it is a parameter that points to a struct
// (no basic type behind it), or a field reached from one: the
// parameter's type, then each field's offset, "->" behind a pointer and
// "." within a struct ("ph_bufq_t *->8"). Other variables have none ("").
func givenPath(s *model.Schema, v *model.Var) string {
	var offs []string
	for range len(s.Vars) { // a field of a field: bounded by the schema
		if v.Param {
			if v.Kind != model.KindPointer || v.PointeeKind != 0 || v.Type == "" {
				return ""
			}
			p := v.Type
			for _, o := range slices.Backward(offs) {
				p += o
			}
			return p
		}
		if v.Field == nil || v.Field.Of < 0 || int(v.Field.Of) >= len(s.Vars) {
			return ""
		}
		sep := "."
		if v.Field.Deref {
			sep = "->"
		}
		offs = append(offs, sep+strconv.FormatInt(v.Field.Offset, 10))
		v = &s.Vars[v.Field.Of]
	}
	return ""
}

// givenWrong returns the given paths (givenPath) of fn's variables that
// went wrong (a verdict below DefaultDiscount), and whether every variable
// of fn that went wrong has one (false when none went wrong).
func (a *Analyzer) givenWrong(res *Result, fn *Function) (ps []string, only bool) {
	only = true
	for vv := range a.wrongVars(res, fn) {
		if p := a.vars[vv.Var].given; p != "" {
			ps = append(ps, p)
		} else {
			only = false
		}
	}
	return ps, only && len(ps) > 0
}

// handsOn reports whether every variable of caller A that went wrong is
// a struct pointer A was given, or a field behind one, that callee D was
// given too and that went wrong in D (D135): then D10 does not apply to
// the pair.
func (a *Analyzer) handsOn(A, D int) bool {
	if a.handedOnly == nil || !a.handedOnly[A] {
		return false
	}
	for _, p := range a.handed[A] {
		if !slices.Contains(a.handed[D], p) {
			return false
		}
	}
	return true
}

// handingCallers ranks a caller whose evidence is what it hands on just
// below the callee it hands it to (handsOn; the conditions of
// placeBelowSoleCallee).
func (a *Analyzer) handingCallers(fns []Function, drivers []bool) {
	a.placeBelowSoleCallee(fns, drivers, a.handsOn,
		"every variable of it that went wrong is a struct pointer it was given, or a field behind one, that the callee was given too and that went wrong there (D135)")
}
