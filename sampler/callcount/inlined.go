package callcount

import (
	"debug/dwarf"
	"debug/elf"
	"fmt"
)

// inlined is one instance of a function inlined into another: the
// function's identity (its linkage name, or its name in C), the address
// where the instance begins, and where it is, for people.
type inlined struct {
	ident string
	entry uint64
	where string
	// exact: the address is DW_AT_entry_pc (where the inlined code
	// begins), not the lowest address of its first range, which another
	// of its instructions, scheduled before it, may precede (D257).
	exact bool
}

// attrMIPSLinkageName is DW_AT_MIPS_linkage_name, older compilers' name
// for DW_AT_linkage_name.
const attrMIPSLinkageName dwarf.Attr = 0x2007

// inlinedInstances lists every inlined instance (DW_TAG_inlined_subroutine)
// of the executable's DWARF; none where it has no DWARF.
func inlinedInstances(f *elf.File) ([]inlined, error) {
	if f.Section(".debug_info") == nil && f.Section(".zdebug_info") == nil {
		return nil, nil // no DWARF: symbols only
	}
	d, err := f.DWARF()
	if err != nil {
		return nil, err
	}
	type sub struct {
		name, linkage string
		origin, spec  dwarf.Offset
		declFile      int64
		declLine      int64
	}
	subs := map[dwarf.Offset]sub{}
	type inst struct {
		origin dwarf.Offset
		entry  uint64
		exact  bool
		in     dwarf.Offset // the out-of-line function it is in
		file   int64
		line   int64
	}
	var insts []inst
	r := d.Reader()
	var stack []dwarf.Offset // enclosing DIEs with children; subprograms among them
	var outer dwarf.Offset
	for {
		e, err := r.Next()
		if err != nil {
			return nil, err
		}
		if e == nil {
			break
		}
		if e.Tag == 0 {
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			continue
		}
		if len(stack) == 0 || e.Tag == dwarf.TagCompileUnit {
			outer = 0
		}
		switch e.Tag {
		case dwarf.TagSubprogram:
			s := sub{}
			s.name, _ = e.Val(dwarf.AttrName).(string)
			if s.linkage, _ = e.Val(dwarf.AttrLinkageName).(string); s.linkage == "" {
				s.linkage, _ = e.Val(attrMIPSLinkageName).(string)
			}
			s.origin, _ = e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset)
			s.spec, _ = e.Val(dwarf.AttrSpecification).(dwarf.Offset)
			s.declFile, _ = e.Val(dwarf.AttrDeclFile).(int64)
			s.declLine, _ = e.Val(dwarf.AttrDeclLine).(int64)
			subs[e.Offset] = s
			if e.Val(dwarf.AttrLowpc) != nil || e.Val(dwarf.AttrRanges) != nil {
				outer = e.Offset
			}
		case dwarf.TagInlinedSubroutine:
			origin, ok := e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset)
			if !ok {
				break
			}
			in := inst{origin: origin, in: outer}
			in.file, _ = e.Val(dwarf.AttrCallFile).(int64)
			in.line, _ = e.Val(dwarf.AttrCallLine).(int64)
			var low uint64
			if rs, err := d.Ranges(e); err == nil && len(rs) > 0 {
				low = rs[0][0]
			}
			switch v := e.Val(dwarf.AttrEntrypc).(type) {
			case uint64:
				in.entry, in.exact = v, true
			case int64: // DWARF 5: an offset from the instance's base address
				if low != 0 {
					in.entry, in.exact = low+uint64(v), true
				}
			}
			if in.entry == 0 {
				in.entry = low
			}
			if in.entry != 0 {
				insts = append(insts, in)
			}
		}
		if e.Children {
			stack = append(stack, e.Offset)
		}
	}
	// A subprogram's identity: the linkage name found on it or along its
	// abstract origin and specification, else its name.
	var ident func(off dwarf.Offset, depth int) (linkage, name string)
	ident = func(off dwarf.Offset, depth int) (string, string) {
		s, ok := subs[off]
		if !ok || depth > 8 {
			return "", ""
		}
		link, name := s.linkage, s.name
		for _, next := range []dwarf.Offset{s.origin, s.spec} {
			if next != 0 && (link == "" || name == "") {
				l, n := ident(next, depth+1)
				if link == "" {
					link = l
				}
				if name == "" {
					name = n
				}
			}
		}
		return link, name
	}
	id := func(off dwarf.Offset) string {
		l, n := ident(off, 0)
		if l != "" {
			return l
		}
		return n
	}
	// atDecl: the instance's call site is its function's own declaration
	// (on its abstract origin or specification). gcc's partial inlining
	// splits a function into a head and a part and may inline the part
	// back into the head: an instance of the function "called" at its own
	// declaration, within each call of it, no call of its own (a test
	// program's one-line step(): 15,062 probe hits for 10,040 calls).
	var atDecl func(off dwarf.Offset, file, line int64, depth int) bool
	atDecl = func(off dwarf.Offset, file, line int64, depth int) bool {
		s, ok := subs[off]
		if !ok || depth > 8 {
			return false
		}
		if s.declLine == line && s.declFile == file {
			return true
		}
		return s.origin != 0 && atDecl(s.origin, file, line, depth+1) || s.spec != 0 && atDecl(s.spec, file, line, depth+1)
	}
	out := make([]inlined, 0, len(insts))
	for _, in := range insts {
		name := id(in.origin)
		if name == "" || in.line > 0 && atDecl(in.origin, in.file, in.line, 0) {
			continue
		}
		where := "in " + id(in.in)
		if in.in == 0 {
			where = "in ?"
		}
		if in.line > 0 {
			where += fmt.Sprintf(" (line %d)", in.line)
		}
		out = append(out, inlined{ident: name, entry: in.entry, where: where, exact: in.exact})
	}
	return out, nil
}
