package cfg

import (
	"encoding/binary"

	"golang.org/x/arch/x86/x86asm"
)

const (
	maxTableEntries     = 4096 // with a bound from the range check
	maxUnboundedEntries = 512  // without one: stop at the first bad entry
)

// resolveJumpTable recognises the switch dispatch ending at the indirect
// jump g.Insts[i] and appends the instruction indices of the table's
// targets to out. The shapes gcc and clang emit are:
//
//	jmp [T + idx*8]                       non-PIC, 8-byte absolute entries
//	mov r, [T + idx*8]; jmp r             same, through a register
//	lea b, [rip+T]; movsxd r, [b + idx*4]; add r, b; jmp r
//	                                      PIC, 4-byte entries relative to T
//
// Anything else is left unresolved (no targets): the cases then start from
// an unknown state, which loses precision but not soundness of the tags.
func resolveJumpTable(g *Graph, img *Image, i int, out []int32) []int32 {
	in := &g.Insts[i]
	bound := tableBound(g, i)
	switch a := in.Args[0].(type) {
	case x86asm.Mem:
		if a.Base == 0 && a.Index != 0 && a.Scale == 8 && a.Segment == 0 {
			return readTable(g, img, uint64(a.Disp), 8, bound, out)
		}
	case x86asm.Reg:
		r := canon(a)
		tableAt, haveBase := uint64(0), false
		for k := i - 1; k >= 0 && k >= i-16; k-- {
			p := &g.Insts[k]
			if p.Op == x86asm.CDQE {
				continue
			}
			dst, ok := p.Args[0].(x86asm.Reg)
			if !ok || canon(dst) != r {
				continue
			}
			src, _ := p.Args[1].(x86asm.Mem)
			switch {
			case p.Op == x86asm.ADD && !haveBase:
				// add r, b with lea b, [rip+T]: entries relative to T.
				b, ok := p.Args[1].(x86asm.Reg)
				if !ok {
					return out
				}
				if tableAt, haveBase = ripLea(g, k, canon(b)); !haveBase {
					return out
				}
				continue
			case p.Op == x86asm.MOVSXD && src == (x86asm.Mem{}):
				continue // sign extension of the loaded entry
			case (p.Op == x86asm.MOVSXD || p.Op == x86asm.MOV && p.MemBytes == 4) && src.Index != 0 && haveBase:
				return readTable(g, img, tableAt, 4, bound, out)
			case p.Op == x86asm.MOV && src.Base == 0 && src.Index != 0 && src.Scale == 8 && !haveBase:
				return readTable(g, img, uint64(src.Disp), 8, bound, out)
			}
			return out
		}
	}
	return out
}

// ripLea finds, before instruction k, the `lea b, [rip+T]` that sets b.
func ripLea(g *Graph, k int, b x86asm.Reg) (uint64, bool) {
	for j := k - 1; j >= 0 && j >= k-16; j-- {
		p := &g.Insts[j]
		dst, ok := p.Args[0].(x86asm.Reg)
		if !ok || canon(dst) != b {
			continue
		}
		m, ok := p.Args[1].(x86asm.Mem)
		if p.Op == x86asm.LEA && ok && m.Base == x86asm.RIP && m.Index == 0 {
			return p.PC + uint64(p.Len) + uint64(m.Disp), true
		}
		return 0, false
	}
	return 0, false
}

// tableBound finds the range check `cmp idx, N; ja default` that guards a
// dispatch and returns the number of entries it allows, or -1.
func tableBound(g *Graph, i int) int {
	for k := i - 1; k >= 0 && k >= i-24; k-- {
		p := &g.Insts[k]
		if p.Op != x86asm.CMP {
			continue
		}
		if imm, ok := p.Args[1].(x86asm.Imm); ok && imm >= 0 && imm < maxTableEntries {
			return int(imm) + 1
		}
		return -1
	}
	return -1
}

func readTable(g *Graph, img *Image, t uint64, size, bound int, out []int32) []int32 {
	limit := bound
	if limit < 0 {
		limit = maxUnboundedEntries
	}
	for k := 0; k < limit; k++ {
		b := img.Slice(t+uint64(k*size), t+uint64(k*size+size))
		if b == nil {
			break
		}
		var target uint64
		if size == 8 {
			target = binary.LittleEndian.Uint64(b)
		} else {
			target = t + uint64(int64(int32(binary.LittleEndian.Uint32(b))))
		}
		j := -1
		if g.Contains(target) {
			j = g.InstAt(target)
		}
		if j < 0 {
			if bound < 0 {
				break
			}
			continue
		}
		out = append(out, int32(j))
	}
	return out
}
