package cfg

import "golang.org/x/arch/x86/x86asm"

// Cells are the storage places the dataflow tracks: the 16 general
// registers in x86 encoding order (rax=0, rcx, rdx, rbx, rsp, rbp, rsi, rdi,
// r8..r15), xmm0..xmm15 (ymm/zmm alias them), the flags, then one cell per
// distinct stack slot of the function (numbered per function).
const (
	cellRAX     = 0
	cellRCX     = 1
	cellRDX     = 2
	cellRBX     = 3
	cellRSP     = 4
	cellRBP     = 5
	cellRSI     = 6
	cellRDI     = 7
	cellR8      = 8
	cellR9      = 9
	cellR10     = 10
	cellR11     = 11
	cellXMM0    = 16
	cellFlags   = 32
	numRegCells = 33
	noCell      = -1
)

// regCell maps an x86asm register to its cell and reports whether a write
// to it replaces only part of the cell (8- and 16-bit registers; 32-bit
// writes zero-extend).
func regCell(r x86asm.Reg) (cell int, partial bool) {
	switch {
	case r >= x86asm.AL && r <= x86asm.R15B:
		k := int(r - x86asm.AL)
		if k >= 4 {
			k -= 4 // AH..BH are the high bytes of rax..rbx; SPB.. follow
		}
		return k, true
	case r >= x86asm.AX && r <= x86asm.R15W:
		return int(r - x86asm.AX), true
	case r >= x86asm.EAX && r <= x86asm.R15L:
		return int(r - x86asm.EAX), false
	case r >= x86asm.RAX && r <= x86asm.R15:
		return int(r - x86asm.RAX), false
	case r >= x86asm.X0 && r <= x86asm.X15:
		return cellXMM0 + int(r-x86asm.X0), false
	case r >= x86asm.Y0 && r <= x86asm.Y15:
		return cellXMM0 + int(r-x86asm.Y0), false
	case r >= x86asm.Z0 && r <= x86asm.Z15:
		return cellXMM0 + int(r-x86asm.Z0), false
	}
	return noCell, false
}

// canon returns the 64-bit register containing a general register, or r.
func canon(r x86asm.Reg) x86asm.Reg {
	if c, _ := regCell(r); c >= 0 && c < 16 {
		return x86asm.RAX + x86asm.Reg(c)
	}
	return r
}

// dwarfToCell maps x86-64 DWARF register numbers (System V psABI: 0 rax,
// 1 rdx, 2 rcx, 3 rbx, 4 rsi, 5 rdi, 6 rbp, 7 rsp, 8-15 r8-r15, 17-32
// xmm0-15) to cells.
func dwarfToCell(n int) int {
	switch {
	case n >= 0 && n < 8:
		return [8]int{cellRAX, cellRDX, cellRCX, cellRBX, cellRSI, cellRDI, cellRBP, cellRSP}[n]
	case n >= 8 && n <= 15:
		return n
	case n >= 17 && n <= 32:
		return cellXMM0 + n - 17
	}
	return noCell
}

// cellToDwarf maps a general register's cell to its x86-64 DWARF number
// (dwarfToCell's inverse on rax-r15); -1 for any other cell.
func cellToDwarf(c int) int {
	switch {
	case c >= 0 && c < 8:
		return [8]int{0, 2, 1, 3, 7, 6, 4, 5}[c]
	case c >= 8 && c < 16:
		return c
	}
	return -1
}

// Argument registers of the System V calling convention, and the registers
// a call clobbers.
var (
	argCells     = [...]int{cellRDI, cellRSI, cellRDX, cellRCX, cellR8, cellR9, 16, 17, 18, 19, 20, 21, 22, 23}
	callerSaved  = [...]int{cellRAX, cellRCX, cellRDX, cellRSI, cellRDI, cellR8, cellR9, cellR10, cellR11}
	argCellsMask = func() (m uint64) {
		for _, c := range argCells {
			m |= 1 << c
		}
		return m
	}()
)

func cellOf(r x86asm.Reg) int16 {
	c, _ := regCell(r)
	return int16(c)
}
