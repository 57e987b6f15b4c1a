package dwarfschema

import (
	"debug/elf"
	"encoding/binary"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/vprof/vprof/dwarfschema/cfg"
	"github.com/vprof/vprof/runtime/dwarfexpr"
	"github.com/vprof/vprof/runtime/model"
)

// callSrc calls leaf twice from mid: in a loop with the constant 7 as b,
// then with b = n + 3, where n lives in a callee-saved register across the
// calls. Every compiler records b of the first call as DW_OP_lit7 and both
// arguments of the second as that register plus 0 and plus 3.
const callSrc = `#include <stdio.h>
#ifdef __clang__
#define NOIPA __attribute__((noinline))
#else
#define NOIPA __attribute__((noipa))
#endif
NOIPA long leaf(long a, long b) { __asm__ volatile("" ::: "memory"); return a * b + 1; }
NOIPA long mid(long n) {
	long s = 0;
	for (long i = 0; i < n; i++) s += leaf(i, 7);
	return s + leaf(n, n + 3);
}
int main(int argc, char **argv) { (void)argv; printf("%ld\n", mid(argc * 10)); return 0; }
`

// DWARF registers of the first two integer arguments (System V x86-64).
const (
	regRDI = 5
	regRSI = 4
)

// callsTo returns the call sites of s whose call instruction (a direct
// call, e8 rel32, just before the return address) goes to target.
func callsTo(t *testing.T, bin string, s *model.Schema, target uint64) []model.CallSite {
	t.Helper()
	ef, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	var out []model.CallSite
	for _, cs := range s.CallSites {
		at := cs.ReturnPC - 5
		for _, sec := range ef.Sections {
			if sec.Flags&elf.SHF_EXECINSTR == 0 || at < sec.Addr || cs.ReturnPC > sec.Addr+sec.Size {
				continue
			}
			var insn [5]byte
			if _, err := sec.ReadAt(insn[:], int64(at-sec.Addr)); err != nil {
				t.Fatal(err)
			}
			rel := int32(binary.LittleEndian.Uint32(insn[1:]))
			if insn[0] == 0xe8 && cs.ReturnPC+uint64(int64(rel)) == target {
				out = append(out, cs)
			}
		}
	}
	return out
}

// TestCallSites reads the call-site parameters gcc and clang write, in
// DWARF 4 (GNU tags and attributes) and DWARF 5, and finds them again with
// CallValue.
func TestCallSites(t *testing.T) {
	for _, tc := range []struct{ cc, dwarf string }{
		{"gcc", "-gdwarf-4"}, {"gcc", "-gdwarf-5"}, {"clang", "-gdwarf-4"}, {"clang", "-gdwarf-5"},
	} {
		t.Run(tc.cc+tc.dwarf, func(t *testing.T) {
			bin := buildWith(t, tc.cc, callSrc, "-O2", tc.dwarf)
			s, err := Load(bin, Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, s)
			leaf, ok := elfSymbol(t, bin, "leaf")
			if !ok {
				t.Fatal("no symbol leaf")
			}
			calls := callsTo(t, bin, s, leaf)
			if len(calls) != 2 {
				t.Fatalf("%d call sites of calls to leaf, want 2 (all: %+v)", len(calls), s.CallSites)
			}
			loop, last := calls[0], calls[1]
			if v, ok := s.CallValue(loop.ReturnPC, regRSI); !ok || !slices.Equal(v, []byte{0x37}) {
				t.Errorf("leaf(i, 7): rsi = %q, %v; want DW_OP_lit7", dwarfexpr.Format(v), ok)
			}
			a, okA := s.CallValue(last.ReturnPC, regRDI)
			b, okB := s.CallValue(last.ReturnPC, regRSI)
			// DW_OP_bregN 0 and DW_OP_bregN 3, N the register holding n.
			if !okA || !okB || len(a) != 2 || len(b) != 2 || a[0] < 0x70 || a[0] > 0x8f || a[0] != b[0] || a[1] != 0 || b[1] != 3 {
				t.Errorf("leaf(n, n + 3): rdi = %q, rsi = %q; want DW_OP_bregN 0 and DW_OP_bregN 3", dwarfexpr.Format(a), dwarfexpr.Format(b))
			}
			for _, miss := range []struct {
				pc  uint64
				reg int
			}{
				{loop.ReturnPC, 0},          // rax is no argument
				{loop.ReturnPC - 1, regRSI}, // inside the call: no return address
				{loop.ReturnPC + 1, regRSI},
				{0, regRDI},
				{^uint64(0), regRDI},
			} {
				if v, ok := s.CallValue(miss.pc, miss.reg); ok {
					t.Errorf("CallValue(%#x, %d) = %q, want none", miss.pc, miss.reg, dwarfexpr.Format(v))
				}
			}
		})
	}
}

