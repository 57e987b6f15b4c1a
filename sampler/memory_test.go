package sampler

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestBatchSpans reads this process's own memory through a batch: reads
// grouped into one span per page must succeed or fail each as it would
// alone, and land their own bytes, whatever the order they were queued in.
func TestBatchSpans(t *testing.T) {
	page := os.Getpagesize()
	// Three pages: readable, unreadable (PROT_NONE), readable.
	mem, err := unix.Mmap(-1, 0, 3*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(mem)
	for i := range mem {
		mem[i] = byte(i*7 + i/page)
	}
	if err := unix.Mprotect(mem[page:2*page], unix.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	base := uint64(uintptr(unsafe.Pointer(&mem[0])))
	type read struct {
		off, size int
		ok        bool
	}
	tests := []struct {
		name  string
		reads []read
	}{
		{"one page, out of order", []read{{96, 8, true}, {8, 8, true}, {40, 4, true}, {8, 16, true}, {page - 8, 8, true}}},
		{"overlapping and repeated", []read{{100, 8, true}, {104, 8, true}, {100, 8, true}}},
		{"unreadable page", []read{{page + 16, 8, false}, {16, 8, true}, {page + 40, 4, false}, {2*page + 8, 8, true}}},
		{"across into the unreadable page", []read{{page - 4, 8, false}, {page - 16, 8, true}, {2*page + 100, 8, true}}},
		{"across out of it", []read{{2*page - 4, 8, false}, {2*page + 4, 8, true}}},
		{"pages interleaved", []read{{2*page + 8, 8, true}, {8, 8, true}, {2*page + 16, 8, true}, {16, 8, true}, {page + 8, 8, false}}},
	}
	pid := os.Getpid()
	b := newBatch(1 << 10)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b.reset()
			slots := make([]int, len(tc.reads))
			offs := make([]int, len(tc.reads))
			for i, r := range tc.reads {
				slots[i], offs[i] = b.add(base+uint64(r.off), r.size)
				if slots[i] < 0 {
					t.Fatalf("read %d: batch full", i)
				}
			}
			b.run(pid)
			for i, r := range tc.reads {
				if b.ok[slots[i]] != r.ok {
					t.Errorf("read %d (%d bytes at %d): ok %v, want %v", i, r.size, r.off, b.ok[slots[i]], r.ok)
					continue
				}
				if r.ok {
					if got, want := b.bytesOf(offs[i], r.size), mem[r.off:r.off+r.size]; !bytes.Equal(got, want) {
						t.Errorf("read %d (%d bytes at %d): % x, want % x", i, r.size, r.off, got, want)
					}
				}
			}
			if b.calls > 2 {
				t.Errorf("%d calls for %d reads in at most 2 readable pages", b.calls, len(tc.reads))
			}
		})
	}
}

// TestGrowFDTable: the descriptor table holds 64 threads' perf events
// afterwards (FDSize in /proc/self/status), unless the limit is lower.
func TestGrowFDTable(t *testing.T) {
	growFDTable()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip(err)
	}
	var size int
	for _, l := range bytes.Split(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(l, []byte("FDSize:")); ok {
			fmt.Sscan(string(v), &size)
		}
	}
	want := fdThreads*(runtime.NumCPU()+fdsPerThread) + runtime.NumCPU() + 64
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &lim) == nil && uint64(want) > lim.Cur {
		want = int(lim.Cur)
	}
	if size < want {
		t.Errorf("FDSize %d after growFDTable, want at least %d", size, want)
	}
}
