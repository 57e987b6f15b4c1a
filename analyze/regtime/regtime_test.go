package regtime

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vprof/vprof/analyze/trace"
)

// call is one call of a hand-made thread, in pre-order.
type call struct {
	depth      int32
	fn         string
	start, end int64
}

// mk builds a trace of one thread from pre-order calls; the thread spans
// [0, span].
func mk(t testing.TB, span int64, calls []call) *trace.Trace {
	tr := &trace.Trace{}
	ids := map[string]int32{}
	th := &trace.Thread{Name: "t", Start: 0, End: span}
	var stack []int
	for i, c := range calls {
		for len(stack) > int(c.depth) {
			th.Calls[stack[len(stack)-1]].Next = int32(i)
			stack = stack[:len(stack)-1]
		}
		id, ok := ids[c.fn]
		if !ok {
			id = int32(len(tr.Funcs))
			ids[c.fn] = id
			tr.Funcs = append(tr.Funcs, c.fn)
		}
		stack = append(stack, i)
		th.Calls = append(th.Calls, trace.Call{Start: c.start, End: c.end, Func: id, Depth: c.depth})
	}
	for _, s := range stack {
		th.Calls[s].Next = int32(len(calls))
	}
	tr.Threads = []*trace.Thread{th}
	if err := tr.Check(); err != nil {
		t.Fatal(err)
	}
	return tr
}

