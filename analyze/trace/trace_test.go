package trace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// flat renders a thread's calls as "depth:func[start,end]" for comparison.
func flat(tr *Trace, th *Thread) string {
	var b strings.Builder
	for i, c := range th.Calls {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strings.Repeat(".", int(c.Depth)))
		b.WriteString(tr.Funcs[c.Func])
		b.WriteByte('[')
		b.WriteString(itoa(c.Start))
		b.WriteByte(',')
		b.WriteString(itoa(c.End))
		b.WriteByte(']')
	}
	return b.String()
}

func itoa(v int64) string {
	if v == 0 {
		return "0"
	}
	neg := v < 0
	if neg {
		v = -v
	}
	var buf [24]byte
	i := len(buf)
	for v > 0 {
		i--
		buf[i] = byte('0' + v%10)
		v /= 10
	}
	if neg {
		i--
		buf[i] = '-'
	}
	return string(buf[i:])
}

type threadWant struct {
	name                string
	calls               string
	unmatched, unclosed int
	backwards, overlaps int
}

func checkTrace(t *testing.T, tr *Trace, want []threadWant) {
	t.Helper()
	if err := tr.Check(); err != nil {
		t.Fatalf("Check: %v", err)
	}
	if len(tr.Threads) != len(want) {
		t.Fatalf("%d threads, want %d", len(tr.Threads), len(want))
	}
	for i, w := range want {
		th := tr.Threads[i]
		if th.Name != w.name {
			t.Errorf("thread %d: name %q, want %q", i, th.Name, w.name)
		}
		if got := flat(tr, th); got != w.calls {
			t.Errorf("thread %s:\n got %s\nwant %s", th.Name, got, w.calls)
		}
		if th.Unmatched != w.unmatched || th.Unclosed != w.unclosed || th.Backwards != w.backwards || th.Overlaps != w.overlaps {
			t.Errorf("thread %s: unmatched %d unclosed %d backwards %d overlaps %d, want %d %d %d %d", th.Name,
				th.Unmatched, th.Unclosed, th.Backwards, th.Overlaps, w.unmatched, w.unclosed, w.backwards, w.overlaps)
		}
	}
}

