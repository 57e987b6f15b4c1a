package unwind

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/go-delve/delve/pkg/dwarf/frame"
)

// RuleKind says how a register of the caller is recovered.
type RuleKind uint8

const (
	RuleUndefined RuleKind = iota // not recoverable (caller-saved, or end of stack for RIP)
	RuleSame                      // unchanged by this frame
	RuleOffset                    // saved in memory at CFA+Off
	RuleValOffset                 // the value is CFA+Off
	RuleRegister                  // the value is in register Reg
	RuleExpr                      // saved in memory at the address Expr computes (CFA pushed)
	RuleValExpr                   // the value is what Expr computes (CFA pushed)
	RuleCFAReg                    // CFA only: Reg + Off
	RuleCFAExpr                   // CFA only: Expr
)

// Rule is one column of a CFI row.
type Rule struct {
	Kind RuleKind
	Reg  uint8
	Expr uint16 // 1-based index into Row.exprs for RuleExpr/RuleValExpr/RuleCFAExpr
	Off  int32
}

// Row is the unwinding rule set at one PC: how to compute the CFA and the
// caller's registers.
type Row struct {
	CFA    Rule
	Regs   [NumRegs]Rule
	Signal bool // the frame of a signal handler trampoline ('S' augmentation)
	exprs  [][]byte
}

// Table holds the CFI of one object. It is not safe for concurrent use: the
// per-PC cache grows as the sampler meets new PCs.
type Table struct {
	Path  string
	fdes  frame.FrameDescriptionEntries // sorted by begin, link-time addresses
	cache map[uint64]int32              // link PC -> index in rows, -1 for no row
	rows  []Row
	// recent is a direct-mapped cache in front of cache: the few PCs a
	// program's hot loops return to are met at every sample, and a map
	// look-up per frame was most of a cache hit's cost (perf, the bench
	// at one thread: 2.4% of the tracer thread's CPU).
	recent [recentSlots]recentRow
	// Misses counts look-ups that ran the CFA program (cache misses).
	Misses int
}

// maxCache bounds the per-PC cache; past it the cache restarts (a program
// has far fewer distinct sampled PCs in practice).
const maxCache = 1 << 20

// recentSlots is the size of Table.recent (a power of two).
const recentSlots = 256

// recentRow is one slot of Table.recent: row+1 for link PC pc (0: empty,
// so that a zero Table has no entry; -1+1 for no row is stored as -1).
type recentRow struct {
	pc  uint64
	row int32
}

// recentSlot is pc's slot in Table.recent (a multiplicative hash: return
// addresses differ in their low bits).
func recentSlot(pc uint64) int { return int((pc * 0x9E3779B97F4A7C15) >> (64 - 8)) }

// Load reads the CFI of the ELF object at path.
func Load(path string) (*Table, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, fmt.Errorf("unwind: %w", err)
	}
	defer f.Close()
	t, err := New(f)
	if err != nil {
		return nil, fmt.Errorf("unwind: %s: %w", path, err)
	}
	t.Path = path
	return t, nil
}

// LoadBytes reads the CFI of an ELF image held in memory (the vDSO).
func LoadBytes(name string, image []byte) (*Table, error) {
	f, err := elf.NewFile(bytes.NewReader(image))
	if err != nil {
		return nil, fmt.Errorf("unwind: %s: %w", name, err)
	}
	for _, s := range f.Sections {
		if s.Type != elf.SHT_NOBITS && (s.Offset > uint64(len(image)) || s.Size > uint64(len(image))-s.Offset) {
			return nil, fmt.Errorf("unwind: %s: section %s lies outside the %d-byte image", name, s.Name, len(image))
		}
	}
	t, err := New(f)
	if err != nil {
		return nil, fmt.Errorf("unwind: %s: %w", name, err)
	}
	t.Path = name
	return t, nil
}

// maxSection bounds the CFI sections read (a corrupt header would make
// the reader allocate its size).
const maxSection = 1 << 30

// ErrNoCFI is returned by New for an object with neither .eh_frame nor
// .debug_frame.
var ErrNoCFI = errors.New("no .eh_frame or .debug_frame")