// render prints a summary: plain calls as "d:f[s,e]", expressions as
// "d:{[s,e] f=dur .g=dur ...}".
func render(tr *trace.Trace, s *Summary) string {
	var parts []string
	for _, e := range s.Entries {
		if !e.IsExpr() {
			parts = append(parts, fmt.Sprintf("%d:%s[%d,%d]", e.Depth, tr.Funcs[e.Func], e.Start, e.End))
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%d:{[%d,%d]", e.Depth, e.Start, e.End)
		for _, n := range s.Nodes[e.Node : e.Node+e.NNodes] {
			fmt.Fprintf(&b, " %s%s=%d", strings.Repeat(".", int(n.Depth)), tr.Funcs[n.Func], n.Dur)
		}
		b.WriteString("}")
		parts = append(parts, b.String())
	}
	return strings.Join(parts, " ")
}

// The sequence of Figure 4.2/4.3 of the thesis: over [0, 7] ns, A three
// times (3 ns in all), P calling Y once and X three times. The expression
// holds the merged callstacks in order of first occurrence: A, then P with
// its children P>Y then P>X, each with its cumulative duration.
var figure42 = []call{
	{0, "A", 0, 1},
	{0, "P", 1, 2}, {1, "Y", 1, 2},
	{0, "A", 2, 3},
	{0, "P", 3, 4}, {1, "X", 3, 4},
	{0, "A", 4, 5},
	{0, "P", 5, 6}, {1, "X", 5, 6},
	{0, "P", 6, 7}, {1, "X", 6, 7},
}

func TestFigure42(t *testing.T) {
	tr := mk(t, 7, figure42)
	// Every call (1 ns) is short against 3.5 ns, no gap is idle, and the
	// run never reaches the whole span: one expression.
	s := Compress(tr.Threads[0], Params{CDT: 0.5, CGT: 0.5, TTFT: 1})
	want := "0:{[0,7] A=3 P=4 .Y=1 .X=3}"
	if got := render(tr, s); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if s.Before != 11 || s.After() != 4 || s.Ratio() != 2 || s.Exprs != 1 || s.Plain != 0 {
		t.Fatalf("before %d after %d ratio %d exprs %d plain %d", s.Before, s.After(), s.Ratio(), s.Exprs, s.Plain)
	}
}

func TestAlgorithm(t *testing.T) {
	// Thresholds on a span of 1000: CDT 100, CGT 10, TTFT 300.
	p := Params{CDT: 0.1, CGT: 0.01, TTFT: 0.3}
	tests := []struct {
		name  string
		calls []call
		p     Params
		want  string
	}{
		{"long call is plain and recursed into", []call{
			{0, "main", 0, 1000}, {1, "a", 0, 5}, {1, "b", 5, 9}, {1, "a", 9, 20}},
			p, "0:main[0,1000] 1:{[0,20] a=16 b=4}"},
		{"duration exactly CDT is long", []call{
			{0, "a", 0, 99}, {0, "b", 99, 199}, {0, "c", 199, 200}, {0, "d", 200, 210}},
			p, "0:a[0,99] 0:b[99,199] 0:{[199,210] c=1 d=10}"},
		{"gap exactly CGT is idle, just below is not", []call{
			{0, "a", 0, 1}, {0, "b", 11, 12}, {0, "c", 21, 22}, {0, "d", 22, 23}},
			p, "0:a[0,1] 0:{[11,23] b=1 c=1 d=1}"},
		{"TTFT checked before adding the next call", []call{
			{0, "a", 0, 90}, {0, "a", 90, 180}, {0, "a", 180, 270}, {0, "a", 270, 299}, {0, "a", 299, 301}, {0, "a", 301, 302}, {0, "b", 302, 303}},
			p, "0:{[0,301] a=301} 0:{[301,303] a=1 b=1}"},
		// The authors' rule (regtime_alg.py, the thesis' Algorithm 2): a
		// lone short call keeps its subtree in a one-call expression.
		{"single short call between long ones is an expression holding its subtree", []call{
			{0, "L", 0, 200}, {0, "s", 200, 210}, {1, "x", 201, 202}, {1, "y", 203, 204}, {2, "x", 203, 204}, {0, "L", 210, 400}},
			p, "0:L[0,200] 0:{[200,210] s=10 .x=1 .y=1 ..x=1} 0:L[210,400]"},
		{"single short call without children is plain", []call{
			{0, "L", 0, 200}, {0, "s", 200, 210}, {0, "L", 210, 400}},
			p, "0:L[0,200] 0:s[200,210] 0:L[210,400]"},
		{"single short call closed by an idle gap keeps its subtree", []call{
			{0, "main", 0, 1000}, {1, "s", 0, 10}, {2, "x", 1, 2}, {1, "t", 50, 60}, {1, "t", 60, 61}},
			p, "0:main[0,1000] 1:{[0,10] s=10 .x=1} 1:{[50,61] t=11}"},
		{"expression content merges whole subtrees", []call{
			{0, "main", 0, 1000},
			{1, "req", 0, 10}, {2, "parse", 0, 3}, {3, "lex", 0, 1}, {2, "send", 3, 9},
			{1, "req", 10, 20}, {2, "send", 10, 12}, {2, "parse", 12, 15},
			{1, "idle", 20, 21},
			{1, "req", 100, 110}, {1, "req", 110, 120}},
			p, "0:main[0,1000] 1:{[0,21] req=20 .parse=6 ..lex=1 .send=8 idle=1} 1:{[100,120] req=20}"},
		{"recursion keeps depth in the trie", []call{
			{0, "f", 0, 5}, {1, "f", 1, 4}, {2, "f", 2, 3}, {0, "f", 5, 9}, {1, "f", 6, 7}},
			p, "0:{[0,9] f=9 .f=4 ..f=1}"},
		{"end of parent closes the expression", []call{
			{0, "p", 0, 500}, {1, "a", 0, 1}, {1, "b", 1, 2}, {0, "c", 500, 501}, {0, "d", 501, 502}},
			p, "0:p[0,500] 1:{[0,2] a=1 b=1} 0:{[500,502] c=1 d=1}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := mk(t, 1000, tt.calls)
			s := Compress(tr.Threads[0], tt.p)
			if got := render(tr, s); got != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
			for i := 1; i < len(s.Entries); i++ {
				if s.Entries[i].Start < s.Entries[i-1].Start {
					t.Fatalf("entries out of start order at %d", i)
				}
			}
		})
	}
}

func TestFilter(t *testing.T) {
	// Span 1000, filter 1% = 10: "tiny" (cumulative 10) is dropped and
	// its child "kid" (cumulative 40 over two parents) promoted.
	calls := []call{
		{0, "main", 0, 1000},
		{1, "tiny", 0, 5}, {2, "kid", 0, 5},
		{1, "tiny", 100, 105}, {2, "kid", 100, 105},
		{1, "kid", 200, 230},
	}
	tr := mk(t, 1000, calls)
	p := Params{CDT: 0.1, CGT: 0.01, TTFT: 0.3, Filter: 0.01}
	s := Compress(tr.Threads[0], p)
	want := "0:main[0,1000] 1:kid[0,5] 1:kid[100,105] 1:kid[200,230]"
	if got := render(tr, s); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if s.Before != 6 {
		t.Fatalf("before %d, want the calls before filtering", s.Before)
	}
	// The source thread is untouched.
	if err := tr.Check(); err != nil || len(tr.Threads[0].Calls) != 6 {
		t.Fatal("thread modified", err)
	}
}

// leaves is n top-level calls of 1 ns, 1 ns apart; pairs is n top-level
// calls of 2 ns, each with one child.
func leaves(n int) []call {
	var cs []call
	for i := int64(0); i < int64(n); i++ {
		cs = append(cs, call{0, "a", 2 * i, 2*i + 1})
	}
	return cs
}

func pairs(n int) []call {
	var cs []call
	for i := int64(0); i < int64(n); i++ {
		cs = append(cs, call{0, "p", 3 * i, 3*i + 2}, call{1, "c", 3 * i, 3*i + 1})
	}
	return cs
}

// The authors compress a thread when its filtered trace has more than
// 1300/4 = 325 records, a call with children counting twice (enter and
// exit records), not when it has at least 325 calls.
func TestMinRecords(t *testing.T) {
	for _, tt := range []struct {
		name           string
		calls          []call
		records        int
		wantCompressed bool
	}{
		{"325 calls without children: 325 records", leaves(325), 325, false},
		{"326 calls without children", leaves(326), 326, true},
		{"300 calls, 150 with a child: 450 records", pairs(150), 450, true},
		{"216 calls, 108 with a child: 324 records", pairs(108), 324, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tr := mk(t, 1000, tt.calls)
			s := Compress(tr.Threads[0], Later)
			if s.Records != tt.records || s.Compressed != tt.wantCompressed {
				t.Fatalf("records %d compressed %v, want %d %v", s.Records, s.Compressed, tt.records, tt.wantCompressed)
			}
			if !s.Compressed && (s.Plain != len(tt.calls) || len(s.Nodes) != 0 || s.Ratio() != 1) {
				t.Fatalf("uncompressed thread: plain %d nodes %d", s.Plain, len(s.Nodes))
			}
		})
	}
	tr := mk(t, 7, figure42)
	s := Compress(tr.Threads[0], Params{CDT: 0.5, CGT: 0.5, TTFT: 1, MinRecords: 15})
	if s.Records != 15 || s.Compressed {
		t.Fatalf("figure 4.2 (11 calls, 4 with a child): records %d compressed %v", s.Records, s.Compressed)
	}
}

