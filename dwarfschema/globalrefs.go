package dwarfschema

import (
	"debug/elf"
	"slices"
	"sort"

	"golang.org/x/arch/x86/x86asm"
)

// narrowGlobals restricts each global's location, which DWARF makes valid
// over the whole object, to the code of the functions that read it:
// instructions whose memory operand (RIP-relative or absolute) falls in the
// global's storage, other than the destination of a plain store. Code that
// only stores to a global (main setting a configuration value) is not
// shaped by its value; code that reads it (every tag, loop, cond and args,
// is about reads) is.
//
// Why: a global is attributed to every function containing a PC at which it
// was sampled (method.md §5), and the sampler reads a variable in the
// shallowest frame where it is accessible (§3). Were a global accessible
// everywhere, it would always be read in the innermost frame and blamed on
// whatever hot function runs there, never on the function that uses it
// (recovery_budget's srv_buf_pool_instances, read by the caller
// recv_group_scan_log_recs three frames up). Narrowed, it is read in the
// frame of a function that uses it, at any depth, and costs a read only
// there. A global referenced by no instruction (used only through pointers
// only) keeps no location: it is listed, never sampled. In PIC code a
// global is reached through its GOT slot, which is resolved through the
// slot's dynamic relocation.
//
// It returns the number of globals narrowed and of those left unsampled.
func narrowGlobals(s *Schema, ef *elf.File) (narrowed, unreferenced int) {
	type glob struct {
		lo, hi uint64
		v      VarID
		loc    int
	}
	var gs []glob
	for i := range s.Locs {
		l := &s.Locs[i]
		if l.Kind != LocAddr || l.PCStart != 0 || l.PCEnd != ^uint64(0) || s.Vars[l.Var].Func != NoFunc {
			continue
		}
		gs = append(gs, glob{lo: l.Addr, hi: l.Addr + 1, v: l.Var, loc: i})
	}
	if len(gs) == 0 {
		return 0, 0
	}
	// The extent of each global: its ELF object symbol's size, else its
	// value's size.
	sizes := map[uint64]uint64{}
	if syms, err := ef.Symbols(); err == nil {
		for _, sy := range syms {
			if elf.ST_TYPE(sy.Info) == elf.STT_OBJECT || elf.ST_TYPE(sy.Info) == elf.STT_TLS {
				if sy.Size > sizes[sy.Value] {
					sizes[sy.Value] = sy.Size
				}
			}
		}
	}
	for i := range gs {
		n := sizes[gs[i].lo]
		if n == 0 {
			n = uint64(max(s.Vars[gs[i].v].Size, s.Locs[gs[i].loc].Size, 1))
		}
		gs[i].hi = gs[i].lo + n
	}
	sort.Slice(gs, func(i, j int) bool { return gs[i].lo < gs[j].lo })
	find := func(a uint64) int {
		i := sort.Search(len(gs), func(i int) bool { return gs[i].hi > a })
		if i < len(gs) && a >= gs[i].lo {
			return i
		}
		return -1
	}

	got := gotTargets(ef)

	var text []*elf.Section
	for _, sec := range ef.Sections {
		if sec.Type == elf.SHT_PROGBITS && sec.Flags&elf.SHF_EXECINSTR != 0 {
			text = append(text, sec)
		}
	}
	data := map[*elf.Section][]byte{}
	code := func(r PCRange) []byte {
		for _, sec := range text {
			if r.Lo >= sec.Addr && r.Hi <= sec.Addr+sec.Size {
				b, ok := data[sec]
				if !ok {
					b, _ = sec.Data()
					data[sec] = b
				}
				if uint64(len(b)) < r.Hi-sec.Addr {
					return nil
				}
				return b[r.Lo-sec.Addr : r.Hi-sec.Addr]
			}
		}
		return nil
	}

	users := make([][]FuncID, len(gs)) // per global, the functions referencing it
	for fi := range s.Funcs {
		f := &s.Funcs[fi]
		for _, r := range f.Ranges {
			b := code(r)
			for pc := r.Lo; len(b) > 0; {
				in, err := x86asm.Decode(b, 64)
				if err != nil || in.Len == 0 {
					b, pc = b[1:], pc+1
					continue
				}
				next := pc + uint64(in.Len)
				for ai, a := range in.Args {
					m, ok := a.(x86asm.Mem)
					if !ok || (ai == 0 && storeOnly(in.Op)) {
						continue
					}
					// disp32 is sign-extended in 64-bit mode; x86asm
					// v0.32.0 zero-extends it.
					disp := int64(int32(m.Disp))
					var ea uint64
					switch {
					case m.Base == x86asm.RIP:
						ea = next + uint64(disp)
					case m.Base == 0 && m.Index == 0 && m.Segment == 0:
						ea = uint64(disp)
					default:
						continue
					}
					if t, ok := got[ea]; ok {
						ea = t // PIC code loads the global's address from its GOT slot
					}
					if g := find(ea); g >= 0 {
						if u := users[g]; len(u) == 0 || u[len(u)-1] != FuncID(fi) {
							users[g] = append(u, FuncID(fi))
						}
					}
				}
				b, pc = b[in.Len:], next
			}
		}
	}

	drop := make([]bool, len(s.Locs))
	var add []Loc
	for i, g := range gs {
		drop[g.loc] = true
		if len(users[i]) == 0 {
			unreferenced++
			continue
		}
		narrowed++
		base := s.Locs[g.loc]
		for _, fi := range users[i] {
			for _, r := range s.Funcs[fi].Ranges {
				l := base
				l.PCStart, l.PCEnd = r.Lo, r.Hi
				add = append(add, l)
			}
		}
	}
	out := s.Locs[:0]
	for i, l := range s.Locs {
		if !drop[i] {
			out = append(out, l)
		}
	}
	s.Locs = append(out, add...)
	slices.SortStableFunc(s.Locs, func(a, b Loc) int {
		switch {
		case a.PCStart < b.PCStart:
			return -1
		case a.PCStart > b.PCStart:
			return 1
		}
		return 0
	})
	return narrowed, unreferenced
}

