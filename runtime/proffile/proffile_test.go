package proffile

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

func testSchema() *model.Schema {
	return &model.Schema{
		Path: "/bin/t", Type: "exec", HasDWARF: true,
		Funcs: []model.Func{{Name: "main", Display: "main", Ranges: []model.PCRange{{Lo: 0x1000, Hi: 0x1100}}}},
		Vars:  []model.Var{{Name: "i", Func: 0, Kind: model.KindInt, Size: 4, Tags: model.TagLoop}},
		Locs:  []model.Loc{{Var: 0, PCStart: 0x1000, PCEnd: 0x1100, Kind: model.LocReg, Reg: 3, Size: 4}},
	}
}

// writeProfile writes a profile with n samples per thread for threads 1..3
// and returns its path and the samples written per thread.
func writeProfile(t testing.TB, dir string, n int) (string, map[int32][]model.Sample) {
	path := filepath.Join(dir, "p.data")
	w, err := Create(path, model.Header{Target: "/bin/t", PID: 10, IntervalNS: 1e6, Clock: model.ClockCPU, Depth: 3, Stack: 64, Sampler: "perf"})
	if err != nil {
		t.Fatal(err)
	}
	w.AddObject(&model.Object{ID: 0, Path: "/bin/t", Program: true, Schema: testSchema()})
	w.AddMapping(model.Mapping{PID: 10, Start: 0x401000, End: 0x402000, Bias: 0x400000, Obj: 0})
	w.AddProc(model.ProcEvent{Kind: model.ProcStart, PID: 10, Path: "/bin/t"})
	want := map[int32][]model.Sample{}
	for i := 0; i < n; i++ {
		for tid := int32(10); tid < 13; tid++ {
			s := model.Sample{
				Tick: uint64(i*2 + int(tid)), TimeNS: int64(i) * 1e6, WeightNS: 1e6 - int64(tid),
				State: model.Running, Syscall: -1,
				Stack: []uint64{0x401010 + uint64(i%7), 0x401080, 0x7fff0000 - uint64(i)},
			}
			if i%3 == 0 {
				s.State, s.Syscall = model.Blocked, 202
			}
			if i%2 == 0 {
				s.Values = []model.Value{
					{Frame: 0, Obj: 0, Var: 0, Bits: uint64(int64(-i))},
					{Frame: 1, Obj: 0, Var: 7, Bits: 1 << 63, Pointee: 42, HasPointee: true},
				}
			}
			if err := w.AddSample(10, tid, &s); err != nil {
				t.Fatal(err)
			}
			want[tid] = append(want[tid], s)
		}
		if i == n/2 {
			w.AddThread(model.ThreadEvent{PID: 10, TID: 12, TimeNS: 5, Exit: false, Name: "worker"})
		}
	}
	if err := w.Close(model.Trailer{EndNS: 1e9, Samples: int64(3 * n), ExitStatus: 3}); err != nil {
		t.Fatal(err)
	}
	return path, want
}

func readAll(t testing.TB, r *Reader) (map[int32][]model.Sample, int) {
	got := map[int32][]model.Sample{}
	other := 0
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return got, other
		}
		if err != nil {
			t.Fatal(err)
		}
		if b, ok := rec.(*model.Block); ok {
			for _, s := range b.Samples {
				s.Stack = append([]uint64(nil), s.Stack...)
				s.Values = append([]model.Value(nil), s.Values...)
				if len(s.Values) == 0 {
					s.Values = nil
				}
				got[b.TID] = append(got[b.TID], s)
			}
		} else {
			other++
		}
	}
}

func TestRoundTrip(t *testing.T) {
	path, want := writeProfile(t, t.TempDir(), 5000)
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if h := r.Header(); h.Target != "/bin/t" || h.Version != Version || h.Clock != model.ClockCPU || h.Sampler != "perf" {
		t.Fatalf("header %+v", h)
	}
	got, other := readAll(t, r)
	if !reflect.DeepEqual(got, want) {
		for tid := range want {
			if len(got[tid]) != len(want[tid]) {
				t.Fatalf("tid %d: %d samples, want %d", tid, len(got[tid]), len(want[tid]))
			}
			for i := range want[tid] {
				if !reflect.DeepEqual(got[tid][i], want[tid][i]) {
					t.Fatalf("tid %d sample %d:\n got %+v\nwant %+v", tid, i, got[tid][i], want[tid][i])
				}
			}
		}
		t.Fatal("mismatch")
	}
	if other != 5 { // object, mapping, proc, thread, trailer
		t.Errorf("%d non-block records, want 5", other)
	}
	if rec := r.Recovery(); !rec.Complete || rec.Blocks < 2 {
		t.Errorf("recovery %+v", rec)
	}
}

