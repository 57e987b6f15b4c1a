package tailcall

import (
	"slices"
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// Functions f0, f1, ... at 0x1000, 0x2000, ..., each 0x1000 bytes long:
// fn(i) is the entry of fi, and at(i, k) an address k bytes into it.
func fn(i int) uint64           { return uint64(i+1) << 12 }
func at(i int, k uint64) uint64 { return fn(i) + k }

func schema(n int) *model.Schema {
	s := &model.Schema{}
	for i := range n {
		s.Funcs = append(s.Funcs, model.Func{Name: string(rune('a' + i)), Ranges: []model.PCRange{{Lo: fn(i), Hi: fn(i) + 0x1000}}})
	}
	return s
}

func TestBetween(t *testing.T) {
	// f0 calls f1 (returning to at(0, 0x10)) and f5 (at(0, 0x20)).
	// f1 tail-calls f2 or f3; f2 tail-calls f4; f3 tail-calls f4 and f6;
	// f5 tail-calls f6, which tail-calls f5 (a cycle) and f7.
	edges := []model.CallEdge{
		{ReturnPC: at(0, 0x10), Callee: fn(1)},
		{ReturnPC: at(0, 0x20), Callee: fn(5)},
		{ReturnPC: at(1, 0x10), Callee: fn(2), Tail: true},
		{ReturnPC: at(1, 0x20), Callee: fn(3), Tail: true},
		{ReturnPC: at(2, 0x10), Callee: fn(4), Tail: true},
		{ReturnPC: at(3, 0x10), Callee: fn(4), Tail: true},
		{ReturnPC: at(3, 0x20), Callee: fn(6), Tail: true},
		{ReturnPC: at(5, 0x10), Callee: fn(6), Tail: true},
		{ReturnPC: at(6, 0x10), Callee: fn(5), Tail: true},
		{ReturnPC: at(6, 0x20), Callee: fn(7), Tail: true},
	}
	x := New(schema(9), edges)
	for _, tc := range []struct {
		name  string
		pc    uint64
		inner bool
		ret   uint64
		want  []uint64
	}{
		{"f0>f1>f2: one hop", at(2, 4), true, at(0, 0x10), []uint64{at(1, 0x10)}},
		{"f0>f1>f3>f6: two hops", at(6, 4), true, at(0, 0x10), []uint64{at(3, 0x20), at(1, 0x20)}},
		{"f0>f1>(f2|f3)>f4: two chains", at(4, 4), true, at(0, 0x10), nil},
		{"f0>f1 running", at(1, 4), true, at(0, 0x10), nil},
		{"f0>f1>f8: no chain", at(8, 4), true, at(0, 0x10), nil},
		{"f0>f5>f6>f7 through a cycle", at(7, 4), true, at(0, 0x20), []uint64{at(6, 0x20), at(5, 0x10)}},
		{"f0>f5>f6: the cycle back to f5 is no second chain", at(6, 4), true, at(0, 0x20), []uint64{at(5, 0x10)}},
		{"callee a caller frame, looked up one byte before", at(2, 0x11), false, at(0, 0x10), []uint64{at(1, 0x10)}},
		{"callee a caller frame at the next function's entry", at(3, 0), false, at(0, 0x10), []uint64{at(1, 0x10)}},
		{"no call returns there", at(2, 4), true, at(0, 0x11), nil},
		{"a tail call's record is no return address", at(4, 4), true, at(2, 0x10), nil},
		{"pc outside any function", 0x800000, true, at(0, 0x10), nil},
		{"return address 0", at(2, 4), false, 0, nil},
	} {
		if got := x.Between(nil, tc.pc, tc.inner, tc.ret); !slices.Equal(got, tc.want) {
			t.Errorf("%s: Between = %#x, want %#x", tc.name, got, tc.want)
		}
	}
	if New(schema(2), edges[:2]) != nil {
		t.Error("New without tail calls: an Index, want nil")
	}
	var none *Index
	if got := none.Between([]uint64{1}, at(2, 4), true, at(0, 0x10)); !slices.Equal(got, []uint64{1}) {
		t.Errorf("nil Index: Between = %#x, want dst unchanged", got)
	}
}

// A chain longer than MaxChain restores nothing; one of MaxChain does.
func TestBetweenMaxChain(t *testing.T) {
	n := MaxChain + 3
	edges := []model.CallEdge{{ReturnPC: at(0, 0x10), Callee: fn(1)}}
	for i := 1; i+1 < n; i++ {
		edges = append(edges, model.CallEdge{ReturnPC: at(i, 0x10), Callee: fn(i + 1), Tail: true})
	}
	x := New(schema(n), edges)
	if got := x.Between(nil, at(MaxChain+1, 4), true, at(0, 0x10)); len(got) != MaxChain {
		t.Errorf("chain of %d tail calls: %d frames, want %d", MaxChain, len(got), MaxChain)
	}
	if got := x.Between(nil, at(MaxChain+2, 4), true, at(0, 0x10)); got != nil {
		t.Errorf("chain of %d tail calls: %#x, want nothing", MaxChain+1, got)
	}
}

func TestMismatch(t *testing.T) {
	edges := []model.CallEdge{
		{ReturnPC: at(0, 0x10), Callee: fn(1)},
		{ReturnPC: at(1, 0x10), Callee: fn(2), Tail: true},
		{ReturnPC: at(1, 0x20), Callee: fn(3), Tail: true},
	}
	x := New(schema(4), edges)
	for _, tc := range []struct {
		name  string
		pc    uint64
		inner bool
		ret   uint64
		want  bool
	}{
		{"the callee named", at(1, 4), true, at(0, 0x10), false},
		{"another function", at(2, 4), true, at(0, 0x10), true},
		{"another function, a caller frame", at(2, 0x11), false, at(0, 0x10), true},
		{"a call not indexed", at(2, 4), true, at(0, 0x30), false},
		{"pc in no function", 0x900000, true, at(0, 0x10), false},
	} {
		if got := x.Mismatch(tc.pc, tc.inner, tc.ret); got != tc.want {
			t.Errorf("%s: Mismatch = %v, want %v", tc.name, got, tc.want)
		}
	}
	var none *Index
	if none.Mismatch(at(2, 4), true, at(0, 0x10)) {
		t.Error("nil Index: Mismatch true")
	}
}
