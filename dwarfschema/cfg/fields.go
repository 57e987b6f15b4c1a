package cfg

import (
	"cmp"
	"math/bits"
	"slices"
)

// FieldVar is field Key as the caller's variable Var.
type FieldVar struct {
	Key FieldKey
	Var int32
}

// Fields maps fields to the caller's variable numbers. Each pointer's
// fields are a run of offsets sorted in one array, found by the pointer's
// rank among the pointers that have fields: a lookup is a popcount and a
// short search in one pointer's fields, where a map of 50,000 keys
// (redis-server) cost a hash and a cache miss per memory operand, and its
// building a sixth of the tagger's own time before the functions.
type Fields struct {
	ptrs  []uint64 // bit p: variable p has fields (variables are small numbers)
	rank  []int32  // per word of ptrs: the pointers with fields before it
	start []int32  // per pointer with fields, by rank: its run in offs and vars, and one past the last
	offs  []int64
	vars  []int32
	n     int // pointers with fields
}

// NewFieldList indexes fields as a map made by setting them in order
// would: of two entries with the same key, the later one counts.
// Fields of a negative Ptr (no variable) are never looked up: dropped.
func NewFieldList(list []FieldVar) *Fields {
	f := &Fields{}
	maxPtr := int32(-1)
	for _, e := range list {
		maxPtr = max(maxPtr, e.Key.Ptr)
	}
	if maxPtr < 0 {
		return f
	}
	f.ptrs = make([]uint64, int(maxPtr)/64+1)
	for _, e := range list {
		if p := e.Key.Ptr; p >= 0 {
			f.ptrs[p/64] |= 1 << (p % 64)
		}
	}
	f.rank = make([]int32, len(f.ptrs))
	n := 0
	for w, x := range f.ptrs {
		f.rank[w] = int32(n)
		n += bits.OnesCount64(x)
	}
	f.n = n
	// A counting sort by pointer keeps the list's order within each
	// pointer, then each pointer's run is sorted by offset, stably, and
	// the last of equal keys kept.
	f.start = make([]int32, n+1)
	for _, e := range list {
		if e.Key.Ptr >= 0 {
			f.start[f.rankOf(e.Key.Ptr)+1]++
		}
	}
	for r := 1; r <= n; r++ {
		f.start[r] += f.start[r-1]
	}
	total := f.start[n]
	sorted := make([]FieldVar, total)
	fill := slices.Clone(f.start[:n])
	for _, e := range list {
		if e.Key.Ptr >= 0 {
			r := f.rankOf(e.Key.Ptr)
			sorted[fill[r]] = e
			fill[r]++
		}
	}
	f.offs = make([]int64, 0, total)
	f.vars = make([]int32, 0, total)
	for r := range n {
		run := sorted[f.start[r]:f.start[r+1]]
		slices.SortStableFunc(run, func(x, y FieldVar) int { return cmp.Compare(x.Key.Off, y.Key.Off) })
		f.start[r] = int32(len(f.offs))
		for i, e := range run {
			if i+1 < len(run) && run[i+1].Key.Off == e.Key.Off {
				continue // a later entry of the same key wins
			}
			f.offs = append(f.offs, e.Key.Off)
			f.vars = append(f.vars, e.Var)
		}
	}
	f.start[n] = int32(len(f.offs))
	return f
}

// rankOf is the number of pointers with fields below p (p has fields).
func (f *Fields) rankOf(p int32) int32 {
	w := p / 64
	return f.rank[w] + int32(bits.OnesCount64(f.ptrs[w]&(1<<(p%64)-1)))
}

// HasFields reports whether variable p has fields.
func (f *Fields) HasFields(p int32) bool { return f != nil && f.isPtr(p) }

// isPtr reports whether variable p has fields.
func (f *Fields) isPtr(p int32) bool {
	return p >= 0 && int(p)/64 < len(f.ptrs) && f.ptrs[p/64]&(1<<(p%64)) != 0
}

// find returns the variable of field (p, off).
func (f *Fields) find(p int32, off int64) (int32, bool) {
	if !f.isPtr(p) {
		return 0, false
	}
	r := f.rankOf(p)
	lo, hi := f.start[r], f.start[r+1]
	for i := lo; i < hi; i++ { // a struct's scalar fields: a few (MaxFields)
		if o := f.offs[i]; o == off {
			return f.vars[i], true
		} else if o > off {
			break
		}
	}
	return 0, false
}