func TestOldKept(t *testing.T) {
	dir := t.TempDir()
	path, _ := writeProfile(t, dir, 1)
	first, _ := os.ReadFile(path)
	writeProfile(t, dir, 2)
	old, err := os.ReadFile(path + ".old")
	if err != nil || !bytes.Equal(old, first) {
		t.Fatalf("previous profile not moved to .old: %v", err)
	}
	if _, err := os.Stat(path + PartialSuffix); !os.IsNotExist(err) {
		t.Errorf("partial file left behind: %v", err)
	}
}

// Every prefix of a file reads without error up to its last complete
// record, and says it is incomplete.
func TestTruncatedPrefixes(t *testing.T) {
	path, _ := writeProfile(t, t.TempDir(), 300)
	data, _ := os.ReadFile(path)
	r0, err := NewReader(bytes.NewReader(data), "full")
	if err != nil {
		t.Fatal(err)
	}
	headerEnd := int(r0.Recovery().Bytes)
	full := 0
	for cut := 0; cut < len(data); cut += 1 + len(data)/2000 {
		r, err := NewReader(bytes.NewReader(data[:cut]), "cut")
		if err != nil {
			if cut >= headerEnd || (cut >= 8 && errors.Is(err, ErrNotProfile)) {
				t.Fatalf("cut %d: %v", cut, err)
			}
			continue
		}
		got, _ := readAll(t, r)
		rec := r.Recovery()
		if rec.Complete {
			t.Fatalf("cut %d of %d: reported complete", cut, len(data))
		}
		if rec.Bytes > int64(cut) || rec.Reason == "" {
			t.Fatalf("cut %d: recovery %+v", cut, rec)
		}
		n := 0
		for _, s := range got {
			n += len(s)
		}
		if n < full {
			t.Fatalf("cut %d: %d samples, fewer than %d at a shorter cut", cut, n, full)
		}
		full = n
	}
}

func TestCorruption(t *testing.T) {
	path, _ := writeProfile(t, t.TempDir(), 300)
	data, _ := os.ReadFile(path)
	data[len(data)/2] ^= 0x55
	r, err := NewReader(bytes.NewReader(data), "bad")
	if err != nil {
		t.Fatal(err)
	}
	readAll(t, r)
	if rec := r.Recovery(); rec.Complete || rec.Reason == "" {
		t.Fatalf("corruption not reported: %+v", rec)
	}
}

