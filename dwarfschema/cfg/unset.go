package cfg

import (
	"strings"

	"golang.org/x/arch/x86/x86asm"
)

// A slot holds no value of its function's before anything wrote it
// (method.md §2, decision D182). A local whose address is taken (a lambda
// captures it, it is passed by reference) lives in one frame slot over its
// whole scope, and a C++ object's members lie in its slot before its
// constructor runs; the location is then valid by DWARF where the slot still
// holds another frame's bytes. Reads of such a slot at an instruction that
// no write of it can have preceded are not values the variable had.

// UnsetSlot is one frame-slot location to check: over [Lo, Hi) the variable
// lives in memory at the location Kind (InFrameSlot, InCFASlot, InRegSlot
// of rsp or rbp), Reg, Off, Size bytes. ID is the caller's.
type UnsetSlot struct {
	ID     int32
	Lo, Hi uint64
	Kind   LocKind
	Reg    int16
	Off    int64
	Size   int32
}

// UnsetRange says that slot ID holds no value its function gave it at the
// instructions of [Lo, Hi).
type UnsetRange struct {
	ID     int32
	Lo, Hi uint64
}

// maxUnsetSlots bounds the slots checked per function (one bit each).
const maxUnsetSlots = 64

// Unset returns, for slots in the function last analysed (Analyze), the
// instructions at which no write of the slot can have happened on any path
// from the function's entry: no instruction of the function wrote memory
// that overlaps it (a store whose address is not a known offset of the frame
// may write anything), and no call returned (a callee may write any slot
// whose address it was given). Slots of the caller's frame (at or above the
// CFA: stack arguments) are not checked. An instruction that a caller's
// frame is suspended at (a call) counts before the call: the value read
// there while the callee runs is the slot's before the callee returns. The
// result is appended to dst and valid until the next Analyze.
func (a *Analyzer) Unset(dst []UnsetRange, slots []UnsetSlot) []UnsetRange {
	g := a.g
	if g == nil || len(g.Blocks) == 0 || len(slots) == 0 || len(a.sp) != len(g.Insts) {
		return dst
	}
	if len(slots) > maxUnsetSlots {
		slots = slots[:maxUnsetSlots]
	}
	type span struct {
		lo, hi int64 // CFA offsets
		s, e   int32 // instruction indices
	}
	spans := make([]span, 0, len(slots))
	var live uint64 // slots that take part
	for k, sl := range slots {
		s, e := a.instIndex(sl.Lo), a.instIndex(sl.Hi)
		var off int32
		ok := false
		for i := s; i < e && i < s+64 && !ok; i++ {
			off, ok = a.slotOffset(ExprRef{Kind: sl.Kind, Reg: sl.Reg, Off: sl.Off}, int(i))
		}
		sp := span{lo: int64(off), hi: int64(off) + int64(max(sl.Size, 1)), s: s, e: e}
		if ok && s < e && sp.hi <= 0 {
			live |= 1 << k
		}
		spans = append(spans, sp)
	}
	if live == 0 {
		return dst
	}
	// writes returns the slots that instruction i may write.
	overlap := func(lo, hi int64) uint64 {
		var m uint64
		for k := range spans {
			if live&(1<<k) != 0 && lo < spans[k].hi && spans[k].lo < hi {
				m |= 1 << k
			}
		}
		return m
	}
	writes := func(i int) uint64 {
		in := &g.Insts[i].Inst
		switch in.Op {
		case x86asm.CALL, x86asm.LCALL, x86asm.SYSCALL:
			return live
		case x86asm.PUSH, x86asm.PUSHFQ:
			if a.sp[i] == unknownSP {
				return live
			}
			return overlap(int64(a.sp[i])-8, int64(a.sp[i]))
		case x86asm.CMP, x86asm.TEST, x86asm.BT, x86asm.JMP, x86asm.LJMP, x86asm.NOP, x86asm.LEA:
			return 0
		}
		if strings.HasPrefix(in.Op.String(), "PREFETCH") {
			return 0
		}
		var m uint64
		for j, arg := range in.Args {
			mem, ok := arg.(x86asm.Mem)
			if !ok {
				if arg == nil {
					break
				}
				continue
			}
			// The destination is the first operand; an exchange writes both.
			if j > 0 && in.Op != x86asm.XCHG && in.Op != x86asm.XADD && in.Op != x86asm.CMPXCHG {
				continue
			}
			var base int32 = unknownSP
			if mem.Index == 0 && mem.Segment == 0 {
				switch canon(mem.Base) {
				case x86asm.RSP:
					base = a.sp[i]
				case x86asm.RBP:
					base = a.fp[i]
				}
			}
			if base == unknownSP || in.MemBytes <= 0 {
				// Through a pointer, or of unknown width: maybe the slot
				// (its address may be in the register).
				return live
			}
			lo := int64(base) + mem.Disp
			m |= overlap(lo, lo+int64(in.MemBytes))
		}
		return m
	}
	// Forward "may have been written" over the graph: block entry states,
	// the entries' empty; blocks no entry reaches (whose stack offsets
	// are unknown) start with every slot written.
	nb := len(g.Blocks)
	in := make([]uint64, nb)
	seen := make([]bool, nb)
	for _, r := range g.Roots[:g.Entries] {
		seen[r] = true
	}
	for _, r := range g.Roots[g.Entries:] {
		in[r], seen[r] = live, true
	}
	out := func(b int32) uint64 {
		st := in[b]
		blk := &g.Blocks[b]
		for i := blk.First; i < blk.Last && st != live; i++ {
			st |= writes(int(i))
		}
		return st
	}
	for changed := true; changed; {
		changed = false
		for _, b := range g.rpo {
			if !seen[b] {
				continue
			}
			st := out(b)
			for _, s := range g.Blocks[b].Succs {
				if !seen[s] || in[s]|st != in[s] {
					in[s] |= st
					seen[s] = true
					changed = true
				}
			}
		}
	}
	// The instructions at which each slot is still unwritten; each slot's
	// last range in dst, extended while its instructions follow on.
	var last [maxUnsetSlots]int
	for k := range last {
		last[k] = -1
	}
	for b := range g.Blocks {
		st := in[b]
		if !seen[b] {
			st = live
		}
		blk := &g.Blocks[b]
		for i := blk.First; i < blk.Last && st != live; i++ {
			for k := range spans {
				if live&^st&(1<<k) != 0 && i >= spans[k].s && i < spans[k].e {
					pc := g.Insts[i].PC
					end := pc + uint64(g.Insts[i].Len)
					if x := last[k]; x >= 0 && dst[x].Hi == pc {
						dst[x].Hi = end
					} else {
						last[k] = len(dst)
						dst = append(dst, UnsetRange{ID: slots[k].ID, Lo: pc, Hi: end})
					}
				}
			}
			st |= writes(int(i))
		}
	}
	return dst
}
