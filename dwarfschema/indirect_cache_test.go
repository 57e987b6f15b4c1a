package dwarfschema

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/tailcall"
)

// indirectFiles lists the indirect-call cache files in dir.
func indirectFiles(t *testing.T, dir string) []string {
	t.Helper()
	fs, _ := filepath.Glob(filepath.Join(dir, "*.indirect"))
	return fs
}

func inode(t *testing.T, name string) uint64 {
	t.Helper()
	st, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	return st.Sys().(*syscall.Stat_t).Ino
}

// The scan of an object is written to the cache at the first
// Cache.LoadIndirect and read from it at the next: the same Indirect as a
// fresh scan, the file not written again, and what the file says is what
// is returned (a file of other contents under a good header proves the
// read). Another build of the program, another vprof build or format
// version, and a damaged file are scanned again; the damaged one with a
// warning.
func TestIndirectCache(t *testing.T) {
	src, err := os.ReadFile("../sampler/testdata/tailindirect.c")
	if err != nil {
		t.Fatal(err)
	}
	bin := buildWith(t, "gcc", string(src), "-O2", "-g", "-Wl,--build-id")
	id, err := fileBuildID(bin)
	if err != nil || id == "" {
		t.Fatalf("no build-id: %q %v", id, err)
	}
	fresh, err := LoadIndirect(bin, id, Options{})
	if err != nil || fresh == nil || len(fresh.Taken) == 0 || len(fresh.Calls) == 0 || len(fresh.Jumps) == 0 {
		t.Fatalf("LoadIndirect: %+v, %v", fresh, err)
	}
	dir := filepath.Join(t.TempDir(), "cache")
	var warnings []string
	c := &Cache{Dir: dir, Warn: func(s string) { warnings = append(warnings, s) }}
	load := func(what string, want *tailcall.Indirect) {
		t.Helper()
		got, err := c.LoadIndirect(bin, id, Options{})
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: LoadIndirect through the cache: %+v, %v; want %+v", what, got, err, want)
		}
	}
	load("first", fresh)
	fs := indirectFiles(t, dir)
	if len(fs) != 1 || !strings.HasPrefix(filepath.Base(fs[0]), id+"-") {
		t.Fatalf("cache files after the first load: %v", fs)
	}
	name := fs[0]
	ino := inode(t, name)
	load("second", fresh)
	if inode(t, name) != ino {
		t.Error("the second load wrote the cache file again: the code was scanned again")
	}
	if _, err := c.LoadIndirect(bin, "00", Options{}); err == nil {
		t.Error("another build ID than the file's: no error")
	}
	orig, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}

	// Read, not scanned: other contents under a good header come back.
	other := &tailcall.Indirect{Calls: []uint64{1, 5}, Taken: []uint64{0x1000}, Jumps: []model.CallEdge{{ReturnPC: 9, Callee: 3, Tail: true}}}
	if err := c.writeFile(name, indirectMagic, IndirectVersion, 0, id, "", encodeIndirect(other)); err != nil {
		t.Fatal(err)
	}
	load("planted", other)

	flip := bytes.Clone(orig)
	flip[len(flip)-2] ^= 0x40
	for _, tc := range []struct {
		what, warn string
		data       []byte
	}{
		{"another format version", "", bytes.Replace(orig, []byte(indirectMagic+strconv.Itoa(IndirectVersion)+" "), []byte(indirectMagic+"0 "), 1)},
		{"another vprof build", "", bytes.Replace(orig, []byte(`"vprof":"`+vprofBuild()), []byte(`"vprof":"`+strings.Repeat("0", len(vprofBuild()))), 1)},
		{"another build-id", "made for build-id", bytes.Replace(orig, []byte(`"build_id":"`+id), []byte(`"build_id":"`+strings.Repeat("0", len(id))), 1)},
		{"flipped", "checksum", flip},
		{"truncated", "truncated", orig[:len(orig)-3]},
		{"a schema file", "not a vprof indirect cache file", []byte(cacheMagic + "6 {}\n")},
	} {
		t.Run(tc.what, func(t *testing.T) {
			if bytes.Equal(tc.data, orig) {
				t.Fatal("the file is unchanged")
			}
			if err := os.WriteFile(name, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			warnings = nil
			load(tc.what, fresh)
			if tc.warn == "" && len(warnings) > 0 || tc.warn != "" && (len(warnings) != 1 || !strings.Contains(warnings[0], tc.warn)) {
				t.Errorf("warnings %q, want one saying %q", warnings, tc.warn)
			}
			if got, err := os.ReadFile(name); err != nil || !bytes.Equal(got, orig) {
				t.Errorf("the file was not replaced by a good one (%v)", err)
			}
		})
	}

	// Another build of the program at the same path: its own file.
	bin2 := buildWith(t, "gcc", strings.Replace(string(src), "int main", "int g_rebuilt = 1;\nint main", 1), "-O2", "-g", "-Wl,--build-id")
	if err := os.Rename(bin2, bin); err != nil {
		t.Fatal(err)
	}
	id2, _ := fileBuildID(bin)
	if id2 == id {
		t.Fatal("the rebuilt program has the same build-id")
	}
	if _, err := c.LoadIndirect(bin, id, Options{}); err == nil {
		t.Error("the recorded build ID of a rebuilt program: no error")
	}
	fresh2, err := LoadIndirect(bin, id2, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got2, err := c.LoadIndirect(bin, id2, Options{})
	if err != nil || !reflect.DeepEqual(got2, fresh2) {
		t.Errorf("the rebuilt program through the cache: %+v, %v", got2, err)
	}
	if fs := indirectFiles(t, dir); len(fs) != 2 {
		t.Errorf("cache files after a second build: %v, want two", fs)
	}

	// No directory: a plain scan, nothing written.
	for _, c := range []*Cache{nil, {}} {
		if got, err := c.LoadIndirect(bin, id2, Options{}); err != nil || !reflect.DeepEqual(got, fresh2) {
			t.Errorf("disabled cache %+v: %+v, %v", c, got, err)
		}
	}
}

func TestIndirectEncoding(t *testing.T) {
	for _, in := range []*tailcall.Indirect{
		nil,
		{},
		{Calls: []uint64{0x401000, 0x401005, 1 << 63}},
		{Taken: []uint64{0, ^uint64(0)}, Jumps: []model.CallEdge{{ReturnPC: 0x500, Callee: 0x100}, {ReturnPC: 0x20, Callee: ^uint64(0), Tail: true}}},
	} {
		b := encodeIndirect(in)
		got, err := decodeIndirect(b)
		if err != nil || !reflect.DeepEqual(got, in) {
			t.Errorf("%+v: decoded %+v, %v", in, got, err)
		}
		for i := range b {
			if _, err := decodeIndirect(b[:i]); err == nil && i > 0 {
				t.Errorf("%+v cut to %d of %d bytes: no error", in, i, len(b))
			}
		}
	}
}

// FuzzDecodeIndirect: decodeIndirect never panics or allocates beyond its
// input, and what it accepts encodes back to the same bytes.
func FuzzDecodeIndirect(f *testing.F) {
	f.Add([]byte{0})
	f.Add(encodeIndirect(&tailcall.Indirect{Calls: []uint64{3, 9}, Taken: []uint64{1}, Jumps: []model.CallEdge{{ReturnPC: 7, Callee: 2, Tail: true}}}))
	f.Add([]byte{1, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		in, err := decodeIndirect(b)
		if err != nil {
			return
		}
		if e := encodeIndirect(in); !bytes.Equal(e, b) {
			// Varints have one shortest form; longer ones decode alike.
			if in2, err := decodeIndirect(e); err != nil || !reflect.DeepEqual(in2, in) {
				t.Fatalf("%x decodes to %+v, which encodes to %x", b, in, e)
			}
		}
	})
}
