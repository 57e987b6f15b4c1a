package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
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

// TestIndirectCacheCLI: `vprof record` keeps D85's scan of the program
// (dwarfschema.Cache.LoadIndirect) in the schema cache, and the readers
// read it from there: an export after the recording does not write the
// file again, and one whose cache lost the file writes it back; the
// stacks are the same with the cache as without (VPROF_SCHEMA_CACHE=off,
// which writes nothing).
func TestIndirectCacheCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("records a test program")
	}
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not installed")
	}
	dir := t.TempDir()
	src, err := filepath.Abs(filepath.Join(moduleRoot(t), "sampler", "testdata", "tailindirect.c"))
	if err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(dir, "tailindirect")
	if b, err := exec.Command("gcc", "-O2", "-g", "-o", prog, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	cache := filepath.Join(dir, "xdg")
	env := []string{"XDG_CACHE_HOME=" + cache}
	run := func(env []string, args ...string) string {
		t.Helper()
		r := execVprof(t, dir, env, args...)
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("vprof %v: exit %d, stderr %q", args, r.code, r.stderr)
		}
		return r.stdout
	}
	data := filepath.Join(dir, "one.data")
	run(env, "record", "-q", "--tail-frames=false", "-o", data, "--", prog, "800", "200000000", "0")
	files := func() []string {
		fs, _ := filepath.Glob(filepath.Join(cache, "vprof", "*.indirect"))
		return fs
	}
	fs := files()
	if len(fs) != 1 {
		t.Fatalf("indirect-call cache files after the recording: %v", fs)
	}
	st1, err := os.Stat(fs[0])
	if err != nil {
		t.Fatal(err)
	}
	export := func(env []string) string {
		return run(env, "export", "--format", "collapsed", data)
	}
	cached := export(env)
	if !strings.Contains(cached, ";run;decide;work ") {
		t.Errorf("no exported stack passes through run;decide;work:\n%s", cached)
	}
	st2, err := os.Stat(fs[0])
	if err != nil {
		t.Fatal(err)
	}
	if st1.Sys().(*syscall.Stat_t).Ino != st2.Sys().(*syscall.Stat_t).Ino || !st1.ModTime().Equal(st2.ModTime()) {
		t.Error("export wrote the cache file again: the code was scanned again")
	}
	off := filepath.Join(dir, "off")
	if got := export([]string{"XDG_CACHE_HOME=" + off, "VPROF_SCHEMA_CACHE=off"}); got != cached {
		t.Errorf("export without the cache differs:\n%s\nwith it:\n%s", got, cached)
	}
	if _, err := os.Stat(off); err == nil {
		t.Error("VPROF_SCHEMA_CACHE=off: the cache directory was made")
	}
	// The readers fill an empty cache themselves.
	if err := os.Remove(fs[0]); err != nil {
		t.Fatal(err)
	}
	if got := export(env); got != cached {
		t.Errorf("export that scanned again differs:\n%s\nfrom:\n%s", got, cached)
	}
	if got := files(); len(got) != 1 || got[0] != fs[0] {
		t.Errorf("export did not write the scan back: %v", got)
	}
}
