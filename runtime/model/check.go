package model

import (
	"errors"
	"fmt"
	"slices"
)

// InvalidError says which invariant a value of the model breaks, and
// where: Where names the element ("vars[12].field", "locs[3]"), What the
// rule it breaks.
type InvalidError struct {
	Where string
	What  string
}

func (e *InvalidError) Error() string {
	if e.Where == "" {
		return e.What
	}
	return e.Where + ": " + e.What
}

func invalid(where, format string, args ...any) error {
	return &InvalidError{Where: where, What: fmt.Sprintf(format, args...)}
}

// at names element i of list; called only on failure, so that checking a
// valid schema allocates nothing.
func at(list string, i int) string { return fmt.Sprintf("%s[%d]", list, i) }

// CheckValid reports the first invariant of Schema that s breaks (see the
// docs of Schema and of its element types), as an *InvalidError; nil if
// it keeps them all. A Schema that passes can be indexed without bounds
// checks failing: every FuncID, VarID and file index names an element
// that exists (or is NoFunc, -1 where the doc allows it).
func (s *Schema) CheckValid() error {
	nf, nv, nfile := int32(len(s.Funcs)), int32(len(s.Vars)), int32(len(s.Files))
	badFile := func(f int32) bool { return f < -1 || f >= nfile }
	for i := range s.Funcs {
		f := &s.Funcs[i]
		switch {
		case f.Name == "":
			return invalid(at("funcs", i), "no name")
		case badFile(f.File):
			return invalid(at("funcs", i), "file %d not in [-1, %d)", f.File, nfile)
		case !slices.IsSorted(f.Blocks):
			return invalid(at("funcs", i)+".blocks", "not sorted")
		}
		if err := checkRanges(f.Ranges, "funcs", i); err != nil {
			return err
		}
	}
	for i := range s.Inlines {
		in := &s.Inlines[i]
		switch {
		case in.Func < 0 || in.Func >= nf:
			return invalid(at("inlines", i), "func %d not in [0, %d)", in.Func, nf)
		case len(in.Ranges) == 0:
			return invalid(at("inlines", i), "no code")
		case in.Depth < 1:
			return invalid(at("inlines", i), "depth %d below 1", in.Depth)
		case badFile(in.CallFile):
			return invalid(at("inlines", i), "call file %d not in [-1, %d)", in.CallFile, nfile)
		}
		if err := checkRanges(in.Ranges, "inlines", i); err != nil {
			return err
		}
	}
	for i := range s.Vars {
		v := &s.Vars[i]
		switch {
		case v.Name == "":
			return invalid(at("vars", i), "no name")
		case v.Func != NoFunc && (v.Func < 0 || v.Func >= nf):
			return invalid(at("vars", i), "func %d neither NoFunc nor in [0, %d)", v.Func, nf)
		case badFile(v.File):
			return invalid(at("vars", i), "file %d not in [-1, %d)", v.File, nfile)
		case v.Kind < KindInt || v.Kind > KindAggregate:
			return invalid(at("vars", i), "kind %d unknown", v.Kind)
		case v.PointeeKind > KindAggregate || v.PointeeKind != 0 && v.Kind != KindPointer:
			return invalid(at("vars", i), "pointee kind %v of a %v", v.PointeeKind, v.Kind)
		case v.Tags&^(TagLoop|TagCond|TagArgs) != 0:
			return invalid(at("vars", i), "tags %#x unknown", uint8(v.Tags))
		}
		if f := v.Field; f != nil {
			switch {
			case f.Of < -1 || f.Of >= nv || f.Of == int32(i):
				return invalid(at("vars", i)+".field", "of %d: itself or not in [-1, %d)", f.Of, nv)
			case f.Deref && f.Of < 0:
				return invalid(at("vars", i)+".field", "behind a pointer that is not monitored")
			case f.Deref && s.Vars[f.Of].Kind != KindPointer:
				return invalid(at("vars", i)+".field", "behind var %d, a %v, not a pointer", f.Of, s.Vars[f.Of].Kind)
			case f.Elem < 0 || f.Elem > 0 && (!f.Deref || v.Kind != KindUint || v.Size != 8):
				return invalid(at("vars", i)+".field", "element size %d of a vector length that is not a uint64 behind a pointer", f.Elem)
			}
		}
	}
	for i := range s.Locs {
		l := &s.Locs[i]
		switch {
		case l.Var < 0 || l.Var >= nv:
			return invalid(at("locs", i), "var %d not in [0, %d)", l.Var, nv)
		case l.PCStart >= l.PCEnd:
			return invalid(at("locs", i), "empty range [%#x, %#x)", l.PCStart, l.PCEnd)
		case i > 0 && l.PCStart < s.Locs[i-1].PCStart:
			return invalid(at("locs", i), "pc_start %#x below the previous one's %#x", l.PCStart, s.Locs[i-1].PCStart)
		case l.Kind < LocReg || l.Kind > LocConst:
			return invalid(at("locs", i), "kind %d unknown", l.Kind)
		case l.Size != s.Vars[l.Var].Size:
			return invalid(at("locs", i), "size %d, its var's %d", l.Size, s.Vars[l.Var].Size)
		}
	}
	for i := range s.Lines {
		r := &s.Lines[i]
		switch {
		case badFile(r.File):
			return invalid(at("lines", i), "file %d not in [-1, %d)", r.File, nfile)
		case i > 0 && r.PC <= s.Lines[i-1].PC:
			return invalid(at("lines", i), "pc %#x not above the previous row's %#x", r.PC, s.Lines[i-1].PC)
		}
	}
	for i := 1; i < len(s.Symbols); i++ {
		if s.Symbols[i].Value < s.Symbols[i-1].Value {
			return invalid(at("symbols", i), "value %#x below the previous one's %#x", s.Symbols[i].Value, s.Symbols[i-1].Value)
		}
	}
	for i := range s.CallSites {
		c := &s.CallSites[i]
		switch {
		case i > 0 && c.ReturnPC <= s.CallSites[i-1].ReturnPC:
			return invalid(at("call_sites", i), "return pc %#x not above the previous one's %#x", c.ReturnPC, s.CallSites[i-1].ReturnPC)
		case len(c.Params) == 0:
			return invalid(at("call_sites", i), "no params")
		}
		for j, p := range c.Params {
			if p.Reg < 0 || len(p.Value) == 0 {
				return invalid(at(at("call_sites", i)+".params", j), "register %d, %d-byte value", p.Reg, len(p.Value))
			}
		}
	}
	for i := range s.TailCalls {
		if c := &s.TailCalls[i]; i > 0 && c.ReturnPC <= s.TailCalls[i-1].ReturnPC {
			return invalid(at("tail_calls", i), "return pc %#x not above the previous one's %#x", c.ReturnPC, s.TailCalls[i-1].ReturnPC)
		}
	}
	return nil
}

