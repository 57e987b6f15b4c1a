package dwarfschema

import (
	"debug/elf"
	"io"
	"os"
	"strings"
	"syscall"
)

// minMapped is the size from which a section is mapped rather than read:
// below it a read costs less than a mapping's system calls.
const minMapped = 64 << 10

// sectionData returns the bytes of sec. A large section stored
// uncompressed in a file is mapped read-only from the file (m is the
// mapping, for unmap; nil when the bytes were read instead). Read into
// the heap, every 4 KB page of a section is a fresh anonymous page,
// faulted in and copied; mapped, the pages come from the page cache, 16
// to a fault (the kernel's fault-around), and go back at unmap. On
// redis-server (10 MB of DWARF) the read was about a twentieth of `vprof
// schema`'s CPU time (docs/benchmarks.md, issue 18's session-13 pass).
func sectionData(sec *elf.Section) (data, m []byte, err error) {
	if f, off, ok := mappable(sec); ok {
		page := int64(os.Getpagesize())
		start := off &^ (page - 1)
		n := int(off - start + int64(sec.Size))
		if b, err := syscall.Mmap(int(f.Fd()), start, n, syscall.PROT_READ, syscall.MAP_PRIVATE); err == nil {
			return b[off-start : n : n], b, nil
		}
		// Not mappable after all (a file system without mmap): read it.
	}
	data, err = sec.Data()
	return data, nil, err
}

// mappable says whether sec's bytes are the file's, uncompressed, and
// gives the file and their offset in it.
func mappable(sec *elf.Section) (*os.File, int64, bool) {
	if sec.Size < minMapped || sec.Type == elf.SHT_NOBITS || sec.Flags&elf.SHF_COMPRESSED != 0 ||
		strings.HasPrefix(sec.Name, ".zdebug") || sec.FileSize != sec.Size {
		return nil, 0, false
	}
	sr, ok := sec.ReaderAt.(*io.SectionReader)
	if !ok {
		return nil, 0, false
	}
	outer, base, _ := sr.Outer()
	f, ok := outer.(*os.File)
	if !ok {
		return nil, 0, false
	}
	return f, base, true
}

// unmap releases mappings made by sectionData. Nothing may refer to
// their bytes afterwards: what the loader keeps (names, expressions,
// call-site values) it copies.
func unmap(ms [][]byte) {
	for _, m := range ms {
		syscall.Munmap(m)
	}
}
