package sampler

import (
	"debug/elf"

	"golang.org/x/sys/unix"
)

// The perf sampler reads a sample's globals and static locals when it
// drains the rings, not at the tick (docs/sampler.md): the memory is the
// same for every sample of one drain, as readGlobals already assumes for
// the globals read everywhere. Yet each sample read its own share of the
// program's static data again: the globals its functions read (placed at
// their PCs by the schema) in its batch, and the static words its location
// expressions dereference one by one, a process_vm_readv each, in the
// same page or two (1.4 calls a sample on the server-shaped bench, one
// of them that page). So while the rings are drained, a read that falls
// in one page of the program's writable segments (.data, .bss) copies that
// whole page once, in the read that needs it, and every later read of the
// page in the same drain is answered from the copy. A page either reads
// whole or faults whole, so a read answered from the copy succeeds or
// fails as it would have alone. Outside drains (ticks, the ptrace
// sampler) nothing is kept.

// staticPageSize is the unit of the copies (the x86-64 page).
const staticPageSize = 4096

// maxStaticPages bounds the pages copied in one drain; reads of further
// pages are made as before.
const maxStaticPages = 16

// staticPages holds the copies of one drain.
type staticPages struct {
	active bool
	// the process whose sample is being read, and the range of its
	// program's writable segments, page-rounded: [lo, hi)
	pid    int
	gen    int // the process's mapsGen when lo, hi were computed (-1: none)
	lo, hi uint64
	n      int // pages in use
	pages  []staticPage
	// counts (StepStats.StaticPages, StaticReads)
	copied, answered uint64
}

// staticPage is one page's copy: state 0 while the read that copies it
// is queued, 1 copied, -1 faulted.
type staticPage struct {
	pid   int
	addr  uint64
	state int8
	buf   []byte
}

// begin starts a drain: no page is copied yet.
func (c *staticPages) begin() {
	c.active, c.n, c.pid = true, 0, 0
}

// end ends the drain.
func (c *staticPages) end() { c.active = false }

// use sets the process whose samples are read next: the range of its
// program's writable segments, at its load bias (none when unknown).
func (c *staticPages) use(p *process) {
	if c.pid == p.pid && c.gen == p.mapsGen {
		return
	}
	c.pid, c.gen, c.lo, c.hi = p.pid, p.mapsGen, 0, 0
	o := p.main
	if o == nil {
		return
	}
	bias, ok := p.bias(o)
	if !ok {
		return
	}
	c.lo, c.hi = writableRange(o.progs, bias)
}

// writableRange is the page-rounded range of the writable PT_LOAD
// segments at load bias (0, 0: none).
func writableRange(progs []elf.ProgHeader, bias uint64) (lo, hi uint64) {
	for _, ph := range progs {
		if ph.Type != elf.PT_LOAD || ph.Flags&elf.PF_W == 0 || ph.Memsz == 0 {
			continue
		}
		a, b := ph.Vaddr+bias, ph.Vaddr+bias+ph.Memsz
		if lo == hi {
			lo, hi = a, b
			continue
		}
		lo, hi = min(lo, a), max(hi, b)
	}
	if lo == hi {
		return 0, 0
	}
	return lo &^ (staticPageSize - 1), (hi + staticPageSize - 1) &^ (staticPageSize - 1)
}

// page returns the copy of the page that holds [addr, addr+size) of
// process pid, or one to be copied (state 0, the caller reads it), or nil
// where the read is not one to answer from a copy: outside a drain, of
// another process, across a page boundary, outside the writable segments,
// or past maxStaticPages.
func (c *staticPages) page(pid int, addr uint64, size int) *staticPage {
	if c == nil || !c.active || pid != c.pid || size <= 0 {
		return nil
	}
	pg := addr &^ (staticPageSize - 1)
	if addr < c.lo || addr >= c.hi || (addr+uint64(size)-1)&^(staticPageSize-1) != pg {
		return nil
	}
	for i := 0; i < c.n; i++ {
		if e := &c.pages[i]; e.pid == pid && e.addr == pg {
			return e
		}
	}
	if c.n == maxStaticPages {
		return nil
	}
	if c.pages == nil {
		c.pages = make([]staticPage, maxStaticPages)
		buf := make([]byte, maxStaticPages*staticPageSize)
		for i := range c.pages {
			c.pages[i].buf = buf[i*staticPageSize : (i+1)*staticPageSize : (i+1)*staticPageSize]
		}
	}
	e := &c.pages[c.n]
	c.n++
	e.pid, e.addr, e.state = pid, pg, 0
	return e
}

// bytes returns the copy of [addr, addr+size) in page e (copied).
func (e *staticPage) bytes(addr uint64, size int) []byte {
	o := addr - e.addr
	return e.buf[o : o+uint64(size)]
}

// copyPage reads page e with one system call.
func (c *staticPages) copyPage(e *staticPage) {
	var iov [1]unix.Iovec
	var riov [1]unix.RemoteIovec
	iov[0] = unix.Iovec{Base: &e.buf[0]}
	iov[0].SetLen(staticPageSize)
	riov[0] = unix.RemoteIovec{Base: uintptr(e.addr), Len: staticPageSize}
	e.state = -1
	if n, err := readv(e.pid, iov[:], riov[:]); err == nil && n == staticPageSize {
		e.state = 1
	}
	c.copied++
}

// read answers a read of size bytes at addr of process pid from a page's
// copy, copying the page first if this drain has not: ok false where the
// read is not one for the copies (page says which), else the value and
// whether the page could be read.
func (c *staticPages) read(pid int, addr uint64, size int) (v uint64, readable, ok bool) {
	e := c.page(pid, addr, size)
	if e == nil {
		return 0, false, false
	}
	if e.state == 0 {
		c.copyPage(e)
	} else {
		c.answered++
	}
	if e.state < 0 {
		return 0, false, true
	}
	return leUint(e.bytes(addr, size)), true, true
}
