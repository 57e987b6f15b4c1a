package analyze

import (
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/ianlancetaylor/demangle"

	"github.com/vprof/vprof/dwarfschema"
)

// seg is a PC range [lo, hi) executing function fn (a schema FuncID).
type seg struct {
	lo, hi uint64
	fn     int32
}

// funcTable answers "which function executes at this link-time PC" in
// O(log n), with a one-entry cache for the common case of consecutive
// samples in one function.
type funcTable struct {
	segs []seg
	last int
}

// lookup returns the function at pc, or -1.
func (t *funcTable) lookup(pc uint64) int32 {
	if l := t.last; l < len(t.segs) && pc >= t.segs[l].lo && pc < t.segs[l].hi {
		return t.segs[l].fn
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
	return t.segs[lo].fn
}

// ivl is one function range with its inline depth (0: out of line).
type ivl struct {
	lo, hi uint64
	depth  int32
	fn     int32
}

// flatten paints nested ranges into disjoint segments where the deepest
// range covering a PC wins: the innermost inlined instance is the function
// executing there (method.md §2). Ranges are expected to nest; a range that
// overlaps another without nesting is clipped where the later one starts.
func flatten(ivs []ivl) []seg {
	slices.SortFunc(ivs, func(a, b ivl) int {
		switch {
		case a.lo != b.lo:
			return cmpU64(a.lo, b.lo)
		case a.depth != b.depth:
			return int(a.depth - b.depth)
		}
		return cmpU64(b.hi, a.hi)
	})
	var out []seg
	emit := func(lo, hi uint64, fn int32) {
		if lo >= hi {
			return
		}
		if n := len(out); n > 0 && out[n-1].fn == fn && out[n-1].hi == lo {
			out[n-1].hi = hi
			return
		}
		out = append(out, seg{lo, hi, fn})
	}
	var stack []ivl
	var pos uint64
	for _, iv := range ivs {
		if iv.lo >= iv.hi {
			continue
		}
		for len(stack) > 0 && stack[len(stack)-1].hi <= iv.lo {
			top := stack[len(stack)-1]
			emit(max(pos, top.lo), top.hi, top.fn)
			pos = max(pos, top.hi)
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 {
			top := stack[len(stack)-1]
			emit(max(pos, top.lo), iv.lo, top.fn)
		}
		pos = max(pos, iv.lo)
		stack = append(stack, iv)
	}
	for len(stack) > 0 {
		top := stack[len(stack)-1]
		emit(max(pos, top.lo), top.hi, top.fn)
		pos = max(pos, top.hi)
		stack = stack[:len(stack)-1]
	}
	return out
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

// buildTables makes the innermost-function table (inlines included) and
// the out-of-line table (for basic blocks) of a schema. A schema without
// Funcs (no DWARF, no symbol-derived functions) falls back to its symbols;
// their indices are then offset by len(s.Funcs) so callers can tell them
// apart.
func buildTables(s *dwarfschema.Schema) (inner, outer funcTable) {
	var ivs []ivl
	for i, f := range s.Funcs {
		for _, r := range f.Ranges {
			ivs = append(ivs, ivl{r.Lo, r.Hi, 0, int32(i)})
		}
	}
	outer.segs = flatten(slices.Clone(ivs))
	for _, in := range s.Inlines {
		if in.Func < 0 || int(in.Func) >= len(s.Funcs) {
			continue
		}
		for _, r := range in.Ranges {
			ivs = append(ivs, ivl{r.Lo, r.Hi, in.Depth, in.Func})
		}
	}
	if len(s.Funcs) == 0 {
		for i, sym := range s.Symbols {
			hi := sym.Value + max(sym.Size, 1)
			ivs = append(ivs, ivl{sym.Value, hi, 0, int32(len(s.Funcs) + i)})
		}
		outer.segs = flatten(slices.Clone(ivs))
	}
	inner.segs = flatten(ivs)
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
