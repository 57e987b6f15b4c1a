package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/vprof/vprof/analyze/rank"
	"github.com/vprof/vprof/testprogs"
)

// TestDiagnosisClasses records test programs that show the classes of
// diagnosis hazard of issue 14 (testprogs' shapes) with the vprof binary,
// 2 normal and 2 slow runs each, whole-program, and checks the method's
// rule for each class on what `vprof report` computes from them
// (docs/method.md). Each subtest fails without its rule.
func TestDiagnosisClasses(t *testing.T) {
	if testing.Short() {
		t.Skip("records test programs")
	}
	bin := vprofBinary(t)
	progs, err := testprogs.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	// recordRuns records runs normal and runs slow runs of a program
	// and analyses them whole-program.
	recordRuns := func(t *testing.T, name string, runs int) *rank.Result {
		t.Helper()
		i := slices.IndexFunc(progs, func(p testprogs.Program) bool { return p.Name == name })
		if i < 0 {
			t.Fatalf("no program %s in the manifest", name)
		}
		p := progs[i]
		prog := testprogs.Path(t, name)
		dir := t.TempDir()
		var normal, buggy []string
		for run := 1; run <= runs; run++ {
			for _, mode := range []string{"normal", "buggy"} {
				out := filepath.Join(dir, fmt.Sprintf("%s-%d.data", mode, run))
				cmd := exec.Command(bin, "record", "-q", "--clock", p.Measure, "-o", out, "--", prog, mode)
				if b, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("record %s %s: %v\n%s", name, mode, err, b)
				}
				if mode == "normal" {
					normal = append(normal, out)
				} else {
					buggy = append(buggy, out)
				}
			}
		}
		res, err := rank.Analyze(normal, buggy, rank.DefaultOptions(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	record := func(t *testing.T, name string) *rank.Result {
		t.Helper()
		return recordRuns(t, name, 2)
	}
	variables := func(res *rank.Result, match func(vv *rank.VarVerdict) bool) []*rank.VarVerdict {
		var out []*rank.VarVerdict
		for i := range res.Variables {
			if vv := &res.Variables[i]; match(vv) {
				out = append(out, vv)
			}
		}
		return out
	}
	valueDim := func(vv *rank.VarVerdict) *rank.DimVerdict {
		for i := range vv.Dims {
			if vv.Dims[i].Dim == rank.DimValue {
				return &vv.Dims[i]
			}
		}
		return nil
	}
	// The recordings run one program at a time: the machine's load is
	// part of what is measured.
	var mu sync.Mutex
	run := func(name string, f func(t *testing.T)) {
		t.Run(name, func(t *testing.T) {
			mu.Lock()
			defer mu.Unlock()
			f(t)
		})
	}

	// Class 1a: a subscription id holding clock bits differs from
	// process to process: no verdict on its value (D7, run noise).
	run("noise values/dali_unsubscribe", func(t *testing.T) {
		res := record(t, "dali_unsubscribe")
		ids := variables(res, func(vv *rank.VarVerdict) bool {
			return vv.Name == "id" && strings.HasPrefix(vv.Function, "CCovenSessionManager::unsubscribeSession")
		})
		if len(ids) != 1 {
			t.Fatalf("%d verdicts on unsubscribeSession's id", len(ids))
		}
		if d := valueDim(ids[0]); d == nil || d.Reason != rank.ReasonRunNoise {
			t.Errorf("id's value dimension %+v, want %q", d, rank.ReasonRunNoise)
		}
	})

	// Class 1b: clocks in microseconds and milliseconds that no name
	// list knows (start_us, deadline_us, last_ms) are never compared by
	// value (D2 counters, D7 run noise).
	run("clocks/query_cache_full", func(t *testing.T) {
		res := record(t, "query_cache_full")
		clocks := variables(res, func(vv *rank.VarVerdict) bool {
			n := vv.Name[strings.LastIndexAny(vv.Name, ">.")+1:]
			return n == "last_ms" || n == "start_us" || n == "deadline_us"
		})
		if len(clocks) == 0 {
			t.Fatal("no verdict on a clock variable")
		}
		for _, vv := range clocks {
			if d := valueDim(vv); d != nil && d.OK {
				t.Errorf("%s (%s): value compared: %s, r %.2f", vv.Name, vv.Function, d.Reason, d.R)
			}
		}
	})

	// Class 2, a caller whose cost holds the root cause: the result
	// cache's writer locks the cache around the policy's insert (the root
	// cause, whose scan for stale entries runs only in the slow runs). Its
	// cost was the insert's, its own waits for the lock the other
	// connection held, and a few instructions; its variables are only
	// present when slow. The waits count for nobody (D25), and a caller
	// that only passes control to a callee whose loop went wrong ranks
	// just below it (D26).
	run("lock waits, passing caller/query_cache_full", func(t *testing.T) {
		res := record(t, "query_cache_full")
		rank := map[string]int{}
		for _, f := range res.Functions {
			rank[f.Name[:strings.IndexByte(f.Name+"(", '(')]] = f.Rank
		}
		root, caller := rank["DB::TTLCachePolicy::set"], rank["DB::QueryCache::write"]
		if root != 1 || caller <= root {
			t.Errorf("TTLCachePolicy::set ranks %d, QueryCache::write %d: want the root cause 1st, its caller below", root, caller)
		}
	})

	// Class 2: main is on every sample of its thread, and its input-size
	// variable differs by construction; it is charged its own
	// instructions only (D5, driver frames) and ranks below the root
	// cause, which it outranked with the variable-based cost.
	run("driver above/cluster_nodes", func(t *testing.T) {
		res := record(t, "cluster_nodes")
		rank := map[string]int{}
		for _, f := range res.Functions {
			rank[f.Name] = f.Rank
			if f.Name == "main" && f.Raw != f.PCCost {
				t.Errorf("main: cost %g s, want its PC cost %g s", f.Raw, f.PCCost)
			}
		}
		if r, ok := rank["main"]; ok && r < rank["clusterGenNodesDescription"] {
			t.Errorf("main ranked %d, above the root cause (%d)", r, rank["clusterGenNodesDescription"])
		}
	})

	// Class 2, frames above more of the same work: the configuration
	// pass loops over 5 times the vhosts (its index reaches values the
	// normal runs never reached) and the directive dispatcher holds a
	// value across the look-up and the handlers; both hold the look-up's
	// time inclusive, split with the handlers. They rank below the
	// look-up, the part that holds the most of their extra time (D51).
	// 4 + 4 runs: with 2 + 2 the dispatcher missed D51's conditions in a
	// clean-clone run of the suite (its evidence is thin in so few runs);
	// with 3 + 3, as make eval records them, both frames ranked below the
	// root cause in all 18 trials of the six recording sets and every
	// trial of sets 7-12, but this test failed 3 of 24 times in a row on
	// one machine (eighth session); with 4 + 4 it passed 14 of 14.
	run("frames above more work/vhost_lookup", func(t *testing.T) {
		res := recordRuns(t, "vhost_lookup", 4)
		var names []string
		rank := map[string]int{}
		for _, f := range res.Functions {
			rank[f.Name] = f.Rank
			if f.Rank <= 6 {
				names = append(names, fmt.Sprintf("%s %.3f (%s)", f.Name, f.Calibrated, f.Placed))
			}
		}
		root := rank["ap_find_command_in_modules"]
		for _, above := range []string{"ap_process_config", "execute_now"} {
			if r, ok := rank[above]; ok && r < root {
				t.Errorf("%s ranked %d, above the root cause (%d): %v", above, r, root, names)
			}
		}
	})

	// Class 4: the counters the buggy condition reads are fields of a
	// struct global, sampled and compared one by one (F1).
	run("fields/slab_mover_spin", func(t *testing.T) {
		res := record(t, "slab_mover_spin")
		for _, name := range []string{"slab_rebal.busy_items", "slab_rebal.busy_loops"} {
			f := variables(res, func(vv *rank.VarVerdict) bool { return vv.Name == name })
			if len(f) != 1 || f[0].Buggy == 0 || len(f[0].Dims) == 0 {
				t.Errorf("%s: %+v, want a variable sampled in the slow runs, with dimensions", name, f)
			}
		}
	})

	// Class 5: code of the C++ standard library inlined or instantiated in
	// the program is never a row of its own: its cost is the program
	// function's, via it (D3).
	run("system headers/cascade_delete", func(t *testing.T) {
		res := record(t, "cascade_delete")
		for _, f := range res.Functions {
			if strings.HasPrefix(f.Name, "std::") || strings.HasPrefix(f.Name, "__gnu_cxx::") {
				t.Errorf("%s ranked %d", f.Name, f.Rank)
			}
		}
	})
	// Class 3: a cheap caller that decided to call costly work, whose
	// callee has the stronger evidence (the hash table walk), takes the
	// callee's place (D10), and the report says so.
	run("caller decides/ssl_flush_sessions", func(t *testing.T) {
		res := record(t, "ssl_flush_sessions")
		var names []string
		for _, f := range res.Functions[:min(5, len(res.Functions))] {
			names = append(names, fmt.Sprintf("%s %.3f (%s)", f.Name, f.Calibrated, f.Placed))
		}
		if f := res.Functions[0]; f.Name != "SSL_CTX_flush_sessions" || !strings.Contains(f.Placed, "D10") {
			t.Errorf("ranked %v: want SSL_CTX_flush_sessions first, placed by D10", names)
		}
		// Its evidence is the flush's time, read once and held through
		// the walk: a clock's deltas, which say how long the walk took,
		// not what decided it. The walk is made as in the normal runs,
		// with nothing to skip it (D52; before, D15's wrong constraint).
		for _, f := range res.Functions {
			if f.Name == "SSL_CTX_flush_sessions" && f.Pattern != rank.PatternMissing {
				t.Errorf("SSL_CTX_flush_sessions: pattern %q (%s), want missing constraint", f.Pattern, f.PatternReason)
			}
		}
	})

	// Class 2, its exception: the root cause is a thread's main loop (the
	// network thread's start routine passes its loop a 0 ms timeout, and
	// the loop spins in pselect). The loop's levels are driver frames,
	// but their own instructions take the extra time and the work below
	// them does not grow: they are judged as any function, and the
	// outermost level whose own variables went wrong takes the loop's
	// place (D23). Without the rule it has no cost and no row.
	run("spinning loop/keepalive_spin", func(t *testing.T) {
		res := record(t, "keepalive_spin")
		var names []string
		for _, f := range res.Functions[:min(5, len(res.Functions))] {
			names = append(names, fmt.Sprintf("%s %.3f (%s)", f.Name, f.Calibrated, f.Placed))
		}
		if f := res.Functions[0]; f.Name != "mosquitto__thread_main" || f.Pattern != rank.PatternWrong {
			t.Errorf("ranked %v: want mosquitto__thread_main first, wrong constraint", names)
		}
	})
	// A walk over a chain whose cursor gcc -O2 keeps in a register that
	// no variable of the function names (the glyph cache's bucket chain):
	// the schema samples the register as <walk@LINE> (D118), and the
	// condition that compares the elements' keys, which takes other
	// values, no longer reads as a wrong constraint: the walk took a
	// larger share of the slow runs (D119).
	run("walk without a variable/glyph_cache", func(t *testing.T) {
		res := record(t, "glyph_cache")
		walks := variables(res, func(vv *rank.VarVerdict) bool {
			return strings.HasPrefix(vv.Name, "<walk@") && vv.Function == "ass_cache_get"
		})
		if len(walks) != 1 || walks[0].Buggy == 0 {
			t.Fatalf("walk variables of ass_cache_get %v, want one read in the slow runs", walks)
		}
		var names []string
		for _, f := range res.Functions[:min(5, len(res.Functions))] {
			names = append(names, fmt.Sprintf("%s %.3f %q", f.Name, f.Calibrated, f.Pattern))
		}
		if f := res.Functions[0]; f.Name != "ass_cache_get" || f.Pattern != rank.PatternScalability {
			t.Errorf("ranked %v: want ass_cache_get first, scalability (reason %q)", names, res.Functions[0].PatternReason)
		}
	})
}