func TestNotProfile(t *testing.T) {
	for _, in := range []string{"", "VPRO", "ELF\x7f....", "VPROF\x00\x09\x00"} {
		if _, err := NewReader(bytes.NewReader([]byte(in)), "x"); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

func TestAddrSpace(t *testing.T) {
	a := NewAddrSpace()
	a.Observe(&model.Mapping{PID: 1, Start: 0x1000, End: 0x2000, Bias: 0x1000, Obj: 0})
	a.Observe(&model.Mapping{PID: 1, Start: 0x7000, End: 0x8000, Bias: 0x6000, Obj: 2})
	a.Observe(&model.ProcEvent{Kind: model.ProcFork, PID: 2, PPID: 1})
	a.Observe(&model.Mapping{PID: 1, Start: 0x5000, End: 0x6000, Bias: 0x0, Obj: 3, Reset: true})
	cases := []struct {
		pid  int32
		pc   uint64
		obj  uint16
		link uint64
		ok   bool
	}{
		{2, 0x1010, 0, 0x10, true},   // inherited at fork
		{2, 0x7fff, 2, 0x1fff, true}, // inherited, last byte
		{2, 0x8000, 0, 0, false},     // end is exclusive
		{1, 0x1010, 0, 0, false},     // gone after exec
		{1, 0x5004, 3, 0x5004, true}, // new image
		{3, 0x5004, 0, 0, false},     // unknown process
	}
	for _, c := range cases {
		obj, link, ok := a.Resolve(c.pid, c.pc)
		if ok != c.ok || (ok && (obj != c.obj || link != c.link)) {
			t.Errorf("Resolve(%d, %#x) = %d, %#x, %v; want %d, %#x, %v", c.pid, c.pc, obj, link, ok, c.obj, c.link, c.ok)
		}
	}
}

// TestCountsRoundTrip: the functions record --count names go in the
// header, their counts in the trailer (D220), and read back as written;
// a profile without them reads with none. A trailer whose counts name no
// symbol, or one twice, is a decode error that says so.
func TestCountsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.data")
	counts := []model.CallCount{{Function: "A", Symbol: "_Z1Av", Calls: 1000}, {Function: "D", Symbol: "D", Calls: 1 << 40}, {Function: "E", Symbol: "E"}}
	w, err := Create(path, model.Header{Target: "/bin/t", PID: 10, IntervalNS: 1e6, Clock: model.ClockCPU, Count: []string{"A", "D", "E"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(model.Trailer{EndNS: 1e9, Counts: counts}); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if h := r.Header(); !reflect.DeepEqual(h.Count, []string{"A", "D", "E"}) {
		t.Errorf("header counts %q", h.Count)
	}
	var tr *model.Trailer
	for {
		rec, err := r.Next()
		if err != nil {
			break
		}
		if x, ok := rec.(*model.Trailer); ok {
			tr = x
		}
	}
	if tr == nil || !reflect.DeepEqual(tr.Counts, counts) || tr.CountError != "" {
		t.Fatalf("trailer %+v, want counts %+v", tr, counts)
	}
	// Without counts (every profile before them): none, and the JSON
	// holds no key for them.
	plain, _ := writeProfile(t, dir, 3)
	rp, err := Open(plain)
	if err != nil {
		t.Fatal(err)
	}
	defer rp.Close()
	if rp.Header().Count != nil {
		t.Errorf("a profile without counts: header %q", rp.Header().Count)
	}
	for {
		rec, err := rp.Next()
		if err != nil {
			break
		}
		if x, ok := rec.(*model.Trailer); ok && (x.Counts != nil || x.CountError != "") {
			t.Errorf("a profile without counts: trailer %+v", x)
		}
	}
	b, _ := json.Marshal(model.Trailer{})
	if strings.Contains(string(b), "count") {
		t.Errorf("a trailer without counts marshals %s", b)
	}
	for _, bad := range []struct {
		counts []model.CallCount
		msg    string
	}{
		{[]model.CallCount{{Function: "A"}}, "names no symbol"},
		{[]model.CallCount{{Function: "A", Symbol: "x"}, {Function: "B", Symbol: "x"}}, `symbol "x" counted twice`},
	} {
		p := filepath.Join(dir, "bad.data")
		w, err := Create(p, model.Header{Target: "/bin/t"})
		if err != nil {
			t.Fatal(err)
		}
		w.Close(model.Trailer{Counts: bad.counts})
		r, err := Open(p)
		if err != nil {
			t.Fatal(err)
		}
		for err == nil {
			_, err = r.Next()
		}
		r.Close()
		var de *DecodeError
		if !errors.As(err, &de) || !strings.Contains(err.Error(), bad.msg) {
			t.Errorf("counts %+v: %v, want a decode error %q", bad.counts, err, bad.msg)
		}
	}
}

func FuzzReader(f *testing.F) {
	dir := f.TempDir()
	path, _ := writeProfile(f, dir, 20)
	data, _ := os.ReadFile(path)
	f.Add(data)
	f.Add(data[:len(data)/2])
	// A profile with counts (record --count): header and trailer.
	cpath := filepath.Join(dir, "counts.data")
	if w, err := Create(cpath, model.Header{Target: "/bin/t", Count: []string{"f", "g"}}); err == nil {
		w.AddMapping(model.Mapping{PID: 10, Start: 0x401000, End: 0x402000, Bias: 0x400000, Obj: 0})
		w.Close(model.Trailer{EndNS: 5, Counts: []model.CallCount{{Function: "f", Symbol: "f", Calls: 3}, {Function: "g", Symbol: "_Z1gv", Calls: 0}}})
		if b, err := os.ReadFile(cpath); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := NewReader(bytes.NewReader(b), "fuzz")
		var de *DecodeError
		if err != nil {
			if !errors.As(err, &de) || de.Name != "fuzz" || de.Offset < 0 || de.Offset > int64(len(b)) {
				t.Fatalf("NewReader: %v (%T), want a *DecodeError inside the file", err, err)
			}
			return
		}
		for i := 0; i < 1e5; i++ {
			rec, err := r.Next()
			if t2, ok := rec.(*model.Trailer); ok {
				// Counts the reader returns name a symbol each, once.
				seen := map[string]bool{}
				for _, c := range t2.Counts {
					if c.Symbol == "" || seen[c.Symbol] {
						t.Fatalf("trailer counts %+v passed the reader", t2.Counts)
					}
					seen[c.Symbol] = true
				}
			}
			if err != nil {
				// Every error says where: a record that does not decode
				// is returned, damage is in Recovery.
				if err == io.EOF {
					err = r.Recovery().Err
				}
				if err != nil && (!errors.As(err, &de) || de.Offset < 8 || de.Offset >= int64(len(b))) {
					t.Fatalf("Next: %v (%T), want a *DecodeError inside the file", err, err)
				}
				return
			}
		}
	})
}

func BenchmarkAddSample(b *testing.B) {
	w, err := Create(filepath.Join(b.TempDir(), "b.data"), model.Header{})
	if err != nil {
		b.Fatal(err)
	}
	s := model.Sample{Stack: []uint64{0x401010, 0x401080, 0x401100, 0x7fff0000}, WeightNS: 1e6, Syscall: -1,
		Values: []model.Value{{Var: 1, Bits: 5}, {Var: 2, Bits: 1 << 40}, {Frame: 1, Var: 9, Bits: 3}}}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s.Tick = uint64(i)
		s.TimeNS = int64(i) * 1e6
		s.Values[0].Bits = uint64(i)
		w.AddSample(1, int32(i%4), &s)
	}
	w.Close(model.Trailer{})
}

func BenchmarkRead(b *testing.B) {
	path, _ := writeProfile(b, b.TempDir(), 20000)
	data, _ := os.ReadFile(path)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		r, _ := NewReader(bytes.NewReader(data), "b")
		for {
			if _, err := r.Next(); err != nil {
				break
			}
		}
	}
}

// A full disk gives an error that says so and where, from the first flush
// on, and the profile is not renamed into place as if it were complete.
func TestFullDisk(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	path := filepath.Join(t.TempDir(), "p.data")
	if err := os.Symlink("/dev/full", path+PartialSuffix); err != nil {
		t.Fatal(err)
	}
	w, err := Create(path, model.Header{Target: "/bin/t"})
	if err != nil {
		t.Fatal(err) // the header is still in the buffer
	}
	s := model.Sample{Stack: []uint64{1, 2, 3}, Syscall: -1}
	for i := 0; i < 10; i++ {
		w.AddSample(1, 1, &s)
	}
	err = w.Flush()
	if err == nil || !strings.Contains(err.Error(), "no space left on device") || !strings.Contains(err.Error(), path+PartialSuffix) {
		t.Fatalf("Flush on a full disk: %v", err)
	}
	if err := w.AddSample(1, 1, &s); err == nil {
		t.Error("AddSample after a write error: no error (errors must be sticky)")
	}
	if err := w.Close(model.Trailer{}); err == nil {
		t.Error("Close on a full disk: no error")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("a failed profile was renamed into place: %v", err)
	}
}

// TestTrailerRoundTrip: every trailer field, the blocked-thread counts
// included, reads back as written.
func TestTrailerRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.vprof")
	w, err := Create(path, model.Header{Target: "/bin/t", Clock: model.ClockWall})
	if err != nil {
		t.Fatal(err)
	}
	want := model.Trailer{EndNS: 2e9, Samples: 900, ValueSamples: 4000, UnreadableReads: 3, LostTicks: 2,
		BlockedSamples: 600, BlockedRegs: 580, ExitStatus: 1, Detached: true,
		CutStacks: map[string]int64{"return address unreadable": 7, "frame limit": 2}}
	if err := w.Close(want); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for {
		rec, err := r.Next()
		if err != nil {
			t.Fatalf("no trailer: %v", err)
		}
		if tr, ok := rec.(*model.Trailer); ok {
			if !reflect.DeepEqual(*tr, want) {
				t.Fatalf("trailer %+v, want %+v", *tr, want)
			}
			return
		}
	}
}

