package dwarfschema

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// cacheFixture builds sampleC once per test and returns it with an empty
// cache directory.
func cacheFixture(t *testing.T) (bin, dir string) {
	t.Helper()
	bin = build(t, t.TempDir(), "gcc", ".c", sampleC, "-g", "-O2", "-Wl,--build-id")
	if id, err := fileBuildID(bin); err != nil || id == "" {
		t.Fatalf("no build-id in %s: %q %v", bin, id, err)
	}
	return bin, filepath.Join(t.TempDir(), "cache")
}

// schemaJSON is the encoding profile files store: two schemas that encode
// alike record alike.
func schemaJSON(t *testing.T, s *model.Schema) []byte {
	t.Helper()
	s2 := *s
	s2.Path = ""
	b, err := json.Marshal(&s2)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// cacheFiles lists the schema files in dir (not the temporary ones).
func cacheFiles(t *testing.T, dir string) []string {
	t.Helper()
	fs, _ := filepath.Glob(filepath.Join(dir, "*.schema"))
	return fs
}

func TestCacheHit(t *testing.T) {
	bin, dir := cacheFixture(t)
	var warnings []string
	c := &Cache{Dir: dir, Warn: func(s string) { warnings = append(warnings, s) }}
	fresh, err := Load(bin, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s1, cached, err := c.Load(bin, Options{})
	if err != nil || cached {
		t.Fatalf("first load: cached %v, err %v", cached, err)
	}
	if fs := cacheFiles(t, dir); len(fs) != 1 {
		t.Fatalf("cache files after the first load: %v", fs)
	}
	s2, cached, err := c.Load(bin, Options{})
	if err != nil || !cached {
		t.Fatalf("second load: cached %v, err %v", cached, err)
	}
	if s2.Path != bin {
		t.Errorf("cached schema's Path %q, want %q", s2.Path, bin)
	}
	for _, s := range []*model.Schema{s1, s2} {
		if !bytes.Equal(schemaJSON(t, s), schemaJSON(t, fresh)) {
			t.Errorf("schema through the cache differs from Load's")
		}
	}
	if len(s2.Vars) == 0 || len(s2.Locs) == 0 || !s2.HasDWARF {
		t.Errorf("cached schema is empty: %d vars, %d locs", len(s2.Vars), len(s2.Locs))
	}
	if len(warnings) > 0 {
		t.Errorf("warnings: %q", warnings)
	}
	// Other options are another schema: another file.
	s3, cached, err := c.Load(bin, Options{FuncRegex: regexp.MustCompile("scan")})
	if err != nil || cached {
		t.Fatalf("load with --func: cached %v, err %v", cached, err)
	}
	if len(s3.Vars) >= len(s2.Vars) {
		t.Errorf("--func scan kept %d variables of %d", len(s3.Vars), len(s2.Vars))
	}
	if fs := cacheFiles(t, dir); len(fs) != 2 {
		t.Errorf("cache files after a load with other options: %v", fs)
	}
}

// A schema built by another version of vprof's schema or another vprof
// build, or for another binary, is not used.
func TestCacheInvalidation(t *testing.T) {
	bin, dir := cacheFixture(t)
	c := &Cache{Dir: dir}
	if _, _, err := c.Load(bin, Options{}); err != nil {
		t.Fatal(err)
	}
	name := cacheFiles(t, dir)[0]
	orig, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := fileBuildID(bin)
	for _, tc := range []struct {
		what, old, new string
		warn           bool
	}{
		{"another schema version", cacheMagic + strconv.Itoa(SchemaVersion) + " ", cacheMagic + "0 ", false},
		{"another vprof build", `"vprof":"` + vprofBuild(), `"vprof":"` + strings.Repeat("0", len(vprofBuild())), false},
		{"another build-id", `"build_id":"` + id, `"build_id":"` + strings.Repeat("0", len(id)), true},
	} {
		t.Run(tc.what, func(t *testing.T) {
			b := bytes.Replace(orig, []byte(tc.old), []byte(tc.new), 1)
			if bytes.Equal(b, orig) {
				t.Fatalf("%q not in the cache file", tc.old)
			}
			if err := os.WriteFile(name, b, 0o644); err != nil {
				t.Fatal(err)
			}
			var warnings []string
			c.Warn = func(s string) { warnings = append(warnings, s) }
			if _, cached, err := c.Load(bin, Options{}); err != nil || cached {
				t.Fatalf("cached %v, err %v", cached, err)
			}
			if tc.warn != (len(warnings) == 1) || len(warnings) > 1 {
				t.Errorf("warnings %q, want one: %v", warnings, tc.warn)
			}
			// Rebuilt and rewritten: the next load hits.
			if _, cached, err := c.Load(bin, Options{}); err != nil || !cached {
				t.Errorf("after the rebuild: cached %v, err %v", cached, err)
			}
		})
	}
	// Another build of the program (another build-id) misses.
	bin2 := build(t, t.TempDir(), "gcc", ".c", strings.Replace(sampleC, "g_count = 3", "g_count = 4", 1), "-g", "-O2")
	if _, cached, err := c.Load(bin2, Options{}); err != nil || cached {
		t.Errorf("another build: cached %v, err %v", cached, err)
	}
}

// A damaged cache file (truncated, bits flipped, not a cache file at all)
// is ignored with a warning, and replaced by a good one.
func TestCacheCorrupt(t *testing.T) {
	bin, dir := cacheFixture(t)
	c := &Cache{Dir: dir}
	want, _, err := c.Load(bin, Options{})
	if err != nil {
		t.Fatal(err)
	}
	name := cacheFiles(t, dir)[0]
	orig, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	flip := bytes.Clone(orig)
	flip[len(flip)-10] ^= 0x20
	for _, tc := range []struct {
		what string
		data []byte
		warn string
	}{
		{"truncated", orig[:len(orig)/2], "truncated"},
		{"header only", orig[:bytes.IndexByte(orig, '\n')+1], "truncated"},
		{"flipped", flip, "checksum"},
		{"longer", append(bytes.Clone(orig), "{}"...), "longer"},
		{"empty", nil, "no header"},
		{"not a cache file", []byte("\x7fELF\x02\x01\x01 junk\n"), "not a vprof schema cache file"},
		{"bad header", []byte(cacheMagic + strconv.Itoa(SchemaVersion) + " {\"build_id\":\n"), "bad header"},
	} {
		t.Run(tc.what, func(t *testing.T) {
			if err := os.WriteFile(name, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			var warnings []string
			c.Warn = func(s string) { warnings = append(warnings, s) }
			s, cached, err := c.Load(bin, Options{})
			if err != nil || cached {
				t.Fatalf("cached %v, err %v", cached, err)
			}
			if len(warnings) != 1 || !strings.Contains(warnings[0], tc.warn) || !strings.Contains(warnings[0], name) {
				t.Errorf("warnings %q, want one naming %s and saying %q", warnings, name, tc.warn)
			}
			if !bytes.Equal(schemaJSON(t, s), schemaJSON(t, want)) {
				t.Errorf("rebuilt schema differs")
			}
			got, err := os.ReadFile(name)
			if err != nil || !bytes.Equal(got, orig) {
				t.Errorf("the damaged file was not replaced by a good one (err %v)", err)
			}
		})
	}
}

// Concurrent recordings of one binary each write the cache; every reader
// sees a whole file, and no temporary file is left.
func TestCacheConcurrentWriters(t *testing.T) {
	bin, dir := cacheFixture(t)
	want, err := Load(bin, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const n = 6
	var wg sync.WaitGroup
	errs := make(chan string, 2*n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &Cache{Dir: dir, Warn: func(s string) { errs <- "warning: " + s }}
			for range 2 {
				s, _, err := c.Load(bin, Options{})
				if err != nil {
					errs <- err.Error()
					return
				}
				if !bytes.Equal(schemaJSON(t, s), schemaJSON(t, want)) {
					errs <- "schema differs"
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	all, _ := os.ReadDir(dir)
	if len(all) != 1 {
		var names []string
		for _, e := range all {
			names = append(names, e.Name())
		}
		t.Errorf("cache directory holds %v, want one schema file", names)
	}
	if _, cached, err := (&Cache{Dir: dir}).Load(bin, Options{}); err != nil || !cached {
		t.Errorf("after concurrent writers: cached %v, err %v", cached, err)
	}
}

// Without a directory the cache is plain Load; a directory that cannot be
// written gives a warning, not an error.
func TestCacheDisabledAndUnwritable(t *testing.T) {
	bin, dir := cacheFixture(t)
	for _, c := range []*Cache{nil, {}} {
		if s, cached, err := c.Load(bin, Options{}); err != nil || cached || s == nil {
			t.Errorf("disabled cache %+v: cached %v, err %v", c, cached, err)
		}
	}
	if err := os.WriteFile(dir, []byte("a file, not a directory"), 0o644); err != nil {
		t.Fatal(err)
	}
	var warnings []string
	c := &Cache{Dir: dir, Warn: func(s string) { warnings = append(warnings, s) }}
	if _, cached, err := c.Load(bin, Options{}); err != nil || cached {
		t.Errorf("unwritable cache: cached %v, err %v", cached, err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "cannot cache") {
		t.Errorf("warnings %q, want one saying it cannot cache", warnings)
	}
}

func TestDefaultCacheDir(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", "/x/cache")
	if d := DefaultCacheDir(); d != "/x/cache/vprof" {
		t.Errorf("with XDG_CACHE_HOME: %q", d)
	}
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "/home/u")
	if d := DefaultCacheDir(); d != "/home/u/.cache/vprof" {
		t.Errorf("with HOME: %q", d)
	}
}
