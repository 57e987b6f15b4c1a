package regtime

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vprof/vprof/analyze/trace"
)

// replay passes a thread's calls to sink as enter and exit events, as a
// trace reader would.
func replay(th *trace.Thread, sink trace.Sink) {
	var open []int32
	for i := range th.Calls {
		for len(open) > 0 && th.Calls[open[len(open)-1]].Next <= int32(i) {
			sink.Exit(th.Calls[open[len(open)-1]].End)
			open = open[:len(open)-1]
		}
		sink.Enter(th.Calls[i].Func, th.Calls[i].Start)
		open = append(open, int32(i))
	}
	for len(open) > 0 {
		sink.Exit(th.Calls[open[len(open)-1]].End)
		open = open[:len(open)-1]
	}
}

// streamThread summarises th in two streaming passes.
func streamThread(th *trace.Thread, p Params) *Summary {
	var sc Scan
	replay(th, &sc)
	st := NewStreamer(th, &sc, p)
	replay(th, st)
	return st.Summary()
}

// randThread makes a random thread of about n calls: nested calls of nf
// functions, durations spread over several orders of magnitude, zero-length
// calls and idle gaps, so that every rule of RegTime fires.
func randThread(rng *rand.Rand, n, nf int) *trace.Thread {
	th := &trace.Thread{Name: "r"}
	t := int64(rng.IntN(5))
	th.Start = t
	var add func(depth int32)
	add = func(depth int32) {
		i := len(th.Calls)
		th.Calls = append(th.Calls, trace.Call{Start: t, Func: int32(rng.IntN(nf)), Depth: depth})
		switch rng.IntN(10) {
		case 0:
			t += int64(rng.IntN(100000))
		case 1, 2:
		default:
			t += int64(rng.IntN(100))
		}
		if depth < 6 {
			for k := rng.IntN(4); k > 0 && len(th.Calls) < n; k-- {
				add(depth + 1)
				if rng.IntN(8) == 0 {
					t += int64(rng.IntN(20000))
				} else {
					t += int64(rng.IntN(3))
				}
			}
		}
		t += int64(rng.IntN(50))
		th.Calls[i].End, th.Calls[i].Next = t, int32(len(th.Calls))
	}
	for len(th.Calls) < n {
		add(0)
		t += int64(rng.IntN(1000))
	}
	th.End = t + int64(rng.IntN(10))
	return th
}

// TestStreamMatchesBatch: the streaming summary is the batch one, entry
// for entry and node for node, over random threads and parameters.
func TestStreamMatchesBatch(t *testing.T) {
	params := []Params{Thesis, Later,
		{CDT: 0.05, CGT: 0.0005, TTFT: 0.2, Filter: 0.02, MinRecords: 10},
		{CDT: 0.002, CGT: 0.0001, TTFT: 0.01, Filter: -1, MinRecords: 0},
		{CDT: 0.3, CGT: 0.01, TTFT: 0.5, Filter: 0, MinRecords: 400}}
	for seed := uint64(0); seed < 300; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		th := randThread(rng, 10+rng.IntN(3000), 1+rng.IntN(40))
		tr := &trace.Trace{Threads: []*trace.Thread{th}}
		for i := range 40 {
			tr.Funcs = append(tr.Funcs, fmt.Sprint("f", i))
		}
		if err := tr.Check(); err != nil {
			t.Fatal(err)
		}
		for pi, p := range params {
			want := Compress(th, p)
			got := streamThread(th, p)
			if !reflect.DeepEqual(want, got) {
				t.Fatalf("seed %d params %d (%d calls): stream differs\nbatch:  %+v\n%s\nstream: %+v\n%s", seed, pi, len(th.Calls),
					stat(want), render(tr, want), stat(got), render(tr, got))
			}
		}
	}
}

func stat(s *Summary) string {
	return fmt.Sprintf("before %d records %d compressed %v plain %d exprs %d entries %d nodes %d",
		s.Before, s.Records, s.Compressed, s.Plain, s.Exprs, len(s.Entries), len(s.Nodes))
}

// TestStreamFile: StreamFile gives Open + All's summaries on a DINAMITE
// trace of several threads, with repairs.
func TestStreamFile(t *testing.T) {
	var b strings.Builder
	rng := rand.New(rand.NewPCG(1, 2))
	for tid := 1; tid <= 3; tid++ {
		th := randThread(rng, 2000, 12)
		var open []int32
		for i := range th.Calls {
			for len(open) > 0 && th.Calls[open[len(open)-1]].Next <= int32(i) {
				c := &th.Calls[open[len(open)-1]]
				fmt.Fprintf(&b, "%d f%d 1 %d\n", tid, c.Func, c.End)
				open = open[:len(open)-1]
			}
			fmt.Fprintf(&b, "%d f%d 0 %d\n", tid, th.Calls[i].Func, th.Calls[i].Start)
			open = append(open, int32(i))
		}
		// Leave the outermost calls open, and an exit without enter.
		fmt.Fprintf(&b, "%d nowhere 1 %d\n", tid, th.End)
	}
	path := filepath.Join(t.TempDir(), "t.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Open(path, "dinamite")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []Params{Thesis, Later} {
		want := All(tr, p)
		str, got, err := StreamFile(path, "dinamite", p)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) || len(str.Threads) != len(tr.Threads) || str.Calls() != 0 {
			t.Fatalf("%d summaries, %d threads (%d calls kept), want %d", len(got), len(str.Threads), str.Calls(), len(want))
		}
		if !reflect.DeepEqual(str.Funcs, tr.Funcs) {
			t.Fatalf("functions differ")
		}
		for i := range want {
			a, b := *tr.Threads[i], *str.Threads[i]
			a.Calls = nil
			if !reflect.DeepEqual(a, b) {
				t.Errorf("thread %d: %+v, want %+v", i, b, a)
			}
			w, g := *want[i], *got[i]
			w.Thread, g.Thread = nil, nil
			if !reflect.DeepEqual(w, g) {
				t.Errorf("thread %d: stream %s, batch %s", i, stat(&g), stat(&w))
			}
		}
	}
}
