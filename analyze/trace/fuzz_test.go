package trace

import (
	"bytes"
	"os"
	"path/filepath"
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
