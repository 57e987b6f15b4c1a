package cfg

import "golang.org/x/arch/x86/x86asm"

// Walk is a loop of the function that walks a linked structure with a
// cursor no variable's location names (method.md §2, D118): gcc -O2
// often keeps a list's or a chain's cursor in a register that it chases
// (`mov (%rax),%rax`) and gives the source variable no location there, so
// the loop has no variable that says how far it went. Inside the loop,
// every write to register Reg is a load through Reg itself, so over the
// loop's code Reg holds the element the walk is at.
type Walk struct {
	Reg    int16   // DWARF register number of the cursor
	Load   uint64  // the first chasing load's address
	Ranges []Range // the loop's code (its blocks, merged), sorted
	// Named are the locations of variables (exact or derived) that
	// name Reg over some of the loop's code: the caller decides whose
	// they are (a variable of the walk's function that lives in Reg
	// over all of the loop is the cursor, sampled already).
	Named []NamedRange
}

// NamedRange says that variable Var (the caller's number) lives in a
// walk's register, or is computed from it, over [Lo, Hi).
type NamedRange struct {
	Var    int32
	Lo, Hi uint64
}

// gprCells are the general registers a cursor may live in (rsp never).
const gprCells = 0xffff &^ (1 << cellRSP)

// load8 reports the cells of `mov d, [b + disp]`: an 8-byte load into a
// 64-bit register whose address is a register plus a constant (no index,
// no segment): a step of a linked walk when d is the walk's cursor or
// its next value.
func load8(inst *x86asm.Inst) (d, b int16, ok bool) {
	if inst.Op != x86asm.MOV || inst.Args[0] == nil || inst.Args[1] == nil {
		return noCell, noCell, false
	}
	dr, ok := inst.Args[0].(x86asm.Reg)
	if !ok || dr < x86asm.RAX || dr > x86asm.R15 {
		return noCell, noCell, false
	}
	m, ok := inst.Args[1].(x86asm.Mem)
	if !ok || m.Index != 0 || m.Segment != 0 || m.Base < x86asm.RAX || m.Base > x86asm.R15 {
		return noCell, noCell, false
	}
	return cellOf(dr), cellOf(m.Base), true
}

// copy8 reports the cells of `mov d, s` between 64-bit registers.
func copy8(inst *x86asm.Inst) (d, s int16, ok bool) {
	if inst.Op != x86asm.MOV || inst.Args[0] == nil || inst.Args[1] == nil {
		return noCell, noCell, false
	}
	dr, ok1 := inst.Args[0].(x86asm.Reg)
	sr, ok2 := inst.Args[1].(x86asm.Reg)
	if !ok1 || !ok2 || dr < x86asm.RAX || dr > x86asm.R15 || sr < x86asm.RAX || sr > x86asm.R15 {
		return noCell, noCell, false
	}
	return cellOf(dr), cellOf(sr), true
}

// findWalks fills a.walks with the function's walks. In a loop, register
// R is a walk's cursor when the loop's blocks write it only by chasing
// loads through itself (`mov R, [R + d]`) or by copies of a register S
// that the loop writes only by loads through R (`mov S, [R + d]` then
// `mov R, S`: gcc tests the next element before it steps), at least
// one of either; a call clobbers the caller-saved registers. A cursor
// set up or replaced in the loop by anything but a step along the
// structure is no walk's cursor. The locations that name the register in
// the loop go with the walk (Named): whose they are is the caller's.
func (a *Analyzer) findWalks() {
	a.walks = a.walks[:0]
	g := a.g
	for li := range g.Loops {
		l := &g.Loops[li]
		var self, other uint32
		var loadBase, copySrc [16]uint32
		var first [16]uint64 // per register: its first load in the loop
		for _, b := range l.Body {
			blk := &g.Blocks[b]
			for i := blk.First; i < blk.Last; i++ {
				in := &g.Insts[i]
				if d, base, ok := load8(&in.Inst); ok {
					if d == base {
						self |= 1 << d
					} else {
						loadBase[d] |= 1 << base
					}
					if first[d] == 0 || in.PC < first[d] {
						first[d] = in.PC
					}
					continue
				}
				if d, s, ok := copy8(&in.Inst); ok && d != s {
					copySrc[d] |= 1 << s
					continue
				}
				u := &a.uops[i]
				for _, c := range [2]int16{u.dst, u.dst2} {
					if c >= 0 && c < 16 {
						other |= 1 << c
					}
				}
				if u.class == cCall {
					for _, c := range callerSaved {
						other |= 1 << c
					}
				}
				if in.Op == x86asm.CPUID || in.Op == x86asm.RDTSC || in.Op == x86asm.RDTSCP || in.Op == x86asm.SYSCALL {
					other |= 1<<cellRAX | 1<<cellRCX | 1<<cellRDX | 1<<cellRBX | 1<<cellR11
				}
				if u.class == cString || u.class == cStrCmp {
					// String instructions step rsi, rdi and (rep) rcx implicitly.
					other |= 1<<cellRSI | 1<<cellRDI | 1<<cellRCX
				}
			}
		}
		var cand uint32
		load := [16]uint64{}
		for r := int16(0); r < 16; r++ {
			bit := uint32(1) << r
			if bit&gprCells == 0 || other&bit != 0 || loadBase[r] != 0 {
				continue
			}
			ok := self&bit != 0 || copySrc[r] != 0
			load[r] = first[r]
			for s := int16(0); s < 16 && ok; s++ {
				sb := uint32(1) << s
				if copySrc[r]&sb == 0 {
					continue
				}
				ok = other&sb == 0 && self&sb == 0 && copySrc[s] == 0 && loadBase[s] == bit
				if ok && (load[r] == 0 || first[s] < load[r]) {
					load[r] = first[s]
				}
			}
			if ok {
				cand |= bit
			}
		}
		if cand == 0 {
			continue
		}
		for c := int16(0); c < 16; c++ {
			if cand&(1<<c) == 0 {
				continue
			}
			w := Walk{Reg: int16(cellToDwarf(int(c))), Load: load[c]}
			for _, e := range a.entries {
				if e.cell != c {
					continue
				}
				for _, b := range l.Body {
					blk := &g.Blocks[b]
					if e.start < blk.Last && e.end > blk.First {
						w.Named = append(w.Named, NamedRange{Var: a.vars[e.v], Lo: a.instPC(e.start), Hi: a.instPC(e.end)})
						break
					}
				}
			}
			for _, b := range l.Body { // sorted block indices: sorted addresses
				blk := &g.Blocks[b]
				if n := len(w.Ranges); n > 0 && w.Ranges[n-1].Hi == blk.Start {
					w.Ranges[n-1].Hi = blk.End
				} else {
					w.Ranges = append(w.Ranges, Range{blk.Start, blk.End})
				}
			}
			a.walks = append(a.walks, w)
		}
	}
}

// instPC returns the address of instruction i, or the end of the last
// one for len(Insts).
func (a *Analyzer) instPC(i int32) uint64 {
	if int(i) < len(a.g.Insts) {
		return a.g.Insts[i].PC
	}
	last := &a.g.Insts[len(a.g.Insts)-1]
	return last.PC + uint64(max(last.Len, 1))
}

// Walks returns the walks that the last Analyze found (findWalks). The
// result is valid until the next call.
func (a *Analyzer) Walks() []Walk { return a.walks }
