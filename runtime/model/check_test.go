package model

import (
	"errors"
	"strings"
	"testing"
)

// validSchema has one of everything CheckValid looks at, each valid.
func validSchema() *Schema {
	return &Schema{
		Path: "/bin/app", Type: "exec", HasDWARF: true,
		Funcs: []Func{
			{Name: "main", File: 0, Line: 3, Ranges: []PCRange{{Lo: 0x1000, Hi: 0x1100}, {Lo: 0x2000, Hi: 0x2010}}, Blocks: []uint64{0x1000, 0x1040}},
			{Name: "helper", File: -1},
		},
		Inlines: []Inline{{Func: 1, Ranges: []PCRange{{Lo: 0x1010, Hi: 0x1020}}, Depth: 1, CallFile: 0, CallLine: 9}},
		Vars: []Var{
			{Name: "total", Func: NoFunc, File: 0, Kind: KindUint, Size: 8, Tags: TagLoop | TagCond},
			{Name: "p", Func: 0, File: 0, Kind: KindPointer, Size: 8, Tags: TagArgs, PointeeKind: KindInt, PointeeSize: 4},
			{Name: "p->n", Func: 0, File: 0, Kind: KindInt, Size: 4, Field: &Field{Of: 1, Offset: 8, Deref: true}},
			{Name: "pool.free", Func: NoFunc, File: 0, Kind: KindInt, Size: 4, Field: &Field{Of: -1, Offset: 4}},
		},
		Locs: []Loc{
			{Var: 0, PCStart: 0, PCEnd: ^uint64(0), Kind: LocAddr, Addr: 0x4000, Size: 8},
			{Var: 1, PCStart: 0x1000, PCEnd: 0x1080, Kind: LocReg, Reg: 5, Size: 8},
			{Var: 1, PCStart: 0x1080, PCEnd: 0x1100, Kind: LocFrame, Offset: -24, Size: 8},
		},
		Files:     []string{"/src/app.c"},
		Lines:     []LineRow{{PC: 0x1000, File: 0, Line: 3}, {PC: 0x1010, File: 0, Line: 4}, {PC: 0x1100, File: -1}},
		Symbols:   []Symbol{{Name: "main", Value: 0x1000, Size: 0x100}, {Name: "main.cold", Value: 0x2000, Size: 0x10}},
		CallSites: []CallSite{{ReturnPC: 0x1030, Params: []CallParam{{Reg: 5, Value: []byte{0x73, 0}}}}, {ReturnPC: 0x1050, Params: []CallParam{{Reg: 4, Value: []byte{0x30}}}}},
		TailCalls: []CallEdge{{ReturnPC: 0x1030, Callee: 0x2000}, {ReturnPC: 0x2008, Callee: 0x1000, Tail: true}},
	}
}

