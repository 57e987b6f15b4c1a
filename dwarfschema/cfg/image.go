package cfg

import "sort"

// Image is the address space of one object file as the loader lays it out:
// the bytes of its allocated sections at their link-time addresses. Code is
// decoded from it and jump tables are read from it.
type Image struct {
	secs []imageSection // sorted by addr, non-overlapping
}

type imageSection struct {
	addr uint64
	data []byte
}

// Add maps data at addr. Sections that overlap one already added are
// ignored: an ELF file's allocated sections never overlap, so an overlap
// means bad input and the first mapping wins.
func (m *Image) Add(addr uint64, data []byte) {
	if len(data) == 0 || addr+uint64(len(data)) < addr {
		return
	}
	i := sort.Search(len(m.secs), func(i int) bool { return m.secs[i].addr >= addr })
	if i > 0 && m.secs[i-1].addr+uint64(len(m.secs[i-1].data)) > addr {
		return
	}
	if i < len(m.secs) && addr+uint64(len(data)) > m.secs[i].addr {
		return
	}
	m.secs = append(m.secs, imageSection{})
	copy(m.secs[i+1:], m.secs[i:])
	m.secs[i] = imageSection{addr, data}
}

// Slice returns the mapped bytes [lo, hi), or nil if any of them is not
// mapped by a single section. The result aliases the section's data.
func (m *Image) Slice(lo, hi uint64) []byte {
	if hi < lo {
		return nil
	}
	i := sort.Search(len(m.secs), func(i int) bool { return m.secs[i].addr > lo }) - 1
	if i < 0 {
		return nil
	}
	s := &m.secs[i]
	end := s.addr + uint64(len(s.data))
	if hi > end {
		return nil
	}
	return s.data[lo-s.addr : hi-s.addr]
}
