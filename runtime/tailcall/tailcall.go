// Package tailcall recovers the frames that tail calls removed from a
// stack (method.md §3, "Tail calls"), from an object's call-site records
// (model.Schema.TailCalls), as gdb's tail-call frames do.
//
// A function T that ends in a call (`return f(x);`, `if (c) f(x);` last)
// is compiled at -O2 into a jump to f: T's frame is reused by f, and no
// stack sampled while f runs shows T. The caller's frame C does: its
// return address is that of its call into T, whose record names T. When
// the frame found under C is a function F other than T, and exactly one
// chain of tail calls T -> T2 -> ... -> F leads from T to F, the frames
// T, T2, ... sat between C and F and are restored, each at the return
// address of its tail call (the address after the jump), so that its
// line is the jump's. Where no chain, or more than one, leads to F,
// nothing is restored: a frame that may not have been there is worse
// than a missing one.
package tailcall

import (
	"cmp"
	"slices"

	"github.com/vprof/vprof/runtime/model"
)

// MaxChain bounds the tail calls restored between two frames, and
// maxSteps the search for them: a longer or costlier chain restores
// nothing.
const (
	MaxChain = 8
	maxSteps = 4096
)

// Index answers, for one object, which tail-call frames sat between a
// caller frame and the frame under it. It is read-only once made, safe
// for concurrent use.
type Index struct {
	funcs []frange          // out-of-line code by address, disjoint
	edges []model.CallEdge  // sorted by ReturnPC
	tails map[int32][]int32 // function -> its tail calls (indices in edges)
	ind   *indirect         // AddIndirect's, or nil
}

type frange struct {
	lo, hi uint64
	fn     int32
}

// New indexes s's functions and the call edges given (s.TailCalls, or the
// records read afresh for a schema recorded without them). It returns nil
// when no edge is a tail call: there is nothing to restore.
func New(s *model.Schema, edges []model.CallEdge) *Index {
	if !slices.ContainsFunc(edges, func(e model.CallEdge) bool { return e.Tail }) {
		return nil
	}
	x := &Index{edges: edges, tails: map[int32][]int32{}}
	for i := range s.Funcs {
		for _, r := range s.Funcs[i].Ranges {
			if r.Hi > r.Lo {
				x.funcs = append(x.funcs, frange{r.Lo, r.Hi, int32(i)})
			}
		}
	}
	slices.SortFunc(x.funcs, func(a, b frange) int { return cmp.Compare(a.lo, b.lo) })
	if !slices.IsSortedFunc(edges, func(a, b model.CallEdge) int { return cmp.Compare(a.ReturnPC, b.ReturnPC) }) {
		x.edges = slices.Clone(edges)
		slices.SortStableFunc(x.edges, func(a, b model.CallEdge) int { return cmp.Compare(a.ReturnPC, b.ReturnPC) })
	}
	for i, e := range x.edges {
		if !e.Tail || e.ReturnPC == 0 {
			continue
		}
		if f := x.funcAt(e.ReturnPC - 1); f >= 0 {
			x.tails[f] = append(x.tails[f], int32(i))
		}
	}
	return x
}

// funcAt returns the function whose out-of-line code holds pc, or -1.
func (x *Index) funcAt(pc uint64) int32 {
	i, _ := slices.BinarySearchFunc(x.funcs, pc, func(r frange, pc uint64) int {
		if r.lo > pc {
			return 1
		}
		return -1
	})
	if i--; i >= 0 && pc < x.funcs[i].hi {
		return x.funcs[i].fn
	}
	return -1
}

// edgeAt returns the call edge whose return address is ret, or nil.
func (x *Index) edgeAt(ret uint64) *model.CallEdge {
	i, ok := slices.BinarySearchFunc(x.edges, ret, func(e model.CallEdge, ret uint64) int { return cmp.Compare(e.ReturnPC, ret) })
	if !ok {
		return nil
	}
	return &x.edges[i]
}

