// Package pcindex answers, for one object's schema, the sampler's per-tick
// questions: which variables are accessible at this PC (the paper's
// PCToVarTable and VariableArray), which function is executing there
// (inline-aware) and which source line.
//
// The PC space is cut into elementary segments at every boundary of every
// location range; each segment lists the Locs live over all of it. A
// look-up is one binary search over the segment starts — O(log n), no
// allocation — and returns a slice of the index's own storage.
package pcindex

import (
	"slices"

	"github.com/vprof/vprof/dwarfschema"
)

// Index is immutable once built and safe for concurrent use.
type Index struct {
	s *dwarfschema.Schema

	// Variables: segment i is [starts[i], starts[i+1]) and holds
	// locs[offs[i]:offs[i+1]]. The last segment is always empty.
	starts []uint64
	offs   []int32
	locs   []int32
	pages  pageTable // narrows the binary search over starts

	globals []int32

	// Functions: segment i is [fstarts[i], fstarts[i+1]), executing
	// inner[i] (innermost inlined instance) inside outer[i] (the
	// out-of-line function); -1 where no function is known.
	fstarts []uint64
	inner   []dwarfschema.FuncID
	outer   []dwarfschema.FuncID
}

// New builds the index of s. Locs valid over the whole object (a global's
// DWARF location, PC range [0, max)) are returned by Globals rather than
// Lookup; every other Loc, including a global's location narrowed to the
// functions that use it, is returned by Lookup over its range.
func New(s *dwarfschema.Schema) *Index {
	ix := &Index{s: s}
	ix.buildVars()
	ix.buildFuncs()
	return ix
}

type event struct {
	pc    uint64
	id    int32 // Loc index, or for functions an entry number
	start bool
}

func sortEvents(ev []event) {
	slices.SortFunc(ev, func(a, b event) int {
		switch {
		case a.pc < b.pc:
			return -1
		case a.pc > b.pc:
			return 1
		case a.start == b.start:
			return 0
		case !a.start:
			return -1 // ends before starts at one PC
		}
		return 1
	})
}

func (ix *Index) buildVars() {
	s := ix.s
	ev := make([]event, 0, 2*len(s.Locs))
	for i := range s.Locs {
		l := &s.Locs[i]
		if int(l.Var) < 0 || int(l.Var) >= len(s.Vars) || l.PCEnd <= l.PCStart {
			continue
		}
		if s.Vars[l.Var].Func == dwarfschema.NoFunc && l.PCStart == 0 && l.PCEnd == ^uint64(0) {
			// Valid over the whole object: kept out of the segments,
			// where it would be copied into every one.
			ix.globals = append(ix.globals, int32(i))
			continue
		}
		ev = append(ev, event{l.PCStart, int32(i), true}, event{l.PCEnd, int32(i), false})
	}
	sortEvents(ev)
	// Sweep: the active set changes only at events; emit one segment per
	// distinct PC with the set live from there on.
	pos := make([]int32, len(s.Locs)) // Loc -> index in active
	var active []int32
	ix.offs = append(ix.offs, 0)
	for k := 0; k < len(ev); {
		pc := ev[k].pc
		for ; k < len(ev) && ev[k].pc == pc; k++ {
			e := ev[k]
			if e.start {
				pos[e.id] = int32(len(active))
				active = append(active, e.id)
			} else {
				p := pos[e.id]
				last := active[len(active)-1]
				active[p] = last
				pos[last] = p
				active = active[:len(active)-1]
			}
		}
		seg := len(ix.locs)
		ix.locs = append(ix.locs, active...)
		// Deterministic order: by variable, then Loc index.
		slices.SortFunc(ix.locs[seg:], func(a, b int32) int {
			if va, vb := s.Locs[a].Var, s.Locs[b].Var; va != vb {
				return int(va - vb)
			}
			return int(a - b)
		})
		ix.starts = append(ix.starts, pc)
		ix.offs = append(ix.offs, int32(len(ix.locs)))
	}
	ix.pages = newPageTable(ix.starts)
}

// pageShift sets the granularity of pageTable: 4 KiB of code.
const pageShift = 12

// pageTable maps each page of the covered PC span to the first segment
// starting at or before it, so a look-up binary-searches only the few
// segments of one page (one or two cache lines) instead of all of them.
type pageTable struct {
	base  uint64
	first []int32 // first[p] = index of the last start <= base + p<<pageShift
}

// maxPages bounds the table (64 MiB of code spans 16 K pages); a wider
// span falls back to a plain binary search.
const maxPages = 1 << 16

func newPageTable(starts []uint64) pageTable {
	if len(starts) == 0 {
		return pageTable{}
	}
	lo, hi := starts[0]>>pageShift, starts[len(starts)-1]>>pageShift
	if hi-lo+1 > maxPages {
		return pageTable{}
	}
	pt := pageTable{base: lo << pageShift, first: make([]int32, hi-lo+2)}
	j := 0
	for p := range pt.first {
		pc := pt.base + uint64(p)<<pageShift
		for j+1 < len(starts) && starts[j+1] <= pc {
			j++
		}
		pt.first[p] = int32(j)
	}
	return pt
}