// TestSchemaCache checks that readers sharing a SchemaCache share the
// schema of one build and keep apart the schemas of others.
func TestSchemaCache(t *testing.T) {
	dir := t.TempDir()
	path, _ := writeProfile(t, dir, 5)
	var cache SchemaCache
	first := func(p string) *model.Object {
		t.Helper()
		r, err := Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		r.Schemas = &cache
		for {
			rec, err := r.Next()
			if err != nil {
				t.Fatalf("%s: no object: %v (%s)", p, err, r.Recovery())
			}
			if o, ok := rec.(*model.Object); ok {
				return o
			}
		}
	}
	a, b := first(path), first(path)
	if a.Schema != b.Schema || !reflect.DeepEqual(a.Schema, testSchema()) || a.Path != "/bin/t" || !a.Program {
		t.Errorf("two readers of one profile: objects %+v and %+v, want one schema equal to the written one", a, b)
	}
	other := testSchema()
	other.Producer = "GNU C17 13.2"
	w, err := Create(filepath.Join(dir, "q.data"), model.Header{})
	if err != nil {
		t.Fatal(err)
	}
	w.AddObject(&model.Object{ID: 0, Path: "/bin/t", Program: true, Schema: other})
	w.Close(model.Trailer{})
	if c := first(filepath.Join(dir, "q.data")); c.Schema == a.Schema || !reflect.DeepEqual(c.Schema, other) {
		t.Errorf("another schema of the same path: got %+v", c.Schema)
	}
}

