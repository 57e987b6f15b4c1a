package tailcall

import (
	"slices"
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

func TestBetweenIndirect(t *testing.T) {
	tail := func(from, to int) model.CallEdge {
		return model.CallEdge{ReturnPC: at(from, 0x10), Callee: fn(to), Tail: true}
	}
	// f0's indirect call returns to at(0, 0x10); at(0, 0x30) is a direct
	// call's, which no record describes (its callee makes no tail call).
	edges := []model.CallEdge{
		tail(1, 2),             // f1 (taken) > f2
		tail(3, 4), tail(5, 4), // f3, f5 (both taken) > f4
		tail(6, 7), tail(7, 8), // f6 (taken) > f7 > f8
		tail(12, 13), tail(13, 14), // f12 (taken) > f13 (taken) > f14
		tail(15, 16),               // f15 (taken) > f16 (taken)
		tail(20, 19),               // f20 (taken) > f19, and code of no function > f19
		tail(21, 22), tail(22, 21), // f21 (taken) > f22 > f21: a cycle
	}
	in := &Indirect{
		Calls: []uint64{at(0, 0x10)},
		Jumps: []model.CallEdge{
			tail(1, 2), // the same jump as its record
			tail(17, 18),
			{ReturnPC: 0x900010, Callee: fn(19), Tail: true},
		},
	}
	for _, i := range []int{1, 3, 5, 6, 12, 13, 15, 16, 17, 20, 21} {
		in.Taken = append(in.Taken, fn(i))
	}
	x := New(schema(23), edges)
	ind := at(0, 0x10)
	cases := []struct {
		name  string
		pc    uint64
		inner bool
		ret   uint64
		want  []uint64
	}{
		{"f1 > f2: one function leads to f2", at(2, 4), true, ind, []uint64{at(1, 0x10)}},
		{"a caller frame, looked up one byte before", at(2, 0x21), false, ind, []uint64{at(1, 0x10)}},
		{"f6 > f7 > f8: a chain of two", at(8, 4), true, ind, []uint64{at(7, 0x10), at(6, 0x10)}},
		{"f3 or f5 > f4: two functions", at(4, 4), true, ind, nil},
		{"f12 > f13 > f14 or f13 > f14: both taken", at(14, 4), true, ind, nil},
		{"f16 taken: the call may have reached it", at(16, 4), true, ind, nil},
		{"f17 > f18: a jump of the code that no record names", at(18, 4), true, ind, []uint64{at(17, 0x10)}},
		{"f19: a jump from code of no function", at(19, 4), true, ind, nil},
		{"f21 > f22 through a cycle", at(22, 4), true, ind, []uint64{at(21, 0x10)}},
		{"the function it called runs", at(1, 4), true, ind, nil},
		{"a direct call with no record", at(2, 4), true, at(0, 0x30), nil},
		{"pc in no function", 0x800000, true, ind, nil},
	}
	for _, tc := range cases {
		if got := x.Between(nil, tc.pc, tc.inner, tc.ret); got != nil {
			t.Errorf("%s, without AddIndirect: Between = %#x, want nothing", tc.name, got)
		}
	}
	x.AddIndirect(in)
	for _, tc := range cases {
		if got := x.Between(nil, tc.pc, tc.inner, tc.ret); !slices.Equal(got, tc.want) {
			t.Errorf("%s: Between = %#x, want %#x", tc.name, got, tc.want)
		}
	}
	for _, tc := range []struct {
		name string
		pc   uint64
		ret  uint64
		want bool
	}{
		{"f2, address never taken", at(2, 4), ind, true},
		{"f16, address taken", at(16, 4), ind, false},
		{"a direct call", at(2, 4), at(0, 0x30), false},
	} {
		if got := x.Mismatch(tc.pc, true, tc.ret); got != tc.want {
			t.Errorf("%s: Mismatch = %v, want %v", tc.name, got, tc.want)
		}
	}
	var none *Index
	none.AddIndirect(in) // no panic
}

// A chain longer than MaxChain may lead to another function the call can
// reach: nothing is restored; one of MaxChain is.
func TestBetweenIndirectMaxChain(t *testing.T) {
	n := MaxChain + 3
	var edges []model.CallEdge
	for i := 1; i+1 < n; i++ {
		edges = append(edges, model.CallEdge{ReturnPC: at(i, 0x10), Callee: fn(i + 1), Tail: true})
	}
	in := &Indirect{Calls: []uint64{at(0, 0x10)}, Taken: []uint64{fn(1)}}
	x := New(schema(n), edges)
	x.AddIndirect(in)
	if got := x.Between(nil, at(MaxChain+1, 4), true, at(0, 0x10)); len(got) != MaxChain {
		t.Errorf("chain of %d tail calls: %d frames, want %d", MaxChain, len(got), MaxChain)
	}
	if got := x.Between(nil, at(MaxChain+2, 4), true, at(0, 0x10)); got != nil {
		t.Errorf("chain of %d tail calls: %#x, want nothing", MaxChain+1, got)
	}
	// With f2 taken as well, f2's chain is within the bound, f1's one
	// longer: two functions lead there.
	in.Taken = append(in.Taken, fn(2))
	x = New(schema(n), edges)
	x.AddIndirect(in)
	if got := x.Between(nil, at(MaxChain+1, 4), true, at(0, 0x10)); got != nil {
		t.Errorf("f1 and f2 taken: %#x, want nothing", got)
	}
}
