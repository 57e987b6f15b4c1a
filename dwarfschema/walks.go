package dwarfschema

import (
	"cmp"
	"fmt"
	"slices"
	"sort"

	"github.com/vprof/vprof/dwarfschema/cfg"
	"github.com/vprof/vprof/runtime/model"
)

// funcWalk is a walk (cfg.Walk) of function F (the innermost function
// whose code holds the loop).
type funcWalk struct {
	F int32
	W cfg.Walk
}

// ownWalk returns walk w found in the code of function f as the walk of
// the innermost function whose code holds its loop, unless variables of
// that function live in the cursor's register (or are computed from it)
// over all of the loop's code: then one of them is the cursor, sampled
// already. Locations of an inlined callee's variables (`a` of an equality
// test inlined in the walk, which is the element) do not count: the
// walk's own function has no variable that steps with it.
func ownWalk(s *model.Schema, inl *inlineIndex, f int32, w cfg.Walk) (funcWalk, bool) {
	fn := inl.innermost(f, &w)
	var own []cfg.NamedRange
	for _, n := range w.Named {
		if int(n.Var) < len(s.Vars) && s.Vars[n.Var].Func == fn {
			own = append(own, n)
		}
	}
	slices.SortFunc(own, func(a, b cfg.NamedRange) int { return cmp.Compare(a.Lo, b.Lo) })
	for _, r := range w.Ranges {
		at := r.Lo
		for _, n := range own {
			if n.Lo > at {
				break
			}
			at = max(at, n.Hi)
		}
		if at < r.Hi {
			w.Named = nil
			w.Ranges = slices.Clone(w.Ranges)
			return funcWalk{fn, w}, true
		}
	}
	return funcWalk{}, false
}

// WalkPrefix starts the name of a walk's synthetic variable (see
// model.WalkPrefix).
const WalkPrefix = model.WalkPrefix

// addWalks adds each walk of walks, in a function keep accepts, to s as
// a synthetic variable of function F (ownWalk): a pointer tagged loop,
// named `<walk@LINE>` after the line of its first chasing load
// (`<walk@0xADDR>`, its address, where the line table has none), that
// lives in the cursor's register over the loop's code. A walk whose code lies inside another walk's on the
// same register (a loop nested in a walk, stepping the same cursor) is
// that walk.
func addWalks(s *model.Schema, walks []funcWalk, keep func(model.FuncID) bool) {
	if len(walks) == 0 {
		return
	}
	slices.SortFunc(walks, compareWalks)
	type nameKey struct {
		f    model.FuncID
		name string
	}
	names := map[nameKey]bool{}
	added := false
	for i, w := range walks {
		nested := false
		for j := i - 1; j >= 0 && walks[j].F == w.F && walks[j].W.Reg == w.W.Reg; j-- {
			if within(w.W.Ranges, walks[j].W.Ranges) {
				nested = true
				break
			}
		}
		if nested {
			continue
		}
		fn := w.F
		if !keep(fn) {
			continue
		}
		file, line := int32(-1), int32(0)
		if k := sort.Search(len(s.Lines), func(k int) bool { return s.Lines[k].PC > w.W.Load }) - 1; k >= 0 {
			file, line = s.Lines[k].File, s.Lines[k].Line
		}
		at := fmt.Sprint(line)
		if line <= 0 || file < 0 {
			// No line: the load's address names the walk.
			file, line, at = -1, 0, fmt.Sprintf("%#x", w.W.Load)
		}
		name := WalkPrefix + at + ">"
		for n := 2; names[nameKey{fn, name}]; n++ {
			name = fmt.Sprintf("%s%s.%d>", WalkPrefix, at, n)
		}
		names[nameKey{fn, name}] = true
		v := model.VarID(len(s.Vars))
		s.Vars = append(s.Vars, model.Var{
			Name: name, Func: fn, File: file, Line: line,
			Type: "void *", Kind: model.KindPointer, Size: 8, Tags: model.TagLoop,
		})
		expr := []byte{0x50 + byte(w.W.Reg)} // DW_OP_regN
		for _, r := range w.W.Ranges {
			s.Locs = append(s.Locs, model.Loc{Var: v, PCStart: r.Lo, PCEnd: r.Hi,
				Kind: model.LocReg, Reg: w.W.Reg, Expr: expr, Size: 8})
		}
		added = true
	}
	if added {
		// By address only, stably: the other locations keep their order.
		slices.SortStableFunc(s.Locs, func(a, b model.Loc) int { return cmp.Compare(a.PCStart, b.PCStart) })
	}
}

