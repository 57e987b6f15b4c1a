package sampler

import (
	"bytes"

	"golang.org/x/sys/unix"
)

// A perf sample's stack window is a copy the kernel made at the tick, from
// the SP up; vprof reads it a few milliseconds later, while the thread has
// run on. So reads are answered from the copy where it has them, and where
// it does not:
//   - the red zone (the 128 bytes below the SP, where leaf functions keep
//     locals; the kernel does not copy it) is read from the live stack,
//     and used only if the 64 bytes above the SP still match the copy: the
//     sampled frame is still there (or the same call made again), so the
//     value is that variable's, a few milliseconds later, as for globals;
//   - past a copy the kernel cut short (it cannot fault pages in at the
//     tick, so it stops at a stack page never touched, as in the unused
//     tail of a large local buffer), the frames above are read live, if
//     the copy's last 64 bytes still match the live stack: the frame that
//     holds them is still there, and so are its callers. Those bytes are
//     often the frame's own locals, though: where the hole's page begins
//     right after the written start of a buffer that changes at each
//     iteration (a line read, a word parsed), they no longer match a few
//     milliseconds later, and the frames above were lost on most samples
//     of such a run (the stack's random offset decides where the pages
//     begin: 1 run in 18 of vhost_lookup, half its stacks cut at
//     ap_process_config). So the hole is also read once (faultIn): a read
//     of an untouched page maps the shared zero page, no memory of the
//     program's, and the kernel's next copies go past it whole;
//   - past a full window (a stack deeper than the thread's window), the
//     same: the frames above are read live while the copy's last 64 bytes
//     still match the live stack, else not at all (they may be gone). Such
//     a read counts as a window miss, which grows the thread's window
//     (perfRefit). Before, they were never read: every sample between a
//     deeper call and the re-opened events lost its outer frames (D295);
//   - anything else (heap, globals, deeper stack) is read live.

// rzCheck is how much of the copy above the SP must match the live stack
// for the red zone to be used.
const rzCheck = 64

// snapState is the extra state of a stackMem holding a perf sample's copy.
type snapState struct {
	full   bool // the window was copied whole (the stack goes on past it)
	live   int  // reads past a copy cut short, made live
	tailOK int8 // 0: not checked yet, 1: the copy's end matches the live stack, -1: it does not
	tail   [rzCheck]byte
	rz     [redZone + rzCheck]byte
	rzOK   int8 // 0: red zone not read yet, 1: read and the frame is intact, -1: unusable
	iov    [1]unix.Iovec
	riov   [1]unix.RemoteIovec
	// Reads past a copy cut short that were refused (its end changed
	// since the tick) in this sample, and the hole reads made (faultIn).
	refused, faultIns int
	// faulted is the end of what faultIn read in this sample (0: none);
	// lastCut, when set, is the thread's last copy end that faultIn read
	// past (perfThread.faultedCut): a copy cut again at the same address
	// was not helped (the end of the mapping), so it is not read again.
	faulted uint64
	lastCut *uint64
	hole    []byte
}

// snapshot points m at a perf sample's stack copy of process pid, taken
// at sp (no copy: stack aliases the ring buffer until the drain ends).
func (m *stackMem) snapshot(pid int, sp uint64, stack []byte, full bool, s *snapState) {
	m.pid, m.base, m.buf, m.n, m.misses, m.faults = pid, sp, stack, len(stack), 0, 0
	s.full, s.rzOK, s.tailOK = full, 0, 0
	s.live, s.refused, s.faulted, s.lastCut = 0, 0, 0, nil
	m.snap = s
}

// snapBytes returns the bytes of [addr, addr+size) that a snapshot can
// answer outside its window: those of an intact red zone.
func (m *stackMem) snapBytes(addr uint64, size int) []byte {
	s := m.snap
	lo := m.base - redZone
	if addr < lo || addr > m.base || uint64(size) > m.base-addr || m.base < redZone {
		return nil
	}
	if !m.snapIntact() {
		return nil
	}
	o := addr - lo
	return s.rz[o : o+uint64(size)]
}

