package analyze

import (
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/ianlancetaylor/demangle"

	"github.com/vprof/vprof/dwarfschema"
)

// seg is a PC range [lo, hi) executing function fn (a schema FuncID), and
// the inline chain there: chains[coff : coff+clen] of its funcTable, fn
// first, then the functions it is inlined into, out to the out-of-line
// function that holds the machine code.
type seg struct {
	lo, hi     uint64
	fn         int32
	coff, clen int32
}

// funcTable answers "which function executes at this link-time PC" in
// O(log n), with a one-entry cache for the common case of consecutive
// samples in one function.
type funcTable struct {
	segs   []seg
	chains []int32
	last   int
}

// find returns the index of the segment holding pc, or -1.
func (t *funcTable) find(pc uint64) int {
	if l := t.last; l < len(t.segs) && pc >= t.segs[l].lo && pc < t.segs[l].hi {
		return l
	}
	// The first segment ending above pc (sort.Search without the closure:
	// this runs for nearly every frame of every sample).
	lo, hi := 0, len(t.segs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.segs[m].hi > pc {
			hi = m
		} else {
			lo = m + 1
		}
	}
	if lo == len(t.segs) || pc < t.segs[lo].lo {
		return -1
	}
	t.last = lo
	return lo
}

// lookup returns the function at pc, or -1.
func (t *funcTable) lookup(pc uint64) int32 {
	if i := t.find(pc); i >= 0 {
		return t.segs[i].fn
	}
	return -1
}

// chain returns the inline chain of segment i, innermost first.
func (t *funcTable) chain(i int) []int32 {
	s := &t.segs[i]
	return t.chains[s.coff : s.coff+s.clen : s.coff+s.clen]
}

// ivl is one function range with its inline depth (0: out of line).
type ivl struct {
	lo, hi uint64
	depth  int32
	fn     int32
}

// flatten paints nested ranges into disjoint segments where the deepest
// range covering a PC wins: the innermost inlined instance is the function
// executing there (method.md §2); each segment records the chain of ranges
// covering it. Ranges are expected to nest; a range that overlaps another
// without nesting is clipped where the later one starts.
func flatten(ivs []ivl) funcTable {
	slices.SortFunc(ivs, func(a, b ivl) int {
		switch {
		case a.lo != b.lo:
			return cmpU64(a.lo, b.lo)
		case a.depth != b.depth:
			return int(a.depth - b.depth)
		}
		return cmpU64(b.hi, a.hi)
	})
	var t funcTable
	var stack []ivl
	chainOff := int32(-1) // chain of the current stack, once recorded
	emit := func(lo, hi uint64) {
		if lo >= hi || len(stack) == 0 {
			return
		}
		if chainOff < 0 {
			chainOff = int32(len(t.chains))
			for i := len(stack) - 1; i >= 0; i-- {
				if f := stack[i].fn; i == len(stack)-1 || f != t.chains[len(t.chains)-1] {
					t.chains = append(t.chains, f)
				}
			}
		}
		fn := stack[len(stack)-1].fn
		if n := len(t.segs); n > 0 && t.segs[n-1].hi == lo && t.segs[n-1].coff == chainOff {
			t.segs[n-1].hi = hi
			return
		}
		t.segs = append(t.segs, seg{lo: lo, hi: hi, fn: fn, coff: chainOff, clen: int32(len(t.chains)) - chainOff})
	}
	var pos uint64
	for _, iv := range ivs {
		if iv.lo >= iv.hi {
			continue
		}
		for len(stack) > 0 && stack[len(stack)-1].hi <= iv.lo {
			top := stack[len(stack)-1]
			emit(max(pos, top.lo), top.hi)
			pos = max(pos, top.hi)
			stack = stack[:len(stack)-1]
			chainOff = -1
		}
		if len(stack) > 0 {
			emit(max(pos, stack[len(stack)-1].lo), iv.lo)
		}
		pos = max(pos, iv.lo)
		stack = append(stack, iv)
		chainOff = -1
	}
	for len(stack) > 0 {
		top := stack[len(stack)-1]
		emit(max(pos, top.lo), top.hi)
		pos = max(pos, top.hi)
		stack = stack[:len(stack)-1]
		chainOff = -1
	}
	return t
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// buildTables makes the innermost-function table (inlines included, with
// their chains) and the out-of-line table (for basic blocks) of a schema. A
// schema without Funcs (no DWARF, no symbol-derived functions) falls back to
// its symbols; their indices are then offset by len(s.Funcs) so callers can
// tell them apart.
func buildTables(s *dwarfschema.Schema) (inner, outer funcTable) {
	var ivs []ivl
	for i, f := range s.Funcs {
		for _, r := range f.Ranges {
			ivs = append(ivs, ivl{r.Lo, r.Hi, 0, int32(i)})
		}
	}
	if len(s.Funcs) == 0 {
		for i, sym := range s.Symbols {
			hi := sym.Value + max(sym.Size, 1)
			ivs = append(ivs, ivl{sym.Value, hi, 0, int32(len(s.Funcs) + i)})
		}
	}
	outer = flatten(slices.Clone(ivs))
	for _, in := range s.Inlines {
		if in.Func < 0 || int(in.Func) >= len(s.Funcs) {
			continue
		}
		for _, r := range in.Ranges {
			ivs = append(ivs, ivl{r.Lo, r.Hi, max(in.Depth, 1), in.Func})
		}
	}
	inner = flatten(ivs)
	return inner, outer
}

// cloneSuffixes are the compiler clones of one source function
// (method.md §2); symbol-only objects get them merged here.
var cloneSuffixes = []string{".constprop.", ".isra.", ".part.", ".cold", ".lto_priv."}

// sourceName strips compiler clone suffixes from a linkage name.
func sourceName(name string) string {
	for {
		i := -1
		for _, suf := range cloneSuffixes {
			if j := strings.Index(name, suf); j > 0 && (i < 0 || j < i) {
				i = j
			}
		}
		if i < 0 {
			return name
		}
		name = name[:i]
	}
}

// displayName demangles a linkage name for people.
func displayName(name, display string) string {
	if display != "" {
		return display
	}
	if strings.HasPrefix(name, "_Z") {
		if d, err := demangle.ToString(name, demangle.NoClones); err == nil {
			return d
		}
	}
	return name
}

// lineAt returns the source file and line of a link-time PC from the
// schema's line table (sorted by PC), or "", 0.
func lineAt(s *dwarfschema.Schema, pc uint64) (string, int32) {
	rows := s.Lines
	i := sort.Search(len(rows), func(i int) bool { return rows[i].PC > pc }) - 1
	if i < 0 {
		return "", 0
	}
	r := rows[i]
	if r.File < 0 || int(r.File) >= len(s.Files) || r.Line <= 0 {
		return "", 0
	}
	return filepath.Base(s.Files[r.File]), r.Line
}

// blockAt returns the index and start address of the basic block of f
// containing pc (Func.Blocks is sorted), or -1.
func blockAt(f *dwarfschema.Func, pc uint64) (int, uint64) {
	i := sort.Search(len(f.Blocks), func(i int) bool { return f.Blocks[i] > pc }) - 1
	if i < 0 {
		return -1, 0
	}
	return i, f.Blocks[i]
}
