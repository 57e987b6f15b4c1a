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
	"sort"

	"github.com/vprof/vprof/runtime/model"
)

// Index is immutable once built and safe for concurrent use.
type Index struct {
	s *model.Schema

	// Variables: segment i is [starts[i], starts[i+1]) and holds
	// locs[offs[i]:offs[i+1]]. The last segment is always empty.
	starts []uint64
	offs   []int32
	locs   []int32
	pages  pageTable // narrows the binary search over starts

	globals []int32

	// Functions: segment i is [fstarts[i], fstarts[i+1]) and executes
	// inline chain fchain[i] (-1 where no function is known). Chain c is
	// chains[coffs[c]:coffs[c+1]]: the innermost inlined instance first,
	// then the functions it is inlined into, out to the out-of-line
	// function that holds the machine code. Chains are interned, so their
	// IDs are dense and few.
	fstarts []uint64
	fchain  []int32
	chains  []model.FuncID
	coffs   []int32
	couter  []bool    // chain ends at an out-of-line function
	fpages  pageTable // narrows the binary search over fstarts
}

// New builds the index of s. Locs valid over the whole object (a global's
// DWARF location, PC range [0, max)) are returned by Globals rather than
// Lookup; every other Loc, including a global's location narrowed to the
// functions that use it, is returned by Lookup over its range.
func New(s *model.Schema) *Index {
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
		if s.Vars[l.Var].Func == model.NoFunc && l.PCStart == 0 && l.PCEnd == ^uint64(0) {
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
		fn    model.FuncID
		depth int32
	}
	var ents []entry
	var ev []event
	add := func(fn model.FuncID, depth int32, rs []model.PCRange) {
		id := int32(len(ents))
		ents = append(ents, entry{fn, depth})
		for _, r := range rs {
			if r.Hi > r.Lo {
				ev = append(ev, event{r.Lo, id, true}, event{r.Hi, id, false})
			}
		}
	}
	for i := range s.Funcs {
		add(model.FuncID(i), 0, s.Funcs[i].Ranges)
	}
	for i := range s.Inlines {
		in := &s.Inlines[i]
		add(in.Func, max(in.Depth, 1), in.Ranges)
	}
	sortEvents(ev)
	ix.coffs = []int32{0}
	interned := map[string]int32{}
	var key []byte
	// Live entries: few overlap at any PC (a function and its inline
	// nest), so a slice with linear removal beats a map.
	var live []int32
	var chain []model.FuncID
	for k := 0; k < len(ev); {
		pc := ev[k].pc
		for ; k < len(ev) && ev[k].pc == pc; k++ {
			if ev[k].start {
				live = append(live, ev[k].id)
			} else if p := slices.Index(live, ev[k].id); p >= 0 {
				live = slices.Delete(live, p, p+1)
			}
		}
		// The chain: one instance per inline depth, deepest first; of two
		// at one depth (ranges that overlap without nesting) the lower
		// function, for determinism. It ends at the out-of-line function.
		slices.SortFunc(live, func(a, b int32) int {
			ea, eb := ents[a], ents[b]
			if ea.depth != eb.depth {
				return int(eb.depth - ea.depth)
			}
			return int(ea.fn - eb.fn)
		})
		chain = chain[:0]
		lastDepth := int32(-1)
		for _, id := range live {
			e := ents[id]
			if e.depth == lastDepth {
				continue
			}
			lastDepth = e.depth
			if n := len(chain); n > 0 && chain[n-1] == e.fn {
				continue // recursion inlined into itself reads as one
			}
			chain = append(chain, e.fn)
		}
		// Inlined code outside every function's ranges (broken DWARF)
		// has a chain without an out-of-line function.
		outer := lastDepth == 0
		cid := int32(-1)
		if len(chain) > 0 {
			key = append(key[:0], 0)
			if outer {
				key[0] = 1
			}
			for _, f := range chain {
				key = append(key, byte(f), byte(f>>8), byte(f>>16), byte(f>>24))
			}
			var ok bool
			if cid, ok = interned[string(key)]; !ok {
				cid = int32(len(ix.coffs) - 1)
				interned[string(key)] = cid
				ix.chains = append(ix.chains, chain...)
				ix.coffs = append(ix.coffs, int32(len(ix.chains)))
				ix.couter = append(ix.couter, outer)
			}
		}
		if n := len(ix.fstarts); n > 0 && ix.fchain[n-1] == cid {
			continue // same chain as the segment before: merge
		}
		ix.fstarts = append(ix.fstarts, pc)
		ix.fchain = append(ix.fchain, cid)
	}
	ix.fpages = newPageTable(ix.fstarts)
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

// ChainID returns the ID of the inline chain executing at pc (see Chain),
// or -1 where no function is known. IDs are dense in [0, NumChains()), so
// a user can keep its own per-chain data in a slice.
func (ix *Index) ChainID(pc uint64) int32 {
	i := ix.fpages.find(ix.fstarts, pc)
	if i < 0 {
		return -1
	}
	return ix.fchain[i]
}

// NumChains returns the number of distinct inline chains.
func (ix *Index) NumChains() int { return len(ix.coffs) - 1 }

// ChainByID returns chain id (the index's own storage: do not modify it).
func (ix *Index) ChainByID(id int32) []model.FuncID {
	if id < 0 || int(id) >= ix.NumChains() {
		return nil
	}
	return ix.chains[ix.coffs[id]:ix.coffs[id+1]:ix.coffs[id+1]]
}

// Chain returns the functions executing at pc, innermost first: the
// innermost inlined instance (method.md §2: inlined code belongs to the
// inlined function), then each function it is inlined into, out to the
// out-of-line function whose machine code holds pc. Nil where no function
// is known. The slice is the index's own; it does not allocate.
func (ix *Index) Chain(pc uint64) []model.FuncID {
	return ix.ChainByID(ix.ChainID(pc))
}

// Func returns the function executing at pc: the innermost inlined
// instance if pc is in inlined code.
func (ix *Index) Func(pc uint64) (model.FuncID, bool) {
	c := ix.Chain(pc)
	if len(c) == 0 {
		return -1, false
	}
	return c[0], true
}

// OuterFunc returns the out-of-line function whose code contains pc.
func (ix *Index) OuterFunc(pc uint64) (model.FuncID, bool) {
	id := ix.ChainID(pc)
	if id < 0 || !ix.couter[id] {
		return -1, false
	}
	c := ix.ChainByID(id)
	return c[len(c)-1], true
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

// LineFrom is Line, except that where pc's row has no line (line 0: code
// the compiler made up, as clang marks merged and hoisted instructions) it
// gives the line of the nearest row before pc that has one, at or after
// from (the start of pc's basic block, so that the line is one of the
// block's own).
func (ix *Index) LineFrom(pc, from uint64) (file string, line int32, ok bool) {
	ls := ix.s.Lines
	i := sort.Search(len(ls), func(i int) bool { return ls[i].PC > pc }) - 1
	if i >= 0 && ls[i].Line != 0 {
		return ix.Line(pc)
	}
	for ; i >= 0 && ls[i].PC >= from; i-- {
		if r := ls[i]; r.Line != 0 {
			if r.File >= 0 && int(r.File) < len(ix.s.Files) {
				file = ix.s.Files[r.File]
			}
			return file, r.Line, true
		}
	}
	return "", 0, false
}

// Symbol returns the ELF symbol containing pc, for objects without DWARF
// and for library frames.
func (ix *Index) Symbol(pc uint64) (*model.Symbol, bool) {
	i := ix.SymbolIndex(pc)
	if i < 0 {
		return nil, false
	}
	return &ix.s.Symbols[i], true
}

// SymbolIndex returns the index in Schema.Symbols of the symbol containing
// pc, or -1.
func (ix *Index) SymbolIndex(pc uint64) int {
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
			return i
		}
	}
	return -1
}