func TestSchemaCheckValid(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(s *Schema)
		where  string // "" for valid
		what   string
	}{
		{"valid", func(*Schema) {}, "", ""},
		{"empty", func(s *Schema) { *s = Schema{} }, "", ""},
		{"symbols only", func(s *Schema) { *s = Schema{Symbols: s.Symbols, Funcs: []Func{{Name: "main", File: -1}}} }, "", ""},
		{"func without name", func(s *Schema) { s.Funcs[1].Name = "" }, "funcs[1]", "no name"},
		{"func file", func(s *Schema) { s.Funcs[0].File = 1 }, "funcs[0]", "file 1 not in [-1, 1)"},
		{"func file below -1", func(s *Schema) { s.Funcs[0].File = -2 }, "funcs[0]", "file -2"},
		{"func empty range", func(s *Schema) { s.Funcs[0].Ranges[1].Hi = 0x2000 }, "funcs[0].ranges[1]", "empty range"},
		{"func ranges overlap", func(s *Schema) { s.Funcs[0].Ranges[1].Lo = 0x10ff }, "funcs[0].ranges[1]", "overlaps"},
		{"func ranges unsorted", func(s *Schema) {
			s.Funcs[0].Ranges[0], s.Funcs[0].Ranges[1] = s.Funcs[0].Ranges[1], s.Funcs[0].Ranges[0]
		}, "funcs[0].ranges[1]", "precedes"},
		{"func blocks unsorted", func(s *Schema) { s.Funcs[0].Blocks[0] = 0x1050 }, "funcs[0].blocks", "not sorted"},
		{"inline func", func(s *Schema) { s.Inlines[0].Func = 2 }, "inlines[0]", "func 2 not in [0, 2)"},
		{"inline NoFunc", func(s *Schema) { s.Inlines[0].Func = NoFunc }, "inlines[0]", "func -1"},
		{"inline without code", func(s *Schema) { s.Inlines[0].Ranges = nil }, "inlines[0]", "no code"},
		{"inline depth", func(s *Schema) { s.Inlines[0].Depth = 0 }, "inlines[0]", "depth 0"},
		{"inline call file", func(s *Schema) { s.Inlines[0].CallFile = 3 }, "inlines[0]", "call file 3"},
		{"inline range", func(s *Schema) { s.Inlines[0].Ranges[0].Lo = 0x1020 }, "inlines[0].ranges[0]", "empty range"},
		{"var without name", func(s *Schema) { s.Vars[0].Name = "" }, "vars[0]", "no name"},
		{"var func", func(s *Schema) { s.Vars[1].Func = 2 }, "vars[1]", "func 2 neither NoFunc"},
		{"var file", func(s *Schema) { s.Vars[1].File = 1 }, "vars[1]", "file 1"},
		{"var kind 0", func(s *Schema) { s.Vars[0].Kind = 0 }, "vars[0]", "kind 0 unknown"},
		{"var kind past aggregate", func(s *Schema) { s.Vars[0].Kind = KindAggregate + 1 }, "vars[0]", "kind 8 unknown"},
		{"pointee of a non-pointer", func(s *Schema) { s.Vars[0].PointeeKind = KindInt }, "vars[0]", "pointee kind int of a uint"},
		{"pointee kind unknown", func(s *Schema) { s.Vars[1].PointeeKind = 9 }, "vars[1]", "pointee kind ?"},
		{"tags unknown", func(s *Schema) { s.Vars[0].Tags = 8 }, "vars[0]", "tags 0x8 unknown"},
		{"field of itself", func(s *Schema) { s.Vars[2].Field.Of = 2 }, "vars[2].field", "of 2: itself"},
		{"field of nothing", func(s *Schema) { s.Vars[3].Field.Of = 4 }, "vars[3].field", "of 4"},
		{"field behind no pointer", func(s *Schema) { s.Vars[2].Field.Of = -1 }, "vars[2].field", "not monitored"},
		{"field behind a non-pointer", func(s *Schema) { s.Vars[2].Field.Of = 0 }, "vars[2].field", "a uint, not a pointer"},
		{"loc var", func(s *Schema) { s.Locs[1].Var = 4 }, "locs[1]", "var 4 not in [0, 4)"},
		{"loc var negative", func(s *Schema) { s.Locs[1].Var = -1 }, "locs[1]", "var -1"},
		{"loc empty", func(s *Schema) { s.Locs[2].PCEnd = s.Locs[2].PCStart }, "locs[2]", "empty range"},
		{"locs unsorted", func(s *Schema) { s.Locs[1], s.Locs[2] = s.Locs[2], s.Locs[1] }, "locs[2]", "pc_start 0x1000 below the previous one's 0x1080"},
		{"loc kind", func(s *Schema) { s.Locs[0].Kind = LocConst + 1 }, "locs[0]", "kind 7 unknown"},
		{"loc size", func(s *Schema) { s.Locs[0].Size = 4 }, "locs[0]", "size 4, its var's 8"},
		{"line file", func(s *Schema) { s.Lines[1].File = 1 }, "lines[1]", "file 1"},
		{"lines unsorted", func(s *Schema) { s.Lines[1].PC = 0xfff }, "lines[1]", "pc 0xfff not above"},
		{"two rows at a PC", func(s *Schema) { s.Lines[1].PC = 0x1000 }, "lines[1]", "not above"},
		{"symbols unsorted", func(s *Schema) { s.Symbols[1].Value = 0x10 }, "symbols[1]", "value 0x10 below"},
		{"call sites unsorted", func(s *Schema) { s.CallSites[1].ReturnPC = 0x1000 }, "call_sites[1]", "not above"},
		{"two call sites at a return PC", func(s *Schema) { s.CallSites[1].ReturnPC = 0x1030 }, "call_sites[1]", "not above"},
		{"call site without params", func(s *Schema) { s.CallSites[0].Params = nil }, "call_sites[0]", "no params"},
		{"call param register", func(s *Schema) { s.CallSites[1].Params[0].Reg = -1 }, "call_sites[1].params[0]", "register -1"},
		{"tail calls unsorted", func(s *Schema) { s.TailCalls[1].ReturnPC = 0x1000 }, "tail_calls[1]", "not above"},
		{"two tail-call records at a return PC", func(s *Schema) { s.TailCalls[1].ReturnPC = 0x1030 }, "tail_calls[1]", "not above"},
		{"call param value", func(s *Schema) { s.CallSites[1].Params[0].Value = nil }, "call_sites[1].params[0]", "0-byte value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := validSchema()
			tc.mutate(s)
			checkInvalid(t, s.CheckValid(), tc.where, tc.what)
		})
	}
}

