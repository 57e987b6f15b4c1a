package dwarfschema

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// runTool runs a command a test needs (a compiler, cp, dwz) and fails the
// test with its output when it fails.
func runTool(t *testing.T, args ...string) {
	t.Helper()
	if b, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, b)
	}
}

// dwzCopies adds to bins, in d, the dwz'd forms of programs already in
// bins: for each name of alone a copy dwz'd by itself ("NAME/dwz": partial
// units in the file), and for pair two copies dwz'd together with a
// supplementary file ("NAME/dwz-sup": records that refer to another file).
// It reports false, adding nothing, where dwz is not installed.
func dwzCopies(t *testing.T, d string, bins map[string]string, alone []string, pair string) bool {
	t.Helper()
	if _, err := exec.LookPath("dwz"); err != nil {
		t.Logf("dwz not found: its cases skipped")
		return false
	}
	for _, name := range alone {
		one := filepath.Join(d, name+".dwz")
		runTool(t, "cp", bins[name], one)
		runTool(t, "dwz", one)
		bins[name+"/dwz"] = one
	}
	a, b, sup := filepath.Join(d, "a"), filepath.Join(d, "b"), filepath.Join(d, "common.debug")
	runTool(t, "cp", bins[pair], a)
	runTool(t, "cp", bins[pair], b)
	runTool(t, "dwz", "-m", sup, "-M", sup, a, b)
	bins[pair+"/dwz-sup"] = b
	return true
}
