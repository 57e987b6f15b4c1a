package dwarfschema

import (
	"slices"
	"testing"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/tailcall"
	"github.com/vprof/vprof/testprogs"
)

// tailSrc has the shapes of tail calls: decide ends in `if (cond)
// work(n);`, outer in `return decide(...)` (a chain of two), and pick in a
// tail call to amb1 or amb2, which both end in a tail call to work (two
// chains from pick to work: ambiguous). run, run2 and run3 call them
// normally, using the result.
const tailSrc = `#include <stdio.h>
#define NOINLINE __attribute__((noinline))
volatile long sink;
NOINLINE void work(long n) { for (long i = 0; i < n; i++) sink += i; }
NOINLINE void decide(long n, long limit) { sink++; if (n > limit) work(n); }
NOINLINE void outer(long n) { sink--; decide(n * 2, 10); }
NOINLINE void amb1(long n) { sink += 2; work(n * 2); }
NOINLINE void amb2(long n) { sink += 3; work(n * 3); }
NOINLINE void pick(long n) { if (n & 1) amb1(n); else amb2(n); }
NOINLINE long run(long n) { decide(n, 10); return sink + 1; }
NOINLINE long run2(long n) { outer(n); return sink + 2; }
NOINLINE long run3(long n) { pick(n); return sink + 3; }
int main(int argc, char **argv) {
	(void)argv;
	printf("%ld %ld %ld\n", run(argc * 20), run2(argc * 20), run3(argc * 20));
	return 0;
}
`

// TestTailCalls reads the tail calls gcc and clang record, in DWARF 4 and
// 5, and restores with them the frames they removed: decide's between
// run and work, outer's and decide's between run2 and work, none between
// run3 and work (two chains).
func TestTailCalls(t *testing.T) {
	for _, tc := range []struct{ cc, dwarf string }{
		{"gcc", "-gdwarf-4"}, {"gcc", "-gdwarf-5"}, {"clang", "-gdwarf-4"}, {"clang", "-gdwarf-5"},
	} {
		t.Run(tc.cc+tc.dwarf, func(t *testing.T) {
			bin := buildWith(t, tc.cc, tailSrc, "-O2", tc.dwarf)
			s, err := Load(bin, Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, s)
			if !s.TailCallsRead {
				t.Fatal("TailCallsRead false")
			}
			sym := map[string]uint64{}
			for _, name := range []string{"work", "decide", "outer", "amb1", "amb2", "pick", "run", "run2", "run3"} {
				v, ok := elfSymbol(t, bin, name)
				if !ok {
					t.Fatalf("no symbol %s", name)
				}
				sym[name] = v
			}
			in := func(pc uint64, fn string) bool {
				for _, sy := range s.Symbols {
					if sy.Name == fn && pc >= sy.Value && pc < sy.Value+sy.Size {
						return true
					}
				}
				return false
			}
			// edge returns the one record of a call from caller to callee.
			edge := func(caller, callee string, tail bool) model.CallEdge {
				t.Helper()
				var got []model.CallEdge
				for _, e := range s.TailCalls {
					if e.Callee == sym[callee] && e.Tail == tail && in(e.ReturnPC-1, caller) {
						got = append(got, e)
					}
				}
				if len(got) != 1 {
					t.Fatalf("%d records of %s calling %s (tail %v), want 1; all: %+v", len(got), caller, callee, tail, s.TailCalls)
				}
				return got[0]
			}
			toWork := edge("decide", "work", true)
			toDecide := edge("outer", "decide", true)
			edge("amb1", "work", true)
			edge("amb2", "work", true)
			edge("pick", "amb1", true)
			edge("pick", "amb2", true)
			runCall := edge("run", "decide", false)
			run2Call := edge("run2", "outer", false)
			run3Call := edge("run3", "pick", false)
			// main's calls to run* are left out: run* make no tail call.
			for _, e := range s.TailCalls {
				if in(e.ReturnPC-1, "main") {
					t.Errorf("record of main's call at %#x kept; run, run2 and run3 make no tail call", e.ReturnPC)
				}
			}

			x := tailcall.New(s, s.TailCalls)
			inWork := sym["work"] + 1
			for _, c := range []struct {
				name  string
				pc    uint64
				inner bool
				ret   uint64
				want  []uint64
			}{
				{"run>decide>work", inWork, true, runCall.ReturnPC, []uint64{toWork.ReturnPC}},
				{"run2>outer>decide>work", inWork, true, run2Call.ReturnPC, []uint64{toWork.ReturnPC, toDecide.ReturnPC}},
				{"run3>pick>amb?>work: two chains", inWork, true, run3Call.ReturnPC, nil},
				// decide running: its own frame is there.
				{"run>decide", sym["decide"], true, runCall.ReturnPC, nil},
				// work as a caller frame: its return address is looked up
				// one byte before, still in work.
				{"run>decide>work, work a caller", inWork + 1, false, runCall.ReturnPC, []uint64{toWork.ReturnPC}},
				// a return address that is no recorded call.
				{"no call", inWork, true, runCall.ReturnPC + 1, nil},
				// a tail call's own record as a return address: no frame
				// returns there.
				{"tail record", inWork, true, toWork.ReturnPC, nil},
			} {
				if got := x.Between(nil, c.pc, c.inner, c.ret); !slices.Equal(got, c.want) {
					t.Errorf("%s: Between = %#x, want %#x", c.name, got, c.want)
				}
			}
		})
	}
}