// checkInvalid checks that err is nil when where is "", else an
// *InvalidError at where whose What contains what.
func checkInvalid(t *testing.T, err error, where, what string) {
	t.Helper()
	if where == "" {
		if err != nil {
			t.Fatalf("CheckValid = %v, want nil", err)
		}
		return
	}
	var e *InvalidError
	if !errors.As(err, &e) {
		t.Fatalf("CheckValid = %v (%T), want an *InvalidError", err, err)
	}
	if e.Where != where || !strings.Contains(e.What, what) {
		t.Errorf("CheckValid = %q at %q, want %q at %q", e.What, e.Where, what, where)
	}
}

func TestProfileCheckValid(t *testing.T) {
	sample := func() *Sample {
		return &Sample{Tick: 1, State: Blocked, Syscall: 7, Stack: []uint64{0x1000, 0x2000},
			Values: []Value{{Frame: 0, Var: 1}, {Frame: 1, Obj: 1, Var: 0}}}
	}
	for _, tc := range []struct {
		name  string
		check func() error
		where string
		what  string
	}{
		{"header", func() error { return (&Header{Clock: ClockWall, IntervalNS: 1e6}).CheckValid() }, "", ""},
		{"header clock", func() error { return (&Header{Clock: "sometimes", IntervalNS: 1e6}).CheckValid() }, "header", `clock "sometimes" unknown`},
		{"header no clock", func() error { return (&Header{IntervalNS: 1e6}).CheckValid() }, "header", `clock "" unknown`},
		{"header interval", func() error { return (&Header{Clock: ClockCPU}).CheckValid() }, "header", "interval 0ns"},
		{"object", func() error { return (&Object{ID: 2, Schema: validSchema()}).CheckValid() }, "", ""},
		{"object without schema", func() error { return (&Object{ID: 2}).CheckValid() }, "object 2", "no schema"},
		{"object with an invalid schema", func() error {
			s := validSchema()
			s.Locs[0].Var = 9
			return (&Object{ID: 2, Schema: s}).CheckValid()
		}, "object 2: schema: locs[0]", "var 9"},
		{"mapping", func() error { return (&Mapping{Start: 0x1000, End: 0x2000}).CheckValid() }, "", ""},
		{"empty mapping", func() error { return (&Mapping{Start: 0x1000, End: 0x1000}).CheckValid() }, "", ""},
		{"mapping reversed", func() error { return (&Mapping{Start: 0x2000, End: 0x1000}).CheckValid() }, "mapping", "end 0x1000 below start 0x2000"},
		{"sample", func() error { return sample().CheckValid() }, "", ""},
		{"running sample", func() error { s := sample(); s.State, s.Syscall = Running, -1; return s.CheckValid() }, "", ""},
		{"running in a system call", func() error { s := sample(); s.State = Running; return s.CheckValid() }, "", "running, with system call 7"},
		{"state", func() error { s := sample(); s.State = 2; return s.CheckValid() }, "", "state 2 unknown"},
		{"value frame", func() error { s := sample(); s.Values[1].Frame = 2; return s.CheckValid() }, ".values[1]", "frame 2 of a 2-frame stack"},
		{"value var", func() error { s := sample(); s.Values[0].Var = -1; return s.CheckValid() }, ".values[0]", "var -1"},
		{"block", func() error { return (&Block{Samples: []Sample{*sample(), *sample()}}).CheckValid() }, "", ""},
		{"block sample", func() error {
			b := &Block{Samples: []Sample{*sample(), *sample()}}
			b.Samples[1].Stack = nil
			return b.CheckValid()
		}, "samples[1].values[0]", "frame 0 of a 0-frame stack"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.check()
			if tc.where == "" && tc.what != "" {
				// An error without a place (a Sample's own).
				var e *InvalidError
				if !errors.As(err, &e) || e.Where != "" || !strings.Contains(e.What, tc.what) {
					t.Fatalf("CheckValid = %v, want %q", err, tc.what)
				}
				return
			}
			checkInvalid(t, err, tc.where, tc.what)
		})
	}
}