// find returns the index of the last start <= pc, or -1.
func (pt *pageTable) find(starts []uint64, pc uint64) int {
	if pt.first == nil || pc < pt.base {
		return search(starts, pc)
	}
	p := (pc - pt.base) >> pageShift
	if p+1 >= uint64(len(pt.first)) {
		return search(starts, pc)
	}
	lo, hi := int(pt.first[p]), int(pt.first[p+1])+1
	return lo + search(starts[lo:hi], pc)
}

func (ix *Index) buildFuncs() {
	s := ix.s
	type entry struct {
		fn    dwarfschema.FuncID
		depth int32
	}
	var ents []entry
	var ev []event
	add := func(fn dwarfschema.FuncID, depth int32, rs []dwarfschema.PCRange) {
		id := int32(len(ents))
		ents = append(ents, entry{fn, depth})
		for _, r := range rs {
			if r.Hi > r.Lo {
				ev = append(ev, event{r.Lo, id, true}, event{r.Hi, id, false})
			}
		}
	}
	for i := range s.Funcs {
		add(dwarfschema.FuncID(i), 0, s.Funcs[i].Ranges)
	}
	for i := range s.Inlines {
		in := &s.Inlines[i]
		add(in.Func, in.Depth, in.Ranges)
	}
	sortEvents(ev)
	// Live entries: few overlap at any PC (a function and its inline
	// nest), so a slice with linear removal beats a map.
	var live []int32
	for k := 0; k < len(ev); {
		pc := ev[k].pc
		for ; k < len(ev) && ev[k].pc == pc; k++ {
			if ev[k].start {
				live = append(live, ev[k].id)
			} else if p := slices.Index(live, ev[k].id); p >= 0 {
				live = slices.Delete(live, p, p+1)
			}
		}
		in, out := dwarfschema.FuncID(-1), dwarfschema.FuncID(-1)
		bestIn, bestOut := int32(-1), int32(-1)
		for _, id := range live {
			e := ents[id]
			// Innermost: deepest instance; ties to the lower entry for
			// determinism. Outermost: a depth-0 function.
			if e.depth > bestIn || (e.depth == bestIn && e.fn < in) {
				bestIn, in = e.depth, e.fn
			}
			if e.depth == 0 && (bestOut < 0 || e.fn < out) {
				bestOut, out = 0, e.fn
			}
		}
		if n := len(ix.fstarts); n > 0 && ix.inner[n-1] == in && ix.outer[n-1] == out {
			continue // same function as the segment before: merge
		}
		ix.fstarts = append(ix.fstarts, pc)
		ix.inner = append(ix.inner, in)
		ix.outer = append(ix.outer, out)
	}
}

// search returns the index of the last start <= pc, or -1.
func search(starts []uint64, pc uint64) int {
	lo, hi := 0, len(starts)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if starts[m] <= pc {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo - 1
}

// Lookup returns the indices into Schema.Locs of the variables accessible
// at link-time address pc (other than those of Globals), ordered by
// variable. The slice is the
// index's own: do not modify it. It does not allocate.
func (ix *Index) Lookup(pc uint64) []int32 {
	i := ix.pages.find(ix.starts, pc)
	if i < 0 {
		return nil
	}
	return ix.locs[ix.offs[i]:ix.offs[i+1]]
}

// Globals returns the indices into Schema.Locs valid at every PC.
func (ix *Index) Globals() []int32 { return ix.globals }

// Func returns the function executing at pc: the innermost inlined
// instance if pc is in inlined code.
func (ix *Index) Func(pc uint64) (dwarfschema.FuncID, bool) {
	i := search(ix.fstarts, pc)
	if i < 0 || ix.inner[i] < 0 {
		return -1, false
	}
	return ix.inner[i], true
}

// OuterFunc returns the out-of-line function whose code contains pc.
func (ix *Index) OuterFunc(pc uint64) (dwarfschema.FuncID, bool) {
	i := search(ix.fstarts, pc)
	if i < 0 || ix.outer[i] < 0 {
		return -1, false
	}
	return ix.outer[i], true
}

// Line returns the source file and line of pc, from the line table.
func (ix *Index) Line(pc uint64) (file string, line int32, ok bool) {
	ls := ix.s.Lines
	lo, hi := 0, len(ls)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if ls[m].PC <= pc {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 {
		return "", 0, false
	}
	r := ls[lo-1]
	if r.Line == 0 {
		return "", 0, false // end of sequence or compiler-generated
	}
	if r.File >= 0 && int(r.File) < len(ix.s.Files) {
		file = ix.s.Files[r.File]
	}
	return file, r.Line, true
}

// Symbol returns the ELF symbol containing pc, for objects without DWARF
// and for library frames.
func (ix *Index) Symbol(pc uint64) (*dwarfschema.Symbol, bool) {
	ss := ix.s.Symbols
	lo, hi := 0, len(ss)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if ss[m].Value <= pc {
			lo = m + 1
		} else {
			hi = m
		}
	}
	// Walk back over zero-sized or shorter symbols at lower addresses.
	for i := lo - 1; i >= 0 && i >= lo-4; i-- {
		if s := &ss[i]; pc < s.Value+max(s.Size, 1) {
			return s, true
		}
	}
	return nil, false
}