// TestCallSitesDebugFiles finds the same call sites when the DWARF is in
// a separate debug file (found by build-id) or was compressed by dwz into
// a supplementary file.
func TestCallSitesDebugFiles(t *testing.T) {
	run := func(t *testing.T, args ...string) {
		t.Helper()
		if b, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, b)
		}
	}
	for _, dwarf := range []string{"-gdwarf-4", "-gdwarf-5"} {
		full := buildWith(t, "gcc", callSrc, "-O2", dwarf)
		want, err := Load(full, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(want.CallSites) == 0 {
			t.Fatal("no call sites")
		}
		t.Run(dwarf+"/build-id", func(t *testing.T) {
			d := t.TempDir()
			bin := filepath.Join(d, "p")
			dbg := filepath.Join(d, "debug", ".build-id", want.BuildID[:2], want.BuildID[2:]+".debug")
			if err := os.MkdirAll(filepath.Dir(dbg), 0o755); err != nil {
				t.Fatal(err)
			}
			run(t, "objcopy", "--only-keep-debug", full, dbg)
			run(t, "objcopy", "--strip-debug", full, bin)
			s, err := Load(bin, Options{DebugDirs: []string{filepath.Join(d, "debug")}})
			if err != nil {
				t.Fatal(err)
			}
			if s.DebugFile != dbg || !reflect.DeepEqual(s.CallSites, want.CallSites) {
				t.Errorf("debug file %q, call sites %+v; want %q, %+v", s.DebugFile, s.CallSites, dbg, want.CallSites)
			}
		})
		t.Run(dwarf+"/dwz", func(t *testing.T) {
			if _, err := exec.LookPath("dwz"); err != nil {
				t.Skip("dwz not installed")
			}
			d := t.TempDir()
			a, b, sup := filepath.Join(d, "a"), filepath.Join(d, "b"), filepath.Join(d, "common.debug")
			run(t, "cp", full, a)
			run(t, "cp", full, b)
			args := []string{"dwz", "-m", sup, "-M", sup, a, b}
			if dwarf == "-gdwarf-5" {
				args = append([]string{"dwz", "--dwarf-5"}, args[1:]...)
			}
			run(t, args...)
			s, err := Load(b, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(s.CallSites, want.CallSites) {
				t.Errorf("call sites after dwz %+v; want %+v", s.CallSites, want.CallSites)
			}
		})
	}
}

func TestFinishCallSites(t *testing.T) {
	p := func(reg int16, v ...byte) model.CallParam { return model.CallParam{Reg: reg, Value: v} }
	for _, tc := range []struct {
		name     string
		in, want []model.CallSite
	}{
		{"none", nil, nil},
		{"sorted", []model.CallSite{{ReturnPC: 0x30, Params: []model.CallParam{p(5, 0x37)}}, {ReturnPC: 0x10, Params: []model.CallParam{p(4, 0x73, 0)}}, {ReturnPC: 0x20, Params: []model.CallParam{p(5, 0x30)}}},
			[]model.CallSite{{ReturnPC: 0x10, Params: []model.CallParam{p(4, 0x73, 0)}}, {ReturnPC: 0x20, Params: []model.CallParam{p(5, 0x30)}}, {ReturnPC: 0x30, Params: []model.CallParam{p(5, 0x37)}}}},
		// Two records of one call: the first in DWARF order stays.
		{"duplicate", []model.CallSite{{ReturnPC: 0x20, Params: []model.CallParam{p(5, 0x31)}}, {ReturnPC: 0x10, Params: []model.CallParam{p(5, 0x30)}}, {ReturnPC: 0x20, Params: []model.CallParam{p(5, 0x32), p(4, 0x33)}}},
			[]model.CallSite{{ReturnPC: 0x10, Params: []model.CallParam{p(5, 0x30)}}, {ReturnPC: 0x20, Params: []model.CallParam{p(5, 0x31)}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := finishCallSites(slices.Clone(tc.in))
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("finishCallSites = %+v, want %+v", got, tc.want)
			}
			s := &model.Schema{CallSites: got}
			for _, cs := range tc.want {
				for _, p := range cs.Params {
					if v, ok := s.CallValue(cs.ReturnPC, int(p.Reg)); !ok || !slices.Equal(v, p.Value) {
						t.Errorf("CallValue(%#x, %d) = % x, %v; want % x", cs.ReturnPC, p.Reg, v, ok, p.Value)
					}
				}
			}
		})
	}
}

// TestCallSitesJSON: call sites survive the profile's JSON encoding of the
// schema, and a schema written before they existed (no "call_sites")
// decodes with none.
func TestCallSitesJSON(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want []model.CallSite
	}{
		{"older profile", `{"path":"p","type":"exec","has_dwarf":true,"funcs":[],"vars":[],"locs":[],"files":[],"lines":[],"symbols":[]}`, nil},
		{"no call sites", `{"path":"p","call_sites":[]}`, []model.CallSite{}},
		{"call sites", `{"path":"p","call_sites":[{"return_pc":4477,"params":[{"reg":5,"value":"cwA="},{"reg":4,"value":"Nw=="}]}]}`,
			[]model.CallSite{{ReturnPC: 4477, Params: []model.CallParam{{Reg: 5, Value: []byte{0x73, 0}}, {Reg: 4, Value: []byte{0x37}}}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s model.Schema
			if err := json.Unmarshal([]byte(tc.in), &s); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(s.CallSites, tc.want) {
				t.Fatalf("decoded %+v, want %+v", s.CallSites, tc.want)
			}
			b, err := json.Marshal(&s)
			if err != nil {
				t.Fatal(err)
			}
			var again model.Schema
			if err := json.Unmarshal(b, &again); err != nil {
				t.Fatal(err)
			}
			if len(again.CallSites) != len(s.CallSites) || (len(s.CallSites) > 0 && !reflect.DeepEqual(again.CallSites, s.CallSites)) {
				t.Errorf("round trip %s gives %+v, want %+v", b, again.CallSites, s.CallSites)
			}
		})
	}
}

// BenchmarkCallValue is the sampler's per-caller-frame look-up, on the
// synthetic program's call sites (no allocation).
func BenchmarkCallValue(b *testing.B) {
	s, err := Load(synthBinary(b), Options{})
	if err != nil {
		b.Fatal(err)
	}
	if len(s.CallSites) == 0 {
		b.Fatal("no call sites")
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		cs := &s.CallSites[i%len(s.CallSites)]
		if _, ok := s.CallValue(cs.ReturnPC, int(cs.Params[0].Reg)); !ok {
			b.Fatal("miss")
		}
		i += 7919
	}
}

// TestAddParam checks that callScan.addParam gives each call the
// parameters a plain append per call would, across blocks filling up, a
// call with more parameters than a block holds, and a call whose
// parameters resume after another call's.
func TestAddParam(t *testing.T) {
	c := newCallScan()
	want := map[int][]cfg.CallParam{}
	add := func(call, n int) {
		for len(c.calls) <= call {
			c.calls = append(c.calls, cfg.CallSite{ReturnPC: uint64(len(c.calls))})
		}
		for k := 0; k < n; k++ {
			p := cfg.CallParam{Loc: []cfg.ExprRef{{Kind: cfg.InReg, Reg: int16(k), Off: int64(call)}}}
			c.addParam(call, p)
			want[call] = append(want[call], p)
		}
	}
	for i := 0; i < 3000; i++ {
		add(i, i%7)
	}
	add(3000, 3*paramBlock) // more than a block
	add(3001, 2)
	add(3000, 5) // resumes after call 3001's
	add(3001, 1)
	for i := range c.calls {
		if !reflect.DeepEqual(c.calls[i].Params, want[i]) {
			t.Fatalf("call %d: %d parameters, want %d (or different ones)", i, len(c.calls[i].Params), len(want[i]))
		}
	}
}

// TestPermute: permute gives what a copy through the order gives, for
// every permutation of 5 and random larger ones.
func TestPermute(t *testing.T) {
	check := func(order []int32) {
		s := make([]int, len(order))
		for i := range s {
			s[i] = 100 + i
		}
		want := make([]int, len(order))
		for k, i := range order {
			want[k] = s[i]
		}
		permute(s, slices.Clone(order))
		if !slices.Equal(s, want) {
			t.Errorf("permute by %v = %v, want %v", order, s, want)
		}
	}
	var perms func(p []int32, k int)
	perms = func(p []int32, k int) {
		if k == len(p) {
			check(p)
			return
		}
		for i := k; i < len(p); i++ {
			p[k], p[i] = p[i], p[k]
			perms(p, k+1)
			p[k], p[i] = p[i], p[k]
		}
	}
	perms([]int32{0, 1, 2, 3, 4}, 0)
	check(nil)
	r := rand.New(rand.NewPCG(5, 6))
	for range 20 {
		p := make([]int32, 1+r.IntN(1000))
		for i := range p {
			p[i] = int32(i)
		}
		r.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
		check(p)
	}
}
