package dwarfschema

import (
	"cmp"
	"slices"

	"github.com/vprof/vprof/runtime/model"
)

// addStrLens adds, for each monitored local or parameter of s that is a
// pointer to char (a pointee of one byte, signed or unsigned) and has
// locations of its own, a string length variable (method.md §2, decision
// D140): `strlen(NAME)`, an unsigned integer of the pointer's function,
// line and tags, located where the pointer is, whose value the sampler
// reads as the length of the string the pointer points at, up to
// model.StrLenBound. A string that a loop builds with strcat or
// sprintf(buf + strlen(buf)) grows with every append, and its length is
// the only number that says so: a pointer is compared as null or not
// (§5), and the function's walk is the library's (D124).
func addStrLens(s *model.Schema) {
	byVar := map[model.VarID][]int{}
	for i := range s.Locs {
		l := &s.Locs[i]
		if l.StrLen || int(l.Var) >= len(s.Vars) || !isCharPtr(&s.Vars[l.Var]) {
			continue
		}
		byVar[l.Var] = append(byVar[l.Var], i)
	}
	if len(byVar) == 0 {
		return
	}
	n := len(s.Vars)
	for v := 0; v < n; v++ {
		locs := byVar[model.VarID(v)]
		if len(locs) == 0 {
			continue
		}
		p := s.Vars[v]
		id := model.VarID(len(s.Vars))
		s.Vars = append(s.Vars, model.Var{
			Name: model.StrLenPrefix + p.Name + ")", Func: p.Func, File: p.File, Line: p.Line,
			Type: "size_t", Kind: model.KindUint, Size: 8, Param: p.Param, Tags: p.Tags,
		})
		for _, i := range locs {
			l := s.Locs[i]
			l.Var, l.StrLen, l.BasicTypePtr = id, true, false
			s.Locs = append(s.Locs, l)
		}
	}
	// By address only, stably: the other locations keep their order.
	slices.SortStableFunc(s.Locs, func(a, b model.Loc) int { return cmp.Compare(a.PCStart, b.PCStart) })
}

// isCharPtr reports whether v is a monitored local or parameter that
// points to char: a tagged pointer of a function, not a field, whose
// pointee is one byte of an integer kind.
func isCharPtr(v *model.Var) bool {
	return v.Kind == model.KindPointer && v.Size == 8 && v.Func != model.NoFunc && !v.Static &&
		v.Field == nil && v.Tags != 0 && v.PointeeSize == 1 &&
		(v.PointeeKind == model.KindInt || v.PointeeKind == model.KindUint)
}
