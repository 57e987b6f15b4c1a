package main

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/proffile"
)

// decideSrc: decide() calls work() once per call in the normal mode and
// eight times in the slow one (a caller that decided, each call of the
// callee as long as before), from the main thread, a second thread and a
// forked child: 1,100 calls of decide in both modes, 1,100 and 8,800 of
// work. Only decide reads the mode (per): main and thr, with the mode in a
// variable of theirs, ranked above work on a loaded machine, out of the
// leading rows D220 reads.
const decideSrc = `#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>
static int per;
__attribute__((noinline)) void work(void) { for (volatile int i = 0; i < 100000; i++); }
__attribute__((noinline)) void decide(void) { for (int i = 0; i < per; i++) work(); }
static void *thr(void *p) { for (int i = 0; i < 500; i++) decide(); return p; }
int main(int argc, char **argv) {
	per = argc > 1 && argv[1][0] == 's' ? 8 : 1;
	pthread_t t;
	pthread_create(&t, 0, thr, 0);
	for (int i = 0; i < 500; i++) decide();
	pthread_join(t, 0);
	pid_t c = fork();
	if (c == 0) { for (int i = 0; i < 100; i++) decide(); _exit(0); }
	waitpid(c, 0, 0);
	return 0;
}
`

// TestRecordCount: vprof record --count stores the exact entry counts of
// the named functions, over every thread and child, in the profile's
// trailer (the header names them); vprof report reads them from a normal
// and a slow profile and puts the caller that decided to call its callee
// more often above it (D220). Needs gcc, the uprobe PMU and root.
func TestRecordCount(t *testing.T) {
	needUprobes(t, true)
	dir := t.TempDir()
	src, bin := filepath.Join(dir, "decide.c"), filepath.Join(dir, "decide")
	if err := os.WriteFile(src, []byte(decideSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("gcc", "-g", "-O2", "-pthread", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	want := map[string][2]uint64{"decide": {1100, 1100}, "work": {1100, 8800}}
	var profiles [2]string
	for i, mode := range []string{"normal", "slow"} {
		profiles[i] = filepath.Join(dir, mode+".vprof")
		r := execVprof(t, dir, nil, "record", "-q", "--count", "decide,work", "-o", profiles[i], "--", bin, mode)
		if r.code != 0 {
			t.Fatalf("record %s: exit %d: %s", mode, r.code, r.stderr)
		}
		rd, err := proffile.Open(profiles[i])
		if err != nil {
			t.Fatal(err)
		}
		if h := rd.Header(); strings.Join(h.Count, ",") != "decide,work" {
			t.Errorf("%s: header names %q", mode, h.Count)
		}
		var tr *model.Trailer
		for {
			rec, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if x, ok := rec.(*model.Trailer); ok {
				tr = x
			}
		}
		rd.Close()
		if tr == nil || tr.CountError != "" || len(tr.Counts) != 2 {
			t.Fatalf("%s: trailer %+v", mode, tr)
		}
		for _, c := range tr.Counts {
			if c.Calls != want[c.Symbol][i] {
				t.Errorf("%s: %s entered %d times, want %d (every thread and the child)", mode, c.Symbol, c.Calls, want[c.Symbol][i])
			}
		}
	}
	// An unknown name fails before anything runs.
	if r := execVprof(t, dir, nil, "record", "-q", "--count", "nosuch", "-o", filepath.Join(dir, "x.vprof"), "--", bin); r.code == 0 || !strings.Contains(r.stderr, `no function "nosuch"`) {
		t.Errorf("--count nosuch: exit %d, %s", r.code, r.stderr)
	}
	r := execVprof(t, dir, nil, "report", "-q", "--format", "json", profiles[0], profiles[1])
	if r.code != 0 {
		t.Fatalf("report: exit %d: %s", r.code, r.stderr)
	}
	var rep struct {
		Functions []struct {
			Function string `json:"function"`
		} `json:"functions"`
		Counts []struct {
			Caller, Callee, Above, Why string
		} `json:"counts"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	var pair bool
	for _, p := range rep.Counts {
		if p.Caller == "decide" && p.Callee == "work" {
			pair = true
			if p.Above != "caller" || !strings.Contains(p.Why, "1 -> 8 times per call of decide") {
				t.Errorf("decide/work: above %q (%s), want the caller", p.Above, p.Why)
			}
		}
	}
	if !pair {
		t.Fatalf("no decide/work pair among the counts %+v (rows %+v)", rep.Counts, rep.Functions)
	}
	for _, f := range rep.Functions {
		if f.Function == "work" {
			t.Errorf("work ranks above decide: %+v", rep.Functions)
		}
		if f.Function == "decide" {
			break
		}
	}
}