// snapTailIntact reports whether the last bytes of a copy cut short still
// match the live stack (once per sample): the frames above them are then
// the sampled ones.
func (m *stackMem) snapTailIntact() bool {
	s := m.snap
	if s.tailOK == 0 {
		s.tailOK = -1
		if k := min(m.n, rzCheck); k > 0 {
			at := m.base + uint64(m.n-k)
			s.iov[0] = unix.Iovec{Base: &s.tail[0]}
			s.iov[0].SetLen(k)
			s.riov[0] = unix.RemoteIovec{Base: uintptr(at), Len: k}
			if n, err := readv(m.pid, s.iov[:], s.riov[:]); err == nil && n == k && bytes.Equal(s.tail[:k], m.buf[m.n-k:m.n]) {
				s.tailOK = 1
			}
		}
	}
	return s.tailOK > 0
}

// snapIntact reports whether the sampled frame is still on the live stack:
// the 64 bytes above the SP match the copy. It reads the red zone with
// them, once per sample.
func (m *stackMem) snapIntact() bool {
	s := m.snap
	if s.rzOK == 0 {
		s.rzOK = -1
		lo := m.base - redZone
		if m.base >= redZone {
			s.iov[0] = unix.Iovec{Base: &s.rz[0]}
			s.iov[0].SetLen(len(s.rz))
			s.riov[0] = unix.RemoteIovec{Base: uintptr(lo), Len: len(s.rz)}
			n, err := readv(m.pid, s.iov[:], s.riov[:])
			check := min(m.n, rzCheck)
			if err == nil && n == len(s.rz) && check > 0 && bytes.Equal(s.rz[redZone:redZone+check], m.buf[:check]) {
				s.rzOK = 1
			}
		}
	}
	return s.rzOK > 0
}

// snapRefuse reports whether a read outside the window must not be made
// live: it is in the stack the window stands for. A read past a full
// window is a window miss.
func (m *stackMem) snapRefuse(addr uint64, size int) bool {
	end := addr + uint64(size)
	if end <= m.base-redZone || addr >= m.base+perfMaxStack {
		return false // not this stack's: heap, globals, deeper frames
	}
	if addr >= m.base+uint64(m.n) {
		if m.snap.full {
			m.misses++ // the window grows
		}
		intact := m.snapTailIntact()
		if !m.snap.full {
			m.faultIn(end)
		}
		if intact {
			m.snap.live++
			return false // past the copy, its end intact: read live (see the top)
		}
		m.snap.refused++
	}
	m.faults++
	return true
}

// faultIn reads the stack from where the kernel's copy stopped up to end
// (page-rounded), once per copy end and thread: the reads map the pages
// that were never touched (the zero page, for a read; the program sees
// nothing of it), so the next samples' copies hold the frames past them
// as they were at the tick, with no check needed. Only what a frame's
// unwinding asked for is read: stack, by its call-frame information.
func (m *stackMem) faultIn(end uint64) {
	s := m.snap
	cut := m.base + uint64(m.n)
	if end <= s.faulted || end <= cut {
		return
	}
	if s.lastCut != nil {
		if *s.lastCut == cut && s.faulted == 0 {
			return // read past once already: the copy still stops there
		}
		*s.lastCut = cut
	}
	lo := max(cut, s.faulted)
	hi := min((end+staticPageSize-1)&^(staticPageSize-1), m.base+perfMaxStack)
	s.faulted = hi
	if hi <= lo {
		return
	}
	if len(s.hole) < perfMaxStack {
		s.hole = make([]byte, perfMaxStack+staticPageSize)
	}
	s.iov[0] = unix.Iovec{Base: &s.hole[0]}
	s.iov[0].SetLen(int(hi - lo))
	s.riov[0] = unix.RemoteIovec{Base: uintptr(lo), Len: int(hi - lo)}
	readv(m.pid, s.iov[:], s.riov[:]) // a fault ends it: what it read is mapped
	s.faultIns++
}
