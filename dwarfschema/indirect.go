package dwarfschema

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/arch/x86/x86asm"

	"github.com/vprof/vprof/dwarfschema/cfg"
	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/tailcall"
)

// An indirect call's record names no callee, so the frames that tail calls
// removed under it cannot be restored from the records (method.md §3). Its
// callee is a function whose address the program takes, though: the
// readers restore the chain from the one such function that leads to the
// frame under the call (runtime/tailcall, decision D85). This file finds,
// in the object's code and data, the indirect calls, the functions whose
// address is taken and the direct jumps to a function's entry.

// LoadIndirect reads tailcall.Indirect from the object at path, if its
// build ID is id. An object without symbols gives nil, nil: it has no
// function entries to tell.
func LoadIndirect(path, id string, opt Options) (*tailcall.Indirect, error) {
	f, ef, err := openPath(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if got := buildID(ef); got != id {
		return nil, fmt.Errorf("%s: build ID %q, not the recorded %q (rebuilt since)", path, got, id)
	}
	syms, err := readSymbols(ef)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if !hasSection(ef, ".symtab") {
		// Stripped: the separate debug file has the full symbol table.
		if dw, _, err := findDWARF(path, ef, id, opt.DebugDirs); err == nil && dw != nil {
			if ds, err := readSymbols(dw.ef); err == nil && len(ds) > len(syms) {
				syms = ds
			}
			dw.close()
		}
	}
	if len(syms) == 0 {
		return nil, nil
	}
	return scanIndirect(ef, syms)
}

// scanIndirect scans ef's code and data, whose functions start at the
// values of syms.
func scanIndirect(ef *elf.File, syms []model.Symbol) (*tailcall.Indirect, error) {
	var entries []uint64
	for _, s := range syms {
		entries = append(entries, s.Value)
	}
	slices.Sort(entries)
	entries = slices.Compact(entries)
	isEntry := func(a uint64) bool {
		_, ok := slices.BinarySearch(entries, a)
		return ok
	}
	in := &tailcall.Indirect{}
	taken := map[uint64]bool{}
	take := func(a uint64) {
		if isEntry(a) {
			taken[a] = true
		}
	}
	for _, sec := range ef.Sections {
		if sec.Flags&elf.SHF_ALLOC == 0 || sec.Type == elf.SHT_NOBITS || sec.Size == 0 {
			continue
		}
		switch {
		case sec.Flags&elf.SHF_EXECINSTR != 0:
			b, err := sec.Data()
			if err != nil {
				return nil, fmt.Errorf("reading %s: %w", sec.Name, err)
			}
			scanCode(in, sec.Addr, b, entries, isEntry, take)
		case sec.Type == elf.SHT_RELA:
			if err := scanRela(ef, sec, take); err != nil {
				return nil, err
			}
		case isAddrData(sec):
			b, err := sec.Data()
			if err != nil {
				return nil, fmt.Errorf("reading %s: %w", sec.Name, err)
			}
			// Pointers are 8-byte aligned unless packed: every 4th byte.
			for i := 0; i+8 <= len(b); i += 4 {
				take(binary.LittleEndian.Uint64(b[i:]))
			}
		}
	}
	// Another object may take the address of any function it can bind to.
	if dyn, err := ef.DynamicSymbols(); err == nil {
		for _, s := range dyn {
			t := elf.ST_TYPE(s.Info)
			if (t == elf.STT_FUNC || t == elf.STT_GNU_IFUNC) && s.Section != elf.SHN_UNDEF &&
				elf.ST_BIND(s.Info) != elf.STB_LOCAL {
				take(s.Value)
			}
		}
	}
	for a := range taken {
		in.Taken = append(in.Taken, a)
	}
	slices.Sort(in.Taken)
	return in, nil
}

// isAddrData reports whether sec is allocated data that may hold
// function addresses: not code, and not the unwinding tables, whose
// addresses are the functions' ranges, not pointers to call through.
func isAddrData(sec *elf.Section) bool {
	switch sec.Type {
	case elf.SHT_PROGBITS, elf.SHT_INIT_ARRAY, elf.SHT_FINI_ARRAY, elf.SHT_PREINIT_ARRAY:
	default:
		return false
	}
	return sec.Name != ".eh_frame" && sec.Name != ".eh_frame_hdr" && sec.Name != ".gcc_except_table" &&
		!strings.HasPrefix(sec.Name, ".debug_") && !strings.HasPrefix(sec.Name, ".note")
}

// scanCode decodes the code at addr (linearly, starting again at each
// function entry that an instruction would cross) for its indirect calls,
// direct jumps to function entries, and operands that are a function's
// entry.
func scanCode(in *tailcall.Indirect, addr uint64, b []byte, entries []uint64, isEntry func(uint64) bool, take func(uint64)) {
	end := addr + uint64(len(b))
	k, _ := slices.BinarySearch(entries, addr+1) // the first entry above pc
	var inst x86asm.Inst
	for pc := addr; pc < end; {
		next := pc + 1
		if err := cfg.DecodeInto(&inst, b[pc-addr:]); err == nil && inst.Len > 0 {
			next = pc + uint64(inst.Len)
			codeRefs(in, &inst, pc, next, isEntry, take)
		}
		if k < len(entries) && entries[k] < next {
			next = entries[k]
		}
		pc = next
		for k < len(entries) && entries[k] <= pc {
			k++
		}
	}
}

// codeRefs records what inst, at pc with next after it, tells.
func codeRefs(in *tailcall.Indirect, inst *x86asm.Inst, pc, next uint64, isEntry func(uint64) bool, take func(uint64)) {
	switch inst.Op {
	case x86asm.CALL:
		if _, ok := inst.Args[0].(x86asm.Rel); !ok {
			in.Calls = append(in.Calls, next)
		}
		return
	case x86asm.JMP, x86asm.JA, x86asm.JAE, x86asm.JB, x86asm.JBE, x86asm.JE, x86asm.JG, x86asm.JGE,
		x86asm.JL, x86asm.JLE, x86asm.JNE, x86asm.JNO, x86asm.JNP, x86asm.JNS, x86asm.JO, x86asm.JP, x86asm.JS:
		if r, ok := inst.Args[0].(x86asm.Rel); ok {
			if t := next + uint64(int64(r)); isEntry(t) {
				in.Jumps = append(in.Jumps, model.CallEdge{ReturnPC: next, Callee: t, Tail: true})
			}
		}
		return
	}
	for _, a := range inst.Args {
		switch a := a.(type) {
		case nil:
			return
		case x86asm.Mem:
			switch {
			case a.Base == x86asm.RIP:
				take(next + uint64(int64(int32(a.Disp))))
			case a.Base == 0 && a.Index == 0:
				take(uint64(int64(int32(a.Disp))))
			}
		case x86asm.Imm:
			take(uint64(a))
		}
	}
}

// scanRela takes the addresses that the dynamic relocations of sec
// write: a RELATIVE relocation's addend, a symbol's value plus addend.
func scanRela(ef *elf.File, sec *elf.Section, take func(uint64)) error {
	b, err := sec.Data()
	if err != nil {
		return fmt.Errorf("reading %s: %w", sec.Name, err)
	}
	var dyn []elf.Symbol // Go drops the null symbol: index i is dyn[i-1]
	if l := int(sec.Link); l > 0 && l < len(ef.Sections) {
		if ef.Sections[l].Type == elf.SHT_DYNSYM {
			dyn, _ = ef.DynamicSymbols()
		} else {
			dyn, _ = ef.Symbols()
		}
	}
	for i := 0; i+24 <= len(b); i += 24 {
		info := binary.LittleEndian.Uint64(b[i+8:])
		addend := binary.LittleEndian.Uint64(b[i+16:])
		switch typ, sym := elf.R_X86_64(info&0xffffffff), info>>32; typ {
		case elf.R_X86_64_RELATIVE, elf.R_X86_64_IRELATIVE:
			take(addend)
		case elf.R_X86_64_64, elf.R_X86_64_GLOB_DAT, elf.R_X86_64_JMP_SLOT:
			if sym > 0 && sym <= uint64(len(dyn)) && dyn[sym-1].Section != elf.SHN_UNDEF {
				take(dyn[sym-1].Value + addend)
			}
		}
	}
	return nil
}
