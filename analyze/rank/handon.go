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
// went wrong (a verdict below DefaultDiscount), its scalar parameters
// (scalarArg) that went wrong, and whether every variable of fn that went
// wrong is one or the other (false when none went wrong).
func (a *Analyzer) givenWrong(res *Result, fn *Function) (ps []string, sc []int32, only bool) {
	only = true
	for _, j := range fn.Vars {
		vv := &res.Variables[j]
		if !vv.OK || vv.R >= a.opt.DefaultDiscount {
			continue
		}
		if p := a.vars[vv.Var].given; p != "" {
			ps = append(ps, p)
		} else if a.vars[vv.Var].scalarArg {
			sc = append(sc, vv.Var)
		} else {
			only = false
		}
	}
	return ps, sc, only && len(ps)+len(sc) > 0
}

// handsOn reports whether every variable of caller A that went wrong is
// a struct pointer A was given, or a field behind one, that callee D was
// given too and that went wrong in D (D135), or a scalar parameter of A
// whose values equal those of a parameter of D that went wrong in D at
// the samples that read both (D180): then D10 does not apply to the pair.
func (a *Analyzer) handsOn(A, D int) bool {
	if a.handedOnly == nil || !a.handedOnly[A] {
		return false
	}
	for _, p := range a.handed[A] {
		if !slices.Contains(a.handed[D], p) {
			return false
		}
	}
	for _, v := range a.handScalar[A] {
		if !slices.ContainsFunc(a.handScalar[D], func(w int32) bool { return a.handedTo(v, w) }) {
			return false
		}
	}
	return true
}

// HandEqual is the share of the slow-run samples that read both a
// caller's scalar parameter and a callee's parameter (the callee in a
// deeper frame) on which the two must hold the same value for the caller
// to have handed it on unchanged (decision D180).
const HandEqual = 0.9

// handStat counts, for one (caller parameter, callee parameter) pair, the
// slow-run samples that read both, those on which the values were equal,
// and whether the equal values were more than one (a constant 0 or 1 on
// both sides says nothing of handing on).
type handStat struct {
	both, eq float64
	first    uint64
	two      bool
}

// handVal is one value of a scalar parameter on a sample.
type handVal struct {
	frame uint8
	gv    int32
	bits  uint64
}

// handedTo reports whether scalar parameter o of a caller was handed on
// unchanged as parameter i of a callee: on HandEqual of the slow-run
// samples that read both (MinSamples at least) the values were equal, and
// took more than one value.
func (a *Analyzer) handedTo(o, i int32) bool {
	st := a.handEq[uint64(uint32(o))<<32|uint64(uint32(i))]
	return st != nil && st.two && st.both >= float64(a.opt.MinSamples) && st.eq >= HandEqual*st.both
}

// handPairs counts, on one sample of a slow run, each pair of scalar
// parameters (scalarArg) of two functions read in two frames, the inner
// one deeper, and whether their values were equal (handedTo).
func (r *Run) handPairs(s *model.Sample, nf int) {
	a := r.a
	hv := r.hands[:0]
	for j := range s.Values {
		v := &s.Values[j]
		if int(v.Frame) >= nf || int(v.Obj) >= len(r.objs) || r.objs[v.Obj] == nil {
			continue
		}
		oi := r.objs[v.Obj]
		if v.Var < 0 || int(v.Var) >= len(oi.varMap) {
			continue
		}
		if gv := oi.varMap[v.Var]; gv >= 0 && a.vars[gv].scalarArg {
			hv = append(hv, handVal{v.Frame, gv, v.Bits})
		}
	}
	r.hands = hv
	if len(hv) < 2 {
		return
	}
	if a.handEq == nil {
		a.handEq = map[uint64]*handStat{}
	}
	for _, o := range hv {
		for _, i := range hv {
			if i.frame >= o.frame || a.vars[i.gv].fn == a.vars[o.gv].fn {
				continue
			}
			k := uint64(uint32(o.gv))<<32 | uint64(uint32(i.gv))
			st := a.handEq[k]
			if st == nil {
				st = &handStat{}
				a.handEq[k] = st
			}
			st.both++
			if i.bits == o.bits {
				if st.eq == 0 {
					st.first = o.bits
				} else if o.bits != st.first {
					st.two = true
				}
				st.eq++
			}
		}
	}
}

// handingCallers ranks a caller whose evidence is what it hands on just
// below the callee it hands it to (handsOn; the conditions of
// placeBelowSoleCallee).
func (a *Analyzer) handingCallers(fns []Function, drivers []bool) {
	a.placeBelowSoleCallee(fns, drivers, func(A, D int) bool { return len(a.handScalar[A]) == 0 && a.handsOn(A, D) },
		"every variable of it that went wrong is a struct pointer it was given, or a field behind one, that the callee was given too and that went wrong there (D135)")
	a.placeBelowSoleCallee(fns, drivers, func(A, D int) bool { return len(a.handScalar[A]) > 0 && a.handsOn(A, D) },
		"every variable of it that went wrong is a parameter it hands on unchanged (the same values at the same samples) to a parameter of the callee that went wrong there, or a struct pointer it was given that the callee was given too (D135, D180)")
}
