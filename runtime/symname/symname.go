// Package symname holds the rules for the names of functions in symbol
// tables: which symbols are compiler clones or split parts of one source
// function (StripClone), the function a versioned symbol names (FuncName),
// and the one way names are demangled for people (Demangle). The loader
// (dwarfschema), the symbol tables of the sampler and the analyzer and the
// exports all use it, so that a function has one name everywhere.
//
// It is apart from runtime/dwarfexpr, which needs delve: the analyzer and
// its outputs use these rules and link no DWARF code.
package symname

import (
	"strings"

	"github.com/ianlancetaylor/demangle"
)

// cloneWords are the dotted parts gcc appends to a function's symbol for
// its clones and split parts (method.md §2): foo.constprop.0, foo.isra.0,
// foo.part.0, foo.cold (foo.cold.1 before gcc 8), foo.lto_priv.0,
// foo.localalias, foo.clone.0.
var cloneWords = map[string]bool{
	"cold": true, "constprop": true, "isra": true, "part": true,
	"lto_priv": true, "localalias": true, "clone": true,
}

// StripClone returns the source function a symbol's code belongs to: name
// without the clone suffixes gcc appends, in any combination
// (foo.constprop.0.isra.0, foo.part.0.cold: foo), and without the number
// gcc gives a nested function (inner.0: inner). Only a trailing run of
// clone words and numbers goes, and a number only after a clone word or
// right after the name: a symbol whose last dotted part is anything else
// is left as it is (__x86.get_pc_thunk.bx, _GLOBAL__sub_I_main.cpp,
// foo.bar.0), as is one that starts with a dot (.hidden).
func StripClone(name string) string {
	base := strings.IndexByte(name, '.')
	if base <= 0 {
		return name
	}
	// cut walks back over the trailing run of clone words and numbers;
	// keep is the shortest prefix that run may leave: right after the
	// base, or before a clone word.
	cut, keep := len(name), len(name)
	for cut > base {
		dot := strings.LastIndexByte(name[:cut], '.')
		part := name[dot+1 : cut]
		word := cloneWords[part]
		if !word && !isNumber(part) {
			break
		}
		cut = dot
		if word || dot == base {
			keep = dot
		}
	}
	return name[:keep]
}

func isNumber(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// FuncName is the function a symbol names: without its version
// (memcpy@GLIBC_2.14, foo@@VER_2) and without clone suffixes (foo.cold).
// A PLT stub's name (memcpy@plt, named by vprof as objdump and perf do)
// keeps its suffix: the stub is not the function.
func FuncName(sym string) string {
	if i := strings.IndexByte(sym, '@'); i > 0 {
		if IsPLT(sym) {
			return StripClone(sym[:len(sym)-len(PLTSuffix)]) + PLTSuffix
		}
		sym = sym[:i]
	}
	return StripClone(sym)
}

// PLTSuffix ends the name of a PLT stub: memcpy@plt.
const PLTSuffix = "@plt"

// IsPLT says whether name is a PLT stub's (ends in PLTSuffix, with a
// function's name before it).
func IsPLT(name string) bool {
	return len(name) > len(PLTSuffix) && strings.HasSuffix(name, PLTSuffix) && strings.IndexByte(name, '@') == len(name)-len(PLTSuffix)
}

// Demangle returns a symbol's name for people: a C++ name (_Z...), a
// global constructor or destructor (_GLOBAL__sub_I_...) or a Rust name
// demangled, with the options given (demangle.NoParams...), and any
// other name, or one that does not demangle, as it is. A PLT stub's
// name is its function's, demangled, with the suffix: std::foo()@plt.
func Demangle(name string, opts ...demangle.Option) string {
	if IsPLT(name) {
		return demangle.Filter(name[:len(name)-len(PLTSuffix)], opts...) + PLTSuffix
	}
	return demangle.Filter(name, opts...)
}
