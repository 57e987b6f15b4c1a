package unwind

// DWARF register numbers of x86-64 (System V psABI, figure 3.36).
const (
	RAX = 0
	RDX = 1
	RCX = 2
	RBX = 3
	RSI = 4
	RDI = 5
	RBP = 6
	RSP = 7
	R8  = 8
	R9  = 9
	R10 = 10
	R11 = 11
	R12 = 12
	R13 = 13
	R14 = 14
	R15 = 15
	RIP = 16 // the return-address column

	// NumRegs is the number of general registers tracked (0..RIP).
	NumRegs = 17
	// XMM0 is the DWARF number of %xmm0; %xmm0..%xmm15 are 17..32.
	XMM0 = 17
)

// calleeSaved is the set of registers a callee preserves (rbx, rbp, r12-r15,
// and rsp which the CFA restores). Only these survive into a caller frame.
const calleeSaved = 1<<RBX | 1<<RBP | 1<<R12 | 1<<R13 | 1<<R14 | 1<<R15 | 1<<RSP

// Regs is a register set with a validity bit per register. In a caller frame
// only the registers the CFI restores are valid. The others (caller-saved)
// are carried over from the callee and marked Weak: they hold the caller's
// value only where the callee left them alone, which gcc's interprocedural
// register allocation (-fipa-ra) relies on and says so in the caller's
// location lists (a variable kept in such a register across the call).
type Regs struct {
	R     [NumRegs]uint64
	Valid uint32
	Weak  uint32
}

// GetWeak returns register n if it is known or carried over from a callee.
func (r *Regs) GetWeak(n int) (uint64, bool) {
	if n < 0 || n >= NumRegs || (r.Valid|r.Weak)&(1<<uint(n)) == 0 {
		return 0, false
	}
	return r.R[n], true
}

// Get returns register n and whether it is known.
func (r *Regs) Get(n int) (uint64, bool) {
	if n < 0 || n >= NumRegs || r.Valid&(1<<uint(n)) == 0 {
		return 0, false
	}
	return r.R[n], true
}

// Set stores register n and marks it known.
func (r *Regs) Set(n int, v uint64) {
	if n >= 0 && n < NumRegs {
		r.R[n] = v
		r.Valid |= 1 << uint(n)
		r.Weak &^= 1 << uint(n)
	}
}

// PC is the program counter (the RIP column).
func (r *Regs) PC() uint64 { return r.R[RIP] }

// SP is the stack pointer.
func (r *Regs) SP() uint64 { return r.R[RSP] }

// Memory reads the target's memory. Read returns the size-byte (1..8)
// little-endian value at addr, zero-extended, and false when it cannot be
// read. Implementations used on the sampling path must not allocate.
type Memory interface {
	Read(addr uint64, size int) (uint64, bool)
}