// FuzzDecodeObject: a version 1 object record (plain JSON) decodes to an
// object with a schema, or to an error; never a panic.
func FuzzDecodeObject(f *testing.F) {
	s, _ := json.Marshal(&model.Object{ID: 1, Path: "/bin/t", BuildID: "ab", Program: true, Schema: testSchema()})
	f.Add(s)
	f.Add([]byte(`{"schema":{"path":"/a"},"schema":{"path":"/b"}}`))
	f.Add([]byte(`{"ID":2,"Schema":{}} `))
	f.Fuzz(func(t *testing.T, payload []byte) {
		if o, err := decodeWhole(payload); err == nil && o.Schema == nil {
			t.Fatalf("%q: no error and no schema", payload)
		}
	})
}

// TestVersion1 reads a profile written as version 1 did: the object's
// record plain JSON, schema included.
func TestVersion1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v1.data")
	w, err := Create(path, model.Header{Target: "/bin/t"})
	if err != nil {
		t.Fatal(err)
	}
	w.jsonRecord(recObject, &model.Object{ID: 0, Path: "/bin/t", Program: true, Schema: testSchema()})
	w.AddMapping(model.Mapping{PID: 10, Start: 0x401000, End: 0x402000, Bias: 0x400000, Obj: 0})
	if err := w.Close(model.Trailer{}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	b[6], b[7] = 1, 0 // the magic's version
	os.WriteFile(path, b, 0o644)
	for _, cache := range []*SchemaCache{nil, new(SchemaCache)} {
		r, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		r.Schemas = cache
		var objs int
		for {
			rec, err := r.Next()
			if err != nil {
				break
			}
			if o, ok := rec.(*model.Object); ok {
				objs++
				if !reflect.DeepEqual(o.Schema, testSchema()) || o.Path != "/bin/t" {
					t.Errorf("cache %v: object %+v", cache != nil, o)
				}
			}
		}
		r.Close()
		if rc := r.Recovery(); objs != 1 || !rc.Complete {
			t.Errorf("cache %v: %d objects, %s", cache != nil, objs, rc)
		}
	}
	b[6] = 3
	os.WriteFile(path, b, 0o644)
	if _, err := Open(path); err == nil || !strings.Contains(err.Error(), "version 3, this vprof reads versions 1 to 2") {
		t.Errorf("version 3: %v", err)
	}
}

