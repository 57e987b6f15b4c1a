// Package unwind walks the call stacks of x86-64 Linux processes with the
// call-frame information (CFI) of their objects: .eh_frame and .debug_frame
// parsed with delve's pkg/dwarf/frame, turned into compact rows cached per
// PC, with frame pointers only as a fallback. It also evaluates the DWARF
// expressions that CFI rows and variable locations use, without allocating.
//
// Addresses in a Table are link-time addresses of its object; a Space places
// tables in a process (runtime address = link-time address + bias).
package unwind
