package sampler

import (
	"cmp"
	"encoding/binary"
	"slices"

	"golang.org/x/sys/unix"
)

// stackMem is the stack window of a stopped thread, copied once with
// process_vm_readv, with a direct read for the (rare) addresses outside it.
// It implements unwind.Memory without allocating.
type stackMem struct {
	pid    int
	base   uint64
	buf    []byte     // capacity: the largest window
	n      int        // valid bytes from base
	misses int        // reads outside the window (each one a system call)
	faults int        // reads that failed
	snap   *snapState // a perf sample's copy, read later (perfmem.go); nil: a stopped thread's
	// static answers a perf sample's reads of the program's static data
	// from the drain's copies of their pages (staticpages.go)
	static *staticPages
	one    [8]byte
	iov    [1]unix.Iovec
	riov   [1]unix.RemoteIovec
}

// fill copies [base, base+size) of pid's memory; a fault past the start
// (the end of the stack mapping) keeps what was read.
func (m *stackMem) fill(pid int, base uint64, size int) error {
	m.pid, m.base, m.n, m.misses, m.faults = pid, base, 0, 0, 0
	if size > cap(m.buf) {
		size = cap(m.buf)
	}
	m.buf = m.buf[:size]
	m.iov[0] = unix.Iovec{Base: &m.buf[0]}
	m.iov[0].SetLen(size)
	m.riov[0] = unix.RemoteIovec{Base: uintptr(base), Len: size}
	n, err := readv(pid, m.iov[:], m.riov[:])
	m.n = n
	return err
}

// contains reports whether [addr, addr+size) lies in the window.
func (m *stackMem) contains(addr uint64, size int) bool {
	return addr >= m.base && addr-m.base <= uint64(m.n) && uint64(size) <= uint64(m.n)-(addr-m.base)
}

// bytes returns the window's copy of [addr, addr+size), or nil.
func (m *stackMem) bytes(addr uint64, size int) []byte {
	if !m.contains(addr, size) {
		if m.snap != nil {
			return m.snapBytes(addr, size)
		}
		return nil
	}
	o := addr - m.base
	return m.buf[o : o+uint64(size)]
}

func (m *stackMem) Read(addr uint64, size int) (uint64, bool) {
	if size < 1 || size > 8 {
		return 0, false
	}
	if b := m.bytes(addr, size); b != nil {
		return leUint(b), true
	}
	if m.snap != nil {
		if m.snapRefuse(addr, size) {
			return 0, false
		}
		if v, readable, ok := m.static.read(m.pid, addr, size); ok {
			if !readable {
				m.faults++
			}
			return v, readable
		}
	} else {
		m.misses++
	}
	m.iov[0] = unix.Iovec{Base: &m.one[0]}
	m.iov[0].SetLen(size)
	m.riov[0] = unix.RemoteIovec{Base: uintptr(addr), Len: size}
	if n, err := readv(m.pid, m.iov[:], m.riov[:]); err != nil || n != size {
		m.faults++
		return 0, false
	}
	return leUint(m.one[:size]), true
}