// New reads .eh_frame and .debug_frame of f. Entries of .eh_frame win where
// both describe the same range.
func New(f *elf.File) (t *Table, err error) {
	if f.Machine != elf.EM_X86_64 {
		return nil, fmt.Errorf("machine %v not supported (x86-64 only)", f.Machine)
	}
	// delve's parser panics on some malformed input: turn that into an error.
	defer func() {
		if r := recover(); r != nil {
			t, err = nil, fmt.Errorf("malformed call frame information: %v", r)
		}
	}()
	for _, s := range f.Sections {
		if (s.Name == ".eh_frame" || s.Name == ".debug_frame") && s.Size > maxSection {
			return nil, fmt.Errorf("%s of %d bytes is implausibly large", s.Name, s.Size)
		}
	}
	var fdes frame.FrameDescriptionEntries
	var errs []string
	found := false
	if s := f.Section(".eh_frame"); s != nil && s.Type != elf.SHT_NOBITS && s.Size > 0 {
		found = true
		data, err := s.Data()
		if err != nil {
			errs = append(errs, fmt.Sprintf(".eh_frame: %v", err))
		} else if fs, err := frame.Parse(data, binary.LittleEndian, 0, 8, s.Addr); err != nil {
			errs = append(errs, fmt.Sprintf(".eh_frame: %v", err))
		} else {
			fdes = fdes.Append(fs)
		}
	}
	if s := f.Section(".debug_frame"); s != nil && s.Type != elf.SHT_NOBITS && s.Size > 0 {
		found = true
		data, err := s.Data()
		if err != nil {
			errs = append(errs, fmt.Sprintf(".debug_frame: %v", err))
		} else if fs, err := frame.Parse(data, binary.LittleEndian, 0, 8, 0); err != nil {
			errs = append(errs, fmt.Sprintf(".debug_frame: %v", err))
		} else {
			fdes = fdes.Append(fs)
		}
	}
	if !found {
		return nil, ErrNoCFI
	}
	if len(fdes) == 0 && len(errs) > 0 {
		return nil, errors.New(strings.Join(errs, "; "))
	}
	// Drop empty FDEs: they would hide a real one starting at the same PC.
	out := fdes[:0]
	for _, e := range fdes {
		if e.End() > e.Begin() {
			out = append(out, e)
		}
	}
	return &Table{fdes: out, cache: map[uint64]int32{}}, nil
}

// Len is the number of FDEs.
func (t *Table) Len() int { return len(t.fdes) }

// Lookup returns the row for link-time address pc, or nil when no FDE
// covers it. The row is owned by the table and stays valid until the next
// Lookup that misses the cache. A cache hit does not allocate.
func (t *Table) Lookup(pc uint64) *Row {
	slot := &t.recent[recentSlot(pc)]
	if slot.pc == pc && slot.row != 0 {
		if slot.row < 0 {
			return nil
		}
		return &t.rows[slot.row-1]
	}
	i, ok := t.cache[pc]
	if !ok {
		t.Misses++
		if len(t.cache) >= maxCache {
			t.cache = map[uint64]int32{}
			t.rows = nil
			t.recent = [recentSlots]recentRow{}
		}
		i = -1
		if r, found := t.compute(pc); found {
			t.rows = append(t.rows, r)
			i = int32(len(t.rows) - 1)
		}
		t.cache[pc] = i
	}
	slot.pc, slot.row = pc, i+1
	if i < 0 {
		slot.row = -1
		return nil
	}
	return &t.rows[i]
}

func (t *Table) fde(pc uint64) *frame.FrameDescriptionEntry {
	i := sort.Search(len(t.fdes), func(i int) bool { return t.fdes[i].End() > pc })
	if i < len(t.fdes) && t.fdes[i].Cover(pc) {
		return t.fdes[i]
	}
	return nil
}

// compute runs the CFA program of the FDE covering pc (delve's
// interpreter) and compacts the result.
func (t *Table) compute(pc uint64) (row Row, ok bool) {
	fde := t.fde(pc)
	if fde == nil {
		return Row{}, false
	}
	defer func() {
		if r := recover(); r != nil {
			row, ok = Row{}, false
		}
	}()
	fc, err := fde.EstablishFrame(pc)
	if err != nil {
		return Row{}, false
	}
	row.Signal = fde.CIE != nil && strings.ContainsRune(fde.CIE.Augmentation, 'S')
	addExpr := func(e []byte) uint16 {
		row.exprs = append(row.exprs, e)
		return uint16(len(row.exprs))
	}
	switch fc.CFA.Rule {
	case frame.RuleCFA:
		if fc.CFA.Reg >= NumRegs {
			return Row{}, false
		}
		row.CFA = Rule{Kind: RuleCFAReg, Reg: uint8(fc.CFA.Reg), Off: int32(fc.CFA.Offset)}
	case frame.RuleExpression:
		row.CFA = Rule{Kind: RuleCFAExpr, Expr: addExpr(fc.CFA.Expression)}
	default:
		return Row{}, false
	}
	// Registers the CFI does not mention keep their value (gdb's
	// convention for x86-64), except the caller-saved ones, which are lost.
	for r := 0; r < NumRegs; r++ {
		if calleeSaved&(1<<r) != 0 {
			row.Regs[r] = Rule{Kind: RuleSame}
		}
	}
	ra := fc.RetAddrReg
	for r, dr := range fc.Regs {
		col := int(r)
		if r == ra {
			col = RIP
		} else if r >= NumRegs || r == RIP {
			continue
		}
		var rule Rule
		switch dr.Rule {
		case frame.RuleUndefined:
			if calleeSaved&(1<<col) != 0 {
				// delve turns DW_CFA_restore into "undefined" because it
				// does not keep the CIE's initial rules; x86-64 CIEs give
				// none for callee-saved registers, so "same" is right.
				rule = Rule{Kind: RuleSame}
			} else {
				rule = Rule{Kind: RuleUndefined}
			}
		case frame.RuleSameVal:
			rule = Rule{Kind: RuleSame}
		case frame.RuleOffset:
			rule = Rule{Kind: RuleOffset, Off: int32(dr.Offset)}
		case frame.RuleValOffset:
			rule = Rule{Kind: RuleValOffset, Off: int32(dr.Offset)}
		case frame.RuleRegister:
			if dr.Reg >= NumRegs {
				continue
			}
			rule = Rule{Kind: RuleRegister, Reg: uint8(dr.Reg)}
		case frame.RuleExpression:
			rule = Rule{Kind: RuleExpr, Expr: addExpr(dr.Expression)}
		case frame.RuleValExpression:
			rule = Rule{Kind: RuleValExpr, Expr: addExpr(dr.Expression)}
		default:
			continue
		}
		row.Regs[col] = rule
	}
	return row, true
}