// traceFilter.py's THRESHOLD = 0 drops functions whose calls never took
// any time, before counting records; the authors then measure T on the
// filtered trace.
func TestFilterZero(t *testing.T) {
	calls := []call{{0, "z", 0, 0}, {0, "main", 0, 100}, {1, "z", 10, 10}, {1, "a", 10, 20}, {2, "z", 15, 15}}
	tr := mk(t, 1000, calls)
	s := Compress(tr.Threads[0], Params{CDT: 0.5, CGT: 0.5, TTFT: 1})
	if got, want := render(tr, s), "0:main[0,100] 1:a[10,20]"; got != want || s.Records != 3 {
		t.Fatalf("got %s (records %d), want %s", got, s.Records, want)
	}
	s = Compress(tr.Threads[0], Params{CDT: 0.5, CGT: 0.5, TTFT: 1, Filter: -1, MinRecords: 100})
	if s.Plain != 5 || s.Records != 7 {
		t.Fatalf("Filter -1: plain %d records %d, want every call", s.Plain, s.Records)
	}
	// T is the filtered trace's span, 100 ns, not the thread's 1000:
	// main is long against CDT 50% of it (of 1000 it would be short and
	// open an expression).
	s = Compress(tr.Threads[0], Params{CDT: 0.5, CGT: 0.5, TTFT: 1, MinRecords: 1})
	if got, want := render(tr, s), "0:main[0,100] 1:a[10,20]"; got != want || !s.Compressed {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func TestPresets(t *testing.T) {
	for _, tt := range []struct {
		name string
		want Params
	}{{"thesis", Params{0.01, 0.001, 0.13, 0.01, 325}}, {"later", Params{0.005, 0.001, 0.02, 0, 325}}} {
		p, err := Preset(tt.name)
		if err != nil || p != tt.want {
			t.Errorf("Preset(%q) = %+v, %v", tt.name, p, err)
		}
	}
	if _, err := Preset("x"); err == nil {
		t.Error("unknown preset accepted")
	}
}

// busyThread is n calls of a server-like thread: a main loop, requests
// of three levels with small gaps, and a few long waits.
func busyThread(n int) *trace.Trace {
	tr := &trace.Trace{Funcs: []string{"main", "request", "parse", "lex", "send", "wait", "log"}}
	th := &trace.Thread{Name: "busy"}
	th.Calls = make([]trace.Call, 0, n)
	th.Calls = append(th.Calls, trace.Call{Func: 0})
	t := int64(0)
	for len(th.Calls)+5 < n {
		i := int32(len(th.Calls))
		if i%100_003 < 5 {
			th.Calls = append(th.Calls, trace.Call{Start: t, End: t + 5_000_000, Func: 5, Depth: 1, Next: i + 1})
			t += 5_000_000
			continue
		}
		th.Calls = append(th.Calls,
			trace.Call{Start: t, End: t + 90, Func: 1, Depth: 1, Next: i + 4},
			trace.Call{Start: t + 1, End: t + 30, Func: 2, Depth: 2, Next: i + 3},
			trace.Call{Start: t + 2, End: t + 10, Func: 3, Depth: 3, Next: i + 3},
			trace.Call{Start: t + 30, End: t + 89, Func: 4, Depth: 2, Next: i + 4},
			trace.Call{Start: t + 91, End: t + 95, Func: int32(6 - (i/4)%2), Depth: 1, Next: i + 5})
		t += 100
	}
	th.Calls[0].End, th.Calls[0].Next, th.End = t, int32(len(th.Calls)), t
	tr.Threads = []*trace.Thread{th}
	return tr
}

func TestBusyThread(t *testing.T) {
	tr := busyThread(200_000)
	if err := tr.Check(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []Params{Thesis, Later} {
		s := Compress(tr.Threads[0], p)
		if s.Ratio() < 100 {
			t.Errorf("%+v: ratio %d (before %d after %d), want >= 100", p, s.Ratio(), s.Before, s.After())
		}
		var dur int64
		for _, e := range s.Entries {
			if e.IsExpr() {
				if e.End-e.Start > int64(p.TTFT*float64(tr.Threads[0].Span()))+100 {
					t.Errorf("expression spans %d, more than TTFT", e.End-e.Start)
				}
			}
			if e.Func == 5 && e.End-e.Start != 5_000_000 {
				t.Errorf("long wait lost: %+v", e)
			}
			if e.Func == 5 {
				dur += e.End - e.Start
			}
		}
		if dur == 0 {
			t.Error("no long wait kept as a plain call")
		}
	}
}

func BenchmarkCompress(b *testing.B) {
	tr := busyThread(1_000_000)
	th := tr.Threads[0]
	for _, name := range []string{"thesis", "later"} {
		p, _ := Preset(name)
		b.Run(name, func(b *testing.B) {
			c := &Compressor{P: p}
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				c.Thread(th)
			}
			b.ReportMetric(float64(b.N)*float64(len(th.Calls))/b.Elapsed().Seconds(), "calls/s")
		})
	}
}
