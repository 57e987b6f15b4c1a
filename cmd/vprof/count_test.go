package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vprof/vprof/sampler/callcount"
	"github.com/vprof/vprof/testprogs"
)

// TestCountResolve: a function is found by its symbol or by its demangled
// name with or without parameters; a clone's symbol (foo.cold) and an
// unknown name are not functions to count.
func TestCountResolve(t *testing.T) {
	bin := testprogs.Path(t, "spill_check")
	for _, tc := range []struct {
		name, sym, err string
	}{
		{"DB::MemoryTracker::alloc", "_ZN2DB13MemoryTracker5allocEl", ""},
		{"DB::MemoryTracker::alloc(long)", "_ZN2DB13MemoryTracker5allocEl", ""},
		{"_ZN2DB13MemoryTracker5allocEl", "_ZN2DB13MemoryTracker5allocEl", ""},
		{"_ZN2DB26QueryOperatorSpillContexts16triggerAutoSpillEl.cold", "", "no function"},
		{"alloc", "", "no function"},
	} {
		got, err := callcount.Resolve(bin, []string{tc.name})
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %v, %v; want an error %q", tc.name, got, err, tc.err)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.name, err)
		case len(got) != 1 || got[0].Symbol != tc.sym || len(got[0].Entries) == 0 || got[0].Entries[0].Offset == 0:
			t.Errorf("%q: %+v, want symbol %s at a file offset", tc.name, got, tc.sym)
		}
	}
}

// needUprobes skips t where uprobe counters cannot be opened (no uprobe
// PMU, not root) or, with gcc, where gcc is missing.
func needUprobes(t *testing.T, gcc bool) {
	t.Helper()
	if _, err := callcount.UprobeType(); err != nil {
		t.Skip(err)
	}
	if os.Geteuid() != 0 {
		t.Skip("uprobe counters need root here")
	}
	if _, err := exec.LookPath("gcc"); gcc && err != nil {
		t.Skip("no gcc")
	}
}

// TestCountCalls: exact entry counts of one run, over every thread of it
// (D200's measurement): spill_check's allocations call the spill check
// only when the query is over its threshold (never in the normal mode);
// lru_scan's worker threads make every call. Needs the uprobe PMU and the
// right to open perf events on a child (root).
func TestCountCalls(t *testing.T) {
	needUprobes(t, false)
	type count struct {
		Function string `json:"function"`
		Calls    uint64 `json:"calls"`
	}
	run := func(prog, mode string, funcs ...string) map[string]uint64 {
		t.Helper()
		r := execVprof(t, "", nil, "count", "--json", "--func", strings.Join(funcs, ","), testprogs.Path(t, prog), mode)
		if r.code != 0 {
			t.Fatalf("vprof count %s %s: exit %d, stderr %s", prog, mode, r.code, r.stderr)
		}
		// the program's own line comes first
		_, js, ok := strings.Cut(r.stdout, "\n{")
		var out struct{ Counts []count }
		if !ok || json.Unmarshal([]byte("{"+js), &out) != nil {
			t.Fatalf("vprof count %s %s: no JSON in %q", prog, mode, r.stdout)
		}
		m := map[string]uint64{}
		for _, c := range out.Counts {
			m[c.Function] = c.Calls
		}
		return m
	}
	alloc, check := "DB::MemoryTracker::alloc", "DB::QueryOperatorSpillContexts::triggerAutoSpill"
	if got := run("spill_check", "normal", alloc, check); got[alloc] != 80400 || got[check] != 0 {
		t.Errorf("spill_check normal: %v, want %s 80400 and %s 0", got, alloc, check)
	}
	if got := run("spill_check", "buggy", check); got[check] != 78095 {
		t.Errorf("spill_check buggy: %v, want %s 78095", got, check)
	}
	if testing.Short() {
		return
	}
	if got := run("lru_scan", "normal", "worker_thread", "buf_LRU_get_free_block", "buf_LRU_free_from_common_LRU_list"); got["worker_thread"] != 4 ||
		got["buf_LRU_get_free_block"] != 800 || got["buf_LRU_free_from_common_LRU_list"] != 0 {
		t.Errorf("lru_scan normal: %v, want 4 worker threads, 800 free-block requests, no LRU scan", got)
	}
}

// TestCountPassesSignals: a SIGTERM to vprof count reaches the program,
// which handles it and exits with a status of its own; vprof prints the
// counts and passes that status through. Without the handling, vprof
// died of the signal and PTRACE_O_EXITKILL killed the program.
func TestCountPassesSignals(t *testing.T) {
	needUprobes(t, true)
	dir := t.TempDir()
	src := `#include <signal.h>
#include <unistd.h>
static volatile sig_atomic_t got;
static void h(int s) { got = s; }
__attribute__((noinline)) static void tick(void) { usleep(1000); }
int main(void) { signal(SIGTERM, h); for (int i = 0; i < 20000 && !got; i++) tick(); return got ? 7 : 0; }
`
	if err := os.WriteFile(filepath.Join(dir, "p.c"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("gcc", "-O2", "-o", filepath.Join(dir, "p"), filepath.Join(dir, "p.c")).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	cmd := exec.Command(vprofBinary(t), "count", "--func", "tick", filepath.Join(dir, "p"))
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 7 || !strings.Contains(o.String(), "tick") {
		t.Errorf("vprof count after SIGTERM: %v (want exit status 7, the program's), stdout %q, stderr %q", err, o.String(), e.String())
	}
}

// TestCountShapes: exact counts of functions gcc does not leave whole
// (D256, D257), in sampler/callcount's shapes.c built as the corpus is:
// find, split by partial inlining (its head inlined into check, which
// calls find.part.0... directly: an entry probe on find alone counts 0),
// scale, present only as scale.constprop.0, and step, inlined at every
// call (no symbol: refused before), its split rare branch inlined back
// (not counted again). step's count rests on inlined entries: unsure; the
// others' on symbols.
func TestCountShapes(t *testing.T) {
	needUprobes(t, true)
	bin := filepath.Join(t.TempDir(), "shapes")
	if out, err := exec.Command("gcc", "-g", "-O2", "-o", bin, "../../sampler/callcount/testdata/shapes.c").CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	r := execVprof(t, "", nil, "count", "--json", "--func", "find,scale,step,check", bin, "1000")
	if r.code != 0 {
		t.Fatalf("vprof count: exit %d, stderr %s", r.code, r.stderr)
	}
	_, js, ok := strings.Cut(r.stdout, "\n{")
	var out struct {
		Counts []struct {
			Function string
			Calls    uint64
			Inlined  int
			Unsure   string
		}
	}
	if !ok || json.Unmarshal([]byte("{"+js), &out) != nil {
		t.Fatalf("vprof count: no JSON in %q", r.stdout)
	}
	want := map[string]uint64{"find": 3000, "scale": 500, "step": 3000, "check": 1000}
	for _, c := range out.Counts {
		if c.Calls != want[c.Function] {
			t.Errorf("%s: %d calls (%d inlined instances probed), want %d", c.Function, c.Calls, c.Inlined, want[c.Function])
		}
		if (c.Unsure != "") != (c.Function == "step") {
			t.Errorf("%s: unsure %q (only step's count rests on inlined entries)", c.Function, c.Unsure)
		}
	}
	if len(out.Counts) != len(want) {
		t.Errorf("counts %+v", out.Counts)
	}
}
