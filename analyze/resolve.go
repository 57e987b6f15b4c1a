package analyze

import (
	"path/filepath"
	"sort"
	"strings"

	"github.com/ianlancetaylor/demangle"

	"github.com/vprof/vprof/dwarfschema"
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

// lineAt returns the source file (base name) and line of a link-time PC,
// or "", 0.
func (oi *objInfo) lineAt(pc uint64) (string, int32) {
	file, line, ok := oi.ix.Line(pc)
	if !ok || file == "" || line <= 0 {
		return "", 0
	}
	return filepath.Base(file), line
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
