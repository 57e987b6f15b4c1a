package dwarfschema

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// A cache body decodes to what a JSON round trip of the schema gives: the
// same JSON, and the same Go values (nil and empty slices alike).
func TestSchemaBody(t *testing.T) {
	bin, _ := cacheFixture(t)
	s, err := Load(bin, Options{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []*model.Schema{s, {}, {Locs: []model.Loc{}, Lines: []model.LineRow{}, Funcs: []model.Func{}, Inlines: []model.Inline{}, Vars: []model.Var{}}, {
		Locs: []model.Loc{
			{Var: 3, PCStart: 0x1000, PCEnd: 0x1010, Kind: model.LocReg, Reg: 17, Size: 8, Expr: []byte{0x51}},
			{Var: -1, PCStart: 0x10, PCEnd: 0x8, Kind: model.LocExpr, Offset: -24, Addr: ^uint64(0), Size: -1, Expr: []byte{}, BasicTypePtr: true},
		},
		Lines: []model.LineRow{{PC: 0x2000, File: 1, Line: 10}, {PC: 0x1000, File: -1, Line: 0}},
		Funcs: []model.Func{
			{Name: "f", Display: "f()", File: -1, Line: 3, Ranges: []model.PCRange{{Lo: 0x20, Hi: 0x10}, {Lo: 5, Hi: 9}}, Blocks: []uint64{7, 3}, FrameBase: []byte{0x9c}},
			{Name: "", Ranges: []model.PCRange{}, Blocks: []uint64{}, FrameBase: []byte{}},
			{Name: "g\u00e9\x00"},
		},
		Inlines: []model.Inline{{Func: 2, Ranges: []model.PCRange{{Lo: 1, Hi: 2}}, Depth: 3, CallFile: -1, CallLine: 7}, {Func: -1}},
		Vars: []model.Var{
			{Name: "x", Func: -1, File: 2, Line: 4, Type: "struct s *", Kind: model.KindPointer, Size: 8, Param: true, Tags: model.TagCond | model.TagLoop, PointeeKind: model.KindInt, PointeeSize: 4},
			{Name: "x->a", Type: "struct s *", Static: true, Field: &model.Field{Of: 0, Offset: -8, Deref: true}},
			{Name: "y.b", Type: "int", Field: &model.Field{Of: 0, Offset: 1 << 40}},
			{Name: "x->v.size()", Type: "size_t", Kind: model.KindUint, Size: 8, Field: &model.Field{Of: 0, Offset: 24, Deref: true, Elem: 12}},
		},
	}}
	for i, s := range cases {
		js, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		want := new(model.Schema)
		if err := json.Unmarshal(js, want); err != nil {
			t.Fatal(err)
		}
		body, err := encodeSchemaBody(s)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeSchemaBody(body)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("case %d: decoded schema differs from the JSON round trip's", i)
		}
		gjs, _ := json.Marshal(got)
		if !bytes.Equal(gjs, js) {
			t.Errorf("case %d: JSON differs", i)
		}
		for n := range body {
			if _, err := decodeSchemaBody(body[:n]); err == nil {
				t.Errorf("case %d cut to %d of %d bytes: no error", i, n, len(body))
				break
			}
		}
	}
}

// FuzzSchemaBody: decodeSchemaBody never panics, and what it accepts
// encodes to a body that decodes alike.
func FuzzSchemaBody(f *testing.F) {
	for _, s := range []*model.Schema{{}, {Locs: []model.Loc{{Var: 1, PCStart: 4, PCEnd: 8, Kind: model.LocExpr, Expr: []byte{1, 2}}}, Lines: []model.LineRow{{PC: 4, File: 1, Line: 2}},
		Funcs:   []model.Func{{Name: "f", Ranges: []model.PCRange{{Lo: 1, Hi: 3}}, Blocks: []uint64{1}, FrameBase: []byte{0x9c}}},
		Inlines: []model.Inline{{Func: 0, Ranges: []model.PCRange{}, Depth: 1}},
		Vars:    []model.Var{{Name: "v", Type: "int", Field: &model.Field{Of: 0, Offset: 4, Deref: true}}}}} {
		b, err := encodeSchemaBody(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := decodeSchemaBody(b)
		if err != nil {
			return
		}
		e, err := encodeSchemaBody(s)
		if err != nil {
			return // JSON the decoder took but cannot write (NaN and the like)
		}
		s2, err := decodeSchemaBody(e)
		if err != nil {
			t.Fatalf("re-encoded body: %v", err)
		}
		j1, _ := json.Marshal(s)
		j2, _ := json.Marshal(s2)
		if !bytes.Equal(j1, j2) {
			t.Fatalf("re-encoded body decodes otherwise:\n%s\n%s", j1, j2)
		}
	})
}
