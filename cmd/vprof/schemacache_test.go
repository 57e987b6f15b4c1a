package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/proffile"
)

// programSchema returns the JSON of the schema of the object at path in
// the profile file prof.
func programSchema(t *testing.T, prof, path string) []byte {
	t.Helper()
	r, err := proffile.Open(prof)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for {
		rec, err := r.Next()
		if err != nil {
			t.Fatalf("%s: %v", prof, err)
		}
		if rec == nil {
			break
		}
		if o, ok := rec.(*model.Object); ok && o.Path == path {
			b, err := json.Marshal(o.Schema)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
	t.Fatalf("%s: no object %s", prof, path)
	return nil
}

// A second recording of the same binary takes its schema from the cache
// (the cache file is read, not written again) and records the same
// schema; --no-schema-cache and VPROF_SCHEMA_CACHE=off build it.
func TestRecordSchemaCache(t *testing.T) {
	dir := t.TempDir()
	bin := buildSchemaTestProg(t, dir)
	cache := filepath.Join(dir, "xdg")
	env := []string{"XDG_CACHE_HOME=" + cache}
	record := func(out string, env []string, flags ...string) {
		t.Helper()
		args := append(append([]string{"record", "-q", "-o", filepath.Join(dir, out)}, flags...), "--", bin)
		if r := execVprof(t, dir, env, args...); r.code != 0 || r.stderr != "" {
			t.Fatalf("vprof %v: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
	// Disabled: nothing is written.
	record("off.data", append(env, "VPROF_SCHEMA_CACHE=off"))
	record("flag.data", env, "--no-schema-cache")
	if fs, _ := filepath.Glob(filepath.Join(cache, "vprof", "*")); len(fs) != 0 {
		t.Fatalf("cache written while disabled: %v", fs)
	}
	record("1.data", env)
	fs, _ := filepath.Glob(filepath.Join(cache, "vprof", "*.schema"))
	if len(fs) != 1 {
		t.Fatalf("cache files after the first recording: %v", fs)
	}
	st1, err := os.Stat(fs[0])
	if err != nil {
		t.Fatal(err)
	}
	record("2.data", env)
	st2, err := os.Stat(fs[0])
	if err != nil {
		t.Fatal(err)
	}
	// A rebuilt schema is written to a new file renamed over the old one.
	if st1.Sys().(*syscall.Stat_t).Ino != st2.Sys().(*syscall.Stat_t).Ino || !st1.ModTime().Equal(st2.ModTime()) {
		t.Errorf("the second recording wrote the cache file again: the schema was rebuilt")
	}
	want := programSchema(t, filepath.Join(dir, "off.data"), bin)
	for _, p := range []string{"flag.data", "1.data", "2.data"} {
		if got := programSchema(t, filepath.Join(dir, p), bin); !bytes.Equal(got, want) {
			t.Errorf("%s: the schema differs from the one built without the cache", p)
		}
	}
	// A damaged file: a warning, the schema rebuilt and the file replaced.
	if err := os.WriteFile(fs[0], []byte("junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"record", "-q", "-o", filepath.Join(dir, "3.data"), "--", bin}
	if r := execVprof(t, dir, env, args...); r.code != 0 || !bytes.Contains([]byte(r.stderr), []byte("ignoring schema cache file")) {
		t.Errorf("record with a damaged cache file: exit %d, stderr %q", r.code, r.stderr)
	}
	if got := programSchema(t, filepath.Join(dir, "3.data"), bin); !bytes.Equal(got, want) {
		t.Errorf("the schema rebuilt over a damaged cache file differs")
	}
	record("4.data", env)
	if st4, err := os.Stat(fs[0]); err != nil || st4.Size() < 100 {
		t.Errorf("the damaged cache file was not replaced: %v", err)
	}
}
