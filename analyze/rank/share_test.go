package rank

import (
	"strings"
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// Link-time PCs of the C library's waits in waitLibSchema.
const (
	pcMutexLock  = 0x5210
	pcLockWait   = 0x5310
	pcLibUnnamed = 0x5510 // in libc's mapping, in no function of its schema
)

// waitHeader is header() with a C library that also has
// pthread_mutex_lock and its contended path __lll_lock_wait (named as
// glibc's debug symbols name it).
func waitHeader() []any {
	lib := libSchema()
	lib.Funcs = append(lib.Funcs,
		model.Func{Name: "pthread_mutex_lock", Display: "pthread_mutex_lock", File: -1, Ranges: []model.PCRange{{Lo: 0x5200, Hi: 0x5300}}},
		model.Func{Name: "__GI___lll_lock_wait", Display: "__GI___lll_lock_wait", File: -1, Ranges: []model.PCRange{{Lo: 0x5300, Hi: 0x5400}}})
	lib.Symbols = append(lib.Symbols,
		model.Symbol{Name: "pthread_mutex_lock", Value: 0x5200, Size: 0x100},
		model.Symbol{Name: "__GI___lll_lock_wait", Value: 0x5300, Size: 0x100})
	h := header()
	h[1] = &model.Object{ID: 1, Path: "/lib/libc.so.6", BuildID: "c1", Schema: lib}
	return h
}

// TestLockWait: time a thread spends waiting for a lock that another
// thread holds counts for no function's cost (method.md §4, D25): the
// caller does not get the wait as its own work (PC cost, variable-based
// cost, time on the stack), while the flat profile keeps it and the
// report says how much there was. Taking a lock nobody holds (in
// pthread_mutex_lock, not in its contended path) is the caller's work.
func TestLockWait(t *testing.T) {
	a := New(DefaultOptions())
	var normal, buggy []ev
	normal = workCallsHelper(40)
	inHelper := []uint64{P(pcHelper), P(pcWork), P(pcMain)}
	for i := range 150 {
		addEv(&buggy, inHelper, val(0, vN, int64(100+i%5)), val(1, vFlag, int64(50+i%4)))
	}
	for i := range 30 {
		// The contended path, named (a C library with its debug symbols)
		// or not (a stripped one: an address in no function it names).
		wait := L(pcLockWait)
		if i%3 == 0 {
			wait = L(pcLibUnnamed)
		}
		addEv(&buggy, []uint64{wait, L(pcMutexLock), P(pcWork), P(pcMain)}, val(2, vFlag, int64(50+i%4)))
	}
	for i := range 5 {
		addEv(&buggy, []uint64{L(pcMutexLock), P(pcWork), P(pcMain)}, val(1, vFlag, int64(50+i%4)))
	}
	for range 40 {
		addEv(&buggy, []uint64{P(pcMain)})
	}
	feedWith(t, a, Normal, "n", waitHeader(), normal)
	feedWith(t, a, Buggy, "b", waitHeader(), buggy)
	res := a.Result()
	w, h := findFunc(t, res, "work"), findFunc(t, res, "helper")
	if !near(w.PCCost, 0.005) || !near(w.VarCost, 0.155) || !near(h.Raw, 0.150) {
		t.Errorf("work: PC cost %g, variable-based %g; helper raw %g: want 0.005, 0.155, 0.150: the 30 ms of waits are nobody's", w.PCCost, w.VarCost, h.Raw)
	}
	note := false
	for _, s := range res.Warnings {
		note = note || strings.Contains(s, "0.030 s") && strings.Contains(s, "D25")
	}
	if !note {
		t.Errorf("warnings %q: want a note of 0.030 s of waits", res.Warnings)
	}
	var self float64
	for _, e := range a.Flat().Entries {
		if e.Name == "__GI___lll_lock_wait" || e.Name == "[libc.so.6]" {
			self += e.Self
		}
	}
	if !near(self, 0.015) { // the mean over the two runs
		t.Errorf("flat profile: %g s of self time in the wait, want 0.015 kept as perf counts it", self)
	}
}

func TestWaitName(t *testing.T) {
	for name, want := range map[string]bool{
		"pthread_mutex_lock": true, "___pthread_mutex_lock": true, "__GI___pthread_mutex_lock": true,
		"pthread_cond_wait@@GLIBC_2.3.2": true, "sem_wait": true, "pthread_join": true, "pthread_rwlock_wrlock": true,
		"pthread_mutex_unlock": false, "pthread_mutex_trylock": false, "__lll_lock_wait": false,
		"qsort": false, "": false, "[libc.so.6]": false,
	} {
		if got := waitName(name); got != want {
			t.Errorf("waitName(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestPassingCaller: a caller all of whose slow-run time is one callee,
// seen only in the slow runs (its variables "present only when slow"), with
// no loop of its own, only passed control to a callee whose own loop went
// wrong: it ranks just below the callee though its cost holds the callee's
// and its own instructions (method.md §7, D26), and D10 does not put it
// above. A caller with a sampled loop variable, or whose variables were
// compared with the normal runs' values, or whose callee shows no loop of
// its own going wrong (the caller may have called it more often: D10
// reads that as its decision), keeps D10's place above the callee. When
// the callee's evidence too is only presence, D60 places the caller below
// it, loop or not (presence.go).
func TestPassingCaller(t *testing.T) {
	for _, c := range []struct {
		name                                   string
		loop, normal, calleeLoop, calleeNormal bool
		want, by                               string
	}{
		{"only passes control", false, false, true, true, "helper", "D26"},
		{"only passes control, the callee only present too", false, false, true, false, "helper", "D60"},
		{"a loop of its own, the callee's values compared", true, false, true, true, "work", ""},
		{"a loop of its own, the callee only present too", true, false, true, false, "helper", "D60"},
		{"values compared", false, true, true, false, "work", ""},
		{"no loop in the callee", false, false, false, false, "work", ""},
	} {
		a := New(DefaultOptions())
		var normal, buggy []ev
		for range 40 {
			addEv(&normal, []uint64{P(pcMain)})
		}
		if c.normal {
			// work's values compared, in the normal runs' calls of
			// helper (its work there too: D70 reads a caller above
			// other work in the normal runs otherwise).
			for i := range 20 {
				addEv(&normal, []uint64{P(pcHelper), P(pcWork), P(pcMain)}, val(1, vFlag, int64(i%4)))
			}
		}
		inHelper := []uint64{P(pcHelper), P(pcWork), P(pcMain)}
		if c.calleeNormal {
			for i := range 20 { // helper ran, on small arguments; work's variables were not read
				addEv(&normal, inHelper, val(0, vN, int64(i%5)))
			}
		}
		for i := range 150 {
			vals := []model.Value{val(0, vN, int64(100+i%5)), val(1, vFlag, int64(50+i%4))}
			if c.calleeLoop {
				vals = append(vals, val(0, vNode, int64(0x1000+i*64)))
			}
			if c.loop {
				vals = append(vals, val(1, vI, int64(i/10)))
			}
			addEv(&buggy, inHelper, vals...)
		}
		for i := range 3 { // its own instructions: 2% of its time
			addEv(&buggy, []uint64{P(pcWork), P(pcMain)}, val(0, vFlag, int64(50+i%4)))
		}
		for range 40 {
			addEv(&buggy, []uint64{P(pcMain)})
		}
		feed(t, a, Normal, "n", normal)
		feed(t, a, Buggy, "b", buggy)
		res := a.Result()
		w, h := findFunc(t, res, "work"), findFunc(t, res, "helper")
		if w.Discount != 0 || h.Discount != 0 {
			t.Fatalf("%s: work r %g, helper r %g: want both 0", c.name, w.Discount, h.Discount)
		}
		if got := names(res); got[0] != c.want {
			t.Errorf("%s: ranked %v, want %s first", c.name, got, c.want)
		}
		if c.want == "helper" {
			if res.Functions[1].Name != "work" || !strings.Contains(w.Placed, c.by) || h.Placed != "" {
				t.Errorf("%s: ranked %v, work placed %q, helper placed %q: want work just below, said", c.name, names(res), w.Placed, h.Placed)
			}
		}
	}
}
