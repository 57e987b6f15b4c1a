package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestComponentNoMatch: a --component that matches none of the program's
// source files is an error naming what it could match, for schema, record
// (before the program runs) and report alike; one that matches is taken
// by all three by the same rule.
func TestComponentNoMatch(t *testing.T) {
	dir := t.TempDir()
	prog := buildSchemaTestProg(t, dir)
	want := "--component prog.cc matches no source file of " + prog + "; it could match files " + dir + "/prog.c"
	for _, args := range [][]string{
		{"schema", "--component", "prog.cc", prog},
		{"record", "--component", "prog.cc", "-o", filepath.Join(dir, "x.data"), "--", prog},
	} {
		r := execVprof(t, dir, nil, args...)
		if r.code != 2 || !strings.Contains(r.stderr, want) || strings.Contains(r.stdout, "g_count") {
			t.Errorf("vprof %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", strings.Join(args, " "), r.code, r.stdout, r.stderr, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.data")); err == nil {
		t.Error("record wrote a profile for a component that matches nothing")
	}
	// The same component spelled three ways matches in all three commands.
	for _, comp := range []string{"prog.c", dir, filepath.Base(dir)} {
		n, b := filepath.Join(dir, "n.data"), filepath.Join(dir, "b.data")
		for _, out := range []string{n, b} {
			if r := execVprof(t, dir, nil, "record", "-q", "--component", comp, "-o", out, "--", prog); r.code != 0 {
				t.Fatalf("record --component %s: exit %d: %s", comp, r.code, r.stderr)
			}
		}
		if r := execVprof(t, dir, nil, "schema", "--component", comp, prog); r.code != 0 || !strings.Contains(r.stdout, "g_count") {
			t.Errorf("schema --component %s: exit %d, %s %s", comp, r.code, r.stdout, r.stderr)
		}
		if r := execVprof(t, dir, nil, "report", "-q", "--component", comp, n, b); r.code != 0 {
			t.Errorf("report --component %s: exit %d, %s", comp, r.code, r.stderr)
		}
		r := execVprof(t, dir, nil, "report", "-q", "--component", "prog.cc", n, b)
		if r.code != 2 || !strings.Contains(r.stderr, want) {
			t.Errorf("report --component prog.cc: exit %d, stderr %q; want 2 and %q", r.code, r.stderr, want)
		}
	}
}