// Mismatch reports whether the call returning to ret names its callee
// and that callee is not the function at pc (a PC the callee frame runs at,
// as Between takes it): then the function under that call is not the one
// its call-site record describes, and the record's argument values are
// not its entry values. Calls to functions that make no tail call are
// not indexed: their callee is the frame under them. With AddIndirect's
// data, an indirect call mismatches a function whose address is never
// taken: the call cannot have reached it.
func (x *Index) Mismatch(pc uint64, inner bool, ret uint64) bool {
	if x == nil {
		return false
	}
	if !inner {
		pc--
	}
	call := x.edgeAt(ret)
	if call == nil {
		d := x.ind
		if d == nil || !d.isIndirect(ret) {
			return false
		}
		f := x.funcAt(pc)
		return f >= 0 && !d.taken[f]
	}
	target, f := x.funcAt(call.Callee), x.funcAt(pc)
	return target >= 0 && f >= 0 && target != f
}

// IsTail reports whether pc, a caller frame's PC, is the return address
// of a tail call: a frame that the recorder restored (no call returns
// after a jump).
func (x *Index) IsTail(pc uint64) bool {
	if x == nil {
		return false
	}
	e := x.edgeAt(pc)
	return e != nil && e.Tail
}

// Between appends to dst the frames that tail calls removed between a
// caller frame, whose return address is ret, and the frame under it, at
// pc: the return addresses of those tail calls, innermost first, as a
// stack holds its frames. below is pc's frame: true for the innermost
// frame (pc is where it runs), false for a caller frame (pc is a return
// address, looked up at pc - 1). All addresses are link-time addresses of
// this Index's object. Nothing is appended unless the call at ret names
// its callee, the callee is not pc's function, and exactly one chain of
// at most MaxChain tail calls leads from it to pc's function; or, with
// AddIndirect's data, the call at ret is an indirect one and exactly one
// function it can reach leads to pc's function (underIndirect).
func (x *Index) Between(dst []uint64, pc uint64, inner bool, ret uint64) []uint64 {
	if x == nil {
		return dst
	}
	call := x.edgeAt(ret)
	if call != nil && call.Tail {
		return dst
	}
	if !inner {
		if pc == 0 {
			return dst
		}
		pc--
	}
	if call == nil {
		if x.ind == nil {
			return dst
		}
		if f := x.funcAt(pc); f >= 0 {
			return x.underIndirect(dst, f, ret)
		}
		return dst
	}
	target, f := x.funcAt(call.Callee), x.funcAt(pc)
	if target < 0 || f < 0 || target == f {
		return dst
	}
	var (
		path            [MaxChain]int32 // the tail calls taken, outermost first
		found           [MaxChain]int32
		nfound, nfounds int
		steps           int
		on              = map[int32]bool{target: true} // functions on the path
	)
	// Depth-first over the tail calls from target; a function is entered
	// once per path, and the search stops at the second chain found.
	var walk func(fn int32, depth int) bool
	walk = func(fn int32, depth int) bool {
		for _, ei := range x.tails[fn] {
			if steps++; steps > maxSteps {
				return false
			}
			next := x.funcAt(x.edges[ei].Callee)
			if next < 0 || on[next] {
				continue
			}
			path[depth] = ei
			if next == f {
				if nfounds++; nfounds > 1 {
					return false
				}
				nfound = depth + 1
				copy(found[:], path[:nfound])
				continue
			}
			if depth+1 < MaxChain {
				on[next] = true
				ok := walk(next, depth+1)
				delete(on, next)
				if !ok {
					return false
				}
			}
		}
		return true
	}
	if !walk(target, 0) || nfounds != 1 {
		return dst
	}
	for i := nfound - 1; i >= 0; i-- {
		dst = append(dst, x.edges[found[i]].ReturnPC)
	}
	return dst
}