// TestObjectDeflated checks that a schema is stored deflated and read back
// whole, and that damaged object records are errors, not panics or huge
// allocations.
func TestObjectDeflated(t *testing.T) {
	big := testSchema()
	for i := 0; i < 20000; i++ {
		big.Locs = append(big.Locs, big.Locs[0])
	}
	payload := objectPayload(t, &model.Object{ID: 1, Path: "/bin/big", BuildID: "ab", Schema: big})
	plain, _ := json.Marshal(big)
	if len(payload)*8 > len(plain) {
		t.Errorf("object record %d bytes for %d bytes of schema JSON: not deflated", len(payload), len(plain))
	}
	o, err := (&Reader{}).decodeObjectZ(payload)
	if err != nil || !reflect.DeepEqual(o.Schema, big) || o.Path != "/bin/big" || o.ID != 1 {
		t.Fatalf("read back: %v", err)
	}
	// Claims checked before inflating (maxInflate lowered here from 1 GiB),
	// and what inflates checked against the claim.
	defer func(m int64) { maxInflate = m }(maxInflate)
	maxInflate = 1 << 20
	spaces := bytes.Repeat([]byte(" "), 3<<20)
	for name, c := range map[string]struct {
		head   string
		claim  int
		schema []byte
		want   string
	}{
		"cut":             {"", 0, nil, ""},
		"bad head":        {"", 0, nil, ""},
		"no schema":       {`{}`, -1, nil, "bad length"},
		"huge length":     {"", 0, nil, ""},
		"empty":           {"", 0, nil, ""},
		"over maxInflate": {`{}`, 3 << 20, spaces, "claims 3145728 bytes"},
		"over the ratio":  {`{}`, 1 << 20, []byte("{}"), "claims 1048576 bytes inflated from"},
		"more than claim": {`{}`, 100, spaces, "inflates to more than the 100 bytes"},
		"less than claim": {`{}`, 3000, []byte(`{"path":"/a"}`), "inflating 3000 bytes"},
		"trailing":        {`{"id":1}`, 27, []byte(`{"path":"/a"} {"path":"/b"}`), "invalid character"},
		"bad JSON":        {`{"id":1}`, 11, []byte(`{"path":1}}`), "schema: "},
	} {
		var p []byte
		switch name {
		case "cut":
			p = payload[:len(payload)/2]
		case "bad head":
			p = payload[:3]
		case "huge length":
			p = binary.AppendUvarint(nil, 1<<40)
		case "empty":
		default:
			p = objectPayloadRaw(c.head, c.claim, c.schema)
		}
		if _, err := (&Reader{}).decodeObjectZ(p); err == nil {
			t.Errorf("%s: no error", name)
		} else if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}

// objectPayload returns the record a Writer writes for o.
func objectPayload(t *testing.T, o *model.Object) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "o.data")
	w, err := Create(path, model.Header{})
	if err != nil {
		t.Fatal(err)
	}
	w.AddObject(o)
	w.Close(model.Trailer{})
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	kind, payload, err := r.readRecord()
	if err != nil || kind != recObjectZ {
		t.Fatalf("record kind %d, %v", kind, err)
	}
	return bytes.Clone(payload)
}

// objectPayloadRaw builds an object record from a head, the length the
// schema claims (-1: none) and the schema's bytes.
func objectPayloadRaw(head string, claim int, schema []byte) []byte {
	p := append(binary.AppendUvarint(nil, uint64(len(head))), head...)
	if claim < 0 {
		return p
	}
	p = binary.AppendUvarint(p, uint64(claim))
	var z bytes.Buffer
	zw, _ := flate.NewWriter(&z, flate.BestSpeed)
	zw.Write(schema)
	zw.Close()
	return append(p, z.Bytes()...)
}