// ComputeCFA computes the canonical frame address of the frame this row
// describes, from that frame's registers.
func (r *Row) ComputeCFA(regs *Regs, mem Memory) (uint64, bool) {
	switch r.CFA.Kind {
	case RuleCFAReg:
		v, ok := regs.Get(int(r.CFA.Reg))
		return v + uint64(int64(r.CFA.Off)), ok
	case RuleCFAExpr:
		var res Result
		ctx := Context{Regs: regs, Mem: mem}
		if Eval(r.exprs[r.CFA.Expr-1], &ctx, &res) != nil || res.N != 1 {
			return 0, false
		}
		p := res.Pieces[0]
		switch p.Kind {
		case PieceMem: // the expression computes the CFA itself
			return p.Addr, true
		case PieceValue:
			return p.Val, true
		}
	}
	return 0, false
}

// Step computes the caller's registers from the registers of the frame
// this row describes, whose CFA is cfa. Registers the row cannot recover
// are left invalid in caller. It returns false when the return address is
// unknown (the outermost frame) or unreadable.
func (r *Row) Step(regs *Regs, cfa uint64, mem Memory, caller *Regs) bool {
	caller.Valid, caller.Weak = 0, 0
	for col := 0; col < NumRegs; col++ {
		rule := r.Regs[col]
		var v uint64
		ok := false
		switch rule.Kind {
		case RuleUndefined:
			if col != RIP && (regs.Valid|regs.Weak)&(1<<uint(col)) != 0 {
				caller.R[col] = regs.R[col]
				caller.Weak |= 1 << uint(col)
			}
		case RuleSame:
			v, ok = regs.Get(col)
		case RuleOffset:
			v, ok = mem.Read(cfa+uint64(int64(rule.Off)), 8)
		case RuleValOffset:
			v, ok = cfa+uint64(int64(rule.Off)), true
		case RuleRegister:
			v, ok = regs.Get(int(rule.Reg))
		case RuleExpr, RuleValExpr:
			var res Result
			ctx := Context{Regs: regs, Mem: mem, CFA: cfa, HasCFA: true}
			if Eval(r.exprs[rule.Expr-1], &ctx, &res, cfa) == nil && res.N == 1 {
				p := res.Pieces[0]
				addr := p.Addr
				if p.Kind == PieceValue {
					addr = p.Val
				}
				if p.Kind == PieceMem || p.Kind == PieceValue {
					if rule.Kind == RuleValExpr {
						v, ok = addr, true
					} else {
						v, ok = mem.Read(addr, 8)
					}
				}
			}
		}
		if ok {
			caller.R[col] = v
			caller.Valid |= 1 << uint(col)
		}
	}
	// The caller's stack pointer is the CFA unless a rule says otherwise
	// (signal frames restore it from the saved context).
	if r.Regs[RSP].Kind == RuleSame || r.Regs[RSP].Kind == RuleUndefined {
		caller.Set(RSP, cfa)
	}
	return caller.Valid&(1<<RIP) != 0
}

// Bias returns the load bias of the object f mapped at runtime address
// start from file offset off (a line of /proc/PID/maps): runtime address
// minus link-time address. It is false when no PT_LOAD segment holds off.
func Bias(f *elf.File, start, off uint64) (uint64, bool) {
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD || p.Filesz == 0 {
			continue
		}
		if off >= p.Off&^4095 && off < p.Off+p.Filesz {
			// File offset off is at link address p.Vaddr + (off - p.Off).
			return start - (p.Vaddr + off - p.Off), true
		}
	}
	return 0, false
}
