package sampler

import (
	"debug/elf"
	"encoding/binary"
	"os"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

func TestWritableRange(t *testing.T) {
	load := func(flags elf.ProgFlag, vaddr, memsz uint64) elf.ProgHeader {
		return elf.ProgHeader{Type: elf.PT_LOAD, Flags: flags, Vaddr: vaddr, Memsz: memsz}
	}
	tests := []struct {
		name   string
		progs  []elf.ProgHeader
		bias   uint64
		lo, hi uint64
	}{
		{"none", nil, 0, 0, 0},
		{"read-only and code only", []elf.ProgHeader{load(elf.PF_R, 0, 0x1000), load(elf.PF_R|elf.PF_X, 0x1000, 0x2000)}, 0x5000, 0, 0},
		{"data and bss, page-rounded, biased", []elf.ProgHeader{
			load(elf.PF_R|elf.PF_X, 0x1000, 0x1000),
			load(elf.PF_R|elf.PF_W, 0x3db8, 0x268+0x8000), // .data then .bss
		}, 0x55550000, 0x55553000, 0x5555d000},
		{"two writable segments", []elf.ProgHeader{load(elf.PF_R|elf.PF_W, 0x2000, 0x10), load(elf.PF_W, 0x9000, 0x10)}, 0, 0x2000, 0xa000},
		{"empty writable segment", []elf.ProgHeader{load(elf.PF_R|elf.PF_W, 0x2000, 0)}, 0, 0, 0},
		{"not a load", []elf.ProgHeader{{Type: elf.PT_GNU_RELRO, Flags: elf.PF_R | elf.PF_W, Vaddr: 0x2000, Memsz: 0x100}}, 0, 0, 0},
	}
	for _, tc := range tests {
		lo, hi := writableRange(tc.progs, tc.bias)
		if lo != tc.lo || hi != tc.hi {
			t.Errorf("%s: [%#x, %#x), want [%#x, %#x)", tc.name, lo, hi, tc.lo, tc.hi)
		}
	}
}

// staticMem maps pages of this process outside Go's heap (the reads go
// through process_vm_readv by address): three pages of "static data",
// the second one unreadable, and one page outside the writable range.
func staticMem(t *testing.T) (mem []byte, base uint64) {
	t.Helper()
	mem, err := unix.Mmap(-1, 0, 4*staticPageSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Munmap(mem) })
	if err := unix.Mprotect(mem[staticPageSize:2*staticPageSize], unix.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	return mem, uint64(uintptr(unsafe.Pointer(&mem[0])))
}

func TestStaticPagesBatch(t *testing.T) {
	mem, base := staticMem(t)
	put := func(page, off int, v uint64) {
		binary.LittleEndian.PutUint64(mem[page*staticPageSize+off:], v)
	}
	at := func(page, off int) uint64 { return base + uint64(page*staticPageSize+off) }
	put(0, 16, 1)
	put(0, 600, 2)
	put(2, 8, 3)
	put(3, 32, 4)
	pid := os.Getpid()
	c := &staticPages{}
	c.begin()
	c.pid, c.gen, c.lo, c.hi = pid, 0, base, base+3*staticPageSize // the fourth page is not static data
	b := newBatch(1 << 12)
	b.static = c
	type read struct {
		page, off int
		want      uint64
		ok        bool
	}
	check := func(step string, reads []read, calls int) {
		t.Helper()
		b.reset()
		slots := make([]int, len(reads))
		offs := make([]int, len(reads))
		for i, r := range reads {
			slots[i], offs[i] = b.add(at(r.page, r.off), 8)
		}
		b.run(pid)
		for i, r := range reads {
			got := binary.LittleEndian.Uint64(b.bytesOf(offs[i], 8))
			if b.ok[slots[i]] != r.ok || r.ok && got != r.want {
				t.Errorf("%s: read %d (page %d + %d): %d ok %v, want %d ok %v", step, i, r.page, r.off, got, b.ok[slots[i]], r.want, r.ok)
			}
		}
		if b.calls != calls {
			t.Errorf("%s: %d system calls, want %d", step, b.calls, calls)
		}
	}
	// The first reads of the drain copy pages 0 and 2 whole, in the same
	// call as the read of page 3 (not static data: read as it is); page 1
	// faults, in a call of its own, as it would alone.
	check("first", []read{{0, 16, 1, true}, {0, 600, 2, true}, {1, 0, 0, false}, {2, 8, 3, true}, {3, 32, 4, true}}, 2)
	if c.n != 3 || c.copied != 3 {
		t.Errorf("pages held %d, copied %d; want 3, 3", c.n, c.copied)
	}
	// The program writes; later reads of the drain see the copies, the
	// faulted page still faults, and page 3 is read live.
	put(0, 16, 10)
	put(2, 8, 30)
	put(3, 32, 40)
	check("same drain", []read{{0, 16, 1, true}, {2, 8, 3, true}, {1, 8, 0, false}, {3, 32, 40, true}}, 1)
	if c.answered != 3 {
		t.Errorf("answered %d reads from the copies, want 3", c.answered)
	}
	// The next drain copies again.
	c.begin()
	check("next drain", []read{{0, 16, 10, true}, {2, 8, 30, true}}, 1)
	// Outside a drain nothing is kept.
	c.end()
	put(0, 16, 100)
	check("outside", []read{{0, 16, 100, true}}, 1)
	// A read across a page boundary is read as it is.
	c.begin()
	check("across", []read{{2, staticPageSize - 4, binary.LittleEndian.Uint64(mem[3*staticPageSize-4:]), true}}, 1)
	if c.n != 0 {
		t.Errorf("a read across pages was copied: %d pages held", c.n)
	}
	// Past maxStaticPages, reads are made as before.
	c.begin()
	c.n = maxStaticPages
	check("full", []read{{0, 16, 100, true}}, 1)
}

func TestStaticPagesStackMem(t *testing.T) {
	mem, base := staticMem(t)
	binary.LittleEndian.PutUint64(mem[24:], 7)
	pid := os.Getpid()
	c := &staticPages{}
	c.begin()
	c.pid, c.lo, c.hi = pid, base, base+3*staticPageSize
	// A perf sample's snapshot of a stack far from these pages.
	stack, err := unix.Mmap(-1, 0, 1<<20, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(stack)
	sp := uint64(uintptr(unsafe.Pointer(&stack[1<<19])))
	var m stackMem
	var s snapState
	m.snapshot(pid, sp, append([]byte(nil), stack[1<<19:1<<19+256]...), true, &s)
	m.static = c
	if v, ok := m.Read(base+24, 4); !ok || v != 7 || c.copied != 1 {
		t.Fatalf("first read: %d %v, %d pages copied", v, ok, c.copied)
	}
	binary.LittleEndian.PutUint64(mem[24:], 8)
	if v, ok := m.Read(base+24, 8); !ok || v != 7 || c.answered != 1 {
		t.Errorf("read from the copy: %d %v, %d answered", v, ok, c.answered)
	}
	if _, ok := m.Read(base+staticPageSize+8, 8); ok || m.faults != 1 {
		t.Errorf("unreadable page: ok %v, faults %d", ok, m.faults)
	}
	if _, ok := m.Read(base+staticPageSize+16, 8); ok || m.faults != 2 {
		t.Errorf("unreadable page again: ok %v, faults %d", ok, m.faults)
	}
	c.end()
	if v, ok := m.Read(base+24, 8); !ok || v != 8 {
		t.Errorf("outside a drain: %d %v, want the live 8", v, ok)
	}
}