// FuzzDecodeObjectZ: a version 2 object record decodes alike with and
// without a SchemaCache, and never panics.
func FuzzDecodeObjectZ(f *testing.F) {
	dir := f.TempDir()
	path := filepath.Join(dir, "o.data")
	w, _ := Create(path, model.Header{})
	w.AddObject(&model.Object{ID: 1, Path: "/bin/t", BuildID: "ab", Program: true, Schema: testSchema()})
	w.Close(model.Trailer{})
	r, _ := Open(path)
	_, payload, _ := r.readRecord()
	f.Add(bytes.Clone(payload))
	r.Close()
	var cache SchemaCache
	f.Fuzz(func(t *testing.T, payload []byte) {
		plain, perr := (&Reader{}).decodeObjectZ(payload)
		for i := 0; i < 2; i++ {
			got, err := (&Reader{Schemas: &cache}).decodeObjectZ(payload)
			if (err == nil) != (perr == nil) || (err == nil && !reflect.DeepEqual(got, plain)) {
				t.Fatalf("pass %d: cached %+v, %v; uncached %+v, %v", i, got, err, plain, perr)
			}
		}
	})
}

// TestReservedObject checks that an object whose place was reserved is
// read where it was reserved, before the records written meanwhile (a
// library's samples), whatever the order the places are filled in, and
// that Close fails while a place is empty.
func TestReservedObject(t *testing.T) {
	for _, order := range [][2]int{{0, 1}, {1, 0}} {
		path := filepath.Join(t.TempDir(), "p.data")
		w, err := Create(path, model.Header{Target: "/bin/t", PID: 10, IntervalNS: 1e6, Clock: model.ClockCPU, Stack: 64, Sampler: "perf"})
		if err != nil {
			t.Fatal(err)
		}
		w.AddObject(&model.Object{ID: 0, Path: "/bin/t", Program: true, Schema: testSchema()})
		places := []*Place{w.Reserve()}
		w.AddMapping(model.Mapping{PID: 10, Start: 0x7000, End: 0x8000, Obj: 1})
		w.AddSample(10, 10, &model.Sample{Tick: 1, Stack: []uint64{0x7010}})
		w.Flush() // held: the block stays behind the place
		places = append(places, w.Reserve())
		w.AddMapping(model.Mapping{PID: 10, Start: 0x9000, End: 0xa000, Obj: 2})
		w.AddSample(10, 10, &model.Sample{Tick: 2, Stack: []uint64{0x9010}})
		for k, i := range order {
			lib := &model.Schema{Path: "lib", Type: "dyn", Funcs: []model.Func{{Name: "f"}}}
			var es *EncodedSchema
			if i == 1 { // encoded ahead, as a recorder does on another goroutine
				if es, err = EncodeSchema(lib); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Fill(places[i], &model.Object{ID: uint16(1 + i), Path: "lib", Schema: lib}, es); err != nil {
				t.Fatal(err)
			}
			if w.Held() != (k == 0) {
				t.Errorf("order %v: after filling place %d, held %v", order, i, w.Held())
			}
		}
		if err := w.Close(model.Trailer{Samples: 2}); err != nil {
			t.Fatal(err)
		}
		r, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for {
			rec, err := r.Next()
			if err != nil {
				break
			}
			switch x := rec.(type) {
			case *model.Object:
				got = append(got, fmt.Sprintf("object %d", x.ID))
				if x.ID > 0 && (len(x.Schema.Funcs) != 1 || x.Schema.Funcs[0].Name != "f") {
					t.Errorf("object %d: schema %+v", x.ID, x.Schema)
				}
			case *model.Mapping:
				got = append(got, fmt.Sprintf("mapping %d", x.Obj))
			case *model.Block:
				for _, s := range x.Samples {
					got = append(got, fmt.Sprintf("sample %d", s.Tick))
				}
			}
		}
		r.Close()
		want := "object 0,object 1,mapping 1,sample 1,object 2,mapping 2,sample 2"
		if g := strings.Join(got, ","); g != want || !r.Recovery().Complete {
			t.Errorf("order %v: records %s (complete %v), want %s", order, g, r.Recovery().Complete, want)
		}
	}

	w, err := Create(filepath.Join(t.TempDir(), "q.data"), model.Header{Target: "/bin/t"})
	if err != nil {
		t.Fatal(err)
	}
	w.Reserve()
	if err := w.Close(model.Trailer{}); err == nil || !strings.Contains(err.Error(), "never given") {
		t.Errorf("Close with a place not filled: %v", err)
	}
}
