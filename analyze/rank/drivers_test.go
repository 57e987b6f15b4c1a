package rank

import (
	"strings"
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// TestSpinningDriver: a thread's loop (main, work and helper are on every
// sample of thread 1, both kinds: driver frames, D5) spins in the slow
// runs: helper's own instructions and the library call it makes (a
// select that returns at once; memcpy stands for it) take the extra
// time, while what it calls for real work (cmp) does not grow. work
// passes helper the wrong value (flag and n are constant in each kind,
// different between them). The loop is where the time went, so its
// levels are judged as any function, and work, the outermost level
// whose own variables went wrong, ranks first though its variables were
// read during only part of the loop's time (its frame beyond the
// recorded depth: D10's evidence share fails). Without the rule work, a
// driver with no instructions of its own, has no cost and no row.
// When the callee takes the extra time (the work below grew), or the
// loop's own growth is a small part of a slowdown elsewhere, the loop's
// levels stay driver frames (method.md §4, §7, decision D23).
func TestSpinningDriver(t *testing.T) {
	idle := []uint64{L(pcMemcpy), P(pcHelper), P(pcWork), P(pcMain)} // helper's own: the loop
	busy := []uint64{P(pcCmp), P(pcHelper), P(pcWork), P(pcMain)}    // real work below it
	// loop is one kind's samples on thread 1: nBusy, then nIdle; flag and n
	// (passed from work to helper) are x; work's frame is read at every
	// readEvery-th idle sample.
	loop := func(nBusy, nIdle int, x int64, readEvery int) []ev {
		var evs []ev
		for range nBusy {
			addEv(&evs, busy, val(1, vN, x), val(2, vFlag, x))
		}
		for i := range nIdle {
			vals := []model.Value{val(1, vN, x)}
			if i%readEvery == 0 {
				vals = append(vals, val(2, vFlag, x))
			}
			addEv(&evs, idle, vals...)
		}
		return evs
	}
	// elsewhere is n samples of cmp alone on thread 2.
	elsewhere := func(n int) []ev {
		var evs []ev
		for i := range n {
			evs = append(evs, ev{tid: 2, tick: uint64(i), stack: []uint64{P(pcCmp)}})
		}
		return evs
	}
	for _, c := range []struct {
		name           string
		buggy          []ev
		normalElse     int // normal samples of thread 2
		want           string
		workHasNoCost  bool
		wantWorkPlaced bool
	}{
		{"the loop spins", loop(20, 200, 0, 2), 0, "work", false, true},
		{"the callee grows", loop(200, 20, 0, 1), 0, "cmp", true, false},
		// The spinning thread starves the threads that consume its work
		// (held-out set 10's keepalive_spin on an overloaded machine): the
		// work below the loop grows 2.5 times and other threads' 10 times,
		// the loop's own part 6 times; it is 45% of the extra time and its
		// odds ratio 2.4 (D88; D23's first thresholds, half and 4, missed it).
		{"the loop spins while its consumers fall behind", append(loop(50, 120, 0, 2), elsewhere(100)...), 10, "work", false, true},
		// cmp, without variables, is discounted by the hist-discounter
		// (it ranks alike in both runs); helper's own growth ranks first.
		{"a small spin beside a slowdown elsewhere", append(loop(20, 30, 0, 1), elsewhere(100)...), 10, "helper", true, false},
		// The loop spins and each turn's work grows too (set 17's
		// keepalive_spin: the in-flight list its retry check walks at
		// every turn is longer): the loop's own part 5 times the normal
		// runs', the work below it 1.8 times; the own part's growth is
		// a fifth of the extra time (share 0.2, odds 2.8: D298; a
		// quarter, D88's share, missed it).
		{"the loop spins while each turn's work grows", loop(180, 25, 0, 2), -1, "work", false, true},
	} {
		a := New(DefaultOptions())
		normal := append(loop(20, 20, 1000, 1), elsewhere(c.normalElse)...)
		if c.normalElse < 0 {
			normal = loop(100, 5, 1000, 1) // the turns' work takes most of the loop's time in the normal runs too
		}
		feed(t, a, Normal, "n", normal)
		feed(t, a, Buggy, "b", c.buggy)
		res := a.Result()
		if len(res.Functions) == 0 || res.Functions[0].Name != c.want {
			t.Errorf("%s: ranked %v, want %s first", c.name, names(res), c.want)
			continue
		}
		var work *Function
		for i := range res.Functions {
			if res.Functions[i].Name == "work" {
				work = &res.Functions[i]
			}
		}
		if c.workHasNoCost {
			if work != nil {
				t.Errorf("%s: work ranked with raw %g ms: a driver frame's cost is its own instructions (none)", c.name, work.Raw*1e3)
			}
			continue
		}
		if work == nil {
			t.Fatalf("%s: work not ranked: a spinning loop's level has its variable-based cost", c.name)
		}
		if work.Discount != 0 || (work.Placed != "") != c.wantWorkPlaced {
			t.Errorf("%s: work r %g placed %q", c.name, work.Discount, work.Placed)
		}
	}
}

// TestSpinningHeadGlobals: the head of a loop that spins (D23) is the
// outermost level whose own variables went wrong. A level whose only
// anomaly is a global it reads (a counter, the program's state: any frame
// that references it reads the same value) holds nothing of its own that
// went wrong, and the head is the next level in (D209): helper, which was
// given the wrong value, ranks first, and work keeps no D23 placement.
// When work's own local went wrong it is the head, as in
// TestSpinningDriver.
func TestSpinningHeadGlobals(t *testing.T) {
	idle := []uint64{L(pcMemcpy), P(pcHelper), P(pcWork), P(pcMain)}
	busy := []uint64{P(pcCmp), P(pcHelper), P(pcWork), P(pcMain)}
	for _, c := range []struct {
		name   string
		global bool // work's variable that went wrong is the global g, not its local flag
		want   string
	}{
		{"work's local went wrong", false, "work"},
		{"work's only anomaly is a global", true, "helper"},
	} {
		wv := int32(vFlag)
		if c.global {
			wv = vG
		}
		loop := func(nBusy, nIdle int, x int64) []ev {
			var evs []ev
			for range nBusy {
				addEv(&evs, busy, val(1, vN, x), val(2, wv, x))
			}
			for i := range nIdle {
				vals := []model.Value{val(1, vN, x)}
				if i%2 == 0 {
					vals = append(vals, val(2, wv, x))
				}
				addEv(&evs, idle, vals...)
			}
			return evs
		}
		a := New(DefaultOptions())
		feed(t, a, Normal, "n", loop(20, 20, 1000))
		feed(t, a, Buggy, "b", loop(20, 200, 0))
		res := a.Result()
		if got := names(res); len(got) == 0 || got[0] != c.want {
			t.Errorf("%s: ranked %v, want %s first", c.name, got, c.want)
			continue
		}
		work := findFunc(t, res, "work")
		if head := strings.Contains(work.Placed, "D23"); head == c.global {
			t.Errorf("%s: work placed %q: want D23's head: %v", c.name, work.Placed, !c.global)
		}
	}
}

// TestDriverShareWholeStacks: a driver frame's share of its thread's time
// counts only the samples whose stack reached the thread's entry (the C
// runtime's _start, libc's start routine: code outside the program's
// source). main is on every whole stack of thread 1; in the second normal
// run half of the stacks stop at work, the unwinder cut short: they say
// nothing about main, and main stays a driver (without the rule its
// pooled normal share is 0.75, below NormalDriverShare). A whole stack
// without main does count against it, a stack cut short that shows main
// counts for it, and where no stack reaches an entry every sample counts,
// as before (method.md §4, decision D291).
func TestDriverShareWholeStacks(t *testing.T) {
	const (
		pcStart     = 0x1310 // _start: the program's object, no source file
		pcStartMain = 0x5210 // __libc_start_main in libc
	)
	s := progSchema()
	s.Funcs = append(s.Funcs, model.Func{Name: "_start", Display: "_start", File: -1, Ranges: []model.PCRange{{Lo: 0x1300, Hi: 0x1340}}})
	lib := libSchema()
	lib.Funcs = append(lib.Funcs, model.Func{Name: "__libc_start_main", Display: "__libc_start_main", File: -1, Ranges: []model.PCRange{{Lo: 0x5200, Hi: 0x5300}}})
	lib.Symbols = append(lib.Symbols, model.Symbol{Name: "__libc_start_main", Value: 0x5200, Size: 0x100})
	hdr := []any{
		&model.Object{ID: 0, Path: "/bin/prog", BuildID: "b1", Program: true, Schema: s},
		&model.Object{ID: 1, Path: "/lib/libc.so.6", BuildID: "c1", Schema: lib},
		&model.Mapping{PID: 1, Start: progBias + 0x1000, End: progBias + 0x2000, Bias: progBias, Obj: 0},
		&model.Mapping{PID: 1, Start: libBias + 0x5000, End: libBias + 0x6000, Bias: libBias, Obj: 1},
		&model.ProcEvent{Kind: model.ProcStart, PID: 1},
	}
	// run is n samples of each stack in turn, on thread 1.
	run := func(n int, stacks ...[]uint64) []ev {
		var evs []ev
		for _, st := range stacks {
			for range n {
				evs = append(evs, ev{tid: 1, tick: uint64(len(evs)), stack: st})
			}
		}
		return evs
	}
	under := func(entry ...uint64) []uint64 { return append([]uint64{P(pcCmp), P(pcWork), P(pcMain)}, entry...) }
	for _, c := range []struct {
		name   string
		whole  []uint64 // main's stack in every run
		second []uint64 // the second normal run's other half
		shown  []uint64 // 400 more samples of the second normal run, when set
		want   bool
	}{
		{"cut short below main, entry _start in the program's object", under(P(pcStart)), []uint64{P(pcCmp), P(pcWork)}, nil, true},
		{"cut short below main, entry in libc", under(L(pcStartMain)), []uint64{P(pcCmp), P(pcWork)}, nil, true},
		{"cut short at an address in no object", under(L(pcStartMain)), []uint64{P(pcCmp), P(pcWork), 0xdead0}, nil, true},
		{"cut short at the recorded depth, in code of the program", under(L(pcStartMain)), []uint64{P(pcCmp), P(pcWork), P(pcWork2)}, nil, true},
		{"a whole stack without main", under(L(pcStartMain)), []uint64{P(pcCmp), P(pcWork), L(pcStartMain)}, nil, false},
		{"no stack reaches an entry: every sample counts", under(), []uint64{P(pcCmp), P(pcWork)}, nil, false},
		{"no stack reaches an entry, main on all", under(), under(), nil, true},
		// Stacks cut short that show main count for it: 550 of 600 samples
		// that say where main was (a whole stack without main counts).
		{"stacks cut short that show main", under(L(pcStartMain)), []uint64{P(pcCmp), P(pcWork), L(pcStartMain)}, under(), true},
	} {
		a := New(DefaultOptions())
		feedWith(t, a, Normal, "n1", hdr, run(100, c.whole))
		feedWith(t, a, Normal, "n2", hdr, append(run(50, c.whole, c.second), run(400, c.shown)...))
		feedWith(t, a, Buggy, "b", hdr, run(300, c.whole))
		main, ok := a.funcIdx["main"]
		if !ok {
			t.Fatalf("%s: no function main", c.name)
		}
		if got := a.structuralDrivers()[main]; got != c.want {
			t.Errorf("%s: main a driver: %v, want %v (normal share %.3f)", c.name, got, c.want, a.stkNormal.share(int(main)))
		}
	}
}

// TestSpinningSettingCallee: a loop spins (main and work are on every
// sample of thread 1, work's own part, a select that returns at once
// (memcpy), grows 5 times and the work below it, cmp, not at all) and a
// callee it makes at every turn, helper, runs 8 times longer: the loop
// turns more often. helper's strongest evidence is n, one value through
// each run, another in each kind (a setting, D160's kind), which says
// that the run differs, not where; the loop's head (work, whose flag went
// wrong) holds what makes it spin. Its calibrated cost is below helper's
// (the loop's levels hold cmp's unchanged work too), so helper goes just
// below it (decision D299; without the rule helper ranks first, as set
// 24's keepalive_spin had mosquitto_loop_misc above its root cause). A
// callee whose n changes within each slow run (a value of its own, not
// a setting) keeps its place.
func TestSpinningSettingCallee(t *testing.T) {
	idle := []uint64{L(pcMemcpy), P(pcWork), P(pcMain)} // work's own: the loop
	busy := []uint64{P(pcCmp), P(pcWork), P(pcMain)}    // work below it that does not grow
	turn := []uint64{P(pcHelper), P(pcWork), P(pcMain)} // the turn's callee
	for _, c := range []struct {
		name    string
		varying bool // helper's n changes within each slow run
		want    string
	}{
		{"the callee's evidence is a setting", false, "work"},
		{"the callee's evidence changes within the run", true, "helper"},
	} {
		loop := func(nIdle, nBusy, nTurn int, x int64, vary bool) []ev {
			var evs []ev
			for range nIdle {
				addEv(&evs, idle, val(1, vFlag, x))
			}
			for range nBusy {
				addEv(&evs, busy, val(1, vFlag, x))
			}
			for i := range nTurn {
				n := x
				if vary {
					n = x + int64(i%7)
				}
				addEv(&evs, turn, val(0, vN, n), val(1, vFlag, x))
			}
			return evs
		}
		a := New(DefaultOptions())
		feed(t, a, Normal, "n", loop(5, 100, 5, 1000, false))
		feed(t, a, Buggy, "b", loop(25, 100, 40, 0, c.varying))
		res := a.Result()
		if len(res.Functions) == 0 || res.Functions[0].Name != c.want {
			t.Errorf("%s: ranked %v, want %s first", c.name, names(res), c.want)
		}
	}
}

// TestDriverAboveWork: main is on every sample of both kinds (a driver
// frame, D5) and its loop does not spin (its own part and the work below
// it, helper, grow alike: five times). helper's variable looks normal
// (r = DefaultDiscount: more of the same work). What went wrong in main
// decides whether its own instructions outrank helper (D313): a setting
// (the global g, one value through each run, different between kinds)
// and the durations and deltas of a value it held while helper ran say
// nothing of them, so main gets DefaultDiscount and helper ranks first;
// a value it held within the run that went wrong keeps its verdict, and
// so does a driver that is itself most of the work (its own part four
// fifths of its stack time: its variables are read while its own
// instructions run). The first two cases fail without the rule (main
// first, r 0); the last fails when the rule leaves out the own part.
func TestDriverAboveWork(t *testing.T) {
	own := []uint64{P(pcMain)}               // main's own loop
	work := []uint64{P(pcHelper), P(pcMain)} // the work below it
	type mainVals func(slow bool, i int) []model.Value
	setting := func(f uint8) mainVals {
		return func(slow bool, i int) []model.Value {
			g := int64(1000)
			if slow {
				g = 5000
			}
			return []model.Value{val(f, vG, g)}
		}
	}
	// held is g cycling through 1..10, changing every 2 samples
	// in the normal runs and every 10 in the slow ones (its values alike,
	// each held five times longer), or offset by 100 when slow (what it
	// held went wrong).
	held := func(f uint8, offset bool) mainVals {
		return func(slow bool, i int) []model.Value {
			x, every := int64(1), 2
			if slow && !offset {
				every = 10
			}
			if slow && offset {
				x = 101
			}
			return []model.Value{val(f, vG, x+int64(i/every%10))}
		}
	}
	for _, c := range []struct {
		name       string
		ownPerTurn int // of every 5 samples, how many are main's own
		vals       func(f uint8) mainVals
		want       string
		wantR      float64 // main's discount
	}{
		{"a setting", 1, setting, "helper", 0.8},
		{"durations of a value held while the work ran", 1, func(f uint8) mainVals { return held(f, false) }, "helper", 0.8},
		{"a value it held went wrong", 1, func(f uint8) mainVals { return held(f, true) }, "main", 0},
		{"a driver that is most of the work", 4, setting, "main", 0},
	} {
		gen := func(slow bool, turns int) []ev {
			var evs []ev
			i := 0
			for range turns {
				for k := range 5 {
					if k < c.ownPerTurn {
						addEv(&evs, own, c.vals(0)(slow, i)...)
					} else {
						addEv(&evs, work, append(c.vals(1)(slow, i), val(0, vN, int64(i%10)))...)
					}
					i++
				}
			}
			return evs
		}
		a := New(DefaultOptions())
		feed(t, a, Normal, "n", gen(false, 40))
		feed(t, a, Buggy, "b", gen(true, 200))
		res := a.Result()
		if len(res.Functions) == 0 || res.Functions[0].Name != c.want {
			t.Errorf("%s: ranked %v, want %s first", c.name, names(res), c.want)
		}
		if m := findFunc(t, res, "main"); !near(m.Discount, c.wantR) {
			t.Errorf("%s: main r %g (%s %s: %s), want %g", c.name, m.Discount, m.Variable, m.Dimension, m.Reason, c.wantR)
		}
	}
}
