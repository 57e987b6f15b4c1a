package dwarfschema

import (
	"bytes"
	"debug/elf"
	"os"
	"syscall"
	"testing"
	"unsafe"
)

// resident returns, per page of b (page-aligned), whether it is in memory.
func resident(t *testing.T, b []byte) []bool {
	t.Helper()
	vec := make([]byte, (len(b)+pageSize-1)/pageSize)
	if _, _, e := syscall.Syscall(syscall.SYS_MINCORE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
		t.Fatalf("mincore: %v", e)
	}
	out := make([]bool, len(vec))
	for i, v := range vec {
		out[i] = v&1 != 0
	}
	return out
}

// TestPopulate: populate makes the whole pages under a large slice
// resident (on fresh anonymous memory, where nothing is until written),
// touches no page it only shares, leaves small slices to fault in, and
// never changes contents.
func TestPopulate(t *testing.T) {
	const pages = 64
	tests := []struct {
		name       string
		from, to   int // byte range of the mapping given to populate
		wantPages  [2]int
		populating bool
	}{
		{"whole mapping", 0, pages * 4096, [2]int{0, pages}, true},
		{"unaligned ends: shared pages untouched", 8, (pages-1)*4096 + 16, [2]int{1, pages - 1}, true},
		{"below populateMin", 0, populateMin - 4096, [2]int{}, false},
		{"empty", 0, 0, [2]int{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if pageSize != 4096 {
				t.Skipf("page size %d", pageSize)
			}
			m, err := syscall.Mmap(-1, 0, pages*4096, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
			if err != nil {
				t.Fatal(err)
			}
			defer syscall.Munmap(m)
			if r := resident(t, m); r[0] || r[pages-1] {
				t.Fatalf("fresh mapping already resident: %v", r)
			}
			words := unsafe.Slice((*uint64)(unsafe.Pointer(&m[tc.from])), (tc.to-tc.from)/8)
			populate(words)
			r := resident(t, m)
			for p, in := range r {
				want := tc.populating && p >= tc.wantPages[0] && p < tc.wantPages[1]
				if in != want {
					t.Errorf("page %d resident %v, want %v", p, in, want)
				}
			}
		})
	}
	// Contents are kept, with pointers or without.
	nums := make([]int64, 100000)
	strs := make([]string, 20000)
	for i := range nums {
		nums[i] = int64(i) * 7
	}
	for i := range strs {
		strs[i] = string(rune('a' + i%26))
	}
	populate(nums)
	populate(strs)
	for i := range nums {
		if nums[i] != int64(i)*7 {
			t.Fatalf("nums[%d] = %d after populate", i, nums[i])
		}
	}
	for i := range strs {
		if strs[i] != string(rune('a'+i%26)) {
			t.Fatalf("strs[%d] = %q after populate", i, strs[i])
		}
	}
}

// TestSectionDataSame: sectionData reads every section of a binary as
// Data does (the test binary itself: code, data, DWARF; NOBITS sections
// fail alike).
func TestSectionDataSame(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	ef, err := elf.Open(exe)
	if err != nil {
		t.Skip(err)
	}
	defer ef.Close()
	for _, sec := range ef.Sections {
		want, werr := sec.Data()
		got, gerr := sectionData(sec)
		if (werr == nil) != (gerr == nil) || !bytes.Equal(got, want) {
			t.Errorf("section %s: sectionData %d bytes, err %v; Data %d bytes, err %v", sec.Name, len(got), gerr, len(want), werr)
		}
	}
}
