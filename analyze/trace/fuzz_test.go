package trace

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// Every importer must turn any input into either an error or a trace that
// keeps the model's invariants, without panicking.

func addFiles(f *testing.F, glob string) {
	paths, _ := filepath.Glob(glob)
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
}

func FuzzDINAMITE(f *testing.F) {
	addFiles(f, "testdata/dinamite.txt")
	f.Add([]byte("1 a 0 1\n1 a 1 2\n"))
	f.Add([]byte("1 a 1 5\n1 b 0 10\n1 c 0 9\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		tr, err := ReadDINAMITE(bytes.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		if err := tr.Check(); err != nil {
			t.Fatal(err)
		}
		sameStream(t, tr, func(sinks func(pid, tid int64) Sink) (*Trace, error) {
			return readDINAMITE(bytes.NewReader(in), "fuzz", sinks)
		})
	})
}

func FuzzNonSequitur(f *testing.F) {
	addFiles(f, "testdata/nonsequitur/*")
	f.Add([]byte("0 f 1\n0 g 2\n1 f 3\n1 g 4\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		tr, err := ReadNonSequiturFile(bytes.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		if err := tr.Check(); err != nil {
			t.Fatal(err)
		}
		sameStream(t, tr, func(sinks func(pid, tid int64) Sink) (*Trace, error) {
			return readNonSequiturOne(bytes.NewReader(in), "fuzz", sinks)
		})
	})
}

func FuzzChrome(f *testing.F) {
	addFiles(f, "testdata/*.json")
	f.Add([]byte(`{"traceEvents":[{"name":"a","ph":"X","tid":1,"ts":"1.5","dur":2}]}`))
	f.Add([]byte(`[{"name":"a","ph":"B","ts":1},{"ph":"E","ts":0.5},{"name":"b","ph":"X","ts":0,"dur":9}]`))
	f.Fuzz(func(t *testing.T, in []byte) {
		tr, err := ReadChrome(bytes.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		if err := tr.Check(); err != nil {
			t.Fatal(err)
		}
	})
}

func FuzzDetect(f *testing.F) {
	addFiles(f, "testdata/*.*")
	f.Fuzz(func(t *testing.T, in []byte) {
		detectBytes(in, "fuzz")
	})
}

// collector rebuilds a thread's calls from a Sink's events.
type collector struct {
	calls []Call
	open  []int32
}

func (c *collector) Enter(fn int32, t int64) {
	c.open = append(c.open, int32(len(c.calls)))
	c.calls = append(c.calls, Call{Start: t, End: t, Func: fn, Depth: int32(len(c.open) - 1)})
}

func (c *collector) Exit(t int64) {
	k := &c.calls[c.open[len(c.open)-1]]
	k.End, k.Next = t, int32(len(c.calls))
	c.open = c.open[:len(c.open)-1]
}

// sameStream checks that streaming the input (read) gives tr's threads
// without their calls, and sinks that see tr's calls.
func sameStream(t *testing.T, tr *Trace, read func(sinks func(pid, tid int64) Sink) (*Trace, error)) {
	t.Helper()
	got := map[[2]int64]*collector{}
	str, err := read(func(pid, tid int64) Sink {
		c := &collector{}
		got[[2]int64{pid, tid}] = c
		return c
	})
	if err != nil {
		t.Fatalf("streaming: %v, reading: no error", err)
	}
	if len(str.Threads) != len(tr.Threads) || str.Calls() != 0 || !reflect.DeepEqual(str.Funcs, tr.Funcs) {
		t.Fatalf("streamed %d threads, %d calls kept, want %d threads and none", len(str.Threads), str.Calls(), len(tr.Threads))
	}
	for i, th := range tr.Threads {
		c := got[[2]int64{th.PID, th.TID}]
		want := *th
		want.Calls = nil
		if !reflect.DeepEqual(*str.Threads[i], want) || c == nil || len(c.open) != 0 || !reflect.DeepEqual(c.calls, th.Calls) {
			t.Fatalf("thread %d streams differently:\n%+v\nwant\n%+v", i, str.Threads[i], th)
		}
	}
}
