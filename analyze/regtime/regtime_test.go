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
		{"single short call between long ones is plain, children dropped", []call{
			{0, "L", 0, 200}, {0, "s", 200, 210}, {1, "x", 201, 202}, {0, "L", 210, 400}},
			p, "0:L[0,200] 0:s[200,210] 0:L[210,400]"},
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

func TestMinCalls(t *testing.T) {
	tr := mk(t, 7, figure42)
	s := Compress(tr.Threads[0], Params{CDT: 0.5, CGT: 0.5, TTFT: 1, MinCalls: 12})
	if s.Compressed || s.Plain != 11 || len(s.Nodes) != 0 || s.Ratio() != 1 {
		t.Fatalf("thread below MinCalls: compressed %v plain %d", s.Compressed, s.Plain)
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
