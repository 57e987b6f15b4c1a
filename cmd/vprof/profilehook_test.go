package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/pprof/profile"
)

// TestRecordProfilesItself: VPROF_CPUPROFILE and VPROF_MEMPROFILE make
// vprof record write its own CPU and allocation profiles, for go tool
// pprof (docs/benchmarks.md, "Sampler").
func TestRecordProfilesItself(t *testing.T) {
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "mem.pprof")
	t.Setenv(cpuProfileEnv, cpu)
	t.Setenv(memProfileEnv, mem)
	code, _, stderr := runVprof(append([]string{"record", "-q", "-o", filepath.Join(dir, "r.vprof"), "--"}, busyShell...)...)
	if code != 3 {
		t.Fatalf("exit %d, want the program's 3: %s", code, stderr)
	}
	for _, c := range []struct{ path, sampleType string }{{cpu, "cpu"}, {mem, "alloc_space"}} {
		f, err := os.Open(c.path)
		if err != nil {
			t.Fatal(err)
		}
		p, err := profile.Parse(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		found := false
		for _, st := range p.SampleType {
			found = found || st.Type == c.sampleType
		}
		if !found {
			t.Errorf("%s: sample types %v, want %s", c.path, p.SampleType, c.sampleType)
		}
		if c.sampleType == "alloc_space" && len(p.Sample) == 0 {
			t.Errorf("%s: no allocation recorded", c.path)
		}
	}
	// A profile that cannot be written fails the command before it
	// starts the program.
	t.Setenv(cpuProfileEnv, filepath.Join(dir, "no", "such", "dir", "cpu.pprof"))
	t.Setenv(memProfileEnv, "")
	if code, _, stderr := runVprof("record", "-q", "-o", filepath.Join(dir, "r2.vprof"), "--", "true"); code == 0 {
		t.Errorf("unwritable %s: exit 0; stderr %q", cpuProfileEnv, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "r2.vprof")); err == nil {
		t.Errorf("unwritable %s: the program was recorded anyway", cpuProfileEnv)
	}
}

// TestSchemaProfilesItself: vprof schema writes the same profiles, for
// whoever works on the schema reader's cost (docs/benchmarks.md, issue
// 18), and an unwritable one fails the command.
func TestSchemaProfilesItself(t *testing.T) {
	dir := t.TempDir()
	bin := buildSchemaTestProg(t, dir)
	cpu, mem := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "mem.pprof")
	t.Setenv(cpuProfileEnv, cpu)
	t.Setenv(memProfileEnv, mem)
	if code, _, stderr := runVprof("schema", bin); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, path := range []string{cpu, mem} {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		_, err = profile.Parse(f)
		f.Close()
		if err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
	t.Setenv(cpuProfileEnv, filepath.Join(dir, "no", "such", "dir", "cpu.pprof"))
	if code, _, stderr := runVprof("schema", bin); code == 0 {
		t.Errorf("unwritable %s: exit 0; stderr %q", cpuProfileEnv, stderr)
	}
}
