package trace

import (
	"bytes"
	"fmt"
	"testing"
)

// genDINAMITE writes n calls on one thread: loops of a three-level
// callstack, the shape of a busy server thread.
func genDINAMITE(n int) []byte {
	var b bytes.Buffer
	t := int64(1_000_000)
	names := []string{"wt_btcur_search", "config_check", "config_next", "std::vector<int>::push_back(int const&)"}
	b.WriteString("1 main 0 0\n")
	calls := 1
	for calls < n {
		fmt.Fprintf(&b, "1 %s 0 %d\n", names[0], t)
		for k := 1; k < 4 && calls+k < n; k++ {
			fmt.Fprintf(&b, "1 %s 0 %d\n1 %s 1 %d\n", names[k], t+int64(k)*10, names[k], t+int64(k)*10+5)
			calls++
		}
		t += 100
		fmt.Fprintf(&b, "1 %s 1 %d\n", names[0], t)
		calls++
		t += 3
	}
	fmt.Fprintf(&b, "1 main 1 %d\n", t)
	return b.Bytes()
}

func BenchmarkDINAMITE(b *testing.B) {
	in := genDINAMITE(1_000_000)
	b.SetBytes(int64(len(in)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tr, err := ReadDINAMITE(bytes.NewReader(in), "bench")
		if err != nil || tr.Calls() < 1_000_000 {
			b.Fatal(err, tr.Calls())
		}
	}
	b.ReportMetric(float64(b.N)*1e6/b.Elapsed().Seconds(), "calls/s")
}

func BenchmarkChrome(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString(`{"traceEvents":[`)
	t := 0.0
	const n = 200_000
	for i := 0; i < n; i++ {
		if i > 0 {
			buf.WriteByte(',')
		}
		fmt.Fprintf(&buf, "\n{ \"name\" : \"f%d\", \"ph\" : \"B\", \"tid\" : \"7\", \"pid\" : \"7\", \"ts\" : \"%.4f\", \"sf\" : \"2\" },", i%7, t)
		fmt.Fprintf(&buf, "\n{ \"name\" : \"f%d\", \"ph\" : \"E\", \"tid\" : \"7\", \"pid\" : \"7\", \"ts\" : \"%.4f\", \"sf\" : \"2\" }", i%7, t+1.25)
		t += 2
	}
	buf.WriteString("]}")
	in := buf.Bytes()
	b.SetBytes(int64(len(in)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tr, err := ReadChrome(bytes.NewReader(in), "bench")
		if err != nil || tr.Calls() != n {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*n/b.Elapsed().Seconds(), "calls/s")
}
