package rank

import (
	"fmt"
	"path/filepath"
	"testing"
)

// TestWorkersAgree checks that the result does not depend on the number
// of workers (each variable's samples reach its sets in file order, the
// abnormal samples are counted in per-worker tables): the same for 1 to 4
// workers, with several runs of a kind, batches of many blocks and
// reservoirs (a small MaxDistinct).
func TestWorkersAgree(t *testing.T) {
	dir := t.TempDir()
	var normal, buggy []string
	for i := range 2 {
		n, b := filepath.Join(dir, fmt.Sprint("n", i)), filepath.Join(dir, fmt.Sprint("b", i))
		synth{funcs: 40, threads: 4, samples: 4000, seed: uint64(10 + i)}.write(t, n)
		synth{funcs: 40, threads: 4, samples: 4000, seed: uint64(20 + i), buggy: true}.write(t, b)
		normal, buggy = append(normal, n), append(buggy, b)
	}
	o := DefaultOptions()
	o.MaxDistinct = 64
	var want string
	for workers := 1; workers <= maxWorkers; workers++ {
		a := New(o)
		a.workers = workers
		a.ab = make([]abTable, workers)
		for i := range a.ab {
			a.ab[i].idx = map[abKey]int32{}
		}
		err := a.addFiles([]Kind{Normal, Normal, Buggy, Buggy}, append(append([]string(nil), normal...), buggy...), nil)
		if err != nil {
			t.Fatal(err)
		}
		got := fmt.Sprintf("%+v", *a.Result())
		if workers == 1 {
			want = got
			continue
		}
		if got != want {
			t.Errorf("%d workers: the result differs from one worker's", workers)
		}
	}
}
