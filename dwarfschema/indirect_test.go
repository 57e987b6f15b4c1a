package dwarfschema

import (
	"os"
	"slices"
	"testing"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/tailcall"
)

// TestIndirect scans ../sampler/testdata/tailindirect.c, where run calls
// one of a table of handlers through a pointer and the handlers end in
// jumps: the functions in the table (and main, whose address _start
// passes on) have their address taken, the functions they jump to
// (work, work2) have not, and with both the tail-call records and the
// scan, work's frame under run's indirect call gets decide's frame back,
// work2's (reached from two handlers) and work3's (in the table itself)
// nothing. PIE (addresses through lea and RELATIVE relocations) and
// position-dependent code (immediates, absolute pointers in .data).
func TestIndirect(t *testing.T) {
	src, err := os.ReadFile("../sampler/testdata/tailindirect.c")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ cc, pie string }{
		{"gcc", "-pie"}, {"gcc", "-no-pie"}, {"clang", "-pie"}, {"clang", "-no-pie"},
	} {
		t.Run(tc.cc+tc.pie, func(t *testing.T) {
			flags := []string{"-O2", "-g", tc.pie}
			if tc.pie == "-pie" {
				flags = append(flags, "-fPIE")
			} else {
				flags = append(flags, "-fno-pie")
			}
			bin := buildWith(t, tc.cc, string(src), flags...)
			s, err := Load(bin, Options{})
			if err != nil {
				t.Fatal(err)
			}
			in, err := LoadIndirect(bin, s.BuildID, Options{})
			if err != nil || in == nil {
				t.Fatalf("LoadIndirect: %v, %v", in, err)
			}
			if _, err := LoadIndirect(bin, "00", Options{}); err == nil {
				t.Error("LoadIndirect with another build ID: no error")
			}
			sym := func(name string) uint64 {
				t.Helper()
				v, ok := elfSymbol(t, bin, name)
				if !ok {
					t.Fatalf("no symbol %s", name)
				}
				return v
			}
			for _, name := range []string{"decide", "decide2a", "decide2b", "work3", "decide3", "main"} {
				if _, ok := slices.BinarySearch(in.Taken, sym(name)); !ok {
					t.Errorf("%s: address not found taken", name)
				}
			}
			for _, name := range []string{"work", "work2", "run"} {
				if _, ok := slices.BinarySearch(in.Taken, sym(name)); ok {
					t.Errorf("%s: address found taken, but no code or data takes it", name)
				}
			}
			// run's indirect call: the one call between run's entry and
			// its end.
			runAt, runEnd := sym("run"), sym("run")+symSize(t, s, "run")
			calls := 0
			for _, c := range in.Calls {
				if c > runAt && c <= runEnd {
					calls++
				}
			}
			if calls != 1 {
				t.Fatalf("%d indirect calls in run, want 1 (all: %#x)", calls, in.Calls)
			}
			if tc.cc == "clang" {
				return // clang's tail calls differ; the rest is gcc's shape
			}
			var ret uint64
			for _, c := range in.Calls {
				if c > runAt && c <= runEnd {
					ret = c
				}
			}
			jumpTo := func(from, to string) uint64 {
				t.Helper()
				for _, j := range in.Jumps {
					if j.Callee == sym(to) && j.ReturnPC > sym(from) && j.ReturnPC <= sym(from)+symSize(t, s, from) {
						return j.ReturnPC
					}
				}
				t.Fatalf("no jump from %s to %s in %+v", from, to, in.Jumps)
				return 0
			}
			x := tailcall.New(s, s.TailCalls)
			if x == nil {
				t.Fatal("no tail calls indexed")
			}
			inWork := sym("work") + 4
			if got := x.Between(nil, inWork, true, ret); got != nil {
				t.Fatalf("without the scan: restored %#x under an indirect call", got)
			}
			x.AddIndirect(in)
			if got, want := x.Between(nil, inWork, true, ret), []uint64{jumpTo("decide", "work")}; !slices.Equal(got, want) {
				t.Errorf("work under run's indirect call: restored %#x, want decide's jump %#x", got, want)
			}
			if got := x.Between(nil, sym("work2")+4, true, ret); got != nil {
				t.Errorf("work2 (decide2a or decide2b jumped to it): restored %#x, want nothing", got)
			}
			if got := x.Between(nil, sym("work3")+4, true, ret); got != nil {
				t.Errorf("work3 (called directly, or decide3 jumped to it): restored %#x, want nothing", got)
			}
			if !x.Mismatch(inWork, true, ret) || x.Mismatch(sym("work3")+4, true, ret) {
				t.Error("Mismatch: want work (address never taken) not the indirect call's callee, work3 perhaps")
			}
		})
	}
}

// symSize is the size of the function symbol name of s.
func symSize(t *testing.T, s *model.Schema, name string) uint64 {
	t.Helper()
	for _, sy := range s.Symbols {
		if sy.Name == name {
			return sy.Size
		}
	}
	t.Fatalf("no symbol %s", name)
	return 0
}
