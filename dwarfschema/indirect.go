package dwarfschema

import (
	"crypto/sha256"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
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
	return (*Cache)(nil).LoadIndirect(path, id, opt)
}

// LoadIndirect is LoadIndirect(path, id, opt) through the cache: what the
// scan of an object with a build ID found is kept beside its schema
// (same directory, build-id and vprof build; IndirectVersion for its
// format), so that a second `vprof record` or `vprof report` of the same
// binary does not scan its code again. A nil Cache, or one without Dir,
// scans.
func (c *Cache) LoadIndirect(path, id string, opt Options) (*tailcall.Indirect, error) {
	f, ef, err := openPath(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if got := buildID(ef); got != id {
		return nil, fmt.Errorf("%s: build ID %q, not the recorded %q (rebuilt since)", path, got, id)
	}
	if c == nil || c.Dir == "" || id == "" {
		return loadIndirect(path, id, ef, opt)
	}
	name, opts := c.indirectFile(id, opt)
	body, err := readCacheFile(name, indirectMagic, IndirectVersion, 0, id, opts)
	if err == nil {
		in, derr := decodeIndirect(body)
		if derr == nil {
			return in, nil
		}
		err = derr
	}
	if !errors.Is(err, errNoCacheFile) && !errors.Is(err, errStale) {
		c.warn("ignoring indirect-call cache file %s: %v; scanning the code again", name, err)
	}
	in, err := loadIndirect(path, id, ef, opt)
	if err != nil {
		return nil, err
	}
	if werr := c.writeFile(name, indirectMagic, IndirectVersion, 0, id, opts, encodeIndirect(in)); werr != nil {
		c.warn("cannot cache the indirect calls of %s: %v", path, werr)
	}
	return in, nil
}

// IndirectVersion is the version of the indirect-call cache files (what
// scanIndirect finds and how encodeIndirect writes it): bump it when
// either changes.
const IndirectVersion = 1

// indirectMagic starts every indirect-call cache file.
const indirectMagic = "vprof indirect cache "

// indirectFile is the cache file of the scan of build-id id, and the
// options it depends on (the directories of separate debug files, whose
// symbol table it may use).
func (c *Cache) indirectFile(id string, opt Options) (name, opts string) {
	var b strings.Builder
	for _, d := range opt.DebugDirs {
		b.WriteString("debugdir=" + strconv.Quote(d) + "\n")
	}
	opts = b.String()
	h := sha256.Sum256([]byte(strconv.Itoa(IndirectVersion) + "\n" + opts))
	return filepath.Join(c.Dir, id+"-"+hex.EncodeToString(h[:8])+".indirect"), opts
}

// loadIndirect scans ef, the object at path with build ID id.
func loadIndirect(path, id string, ef *elf.File, opt Options) (*tailcall.Indirect, error) {
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

// encodeIndirect writes in compactly: a byte saying whether there is one
// (nil: an object without symbols), then Calls, Taken and Jumps, each
// its length and its addresses as varint differences to the one before
// (Jumps: return PC, callee to its return PC, tail).
func encodeIndirect(in *tailcall.Indirect) []byte {
	if in == nil {
		return []byte{0}
	}
	b := []byte{1}
	addrs := func(a []uint64) {
		b = binary.AppendUvarint(b, uint64(len(a)))
		var prev uint64
		for _, x := range a {
			b = binary.AppendVarint(b, int64(x-prev))
			prev = x
		}
	}
	addrs(in.Calls)
	addrs(in.Taken)
	b = binary.AppendUvarint(b, uint64(len(in.Jumps)))
	var prev uint64
	for _, j := range in.Jumps {
		b = binary.AppendVarint(b, int64(j.ReturnPC-prev))
		b = binary.AppendVarint(b, int64(j.Callee-j.ReturnPC))
		t := byte(0)
		if j.Tail {
			t = 1
		}
		b = append(b, t)
		prev = j.ReturnPC
	}
	return b
}

// decodeIndirect reads what encodeIndirect wrote.
func decodeIndirect(b []byte) (*tailcall.Indirect, error) {
	bad := func(what string) error { return fmt.Errorf("bad indirect-call data: %s", what) }
	if len(b) == 0 || b[0] > 1 {
		return nil, bad("no header byte")
	}
	if b[0] == 0 {
		if len(b) > 1 {
			return nil, bad("data after an empty scan")
		}
		return nil, nil
	}
	b = b[1:]
	varint := func() (int64, bool) {
		v, n := binary.Varint(b)
		if n <= 0 {
			return 0, false
		}
		b = b[n:]
		return v, true
	}
	count := func(size int) (int, bool) {
		v, n := binary.Uvarint(b)
		// Each element takes at least size bytes: a count beyond what is
		// left is damage, not a reason to allocate.
		if n <= 0 || v > uint64(len(b)-n)/uint64(size) {
			return 0, false
		}
		b = b[n:]
		return int(v), true
	}
	addrs := func(what string) ([]uint64, error) {
		n, ok := count(1)
		if !ok {
			return nil, bad(what + " count")
		}
		var a []uint64
		if n > 0 {
			a = make([]uint64, n)
		}
		var prev uint64
		for i := range a {
			d, ok := varint()
			if !ok {
				return nil, bad(what)
			}
			prev += uint64(d)
			a[i] = prev
		}
		return a, nil
	}
	in := &tailcall.Indirect{}
	var err error
	if in.Calls, err = addrs("calls"); err != nil {
		return nil, err
	}
	if in.Taken, err = addrs("taken"); err != nil {
		return nil, err
	}
	n, ok := count(3)
	if !ok {
		return nil, bad("jumps count")
	}
	if n > 0 {
		in.Jumps = make([]model.CallEdge, n)
	}
	var prev uint64
	for i := range in.Jumps {
		d, ok1 := varint()
		c, ok2 := varint()
		if !ok1 || !ok2 || len(b) == 0 || b[0] > 1 {
			return nil, bad("jumps")
		}
		prev += uint64(d)
		in.Jumps[i] = model.CallEdge{ReturnPC: prev, Callee: prev + uint64(c), Tail: b[0] == 1}
		b = b[1:]
	}
	if len(b) > 0 {
		return nil, bad("data after the jumps")
	}
	return in, nil
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
