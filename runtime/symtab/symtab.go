// Package symtab turns the runtime PCs of a profile into functions and
// source lines, from the objects and mappings the profile itself carries
// (so no binary is needed). It is what the analyzer, the timeline and the
// exports share to name a frame.
package symtab

import (
	"fmt"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/pcindex"
	"github.com/vprof/vprof/runtime/proffile"
	"github.com/vprof/vprof/runtime/symname"
)

// Frame is one resolved stack frame.
type Frame struct {
	Obj     uint16
	Known   bool   // the PC lies in a mapped object
	Program bool   // the object is a program object (has a schema to rank)
	Symbol  bool   // named by an ELF symbol rather than DWARF (Func is -1)
	Func    int32  // FuncID in the object's schema, or -1 (library symbol or unknown)
	Outer   int32  // the out-of-line function containing PC (differs from Func in inlined code)
	Name    string // linkage name (the key), or symbol name, or "[unknown]"
	Display string // demangled
	File    string
	Line    int32
	LinkPC  uint64 // link-time address looked up
}

// Object is one object with its index.
type Object struct {
	*model.Object
	Index *pcindex.Index
}

// Table resolves PCs. Feed it every record of a profile with Observe, in
// file order, before resolving the samples that follow them.
type Table struct {
	Objects map[uint16]*Object
	Space   *proffile.AddrSpace
}

// New returns an empty table.
func New() *Table {
	return &Table{Objects: map[uint16]*Object{}, Space: proffile.NewAddrSpace()}
}

// Observe takes objects, mappings and process events into account.
func (t *Table) Observe(rec any) {
	switch r := rec.(type) {
	case *model.Object:
		t.Objects[r.ID] = &Object{Object: r, Index: pcindex.New(r.Schema)}
	case *model.Mapping, *model.ProcEvent:
		t.Space.Observe(r)
	}
}

// Resolve names the frame at stack position depth of a sample of process
// pid: depth 0 is looked up at pc, callers at their return address - 1
// (inside the call instruction).
func (t *Table) Resolve(pid int32, pc uint64, depth int) Frame {
	if depth > 0 && pc > 0 {
		pc--
	}
	f := Frame{Func: -1, Outer: -1, Name: "[unknown]", Display: "[unknown]"}
	obj, link, ok := t.Space.Resolve(pid, pc)
	if !ok {
		f.LinkPC = pc
		return f
	}
	f.Obj, f.LinkPC, f.Known = obj, link, true
	o := t.Objects[obj]
	if o == nil {
		return f
	}
	f.Program = o.Program
	s := o.Schema
	if fn, ok := o.Index.Func(link); ok {
		f.Func = fn
		f.Outer = fn
		if out, ok := o.Index.OuterFunc(link); ok {
			f.Outer = out
		}
		f.Name, f.Display = s.Funcs[fn].Name, s.Funcs[fn].Display
		if f.Display == "" {
			f.Display = f.Name
		}
		f.File, f.Line, _ = o.Index.Line(link)
		return f
	}
	if sym, ok := o.Index.Symbol(link); ok {
		f.Name, f.Display, f.Symbol = sym.Name, symname.Demangle(sym.Name), true
		return f
	}
	f.Name = fmt.Sprintf("[%s+%#x]", BaseName(o.Path), link)
	f.Display = f.Name
	return f
}

// BaseName is the last element of an object's path, as frames show it.
func BaseName(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}

// Var returns the schema variable of a value sample, or nil.
func (t *Table) Var(v *model.Value) (*model.Var, *Object) {
	o := t.Objects[v.Obj]
	if o == nil || v.Var < 0 || int(v.Var) >= len(o.Schema.Vars) {
		return nil, o
	}
	return &o.Schema.Vars[v.Var], o
}
