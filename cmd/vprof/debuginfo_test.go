package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportWithoutDebugInfo: a program built without -g is still ranked
// (by cost, from its symbol table) and the report says why no variable
// speaks; a stripped one cannot be ranked at all, and the report says so
// instead of printing an empty table with no word.
func TestReportWithoutDebugInfo(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no gcc")
	}
	dir := t.TempDir()
	src := `#include <stdlib.h>
volatile long s;
__attribute__((noinline)) void work(long n) { for (long i = 0; i < n; i++) s += i * i; }
int main(int c, char **v) { long n = atol(v[1]); for (int k = 0; k < 100; k++) work(n); return 0; }
`
	if err := os.WriteFile(filepath.Join(dir, "p.c"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"gcc", "-O2", "-o", "nog", "p.c"}, {"strip", "-o", "stripped", "nog"}} {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	for _, c := range []struct {
		bin, warn string
		empty     bool
	}{
		{"nog", "nog has no DWARF debugging information: its functions are ranked by their cost alone", false},
		{"stripped", "stripped has neither DWARF debugging information nor a symbol table (stripped)", true},
	} {
		for _, run := range []struct{ out, n string }{{c.bin + ".normal", "20000"}, {c.bin + ".slow", "200000"}} {
			if r := execVprof(t, dir, nil, "record", "-q", "-o", run.out, "--", "./"+c.bin, run.n); r.code != 0 {
				t.Fatalf("record %s: %d %s", c.bin, r.code, r.stderr)
			}
		}
		r := execVprof(t, dir, nil, "report", "-q", c.bin+".normal", c.bin+".slow")
		if r.code != 0 {
			t.Fatalf("report %s: exit %d: %s", c.bin, r.code, r.stderr)
		}
		if !strings.Contains(r.stderr, c.warn) {
			t.Errorf("%s: stderr %q, want %q", c.bin, r.stderr, c.warn)
		}
		if got := strings.Contains(r.stderr, "no function to rank"); got != c.empty {
			t.Errorf("%s: said \"no function to rank\" %v, want %v; stderr %q", c.bin, got, c.empty, r.stderr)
		}
		if !c.empty && !strings.Contains(r.stdout, " work ") {
			t.Errorf("%s: the table does not rank work (from the symbol table):\n%s", c.bin, r.stdout)
		}
	}
}
