package dwarfschema

import (
	"bytes"
	"cmp"
	"debug/elf"
	"encoding/binary"
	"slices"
	"strings"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/symname"
)

// PLT stubs have no symbol: the linker makes them, one per function called
// through the GOT, in .plt (lazy binding), .plt.sec or .plt.bnd (the
// second PLT of IBT or MPX binaries) and .plt.got (functions whose address
// is also taken, or -z now). A sample in one would name no function, so
// they are named as objdump and perf name them, "memcpy@plt", from the
// relocation of the GOT slot each stub jumps through (.rela.plt's
// R_X86_64_JUMP_SLOT, .rela.dyn's R_X86_64_GLOB_DAT), or, for the first
// PLT of an IBT binary, whose stubs push the index of their .rela.plt
// entry and jump to the resolver, from that index. An IFUNC resolved at
// load time (R_X86_64_IRELATIVE, the C library's calls of its own memcpy)
// names the function symbol at the relocation's addend, its resolver.

const (
	rX8664GlobDat    = 6
	rX8664JumpSlot   = 7
	rX8664Irelative  = 37
	maxPLTSymbolName = 1 << 10
)

// pltSymbols returns a symbol ("name@plt", the stub's address and size)
// for each PLT stub of ef whose GOT slot or relocation index names a
// function, sorted by address. syms are ef's function symbols (for
// IRELATIVE addends). Damaged or unknown layouts name nothing: the
// stubs stay unnamed, as before.
func pltSymbols(ef *elf.File, syms []model.Symbol) []model.Symbol {
	if ef.Machine != elf.EM_X86_64 || ef.Class != elf.ELFCLASS64 {
		return nil
	}
	// Only the relocations' symbols are named: .dynsym's entries are read
	// by index, not all decoded (ef.DynamicSymbols makes a string of each
	// of the C library's 3,000).
	var dynsym, dynstr []byte
	dynRead := false
	symName := func(i uint32) string {
		if !dynRead {
			dynRead = true
			if sec := ef.Section(".dynsym"); sec != nil && sec.Type == elf.SHT_DYNSYM && int(sec.Link) < len(ef.Sections) {
				dynsym, _ = sec.Data()
				dynstr, _ = ef.Sections[sec.Link].Data()
			}
		}
		o := uint64(i) * 24 // Elf64_Sym
		if i == 0 || o+24 > uint64(len(dynsym)) {
			return ""
		}
		n := uint64(binary.LittleEndian.Uint32(dynsym[o:]))
		if n >= uint64(len(dynstr)) {
			return ""
		}
		str := dynstr[n:]
		if end := bytes.IndexByte(str, 0); end >= 0 {
			str = str[:end]
		}
		return string(str)
	}
	byAddr := func(addr uint64) string {
		i, ok := slices.BinarySearchFunc(syms, addr, func(s model.Symbol, a uint64) int {
			return cmp.Compare(s.Value, a)
		})
		if !ok {
			return ""
		}
		for j := i; j < len(syms) && syms[j].Value == addr; j++ {
			if name, best := aliasName(syms, j); best {
				return name
			}
		}
		return symname.FuncName(syms[i].Name)
	}
	// The GOT slot's function, and .rela.plt's names by index.
	got := map[uint64]string{}
	var relaPLT []string
	readRela := func(name string, plt bool) {
		sec := ef.Section(name)
		if sec == nil || sec.Type != elf.SHT_RELA {
			return
		}
		b, err := sec.Data()
		if err != nil {
			return
		}
		for o := 0; o+24 <= len(b); o += 24 {
			off := binary.LittleEndian.Uint64(b[o:])
			info := binary.LittleEndian.Uint64(b[o+8:])
			addend := binary.LittleEndian.Uint64(b[o+16:])
			var fn string
			switch uint32(info) {
			case rX8664JumpSlot, rX8664GlobDat:
				fn = symName(uint32(info >> 32))
			case rX8664Irelative:
				fn = byAddr(addend)
			}
			fn = symname.FuncName(fn)
			if len(fn) > maxPLTSymbolName {
				fn = ""
			}
			if plt {
				relaPLT = append(relaPLT, fn)
			}
			if fn != "" {
				if _, dup := got[off]; !dup {
					got[off] = fn
				}
			}
		}
	}
	readRela(".rela.plt", true)
	readRela(".rela.dyn", false)
	if len(got) == 0 {
		return nil
	}
	var out []model.Symbol
	for _, name := range []string{".plt", ".plt.sec", ".plt.bnd", ".plt.got"} {
		sec := ef.Section(name)
		if sec == nil || sec.Type != elf.SHT_PROGBITS || sec.Flags&elf.SHF_EXECINSTR == 0 {
			continue
		}
		size := sec.Entsize
		if size != 8 && size != 16 {
			size = 16
		}
		b, err := sec.Data()
		if err != nil {
			continue
		}
		for o := uint64(0); o+size <= uint64(len(b)); o += size {
			fn := stubTarget(b[o:o+size], sec.Addr+o, got, relaPLT)
			if fn != "" {
				out = append(out, model.Symbol{Name: fn + "@plt", Value: sec.Addr + o, Size: size})
			}
		}
	}
	return out
}

// stubTarget decodes the PLT stub code at addr: an optional endbr64 and
// bnd prefix, then either jmp *disp32(%rip) through a GOT slot that got
// names, or push $index (a lazy stub of an IBT PLT) into relaPLT. The
// resolver's own stub (push of GOT+8, then its jump) names nothing.
func stubTarget(code []byte, addr uint64, got map[uint64]string, relaPLT []string) string {
	p := 0
	if len(code) >= 4 && code[0] == 0xf3 && code[1] == 0x0f && code[2] == 0x1e && code[3] == 0xfa {
		p = 4 // endbr64
	}
	if p < len(code) && code[p] == 0xf2 {
		p++ // bnd
	}
	switch {
	case p+6 <= len(code) && code[p] == 0xff && code[p+1] == 0x25:
		disp := int32(binary.LittleEndian.Uint32(code[p+2:]))
		return got[addr+uint64(p+6)+uint64(int64(disp))]
	case p+5 <= len(code) && code[p] == 0x68:
		i := binary.LittleEndian.Uint32(code[p+1:])
		if int(i) < len(relaPLT) {
			return relaPLT[i]
		}
	}
	return ""
}

// withPLT adds ef's PLT stubs to syms (sorted by address, as
// readSymbols returns them) where no symbol covers them already.
func withPLT(ef *elf.File, syms []model.Symbol) []model.Symbol {
	plt := pltSymbols(ef, syms)
	if len(plt) == 0 {
		return syms
	}
	covered := func(lo, hi uint64) bool {
		i, _ := slices.BinarySearchFunc(syms, hi, func(s model.Symbol, a uint64) int {
			if s.Value < a {
				return -1
			}
			return 1
		})
		// syms[:i] start below hi: one that ends above lo covers the stub.
		for j := i - 1; j >= 0 && j >= i-8; j-- {
			if syms[j].Value+max(syms[j].Size, 1) > lo {
				return true
			}
		}
		return false
	}
	out := make([]model.Symbol, 0, len(syms)+len(plt))
	out = append(out, syms...)
	for _, p := range plt {
		if !covered(p.Value, p.Value+p.Size) {
			out = append(out, p)
		}
	}
	slices.SortStableFunc(out, func(a, b model.Symbol) int {
		return cmp.Or(cmp.Compare(a.Value, b.Value), strings.Compare(a.Name, b.Name))
	})
	return out
}
