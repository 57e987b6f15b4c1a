package rank

import (
	"strings"

	"github.com/vprof/vprof/runtime/model"
)

// Values read before their variable's declaration (method.md §5, decision
// D181). A local's DWARF location covers its whole lexical block, also the
// code of the block that runs before the declaration, where the name does
// not exist yet: a C++ object whose constructor has not run, a slot the
// compiler shares with a temporary of earlier lines, last iteration's bytes
// at a loop's header. What the location holds there is not a value the
// variable had, and the program never reads it as the variable's.

// declLines fills oi.declLine: per schema variable, its declaration line
// when the rule applies to it (a local, or a field of one, with a
// declaration line after its function's own line), else 0.
func (oi *objInfo) declLines() {
	s := oi.schema
	oi.declLine = make([]int32, len(s.Vars))
	for i := range s.Vars {
		v := &s.Vars[i]
		if v.Func < 0 || int(v.Func) >= len(s.Funcs) || v.Static || v.Line <= 0 ||
			v.File < 0 || int(v.File) >= len(s.Files) || strings.HasPrefix(v.Name, "<") || isParam(s, v) {
			// Globals and statics live for the whole run, parameters from
			// the function's entry; a synthetic variable (<walk@LINE>)
			// has no declaration, its line is the loop's.
			continue
		}
		if f := &s.Funcs[v.Func]; f.Line > 0 && v.Line <= f.Line {
			// On the function's own line: a parameter whose field's
			// struct is not monitored (Field.Of -1), or a one-line function.
			continue
		}
		oi.declLine[i] = v.Line
		oi.hasDecl = true
	}
}

// lineKey identifies the line of a frame's PC in the k-th function of its
// inline chain.
type lineKey struct {
	obj  int32
	k    int32
	link uint64
}

// lineVal is a source line: file index of the object's schema, line; line
// 0 when unknown.
type lineVal struct {
	file, line int32
}

// beforeDecl reports whether variable v (schema VarID of fr's object) was
// read at a PC whose line in its own function, the k-th of fr's inline
// chain, lies before v's declaration line in the declaration's file: the
// line of the PC itself where the function is the innermost there (a
// caller frame's PC is its call instruction), else the line of the call
// that the body inlined into it there comes from. A PC without a line, or
// of another file (code included from elsewhere), keeps the value.
func (r *Run) beforeDecl(fr *frameRes, v model.VarID, k int) bool {
	oi := fr.oi
	if int(v) >= len(oi.declLine) || oi.declLine[v] == 0 {
		return false
	}
	lv := fr.line0 // the innermost function's: found with the frame
	if k > 0 {
		key := lineKey{obj: oi.idx, k: int32(k), link: fr.link}
		var ok bool
		if lv, ok = r.lines[key]; !ok {
			lv = oi.lineIn(fr.link, k)
			if r.lines == nil {
				r.lines = map[lineKey]lineVal{}
			}
			r.lines[key] = lv
		}
	}
	decl := &oi.schema.Vars[v]
	if lv.line <= 0 || lv.file != decl.File || lv.line >= decl.Line {
		return false
	}
	// Only lines of the function's body before the declaration: its own
	// line is the prologue's (and gcc's for code it cannot place), a line
	// before it is no line of the function's.
	f := &oi.schema.Funcs[decl.Func]
	return lv.line > f.Line && (f.File < 0 || f.File == decl.File)
}

// lineIn returns the line of link-time pc in the k-th function of its
// inline chain (see beforeDecl), or a zero lineVal.
func (oi *objInfo) lineIn(pc uint64, k int) lineVal {
	s := oi.schema
	if k == 0 {
		ls := s.Lines
		lo, hi := 0, len(ls)
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if ls[m].PC <= pc {
				lo = m + 1
			} else {
				hi = m
			}
		}
		if lo == 0 || ls[lo-1].Line <= 0 {
			return lineVal{}
		}
		return lineVal{file: ls[lo-1].File, line: ls[lo-1].Line}
	}
	if in := oi.inlineAt(pc, k); in != nil && in.CallLine > 0 {
		return lineVal{file: in.CallFile, line: in.CallLine}
	}
	return lineVal{}
}
