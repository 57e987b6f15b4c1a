package dwarfschema

import (
	"debug/dwarf"
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// typeLoader builds a loader whose type records are recs (sorted by off).
func typeLoader(recs ...typeRec) *loader {
	l := &loader{}
	for _, r := range recs {
		l.types.add(r)
	}
	return l
}

func TestTypes(t *testing.T) {
	l := typeLoader(
		typeRec{off: 1, tag: dwarf.TagBaseType, name: "int", size: 4, enc: ateSigned},
		typeRec{off: 2, tag: dwarf.TagBaseType, name: "char", size: 1, enc: ateSignedChar},
		typeRec{off: 3, tag: dwarf.TagConstType, typ: 2, hasType: true},
		typeRec{off: 4, tag: dwarf.TagPointerType, typ: 3, hasType: true, size: 8},
		typeRec{off: 5, tag: dwarf.TagTypedef, name: "size_t", typ: 6, hasType: true},
		typeRec{off: 6, tag: dwarf.TagBaseType, name: "long unsigned int", size: 8, enc: ateUnsigned},
		typeRec{off: 7, tag: dwarf.TagStructType, name: "conn", size: 24},
		typeRec{off: 8, tag: dwarf.TagPointerType, typ: 7, hasType: true, size: 8},
		typeRec{off: 9, tag: dwarf.TagArrayType, typ: 1, hasType: true, dims: []int64{4, 16}, size: -1},
		typeRec{off: 10, tag: dwarf.TagEnumerationType, name: "state", size: 4},
		typeRec{off: 11, tag: dwarf.TagPointerType, size: 8}, // void *
		typeRec{off: 12, tag: dwarf.TagConstType, typ: 4, hasType: true},
		typeRec{off: 13, tag: dwarf.TagBaseType, name: "_Bool", size: 1, enc: ateBoolean},
		typeRec{off: 14, tag: dwarf.TagBaseType, name: "double", size: 8, enc: ateFloat},
		typeRec{off: 15, tag: dwarf.TagSubroutineType, typ: 1, hasType: true},
		typeRec{off: 16, tag: dwarf.TagPointerType, typ: 15, hasType: true, size: 8},
		typeRec{off: 17, tag: dwarf.TagVolatileType, typ: 5, hasType: true},
		typeRec{off: 18, tag: dwarf.TagReferenceType, typ: 1, hasType: true, size: 8},
		typeRec{off: 19, tag: dwarf.TagPointerType, typ: 10, hasType: true, size: 8},
		// Bad input: cycles.
		typeRec{off: 20, tag: dwarf.TagArrayType, typ: 20, hasType: true, size: -1},
		typeRec{off: 21, tag: dwarf.TagTypedef, name: "loop", typ: 22, hasType: true},
		typeRec{off: 22, tag: dwarf.TagConstType, typ: 21, hasType: true},
		typeRec{off: 23, tag: dwarf.TagEnumerationType, typ: 23, hasType: true, size: -1},
		typeRec{off: 24, tag: dwarf.TagPointerType, typ: 24, hasType: true, size: 8},
	)
	for _, tc := range []struct {
		off          dieOff
		has          bool
		spell        string
		kind         model.Kind
		size         int32
		pkind        model.Kind
		psize        int32
		cpp          bool
		wantFinished bool
	}{
		{off: 1, has: true, spell: "int", kind: model.KindInt, size: 4},
		{off: 4, has: true, spell: "const char *", kind: model.KindPointer, size: 8, pkind: model.KindInt, psize: 1},
		{off: 5, has: true, spell: "size_t", kind: model.KindUint, size: 8},
		{off: 8, has: true, spell: "struct conn *", kind: model.KindPointer, size: 8},
		{off: 8, has: true, spell: "conn *", kind: model.KindPointer, size: 8, cpp: true},
		{off: 9, has: true, spell: "int[4][16]", kind: model.KindAggregate, size: 256},
		{off: 10, has: true, spell: "enum state", kind: model.KindEnum, size: 4},
		{off: 11, has: true, spell: "void *", kind: model.KindPointer, size: 8},
		{off: 12, has: true, spell: "const char * const", kind: model.KindPointer, size: 8, pkind: model.KindInt, psize: 1},
		{off: 13, has: true, spell: "_Bool", kind: model.KindBool, size: 1},
		{off: 14, has: true, spell: "double", kind: model.KindFloat, size: 8},
		{off: 16, has: true, spell: "int (*)()", kind: model.KindPointer, size: 8},
		{off: 17, has: true, spell: "volatile size_t", kind: model.KindUint, size: 8},
		{off: 18, has: true, spell: "int &", kind: model.KindPointer, size: 8, pkind: model.KindInt, psize: 4},
		{off: 19, has: true, spell: "enum state *", kind: model.KindPointer, size: 8, pkind: model.KindEnum, psize: 4},
		{off: 99, has: true, spell: "?", kind: model.KindAggregate},
		{off: 0, has: false, spell: "void", kind: model.KindAggregate},
		{off: 20, has: true, spell: "", kind: model.KindAggregate},
		{off: 21, has: true, spell: "loop", kind: model.KindAggregate},
		{off: 23, has: true, spell: "enum {...}", kind: model.KindEnum},
		{off: 24, has: true, spell: "", kind: model.KindPointer, size: 8},
	} {
		ti := l.resolveType(tc.off, tc.has, tc.cpp, map[dieOff]typeInfo{})
		if tc.spell != "" && ti.spell != tc.spell || ti.kind != tc.kind || ti.size != tc.size || ti.pkind != tc.pkind || ti.psize != tc.psize {
			t.Errorf("type %d (cpp %v) = %+v, want %q %v %d pointee %v %d", tc.off, tc.cpp, ti, tc.spell, tc.kind, tc.size, tc.pkind, tc.psize)
		}
	}
}

func TestMalformedSections(t *testing.T) {
	if parseAddr([]byte{1, 0, 0, 0, 5, 0, 4, 0}) != nil {
		t.Error("parseAddr accepted 4-byte addresses")
	}
	if parseAddr([]byte{1, 0, 0}) != nil {
		t.Error("parseAddr accepted a truncated header")
	}
	if parseAddr([]byte{12, 0, 0, 0, 5, 0, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8}) == nil {
		t.Error("parseAddr refused a good header")
	}
	for _, tc := range []struct {
		b       []byte
		base, i uint64
	}{
		{make([]byte, 16), 100, 0},
		{make([]byte, 16), 12, 1},
		{make([]byte, 16), 12, 1 << 62},
	} {
		if _, err := loclistxOffset(tc.b, tc.base, tc.i); err == nil {
			t.Errorf("loclistxOffset(%d bytes, base %d, index %d) gave no error", len(tc.b), tc.base, tc.i)
		}
	}
	if _, err := readUnitHeaders([]byte{0xff, 0xff, 0xff, 0xff, 1}, 0); err == nil {
		t.Error("readUnitHeaders accepted a truncated 64-bit header")
	}
	if _, err := readUnitHeaders([]byte{200, 0, 0, 0, 5, 0}, 0); err == nil {
		t.Error("readUnitHeaders accepted a unit past the section's end")
	}
}
