package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTailCallIndirectCLI records sampler/testdata/tailindirect.c without
// values in restored frames (--tail-frames=false), handler 0: run calls
// decide through a pointer and decide jumps to work. The recording's
// stacks show run calling work; the readers restore decide's frame from
// the functions whose address the binary takes (method.md §3, D85), so
// the exported stacks pass through it and the report says so. Handler 1
// (two handlers jump to work2) restores nothing.
func TestTailCallIndirectCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("records a test program")
	}
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not installed")
	}
	bin := vprofBinary(t)
	dir := t.TempDir()
	src, err := filepath.Abs(filepath.Join(moduleRoot(t), "sampler", "testdata", "tailindirect.c"))
	if err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(dir, "tailindirect")
	if b, err := exec.Command("gcc", "-O2", "-g", "-o", prog, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	rec := func(name, handler string) string {
		out := filepath.Join(dir, name+".data")
		if b, err := exec.Command(bin, "record", "-q", "--tail-frames=false", "-o", out, "--", prog, "800", "200000000", handler).CombinedOutput(); err != nil {
			t.Fatalf("record handler %s: %v\n%s", handler, err, b)
		}
		return out
	}
	one, two := rec("one", "0"), rec("two", "1")
	collapsed := func(file string) string {
		b, err := exec.Command(bin, "export", "--format", "collapsed", file).Output()
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if c := collapsed(one); !strings.Contains(c, ";run;decide;work ") {
		t.Errorf("handler 0: no exported stack passes through run;decide;work:\n%s", c)
	}
	if c := collapsed(two); !strings.Contains(c, ";run;work2 ") || strings.Contains(c, "decide2") {
		t.Errorf("handler 1: want run;work2 and no decide2a or decide2b frame:\n%s", c)
	}
	cmd := exec.Command(bin, "report", "--top", "5", two, one)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("report: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "decide was on the slow runs' stacks through a tail call") {
		t.Errorf("report says nothing of decide's tail call:\n%s", stderr.String())
	}
}
