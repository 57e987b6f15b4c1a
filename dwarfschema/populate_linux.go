package dwarfschema

import (
	"debug/elf"
	"io"
	"runtime"
	"strings"
	"syscall"
	"unsafe"
)

// madvPopulateWrite is MADV_POPULATE_WRITE (Linux 5.14): fault the pages
// of a range in, writable, as writing each would, in one system call.
const madvPopulateWrite = 23

// populateMin is the smallest array populate asks for: below it the
// system call saves too few faults to pay for itself.
const populateMin = 64 << 10

var pageSize = syscall.Getpagesize()

// populate makes the pages under s resident and writable before they are
// written. The large arrays Load fills (the records' chunks, the Vars, the
// location records and Locs) are fresh pages mostly, and each page cost a
// fault, often two: the collector's scan of an array with pointers, or
// the write barrier of a copy into it while the collector runs, reads the
// page before it is written (the zero page is mapped), and the write then
// faults again. One call per array replaces those faults, whose entry and
// exit cost more than the work (on redis-server 0.55 s of system time in
// 2 s, half of it page faults). Pages already resident are left as they
// are; the contents never change. An error (an older kernel: EINVAL)
// leaves the faults to happen as before.
func populate[T any](s []T) {
	if len(s) == 0 {
		return
	}
	size := uintptr(len(s)) * unsafe.Sizeof(s[0])
	if size < populateMin {
		return
	}
	page := uintptr(pageSize)
	start := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	// Whole pages within s only: the pages it shares at its ends hold
	// other objects, resident or not, which need nothing from us.
	lo, hi := (start+page-1)&^(page-1), (start+size)&^(page-1)
	if hi > lo {
		syscall.Syscall(syscall.SYS_MADVISE, lo, hi-lo, madvPopulateWrite)
	}
	runtime.KeepAlive(s)
}

// sectionData is sec.Data() for a section stored as it is (not
// compressed): read into an array populated first, as pread's copy would
// fault its pages in one by one (the DWARF sections and the code, 15 MB
// on redis-server). Other sections are read by Data.
func sectionData(sec *elf.Section) ([]byte, error) {
	if sec.Type == elf.SHT_NOBITS || sec.Flags&elf.SHF_COMPRESSED != 0 || strings.HasPrefix(sec.Name, ".zdebug") ||
		sec.FileSize != sec.Size || sec.Size >= 1<<31 {
		return sec.Data()
	}
	b := make([]byte, sec.Size)
	populate(b)
	if n, err := sec.ReadAt(b, 0); n < len(b) {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return b, nil
}