func TestDINAMITE(t *testing.T) {
	tests := []struct {
		name, in string
		want     []threadWant
		err      string
	}{
		{name: "nested", in: "tid func dir time\n1 main 0 100\n1 foo 0 110\n2 work 0 105\n1 bar 0 120\n1 bar 1 130\n1 foo 1 140\n2 work 1 200\n1 main 1 300\n",
			want: []threadWant{
				{name: "tid 1", calls: "main[100,300] .foo[110,140] ..bar[120,130]"},
				{name: "tid 2", calls: "work[105,200]"},
			}},
		{name: "spaces in names, tabs, comments", in: "# comment\n\n3\tstd::map<int, int>::find(int const&) const\t0\t5\n3 std::map<int, int>::find(int const&) const 1 9\r\n",
			want: []threadWant{{name: "tid 3", calls: "std::map<int, int>::find(int const&) const[5,9]"}}},
		{name: "unmatched exit and unclosed enter", in: "1 a 1 5\n1 b 0 10\n1 c 0 11\n1 c 1 12\n1 d 0 13\n",
			want: []threadWant{{name: "tid 1", calls: "b[10,13] .c[11,12] .d[13,13]", unmatched: 1, unclosed: 2}}},
		{name: "outer exit closes inner", in: "1 a 0 1\n1 b 0 2\n1 a 1 5\n1 z 0 6\n1 z 1 7\n",
			want: []threadWant{{name: "tid 1", calls: "a[1,5] .b[2,5] z[6,7]", unclosed: 1}}},
		{name: "time going backwards is clamped", in: "1 a 0 10\n1 a 1 5\n",
			want: []threadWant{{name: "tid 1", calls: "a[10,10]", backwards: 1}}},
		{name: "recursion", in: "1 f 0 1\n1 f 0 2\n1 f 1 3\n1 f 1 4\n",
			want: []threadWant{{name: "tid 1", calls: "f[1,4] .f[2,3]"}}},
		{name: "empty", in: "", want: nil},
		{name: "bad dir", in: "1 a 0 1\n1 a 2 3\n", err: "t.txt:2: direction \"2\""},
		{name: "bad time", in: "1 a 0 1x\n", err: "t.txt:1: time \"1x\""},
		{name: "bad tid", in: "x a 0 1\n", err: "t.txt:1: thread id \"x\""},
		{name: "too few fields", in: "1 0 1\n", err: "t.txt:1: want 4 fields"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := ReadDINAMITE(strings.NewReader(tt.in), "t.txt")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				var se *SyntaxError
				if !errors.As(err, &se) {
					t.Fatalf("error %T is not a *SyntaxError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkTrace(t, tr, tt.want)
		})
	}
}

func TestDINAMITEFile(t *testing.T) {
	tr, err := Open("testdata/dinamite.txt", "")
	if err != nil {
		t.Fatal(err)
	}
	if tr.Format != "dinamite" || len(tr.Threads) != 2 || tr.Calls() != 9 {
		t.Fatalf("format %s, %d threads, %d calls", tr.Format, len(tr.Threads), tr.Calls())
	}
	if err := tr.Check(); err != nil {
		t.Fatal(err)
	}
}

func TestNonSequitur(t *testing.T) {
	tr, err := Open("testdata/nonsequitur", "")
	if err != nil {
		t.Fatal(err)
	}
	if tr.Format != "nonsequitur" {
		t.Fatalf("format %q", tr.Format)
	}
	checkTrace(t, tr, []threadWant{
		{name: "thread_01", calls: "start[45879432759884901,45879821117098503] .setup_work[45879434173657385,45879547189322629] .perform_work[45879547615057068,45879804228835566] cleanup[45879821117098504,45879825117098504]"},
		{name: "thread_02", calls: "start[45879432759884950,45879432759887000] .</script><b>x</b>[45879432759885000,45879432759886000]"},
	})

	dir := t.TempDir()
	// File-name order, not creation order; hidden files are skipped.
	os.WriteFile(filepath.Join(dir, "b"), []byte("0 g 1\n1 g 2\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "a"), []byte("0 f 1\n1 f 2\n"), 0o644)
	os.WriteFile(filepath.Join(dir, ".hidden"), []byte("junk"), 0o644)
	tr, err = ReadNonSequitur(dir)
	if err != nil {
		t.Fatal(err)
	}
	checkTrace(t, tr, []threadWant{{name: "a", calls: "f[1,2]"}, {name: "b", calls: "g[1,2]"}})

	os.WriteFile(filepath.Join(dir, "c"), []byte("0 f 1\n1 f 2\n0 f\n"), 0o644)
	if _, err := ReadNonSequitur(dir); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "c")+":3: want 3 fields") {
		t.Fatalf("error %v", err)
	}
	if _, err := ReadNonSequitur(t.TempDir()); err == nil {
		t.Fatal("empty folder: no error")
	}
}

func TestChrome(t *testing.T) {
	tests := []struct {
		name, in string
		want     []threadWant
		err      string
	}{
		{name: "array with X, B/E, metadata", in: mustRead(t, "testdata/chrome_x.json"),
			want: []threadWant{
				{name: `worker "A"`, calls: "parent[10000,20000] .child[10500,12500]"},
				{name: "tid 8", calls: "loop[1000,4000] .step[2000,3000] tmpl<a&b>[6000,6000]", unmatched: 1, unclosed: 1},
			}},
		{name: "object form, quoted numbers, string tids", in: `{"displayTimeUnit":"ns","traceEvents":[
{"name":"a","ph":"B","pid":"1","tid":"main","ts":"1.0015"},
{"name":"a","ph":"E","pid":"1","tid":"main","ts":"2.25"}],"stackFrames":{"0":{"name":"a"}}}`,
			want: []threadWant{{name: "main", calls: "a[1002,2250]"}}},
		{name: "unsorted events", in: `[{"name":"b","ph":"X","tid":1,"ts":5,"dur":1},{"name":"a","ph":"X","tid":1,"ts":0,"dur":2}]`,
			want: []threadWant{{name: "tid 1", calls: "a[0,2000] b[5000,6000]"}}},
		{name: "partial overlap clamped", in: `[{"name":"a","ph":"X","tid":1,"ts":0,"dur":5},{"name":"b","ph":"X","tid":1,"ts":3,"dur":5}]`,
			want: []threadWant{{name: "tid 1", calls: "a[0,5000] .b[3000,5000]", overlaps: 1}}},
		{name: "unicode escapes", in: `[{"name":"\u003c/script\u003e\ud83d\ude00","ph":"X","tid":1,"ts":0,"dur":1}]`,
			want: []threadWant{{name: "tid 1", calls: "</script>😀[0,1000]"}}},
		{name: "empty array", in: "[]", want: nil},
		{name: "not json", in: "hello", err: "t.json:1: want a JSON array or object"},
		{name: "missing ts", in: "[\n{\"name\":\"a\",\"ph\":\"B\",\"tid\":1}\n]", err: "t.json:2: \"B\" event without ts"},
		{name: "bad ts", in: `[{"name":"a","ph":"B","tid":1,"ts":"soon"}]`, err: "t.json:1: ts \"soon\""},
		{name: "truncated", in: "[\n{\"name\":\"a\",\"ph\":\"B\"", err: "t.json:2: unexpected end of input"},
		{name: "trailing junk", in: "[] x", err: "t.json:1: unexpected 'x'"},
		{name: "X without dur", in: `[{"name":"a","ph":"X","tid":1,"ts":1}]`, err: "X event without dur"},
		{name: "no traceEvents", in: `{"a":1}`, err: "no traceEvents"},
		{name: "bad literal", in: `[{"name":"a","ph":"X","tid":1,"ts":1,"dur":nope}]`, err: "bad JSON value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := ReadChrome(strings.NewReader(tt.in), "t.json")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkTrace(t, tr, tt.want)
		})
	}
}