// gotTargets maps GOT slots (and other relocated pointer words) to the
// link-time address they will hold, from the dynamic relocations:
// R_X86_64_GLOB_DAT and R_X86_64_64 name a symbol defined here,
// R_X86_64_RELATIVE holds its target in the addend.
func gotTargets(ef *elf.File) map[uint64]uint64 {
	sec := ef.Section(".rela.dyn")
	if sec == nil || sec.Type != elf.SHT_RELA {
		return nil
	}
	data, err := sec.Data()
	if err != nil {
		return nil
	}
	syms, _ := ef.DynamicSymbols() // index i+1 in r_info: the null symbol is omitted
	out := map[uint64]uint64{}
	for ; len(data) >= 24; data = data[24:] {
		off := ef.ByteOrder.Uint64(data)
		info := ef.ByteOrder.Uint64(data[8:])
		addend := int64(ef.ByteOrder.Uint64(data[16:]))
		switch elf.R_X86_64(info & 0xffffffff) {
		case elf.R_X86_64_RELATIVE:
			out[off] = uint64(addend)
		case elf.R_X86_64_GLOB_DAT, elf.R_X86_64_64:
			i := int(info>>32) - 1
			if i >= 0 && i < len(syms) && syms[i].Section != elf.SHN_UNDEF && syms[i].Value != 0 {
				out[off] = syms[i].Value + uint64(addend)
			}
		}
	}
	return out
}

// storeOnly reports whether op's first operand, when in memory, is written
// without being read.
func storeOnly(op x86asm.Op) bool {
	switch op {
	case x86asm.MOV, x86asm.MOVSS, x86asm.MOVSD, x86asm.MOVSD_XMM, x86asm.MOVAPS, x86asm.MOVUPS,
		x86asm.MOVAPD, x86asm.MOVUPD, x86asm.MOVDQA, x86asm.MOVDQU, x86asm.MOVQ, x86asm.MOVD,
		x86asm.MOVNTI, x86asm.MOVNTDQ, x86asm.MOVNTPS, x86asm.MOVNTPD, x86asm.MOVHPS, x86asm.MOVLPS,
		x86asm.POP,
		x86asm.SETA, x86asm.SETAE, x86asm.SETB, x86asm.SETBE, x86asm.SETE, x86asm.SETG, x86asm.SETGE,
		x86asm.SETL, x86asm.SETLE, x86asm.SETNE, x86asm.SETNO, x86asm.SETNP, x86asm.SETNS, x86asm.SETO,
		x86asm.SETP, x86asm.SETS:
		return true
	}
	return false
}
