package timeline

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/vprof/vprof/analyze/regtime"
	"github.com/vprof/vprof/analyze/trace"
)

func dinamitePage(t testing.TB, in string) *Page {
	tr, err := trace.ReadDINAMITE(strings.NewReader(in), "t.txt")
	if err != nil {
		t.Fatal(err)
	}
	p := regtime.Params{CDT: 0.5, CGT: 0.5, TTFT: 1}
	return &Page{Title: "t <&> title", Runs: []*Run{{Label: "buggy", Trace: tr, Summaries: regtime.All(tr, p)}}, Params: p}
}

func TestWriteEscapes(t *testing.T) {
	p := dinamitePage(t, "1 main 0 0\n1 </script><script>alert(1)</script> 0 1\n1 </script><script>alert(1)</script> 1 2\n1 a&b<T> 0 3\n1 a&b<T> 1 4\n1 main 1 10\n")
	var b bytes.Buffer
	if err := Write(&b, p); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	if n := strings.Count(html, "</script>"); n != 2 {
		t.Errorf("%d </script> in the page, want 2 (the data block's and the code's)", n)
	}
	if strings.Contains(html, "alert(1)</") || strings.Contains(html, "<T>") {
		t.Error("a name reached the page unescaped")
	}
	if !strings.Contains(html, "<title>t &lt;&amp;&gt; title</title>") {
		t.Error("title not escaped")
	}
	for _, bad := range []string{"http://", "https://", "src=", "href="} {
		if strings.Contains(html, bad) {
			t.Errorf("page refers to something outside it: %q", bad)
		}
	}
	// The data block is JSON that names every function verbatim.
	i := strings.Index(html, `id="data">`) + len(`id="data">`)
	j := strings.Index(html[i:], "</script>")
	var d jsonPage
	if err := json.Unmarshal([]byte(html[i:i+j]), &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Funcs) != 3 || d.Funcs[1] != "</script><script>alert(1)</script>" || d.Funcs[2] != "a&b<T>" {
		t.Errorf("funcs %q", d.Funcs)
	}
}

func TestData(t *testing.T) {
	// Figure 4.2's sequence under main: one plain call and one expression.
	p := dinamitePage(t, "7 main 0 100\n7 A 0 100\n7 A 1 101\n7 P 0 101\n7 Y 0 101\n7 Y 1 102\n7 P 1 102\n7 A 0 102\n7 A 1 103\n7 main 1 120\n")
	p.Marks = []Mark{{Func: "P", Rank: 1, Note: "top"}, {Func: "absent", Rank: 2}}
	d, err := p.data()
	if err != nil {
		t.Fatal(err)
	}
	th := d.Runs[0].Threads[0]
	// main [0,20] plain; expression [0,3] at depth 1 with A=2, P=1, .Y=1.
	want := []int64{0, 20, 0, 0, 0, 0, 3, 1, -1, 3, 1, 0, 2, 2, 0, 1, 3, 1, 1}
	if len(th.E) != len(want) {
		t.Fatalf("entries %v, want %v", th.E, want)
	}
	for i := range want {
		if th.E[i] != want[i] {
			t.Fatalf("entries %v, want %v", th.E, want)
		}
	}
	if d.Runs[0].Span != 20 || th.Before != 5 || th.After != 4 || len(d.Marks) != 1 || d.Funcs[d.Marks[0].F] != "P" {
		t.Errorf("span %d before %d after %d marks %+v", d.Runs[0].Span, th.Before, th.After, d.Marks)
	}
}
