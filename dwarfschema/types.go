package dwarfschema

import (
	"debug/dwarf"
	"sort"
	"strconv"
	"strings"

	"github.com/vprof/vprof/runtime/model"
)

// typeInfo is what a variable needs from its type.
type typeInfo struct {
	kind  model.Kind
	size  int32
	spell string
	pkind model.Kind // pointee of a pointer to a basic type
	psize int32
}

// DW_ATE_* base type encodings.
const (
	ateAddress      = 0x01
	ateBoolean      = 0x02
	ateComplexFloat = 0x03
	ateFloat        = 0x04
	ateSigned       = 0x05
	ateSignedChar   = 0x06
	ateUnsigned     = 0x07
	ateUnsignedChar = 0x08
	ateUTF          = 0x10
)

// maxTypeDepth bounds chains of typedefs and qualifiers (a cycle is bad
// input, not an infinite loop).
const maxTypeDepth = 32

func (l *loader) typeAt(off dieOff) *typeRec {
	n := l.types.len()
	i := sort.Search(n, func(i int) bool { return l.types.at(i).off >= off })
	if i < n && l.types.at(i).off == off {
		return l.types.at(i)
	}
	return nil
}

// resolveType describes the type at off (has false: void), memoized.
func (l *loader) resolveType(off dieOff, has, cpp bool, memo map[dieOff]typeInfo) typeInfo {
	if !has {
		return typeInfo{kind: model.KindAggregate, spell: "void"}
	}
	if ti, ok := memo[off]; ok {
		return ti
	}
	ti := typeInfo{spell: l.spell(off, true, cpp, 0)}
	ti.kind, ti.size = l.kindOf(off)
	if ti.kind == model.KindPointer {
		if t := l.strip(off); t != nil && t.hasType && t.tag != dwarf.TagPtrToMemberType {
			if k, sz := l.kindOf(t.typ); k != 0 && k != model.KindPointer && k != model.KindAggregate {
				if p := l.strip(t.typ); p != nil && (p.tag == dwarf.TagBaseType || p.tag == dwarf.TagEnumerationType) {
					ti.pkind, ti.psize = k, sz
				}
			}
		}
	}
	memo[off] = ti
	return ti
}

// strip follows typedefs and qualifiers to the underlying type.
func (l *loader) strip(off dieOff) *typeRec {
	for range maxTypeDepth {
		t := l.typeAt(off)
		if t == nil {
			return nil
		}
		switch t.tag {
		case dwarf.TagTypedef, dwarf.TagConstType, dwarf.TagVolatileType,
			dwarf.TagRestrictType, dwarf.TagAtomicType:
			if !t.hasType {
				return nil // const void
			}
			off = t.typ
			continue
		}
		return t
	}
	return nil
}

// kindOf returns how values of the type at off are read, and their size.
func (l *loader) kindOf(off dieOff) (model.Kind, int32) { return l.kindOfDepth(off, 0) }

// kindOfDepth is kindOf; depth bounds the recursion through array
// elements and enum bases (a cycle is bad input).
func (l *loader) kindOfDepth(off dieOff, depth int) (model.Kind, int32) {
	t := l.strip(off)
	if t == nil || depth > maxTypeDepth {
		return model.KindAggregate, 0
	}
	size := int32(t.size)
	if t.size < 0 || t.size > 1<<30 {
		size = 0
	}
	switch t.tag {
	case dwarf.TagBaseType:
		switch t.enc {
		case ateBoolean:
			return model.KindBool, size
		case ateFloat:
			return model.KindFloat, size
		case ateSigned, ateSignedChar:
			return model.KindInt, size
		case ateUnsigned, ateUnsignedChar, ateUTF, ateAddress:
			return model.KindUint, size
		case ateComplexFloat:
			return model.KindAggregate, size
		}
		return model.KindInt, size
	case dwarf.TagEnumerationType:
		if size == 0 {
			if t.hasType {
				_, size = l.kindOfDepth(t.typ, depth+1)
			} else {
				size = 4
			}
		}
		return model.KindEnum, size
	case dwarf.TagPointerType, dwarf.TagReferenceType, dwarf.TagRvalueReferenceType, dwarf.TagUnspecifiedType:
		if size == 0 {
			size = 8
		}
		return model.KindPointer, size
	case dwarf.TagArrayType:
		if size == 0 && t.hasType {
			_, es := l.kindOfDepth(t.typ, depth+1)
			n := int64(es)
			for _, d := range t.dims {
				if d < 0 {
					n = 0
				}
				n *= d
			}
			if n > 0 && n < 1<<30 {
				size = int32(n)
			}
		}
		return model.KindAggregate, size
	}
	return model.KindAggregate, size
}

// spell writes a type in C/C++ notation ("const char *", "struct conn *",
// "int[64]", "std::vector<int> &").
func (l *loader) spell(off dieOff, has, cpp bool, depth int) string {
	if !has {
		return "void"
	}
	t := l.typeAt(off)
	if t == nil || depth > maxTypeDepth {
		return "?"
	}
	inner := func() string { return l.spell(t.typ, t.hasType, cpp, depth+1) }
	named := func(kw string) string {
		switch {
		case t.name == "":
			return kw + " {...}"
		case cpp:
			return t.name
		}
		return kw + " " + t.name
	}
	switch t.tag {
	case dwarf.TagBaseType, dwarf.TagTypedef, dwarf.TagUnspecifiedType:
		if t.name == "" {
			return "?"
		}
		return t.name
	case dwarf.TagStructType:
		return named("struct")
	case dwarf.TagClassType:
		return named("class")
	case dwarf.TagUnionType:
		return named("union")
	case dwarf.TagEnumerationType:
		return named("enum")
	case dwarf.TagPointerType:
		if p := l.typeAt(t.typ); t.hasType && p != nil && p.tag == dwarf.TagSubroutineType {
			return l.spell(p.typ, p.hasType, cpp, depth+1) + " (*)()"
		}
		return ptrSuffix(inner(), "*")
	case dwarf.TagReferenceType:
		return ptrSuffix(inner(), "&")
	case dwarf.TagRvalueReferenceType:
		return ptrSuffix(inner(), "&&")
	case dwarf.TagConstType, dwarf.TagVolatileType:
		q := "const"
		if t.tag == dwarf.TagVolatileType {
			q = "volatile"
		}
		in := inner()
		if strings.HasSuffix(in, "*") || strings.HasSuffix(in, "&") {
			return in + " " + q
		}
		return q + " " + in
	case dwarf.TagRestrictType:
		return inner() + " restrict"
	case dwarf.TagAtomicType:
		return "_Atomic " + inner()
	case dwarf.TagArrayType:
		var b strings.Builder
		b.WriteString(inner())
		if len(t.dims) == 0 {
			b.WriteString("[]")
		}
		for _, d := range t.dims {
			b.WriteByte('[')
			if d >= 0 {
				b.WriteString(strconv.FormatInt(d, 10))
			}
			b.WriteByte(']')
		}
		return b.String()
	case dwarf.TagSubroutineType:
		return inner() + " ()"
	case dwarf.TagPtrToMemberType:
		return ptrSuffix(inner(), "::*")
	}
	return "?"
}

func ptrSuffix(in, p string) string {
	if strings.HasSuffix(in, "*") || strings.HasSuffix(in, "&") {
		return in + p
	}
	return in + " " + p
}
