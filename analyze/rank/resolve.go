package rank

import (
	"path/filepath"
	"sort"
	"strings"

	"github.com/ianlancetaylor/demangle"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/symname"
)

// chainAt returns the inline chain executing at link-time pc, innermost
// first, in global function indices (method.md §2), or nil.
func (oi *objInfo) chainAt(pc uint64) []int32 {
	if id := oi.ix.ChainID(pc); id >= 0 {
		return oi.chains[id]
	}
	if oi.symChains != nil {
		if i := oi.ix.SymbolIndex(pc); i >= 0 {
			return oi.symChains[i]
		}
	}
	return nil
}

// displayName demangles a linkage name for people.
func displayName(name, display string) string {
	if display != "" {
		return display
	}
	if strings.HasPrefix(name, "_Z") {
		return symname.Demangle(name, demangle.NoClones)
	}
	return name
}

// lineAt returns the source file (base name) and line of a link-time PC,
// or "", 0.
func (oi *objInfo) lineAt(pc uint64) (string, int32) {
	file, line, ok := oi.ix.Line(pc)
	if !ok || file == "" || line <= 0 {
		return "", 0
	}
	return filepath.Base(file), line
}

// lineFrom is lineAt, except that a PC without a line (line 0) takes the
// line of the nearest row before it in its basic block, which starts at
// from (see pcindex.Index.LineFrom).
func (oi *objInfo) lineFrom(pc, from uint64) (string, int32) {
	file, line, ok := oi.ix.LineFrom(pc, from)
	if !ok || file == "" || line <= 0 {
		return "", 0
	}
	return filepath.Base(file), line
}

// callLine returns the line of the k-th function of pc's inline chain
// (k > 0) that calls the body inlined into it there: the inlined call's
// DW_AT_call_file and DW_AT_call_line. A location reported for a function is
// one of its own lines, also where the sample was read in a body inlined
// into it (a header's std::find, a helper of the same file).
func (oi *objInfo) callLine(pc uint64, k int) (file string, line int32, ok bool) {
	in := oi.inlineAt(pc, k)
	if in == nil || in.CallLine <= 0 || in.CallFile < 0 || int(in.CallFile) >= len(oi.schema.Files) {
		return "", 0, false
	}
	return filepath.Base(oi.schema.Files[in.CallFile]), in.CallLine, true
}

// inlineAt returns the inlined instance, at pc, of the (k-1)-th function
// of pc's inline chain (k > 0): the body inlined into the k-th function
// there, whose DW_AT_call_file and DW_AT_call_line are the call's. Of
// several, the first listed whose call line is known; nil when none.
func (oi *objInfo) inlineAt(pc uint64, k int) *model.Inline {
	c := oi.ix.Chain(pc)
	if k <= 0 || k >= len(c) {
		return nil
	}
	s := oi.schema
	if oi.inlinesOf == nil {
		oi.inlinesOf = map[int32][]int32{}
		for i := range s.Inlines {
			f := s.Inlines[i].Func
			oi.inlinesOf[f] = append(oi.inlinesOf[f], int32(i))
		}
	}
	for _, i := range oi.inlinesOf[c[k-1]] {
		in := &s.Inlines[i]
		if in.CallLine <= 0 || in.CallFile < 0 || int(in.CallFile) >= len(s.Files) {
			continue
		}
		for _, r := range in.Ranges {
			if pc >= r.Lo && pc < r.Hi {
				return in
			}
		}
	}
	return nil
}

// blockAt returns the index and start address of the basic block of f
// containing pc (Func.Blocks is sorted), or -1.
func blockAt(f *model.Func, pc uint64) (int, uint64) {
	i := sort.Search(len(f.Blocks), func(i int) bool { return f.Blocks[i] > pc }) - 1
	if i < 0 {
		return -1, 0
	}
	return i, f.Blocks[i]
}