func TestChromeXRay(t *testing.T) {
	// A real `llvm-xray convert --output-format=trace_event` output
	// (trimmed): quoted microsecond timestamps, B/E events, stackFrames.
	tr, err := Open("testdata/xray.json", "")
	if err != nil {
		t.Fatal(err)
	}
	if tr.Format != "chrome" || len(tr.Threads) != 3 {
		t.Fatalf("format %s, %d threads", tr.Format, len(tr.Threads))
	}
	if err := tr.Check(); err != nil {
		t.Fatal(err)
	}
	for _, th := range tr.Threads[1:] {
		mids := 0
		for _, c := range th.Calls[1:] {
			switch f := tr.Funcs[c.Func]; {
			case f == "mid" && c.Depth == 1:
				mids++
			case f == "leaf" && c.Depth >= 1:
			default:
				t.Errorf("thread %s: unexpected %s at depth %d", th.Name, f, c.Depth)
			}
		}
		if tr.Funcs[th.Calls[0].Func] != "worker" || mids != 6 || th.Unmatched+th.Unclosed != 0 {
			t.Errorf("thread %s: %s", th.Name, flat(tr, th))
		}
	}
}

func TestMicros(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"1", 1000, true}, {"1.5", 1500, true}, {"1795381688432150.2500", 1795381688432150250, true},
		{"0.0004", 0, true}, {"0.0005", 1, true}, {"-2.5", -2500, true}, {"1e3", 1000000, true},
		{".5", 500, true}, {"", 0, false}, {"abc", 0, false}, {"1e300", 0, false}, {"99999999999999999999", 0, false},
	} {
		got, ok := micros([]byte(tt.in))
		if got != tt.want || ok != tt.ok {
			t.Errorf("micros(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func mustRead(t testing.TB, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
