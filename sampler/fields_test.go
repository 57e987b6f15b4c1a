package sampler

import (
	"encoding/binary"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/vprof/vprof/runtime/model"
)

// TestFields reads struct fields as variables (testdata/fields.c): behind
// take's struct pointer q (q->pending is what argv[1] set; q->id counts
// the calls) and in the struct global pool (pool.n_free cycles 3..0,
// pool.stat.n_conn counts the calls too), with both samplers. take's
// spare is NULL: its fields are not read, and counted.
func TestFields(t *testing.T) {
	for _, sampler := range []string{SamplerPtrace, SamplerPerf} {
		t.Run(sampler, func(t *testing.T) {
			if sampler == SamplerPerf {
				perfOK(t)
			}
			exe := buildC(t, "fields", "-g")
			res, p := record(t, Config{Args: []string{exe, "5", "200000"}, Depth: 3, Sampler: sampler})
			if res.ExitStatus != 0 {
				t.Fatalf("exit status %d", res.ExitStatus)
			}
			pending := p.values("take", "q->pending")
			if len(pending) < 20 {
				t.Fatalf("q->pending: %d values (fields read %d, faulted %d)", len(pending), res.Values.Fields, res.Values.Faulted)
			}
			for _, v := range pending {
				if v.Bits != 5 {
					t.Fatalf("q->pending = %d in frame %d, want 5", int64(v.Bits), v.Frame)
				}
			}
			ids := p.values("take", "q->id")
			if len(ids) != len(pending) {
				t.Errorf("q->id: %d values, q->pending %d", len(ids), len(pending))
			}
			for k := 1; k < len(ids); k++ {
				if int32(ids[k].Bits) < int32(ids[k-1].Bits) || int32(ids[k].Bits) > 200000 {
					t.Fatalf("q->id goes from %d to %d", int32(ids[k-1].Bits), int32(ids[k].Bits))
				}
			}
			if vs := p.values("take", "spare->id"); len(vs) != 0 {
				t.Errorf("read %d values behind a NULL pointer", len(vs))
			}
			if res.Values.FieldsNull == 0 {
				t.Errorf("no field counted behind NULL (stats %+v)", res.Values)
			}
			free := p.values("#global", "pool.n_free")
			if len(free) < 20 {
				t.Fatalf("pool.n_free: %d values", len(free))
			}
			seen := map[uint64]bool{}
			for _, v := range free {
				if v.Bits > 3 {
					t.Fatalf("pool.n_free = %d, want 0..3", int64(v.Bits))
				}
				seen[v.Bits] = true
			}
			if len(seen) < 3 {
				t.Errorf("pool.n_free: values %v, want most of 0..3", seen)
			}
			conn := p.values("#global", "pool.stat.n_conn")
			for k := 1; k < len(conn); k++ {
				if conn[k].Bits < conn[k-1].Bits || conn[k].Bits > 200000 {
					t.Fatalf("pool.stat.n_conn goes from %d to %d", conn[k-1].Bits, conn[k].Bits)
				}
			}
		})
	}
}

// TestFieldsInRegisters reads the field of a struct local held in
// registers (testdata/structregs.c, method.md §2, D325): walk's q.hi, the
// register of its second piece (r12 across the calls of step, walk a
// caller frame), is argv[1] + 0..7 in every sample, with both samplers.
// Before D325 a struct in pieces had no fields.
func TestFieldsInRegisters(t *testing.T) {
	for _, sampler := range []string{SamplerPtrace, SamplerPerf} {
		t.Run(sampler, func(t *testing.T) {
			if sampler == SamplerPerf {
				perfOK(t)
			}
			exe := buildC(t, "structregs", "-g")
			res, p := record(t, Config{Args: []string{exe, "5000", "30000"}, Depth: 3, Sampler: sampler})
			if res.ExitStatus != 0 {
				t.Fatalf("exit status %d", res.ExitStatus)
			}
			his := p.values("walk", "q.hi")
			if len(his) < 20 {
				t.Fatalf("q.hi: %d values (read %d, unavailable %d)", len(his), res.Values.Read, res.Values.Unavailable)
			}
			seen := map[int64]bool{}
			for _, v := range his {
				if x := int64(v.Bits); x < 5000 || x > 5007 {
					t.Fatalf("q.hi = %d in frame %d, want 5000..5007", x, v.Frame)
				}
				seen[int64(v.Bits)] = true
			}
			if len(seen) < 2 {
				t.Errorf("q.hi: values %v, want several of 5000..5007", seen)
			}
		})
	}
}

// TestReadBehind reads fields behind a pointer into this process's own
// memory, without allocating once warm; past MaxFieldReads a sample reads
// no more.
func TestReadBehind(t *testing.T) {
	type queue struct {
		pending int64
		id      int32
		flags   int32
	}
	q := &queue{pending: -7, id: 9, flags: 3}
	o := &object{fieldStart: []int32{0, 2, 2}, fields: []derefField{
		{v: 1, off: 0, size: 8, kind: model.KindInt},
		{v: 2, off: 8, size: 4, kind: model.KindInt},
	}}
	r := &sampling{batch: newBatch(4096)}
	vals := make([]model.Value, 0, 8)
	pid := os.Getpid()
	read := func(base uint64, n int) {
		vals = append(vals[:0], model.Value{Frame: 2, Var: 0, Bits: base})
		r.ptrs, r.freads = r.ptrs[:0], r.freads[:0]
		r.queueFields(o, 0, &vals[0], &n)
		r.readBehind(pid, &vals, false)
	}
	read(uint64(uintptr(unsafe.Pointer(q))), 0)
	if len(vals) != 3 || vals[1].Var != 1 || int64(vals[1].Bits) != -7 || vals[2].Var != 2 || vals[2].Bits != 9 || vals[2].Frame != 2 {
		t.Fatalf("values %+v", vals)
	}
	if n := testing.AllocsPerRun(100, func() { read(uint64(uintptr(unsafe.Pointer(q))), 0) }); n != 0 {
		t.Errorf("%v allocations per read", n)
	}
	runtime.KeepAlive(q)
	r.vstats = valueStats{}
	read(0, 0)
	if len(vals) != 1 || r.vstats.FieldsNull != 2 {
		t.Errorf("NULL: values %+v, stats %+v", vals, r.vstats)
	}
	read(8, 0) // unmapped page: a faulting read
	if len(vals) != 1 || r.vstats.Faulted != 2 {
		t.Errorf("dangling: values %+v, stats %+v", vals, r.vstats)
	}
	read(uint64(uintptr(unsafe.Pointer(q))), MaxFieldReads-1)
	if len(vals) != 2 || r.vstats.FieldsOver != 1 {
		t.Errorf("budget: values %+v, stats %+v", vals, r.vstats)
	}
	runtime.KeepAlive(q)
}