func leUint(b []byte) uint64 {
	if len(b) == 8 {
		return binary.LittleEndian.Uint64(b)
	}
	var v uint64
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// batch gathers many small reads of one process into process_vm_readv
// calls (IOV_MAX iovecs each), into an arena of bytes.
type batch struct {
	arena  []byte
	used   int
	local  []unix.Iovec
	remote []unix.RemoteIovec
	ok     []bool
	off    []int // arena offset of each read
	calls  int   // system calls made by the last run

	// The reads of one page go to the kernel as one span (run).
	order  []int32 // reads by address
	spanOf []int32 // the span of each read
	spans  []span
	sLocal []unix.Iovec
	sRem   []unix.RemoteIovec
	sBuf   []byte
	live   []int32 // the span each iovec of sLocal, sRem reads

	// static, while the perf sampler drains its rings, answers reads of
	// the program's static data from one copy of their page per drain
	// (staticpages.go); nil otherwise.
	static *staticPages
}

// span is a range of one page holding one or more reads, and where its
// bytes land: in sBuf at off, or in a drain's copy of the page.
type span struct {
	lo   uint64
	off  int
	ok   bool
	page *staticPage // the page's copy (b.static), read whole by this batch if its state is 0
}

const iovMax = 1024

func newBatch(arena int) *batch {
	return &batch{
		arena:  make([]byte, arena),
		local:  make([]unix.Iovec, 0, iovMax),
		remote: make([]unix.RemoteIovec, 0, iovMax),
		ok:     make([]bool, 0, iovMax),
	}
}

func (b *batch) reset() {
	b.used = 0
	b.local, b.remote, b.ok, b.off = b.local[:0], b.remote[:0], b.ok[:0], b.off[:0]
}

// add queues a read of size bytes at addr and returns its slot and the
// arena offset of its bytes, or -1 when the batch is full.
func (b *batch) add(addr uint64, size int) (slot, off int) {
	if size <= 0 || b.used+size > len(b.arena) || len(b.local) == cap(b.local) {
		return -1, 0
	}
	off = b.used
	b.used += size
	v := unix.Iovec{Base: &b.arena[off]}
	v.SetLen(size)
	b.local = append(b.local, v)
	b.remote = append(b.remote, unix.RemoteIovec{Base: uintptr(addr), Len: size})
	b.ok = append(b.ok, false)
	b.off = append(b.off, off)
	return len(b.local) - 1, off
}

// run performs the queued reads; ok[i] says whether read i succeeded.
// The reads of one page are made as one span: the kernel takes the memory
// lock, looks up the mapping and pins the pages once per remote iovec, and
// most reads of a sample fall in a few pages (a struct's fields, a
// frame's slots: 14 reads in one page per sample on the server-shaped
// bench, whose values cost 8 µs a sample). A page is readable whole or not
// at all, so each read succeeds or fails as it would alone; a read across
// a page boundary stays a span of its own. A fault in a span costs one
// more call for the spans after it.
func (b *batch) run(pid int) {
	b.calls = 0
	if len(b.remote) == 0 {
		return
	}
	b.coalesce(pid)
	i := 0
	for i < len(b.sLocal) {
		b.calls++
		n, err := readv(pid, b.sLocal[i:], b.sRem[i:])
		if err != nil {
			if err == unix.EFAULT || err == unix.EIO {
				i++ // span i faults at its first byte
				continue
			}
			break // process gone (ESRCH) or not permitted: all fail
		}
		for i < len(b.sLocal) && n >= int(b.sRem[i].Len) {
			b.spans[b.live[i]].ok = true
			n -= int(b.sRem[i].Len)
			i++
		}
		if i < len(b.sLocal) {
			i++ // span i faulted part-way
		}
	}
	for _, si := range b.live {
		// Pages copied by this batch: known now, for the next reads.
		if sp := &b.spans[si]; sp.page != nil {
			sp.page.state = -1
			if sp.ok {
				sp.page.state = 1
			}
			b.static.copied++
		}
	}
	for k := range b.remote {
		sp := &b.spans[b.spanOf[k]]
		if !sp.ok {
			continue
		}
		var src []byte
		if sp.page != nil {
			src = sp.page.bytes(uint64(b.remote[k].Base), b.remote[k].Len)
		} else {
			src = b.sBuf[sp.off+int(uint64(b.remote[k].Base)-sp.lo):]
		}
		copy(b.arena[b.off[k]:b.off[k]+b.remote[k].Len], src)
		b.ok[k] = true
	}
}

// coalesce groups the queued reads of process pid into spans, one per
// page read (a read that crosses a page boundary is a span of its own),
// and lists in sLocal, sRem the reads to make: the spans, but for those
// a drain's copy of their page answers (b.static), whose page is read
// whole instead when it has not been copied yet.
func (b *batch) coalesce(pid int) {
	n := len(b.remote)
	b.order = b.order[:0]
	for k := 0; k < n; k++ {
		b.order = append(b.order, int32(k))
	}
	base := func(k int32) uintptr { return b.remote[k].Base }
	if n <= 64 {
		for i := 1; i < n; i++ { // insertion sort: a sample's few reads
			for j := i; j > 0 && base(b.order[j]) < base(b.order[j-1]); j-- {
				b.order[j], b.order[j-1] = b.order[j-1], b.order[j]
			}
		}
	} else {
		slices.SortFunc(b.order, func(x, y int32) int { return cmp.Compare(base(x), base(y)) })
	}
	if cap(b.spanOf) < n {
		b.spanOf = make([]int32, n)
	}
	b.spanOf = b.spanOf[:n]
	b.spans, b.sLocal, b.sRem, b.live = b.spans[:0], b.sLocal[:0], b.sRem[:0], b.live[:0]
	const page = 4096
	used := 0
	for k := 0; k < n; {
		r := b.remote[b.order[k]]
		lo, hi := uint64(r.Base), uint64(r.Base)+uint64(r.Len)
		j := k + 1
		if (hi-1)/page == lo/page {
			for j < n {
				q := b.remote[b.order[j]]
				qlo, qhi := uint64(q.Base), uint64(q.Base)+uint64(q.Len)
				if qlo/page != lo/page || (qhi-1)/page != lo/page {
					break
				}
				hi = max(hi, qhi)
				j++
			}
		}
		for m := k; m < j; m++ {
			b.spanOf[b.order[m]] = int32(len(b.spans))
		}
		if e := b.static.page(pid, lo, int(hi-lo)); e != nil {
			if e.state != 0 {
				b.static.answered++
			} else {
				b.live = append(b.live, int32(len(b.spans)))
				b.sRem = append(b.sRem, unix.RemoteIovec{Base: uintptr(e.addr), Len: staticPageSize})
			}
			b.spans = append(b.spans, span{lo: lo, ok: e.state > 0, page: e})
			k = j
			continue
		}
		size := int(hi - lo)
		if used+size > len(b.sBuf) {
			// Grown for the largest batch met; its spans are re-pointed
			// below.
			nb := make([]byte, max(2*len(b.sBuf), used+size, 16<<10))
			copy(nb, b.sBuf[:used])
			b.sBuf = nb
		}
		b.live = append(b.live, int32(len(b.spans)))
		b.spans = append(b.spans, span{lo: lo, off: used})
		b.sRem = append(b.sRem, unix.RemoteIovec{Base: uintptr(lo), Len: size})
		used += size
		k = j
	}
	for i, si := range b.live {
		sp := &b.spans[si]
		var v unix.Iovec
		if sp.page != nil {
			v.Base = &sp.page.buf[0]
		} else {
			v.Base = &b.sBuf[sp.off]
		}
		v.SetLen(int(b.sRem[i].Len))
		b.sLocal = append(b.sLocal, v)
	}
}

// alloc reserves size arena bytes for a value known without a read.
func (b *batch) alloc(size int) (off int, ok bool) {
	if size <= 0 || b.used+size > len(b.arena) {
		return 0, false
	}
	off = b.used
	b.used += size
	return off, true
}

// bytesOf returns the arena bytes of a read.
func (b *batch) bytesOf(off, size int) []byte { return b.arena[off : off+size] }
