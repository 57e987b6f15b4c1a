package sampler

import (
	"encoding/binary"

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
	calls  int // system calls made by the last run
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
	b.local, b.remote, b.ok = b.local[:0], b.remote[:0], b.ok[:0]
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
	return len(b.local) - 1, off
}

// run performs the queued reads; ok[i] says whether read i succeeded. A
// fault in read i costs one more call for the reads after it.
func (b *batch) run(pid int) {
	b.calls = 0
	i := 0
	for i < len(b.local) {
		b.calls++
		n, err := readv(pid, b.local[i:], b.remote[i:])
		if err != nil {
			if err == unix.EFAULT || err == unix.EIO {
				i++ // read i faults at its first byte
				continue
			}
			return // process gone (ESRCH) or not permitted: all fail
		}
		for i < len(b.local) && n >= int(b.remote[i].Len) {
			b.ok[i] = true
			n -= int(b.remote[i].Len)
			i++
		}
		if i < len(b.local) {
			i++ // read i faulted part-way
		}
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