// TestFieldsAgreeWithGDB attaches to fields.c, records, detaches, then asks
// gdb for the same fields: a struct global's (pool.cap) and one behind
// take's parameter (q->pending), fixed while the program runs. Every value
// vprof read must be what gdb prints.
func TestFieldsAgreeWithGDB(t *testing.T) {
	if _, err := exec.LookPath("gdb"); err != nil {
		t.Skip("gdb not installed")
	}
	exe := buildC(t, "fields", "-g")
	cmd := exec.Command(exe, "7", "1000000000")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	time.Sleep(50 * time.Millisecond)
	res, p := record(t, Config{PID: cmd.Process.Pid, Duration: 300 * time.Millisecond, Depth: 3})
	if res.ExitStatus != 0 || !p.trailer.Detached {
		t.Fatalf("attach: exit %d, detached %v", res.ExitStatus, p.trailer.Detached)
	}
	out, err := exec.Command("gdb", "-p", strconv.Itoa(cmd.Process.Pid), "-batch", "-nx",
		"-ex", "print pool.cap", "-ex", "frame function take", "-ex", "print q->pending").CombinedOutput()
	if err != nil {
		t.Fatalf("gdb: %v\n%s", err, out)
	}
	var got []string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "$") {
			if _, v, ok := strings.Cut(line, " = "); ok {
				got = append(got, strings.TrimSpace(v))
			}
		}
	}
	if len(got) != 2 {
		t.Fatalf("gdb printed %d values:\n%s", len(got), out)
	}
	compared := 0
	for i, c := range []struct{ fn, name string }{{"#global", "pool.cap"}, {"take", "q->pending"}} {
		vs := p.values(c.fn, c.name)
		if len(vs) == 0 {
			t.Errorf("%s: no values", c.name)
		}
		for _, v := range vs {
			if s := strconv.FormatInt(int64(v.Bits), 10); s != got[i] {
				t.Fatalf("%s: vprof read %s, gdb prints %s", c.name, s, got[i])
			}
			compared++
		}
	}
	t.Logf("%d field values agree with gdb (%v)", compared, got)
}

// TestFieldsBehindLocal reads a field behind a pointer local that gcc keeps
// in memory while it compares through a register (testdata/ptrwalk.c:
// receiver->btype, 1 or 3 for every client), with both samplers. 100000
// walks run about half a second: a loaded 2-core CI machine gave 13 values
// from the 0.1 s that 20000 walks take.
func TestFieldsBehindLocal(t *testing.T) {
	for _, sampler := range []string{SamplerPtrace, SamplerPerf} {
		t.Run(sampler, func(t *testing.T) {
			if sampler == SamplerPerf {
				perfOK(t)
			}
			exe := buildC(t, "ptrwalk", "-g")
			res, p := record(t, Config{Args: []string{exe, "100000"}, Depth: 3, Sampler: sampler})
			if res.ExitStatus != 0 {
				t.Fatalf("exit status %d", res.ExitStatus)
			}
			bt := p.values("walk", "receiver->btype")
			t.Logf("receiver->btype: %d values", len(bt))
			if len(bt) < 20 {
				t.Fatalf("receiver->btype: %d values (fields read %d, faulted %d)", len(bt), res.Values.Fields, res.Values.Faulted)
			}
			seen := map[uint64]int{}
			for _, v := range bt {
				if v.Bits != 1 && v.Bits != 3 {
					t.Fatalf("receiver->btype = %d in frame %d, want 1 or 3", int64(v.Bits), v.Frame)
				}
				seen[v.Bits]++
			}
			if len(seen) != 2 {
				t.Errorf("receiver->btype: values %v, want both 1 and 3", seen)
			}
		})
	}
}

// TestVectorLen: a std::vector's length from its begin and end pointers
// (D266): whole elements between them, 0 where end is below begin.
func TestVectorLen(t *testing.T) {
	word := func(b []byte, x uint64) { binary.LittleEndian.PutUint64(b, x) }
	for _, c := range []struct {
		begin, end uint64
		elem       int64
		want       uint64
	}{
		{0x1000, 0x1000, 16, 0},
		{0x1000, 0x1030, 16, 3},
		{0x1000, 0x1008, 8, 1},
		{0x1000, 0x1000 + 24*7, 24, 7},
		{0x2000, 0x1000, 8, 0},
		{0, 0, 4, 0},
	} {
		b := make([]byte, 16)
		word(b, c.begin)
		word(b[8:], c.end)
		if got := vectorLen(b, c.elem); got != c.want {
			t.Errorf("vectorLen(%#x, %#x, %d) = %d, want %d", c.begin, c.end, c.elem, got, c.want)
		}
	}
}