// compareWalks orders walks by function, register, the larger walk (a
// nesting one) first, then by their code and load, so that walks alike
// in the first three are in one order whatever order the tagger's
// workers gave them in (that order depends on which worker analysed
// which function; with ties left to the sort, gold's table and the walks
// kept as nested changed from one run to the next).
func compareWalks(a, b funcWalk) int {
	if x := cmp.Compare(a.F, b.F); x != 0 {
		return x
	}
	if x := cmp.Compare(a.W.Reg, b.W.Reg); x != 0 {
		return x
	}
	if x := cmp.Compare(b.W.Ranges[len(b.W.Ranges)-1].Hi-b.W.Ranges[0].Lo,
		a.W.Ranges[len(a.W.Ranges)-1].Hi-a.W.Ranges[0].Lo); x != 0 {
		return x
	}
	if x := slices.CompareFunc(a.W.Ranges, b.W.Ranges, func(x, y cfg.Range) int {
		if c := cmp.Compare(x.Lo, y.Lo); c != 0 {
			return c
		}
		return cmp.Compare(x.Hi, y.Hi)
	}); x != 0 {
		return x
	}
	return cmp.Compare(a.W.Load, b.W.Load)
}

// within reports whether every range of a lies inside one of b's (both
// sorted and disjoint).
func within(a, b []cfg.Range) bool {
	for _, r := range a {
		k := sort.Search(len(b), func(k int) bool { return b[k].Hi > r.Lo })
		if k == len(b) || b[k].Lo > r.Lo || b[k].Hi < r.Hi {
			return false
		}
	}
	return true
}

// innermostFunc returns the function whose loop the walk is, in the code
// of function f: the deepest inlined instance whose code holds all of
// the loop's (an accessor inlined at the chasing load, `_M_next()`, has
// no loop of its own), or f. Of instances of equal depth the first in
// s.Inlines counts.
func innermostFunc(s *model.Schema, f int32, w *cfg.Walk) model.FuncID {
	best, depth := model.FuncID(f), int32(0)
	for i := range s.Inlines {
		in := &s.Inlines[i]
		if in.Depth <= depth || !withinPC(w.Ranges, in.Ranges) {
			continue
		}
		best, depth = in.Func, in.Depth
	}
	return best
}

// inlineIndex answers innermostFunc without trying every inlined
// instance of the binary for every walk (on redis-server some 12,000
// instances, each a binary search, for each of the tagger's walks). An
// instance holds a walk's code only if one of its ranges holds the
// walk's first range (the one of lowest address); the instances' ranges
// are indexed by start, with the running maximum of their ends, so that
// the search goes down from the last range starting at or before the
// walk and stops where no range up to there ends late enough. Each
// instance found is then checked as innermostFunc checks it.
type inlineIndex struct {
	s     *model.Schema
	lo    []uint64 // the ranges' starts, in order
	hi    []uint64 // their ends
	maxHi []uint64 // the greatest end of ranges 0..i
	inl   []int32  // the instance (index in s.Inlines) of each range
}

func newInlineIndex(s *model.Schema) *inlineIndex {
	type rng struct {
		lo, hi uint64
		inl    int32
	}
	var rs []rng
	for i := range s.Inlines {
		for _, r := range s.Inlines[i].Ranges {
			rs = append(rs, rng{r.Lo, r.Hi, int32(i)})
		}
	}
	slices.SortFunc(rs, func(a, b rng) int { return cmp.Compare(a.lo, b.lo) })
	x := &inlineIndex{s: s, lo: make([]uint64, len(rs)), hi: make([]uint64, len(rs)), maxHi: make([]uint64, len(rs)), inl: make([]int32, len(rs))}
	var top uint64
	for i, r := range rs {
		top = max(top, r.hi)
		x.lo[i], x.hi[i], x.maxHi[i], x.inl[i] = r.lo, r.hi, top, r.inl
	}
	return x
}

// innermost is innermostFunc(x.s, f, w).
func (x *inlineIndex) innermost(f int32, w *cfg.Walk) model.FuncID {
	if len(w.Ranges) == 0 {
		return innermostFunc(x.s, f, w)
	}
	first := w.Ranges[0]
	for _, r := range w.Ranges[1:] {
		if r.Lo < first.Lo {
			first = r
		}
	}
	best, depth, bestIdx := model.FuncID(f), int32(0), int32(-1)
	for i := sort.Search(len(x.lo), func(i int) bool { return x.lo[i] > first.Lo }) - 1; i >= 0 && x.maxHi[i] >= first.Hi; i-- {
		if x.hi[i] < first.Hi {
			continue
		}
		k := x.inl[i]
		in := &x.s.Inlines[k]
		// The deepest; of equal depth the first in s.Inlines, as
		// innermostFunc's scan keeps it.
		if in.Depth <= 0 || in.Depth < depth || (in.Depth == depth && k > bestIdx) || !withinPC(w.Ranges, in.Ranges) {
			continue
		}
		best, depth, bestIdx = in.Func, in.Depth, k
	}
	return best
}

// withinPC reports whether every range of a lies inside one of b's (both
// sorted and disjoint).
func withinPC(a []cfg.Range, b []model.PCRange) bool {
	for _, r := range a {
		k := sort.Search(len(b), func(k int) bool { return b[k].Hi > r.Lo })
		if k == len(b) || b[k].Lo > r.Lo || b[k].Hi < r.Hi {
			return false
		}
	}
	return true
}
