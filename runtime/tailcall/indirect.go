package tailcall

import (
	"cmp"
	"slices"

	"github.com/vprof/vprof/runtime/model"
)

// Indirect is what restores the frames that tail calls removed under an
// indirect call (method.md §3, decision D85), found in an object's code
// and data rather than in its call-site records: an indirect call's record
// names no callee, but the call can reach only a function whose address
// the program takes. Addresses are link-time addresses of the object.
type Indirect struct {
	// Calls are the return addresses of the indirect calls (`call *%reg`,
	// `call *mem`), sorted.
	Calls []uint64
	// Taken are the function entries whose address is taken: an address
	// constant in the data (or a relocation that makes one), an operand of
	// an instruction other than a direct call or jump, or a symbol another
	// object can bind to (.dynsym). Sorted. It may hold more than the
	// functions an indirect call reaches, never fewer.
	Taken []uint64
	// Jumps are the direct jumps (jmp, jcc) from one function's code to
	// another function's entry: the object's tail calls as its code has
	// them, whether or not a call-site record describes them (Tail true).
	Jumps []model.CallEdge
}

// back is a tail call into a function, for the search from the frame
// under an indirect call back to the functions the call can reach.
type back struct {
	ret  uint64 // the tail call's return address (its frame's PC)
	from int32  // the function making it; -1: code of no known function
}

// indirect is the part of an Index that Indirect feeds.
type indirect struct {
	calls []uint64
	taken map[int32]bool
	into  map[int32][]back
	// chains: per function whose address is never taken, the chain of
	// tail calls to restore under an indirect call (chainUnder); functions
	// with none are absent.
	chains map[int32][]uint64
}

// AddIndirect lets x restore tail-call frames under indirect calls too,
// from in (nil: not). It must be called before x is shared.
func (x *Index) AddIndirect(in *Indirect) {
	if x == nil || in == nil || len(in.Calls) == 0 {
		return
	}
	d := &indirect{calls: in.Calls, taken: map[int32]bool{}, into: map[int32][]back{}}
	if !slices.IsSorted(d.calls) {
		d.calls = slices.Clone(d.calls)
		slices.Sort(d.calls)
	}
	for _, a := range in.Taken {
		if f := x.funcAt(a); f >= 0 {
			d.taken[f] = true
		}
	}
	add := func(e model.CallEdge) {
		if !e.Tail || e.ReturnPC == 0 {
			return
		}
		to, from := x.funcAt(e.Callee), x.funcAt(e.ReturnPC-1)
		if to < 0 || to == from {
			return
		}
		b := back{e.ReturnPC, from}
		if !slices.Contains(d.into[to], b) {
			d.into[to] = append(d.into[to], b)
		}
	}
	for _, e := range x.edges {
		add(e)
	}
	for _, e := range in.Jumps {
		add(e)
	}
	for _, bs := range d.into {
		slices.SortFunc(bs, func(a, b back) int { return cmp.Compare(a.ret, b.ret) })
	}
	d.chains = map[int32][]uint64{}
	for f := range d.into {
		if !d.taken[f] {
			if c := d.chainUnder(f); c != nil {
				d.chains[f] = c
			}
		}
	}
	x.ind = d
}

// isIndirect reports whether the call returning to ret is an indirect one.
func (d *indirect) isIndirect(ret uint64) bool {
	_, ok := slices.BinarySearch(d.calls, ret)
	return ok
}

// underIndirect appends to dst the frames that tail calls removed between
// an indirect call, returning to ret, and the frame under it, function f:
// the call reached a function whose address is taken, and a function
// whose address is never taken can only have been reached from it by
// tail calls. Searching back from f over the tail calls into it (at most
// MaxChain), every function whose address is taken that the search meets
// is one the call may have reached, with the chain from it to f; f
// itself is one (with no chain) if its address is taken. Exactly one
// such function, and a chain that no code of an unknown function joins,
// restores that chain; two or more restore nothing.
func (x *Index) underIndirect(dst []uint64, f int32, ret uint64) []uint64 {
	d := x.ind
	if d == nil {
		return dst
	}
	c, ok := d.chains[f]
	if !ok || !d.isIndirect(ret) {
		return dst
	}
	return append(dst, c...)
}

// chainUnder is the search underIndirect describes, for function f whose
// address is never taken: the chain of return addresses (innermost first)
// to restore under an indirect call that f's frame sits under, or nil.
// It depends on f alone, so AddIndirect runs it once per function a tail
// call reaches, off the per-sample path.
func (d *indirect) chainUnder(f int32) []uint64 {
	var (
		path            [MaxChain]uint64 // return addresses, innermost first
		found           [MaxChain]uint64
		nfound, nfounds int
		steps           int
		on              = map[int32]bool{f: true}
	)
	var walk func(fn int32, depth int) bool
	walk = func(fn int32, depth int) bool {
		for _, b := range d.into[fn] {
			if steps++; steps > maxSteps || b.from < 0 {
				return false
			}
			if on[b.from] {
				continue
			}
			path[depth] = b.ret
			if d.taken[b.from] {
				if nfounds++; nfounds > 1 {
					return false
				}
				nfound = depth + 1
				copy(found[:], path[:nfound])
			}
			// A chain longer than MaxChain may lead to another function
			// the call can reach: not knowing it, restore nothing.
			if len(d.into[b.from]) > 0 && depth+1 >= MaxChain {
				return false
			}
			on[b.from] = true
			ok := walk(b.from, depth+1)
			delete(on, b.from)
			if !ok {
				return false
			}
		}
		return true
	}
	if !walk(f, 0) || nfounds != 1 {
		return nil
	}
	return slices.Clone(found[:nfound])
}