// checkRanges checks that rs, the ranges of element i of list, are
// non-empty, sorted and disjoint.
func checkRanges(rs []PCRange, list string, i int) error {
	for j, r := range rs {
		if r.Lo >= r.Hi {
			return invalid(at(at(list, i)+".ranges", j), "empty range [%#x, %#x)", r.Lo, r.Hi)
		}
		if j > 0 && r.Lo < rs[j-1].Hi {
			return invalid(at(at(list, i)+".ranges", j), "[%#x, %#x) overlaps or precedes the previous range", r.Lo, r.Hi)
		}
	}
	return nil
}

// CheckValid reports the first invariant h breaks: a known Clock and a
// positive interval.
func (h *Header) CheckValid() error {
	switch {
	case h.Clock != ClockCPU && h.Clock != ClockWall:
		return invalid("header", "clock %q unknown", h.Clock)
	case h.IntervalNS <= 0:
		return invalid("header", "interval %dns not positive", h.IntervalNS)
	}
	return nil
}

// CheckValid reports the first invariant o breaks: it has a schema, and
// the schema is valid.
func (o *Object) CheckValid() error {
	if o.Schema == nil {
		return invalid(fmt.Sprintf("object %d", o.ID), "no schema")
	}
	if err := o.Schema.CheckValid(); err != nil {
		var e *InvalidError
		if errors.As(err, &e) {
			return invalid(fmt.Sprintf("object %d: schema: %s", o.ID, e.Where), "%s", e.What)
		}
		return err
	}
	return nil
}

// CheckValid reports whether m's range is in order.
func (m *Mapping) CheckValid() error {
	if m.End < m.Start {
		return invalid("mapping", "end %#x below start %#x", m.End, m.Start)
	}
	return nil
}

// CheckValid reports the first invariant b breaks: each sample's (see
// Sample.CheckValid).
func (b *Block) CheckValid() error {
	for i := range b.Samples {
		if err := b.Samples[i].CheckValid(); err != nil {
			e := err.(*InvalidError)
			return invalid(at("samples", i)+e.Where, "%s", e.What)
		}
	}
	return nil
}

// CheckValid reports the first invariant s breaks: a known state, a
// system call number only when blocked, values read in frames of its
// stack. (That each Value names a variable of an object recorded before
// is for the reader of the whole file to check.)
func (s *Sample) CheckValid() error {
	switch {
	case s.State > Blocked:
		return invalid("", "state %d unknown", s.State)
	case s.State == Running && s.Syscall != -1:
		return invalid("", "running, with system call %d", s.Syscall)
	}
	for j, v := range s.Values {
		switch {
		case int(v.Frame) >= len(s.Stack):
			return invalid(at(".values", j), "frame %d of a %d-frame stack", v.Frame, len(s.Stack))
		case v.Var < 0:
			return invalid(at(".values", j), "var %d", v.Var)
		}
	}
	return nil
}