// TestTailCallsStatsRecalc finds the tail call that hides stats_recalc's
// root cause: dict_table_t::update_statistics_if_needed() ends in a jump
// to dict_stats_update, defined in another unit (its callee DIE is a
// declaration, resolved by linkage name), and its caller's frame comes
// right above dict_stats_update's in every stack sampled under it.
func TestTailCallsStatsRecalc(t *testing.T) {
	bin := testprogs.Path(t, "stats_recalc")
	s, err := Load(bin, Options{})
	if err != nil {
		t.Fatal(err)
	}
	entry := func(name string) uint64 {
		for _, sy := range s.Symbols {
			if sy.Name == name {
				return sy.Value
			}
		}
		t.Fatalf("no symbol %s", name)
		return 0
	}
	root, update := entry("_ZN12dict_table_t27update_statistics_if_neededEv"), entry("_Z17dict_stats_updateP12dict_table_t23dict_stats_upd_option_t")
	var jump, call *model.CallEdge
	for i := range s.TailCalls {
		e := &s.TailCalls[i]
		switch {
		case e.Tail && e.Callee == update && e.ReturnPC > root && e.ReturnPC <= root+0x100:
			jump = e
		case !e.Tail && e.Callee == root:
			call = e
		}
	}
	if jump == nil || call == nil {
		t.Fatalf("tail call to dict_stats_update %+v, call of the root cause %+v; want both (all: %+v)", jump, call, s.TailCalls)
	}
	x := tailcall.New(s, s.TailCalls)
	if got := x.Between(nil, update+4, true, call.ReturnPC); !slices.Equal(got, []uint64{jump.ReturnPC}) {
		t.Errorf("Between(dict_stats_update, caller of the root cause) = %#x, want the root cause's jump %#x", got, jump.ReturnPC)
	}
}

// TestLoadTailCalls reads the same records alone, for the build recorded
// only.
func TestLoadTailCalls(t *testing.T) {
	bin := buildWith(t, "gcc", tailSrc, "-O2", "-gdwarf-5")
	s, err := Load(bin, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := LoadTailCalls(bin, s.BuildID, Options{})
	if err != nil || !slices.Equal(got, s.TailCalls) || len(got) == 0 {
		t.Errorf("LoadTailCalls = %+v, %v; want Load's %+v", got, err, s.TailCalls)
	}
	if got, err := LoadTailCalls(bin, "0123", Options{}); err == nil || got != nil {
		t.Errorf("LoadTailCalls of another build = %+v, %v; want an error", got, err)
	}
}
