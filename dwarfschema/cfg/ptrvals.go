package cfg

import (
	"github.com/go-delve/delve/pkg/dwarf/op"
	"golang.org/x/arch/x86/x86asm"

	"github.com/vprof/vprof/runtime/dwarfexpr"
)

// PtrLoc is one location of a pointer variable that has fields (Fields),
// as its DWARF expression over [Lo, Hi): what ptrFieldOps evaluates
// symbolically to find the registers holding the pointer's value.
type PtrLoc struct {
	Var    int32
	Lo, Hi uint64
	Expr   []byte
}

// A symVal is a value in the terms of one block: node + off, node being
// the value a register had at the block's start (0..15), the CFA (symCFA),
// zero (symAbs, for constants) or an 8-byte load (symLoads on, interned
// in Analyzer.loads). symUnknown equals nothing, itself included.
type symVal struct {
	node int32
	off  int64
}

const (
	symUnknown = -1
	symCFA     = 16
	symAbs     = 17
	symLoads   = 18
)

// loadTable interns the 8-byte loads of the current memory epoch: two
// loads from the same address with no store between (the same epoch)
// read the same value, and get the same node. An open-addressed table
// whose entries of earlier epochs count as free (the epoch only grows, so
// they are never looked up again): a store costs nothing, where a map
// keyed by epoch grew with every load of the function and was dropped and
// grown again (a sixth of ptrFieldOps' time on redis-server and most of
// its allocations).
type loadTable struct {
	ents  []loadEnt // a power of two long
	epoch int32     // the epoch of the live entries
	live  int       // entries of epoch
	next  int32     // the next node, from symLoads: unique within a function
}

type loadEnt struct {
	node, epoch int32
	off         int64
	val         int32
}

func newLoadTable(n int) *loadTable {
	t := &loadTable{ents: make([]loadEnt, n), epoch: -1}
	for i := range t.ents {
		t.ents[i].epoch = -1
	}
	return t
}

// intern returns the node of a load from node+off at epoch (epochs only
// grow between calls).
func (t *loadTable) intern(node int32, off int64, epoch int32) int32 {
	if epoch != t.epoch {
		t.epoch, t.live = epoch, 0
	}
	if 2*(t.live+1) > len(t.ents) {
		t.grow()
	}
	mask := uint64(len(t.ents) - 1)
	h := loadHash(node, off) & mask
	for {
		e := &t.ents[h]
		if e.epoch != epoch {
			// Free: a key of this epoch is found before any free entry
			// (entries only become free when the epoch moves on).
			*e = loadEnt{node: node, epoch: epoch, off: off, val: symLoads + t.next}
			t.next++
			t.live++
			return e.val
		}
		if e.node == node && e.off == off {
			return e.val
		}
		h = (h + 1) & mask
	}
}

func loadHash(node int32, off int64) uint64 {
	h := (uint64(off) ^ uint64(uint32(node))<<40) * 0x9e3779b97f4a7c15
	return h ^ h>>32
}

// grow doubles the table, keeping the live entries.
func (t *loadTable) grow() {
	old := t.ents
	n := newLoadTable(2 * len(old))
	mask := uint64(len(n.ents) - 1)
	for _, e := range old {
		if e.epoch != t.epoch {
			continue
		}
		h := loadHash(e.node, e.off) & mask
		for n.ents[h].epoch == t.epoch {
			h = (h + 1) & mask
		}
		n.ents[h] = e
	}
	t.ents = n.ents
}

var unknownVal = symVal{node: symUnknown}

// ptrFieldOps finds, block by block, the registers that hold a pointer
// variable's value where no location says so: gcc often keeps a pointer
// local in memory (a frame slot, or a field of the struct it was loaded
// from: `receiver` at [[rbp]+16] while `receiver = clientnode->value`)
// and its DWARF location names that memory, while the code dereferences
// the register it was loaded into. A small symbolic evaluation of the
// block (register copies, 8-byte loads, lea and constant adds; a store or
// a call ends what a load is known to hold) gives each register a value,
// and each location of a pointer with fields, active at an instruction,
// is evaluated the same way: a memory operand [reg+disp] whose register
// holds the pointer's value reads or writes field (pointer, disp), like
// an exact location in fieldOps. Only the pointer's own code counts (a
// location active at that instruction), so a field is tagged where its
// pointer can be read at sampling time.
func (a *Analyzer) ptrFieldOps() {
	fs, pls := a.in.Fields, a.in.PtrLocs
	if fs == nil || fs.n == 0 || len(pls) == 0 {
		return
	}
	g := a.g
	// The epoch only grows, from function to function, so the interned
	// loads of earlier epochs are never found again: the table is never
	// cleared, but where the epoch starts again.
	if a.loads == nil || a.epoch > 1<<30 {
		a.loads = newLoadTable(64)
		a.epoch = 0
	}
	a.loads.next = 0
	epoch := a.epoch
	var regs [16]symVal
	frame := a.frameRegs(&epoch)
	active := a.ptrActive[:0]
	for b := range g.Blocks {
		blk := &g.Blocks[b]
		// The pointer locations that overlap the block.
		active = active[:0]
		for k := range pls {
			if pls[k].Lo < blk.End && pls[k].Hi > blk.Start {
				active = append(active, int32(k))
			}
		}
		if len(active) == 0 {
			continue
		}
		epoch++ // a new block: no load of another block is known equal
		for c := range regs {
			regs[c] = symVal{node: int32(c)}
			if frame != nil && frame[b][c].node == symCFA {
				regs[c] = frame[b][c]
			}
		}
		for i := int(blk.First); i < int(blk.Last); i++ {
			in := &g.Insts[i]
			u := &a.uops[i]
			if u.gsrc < 0 && u.gdst < 0 && in.Op != x86asm.LEA {
				a.matchField(i, &regs, active, epoch)
			}
			// Then the instruction's effect on the registers and memory.
			a.symStep(i, &regs, &epoch)
		}
	}
	a.ptrActive = active
	a.epoch = epoch
}

// matchField looks for a memory operand of instruction i whose base
// register holds the value of a pointer located at i, and makes it a
// read or write of the field at its displacement.
func (a *Analyzer) matchField(i int, regs *[16]symVal, active []int32, epoch int32) {
	in := &a.g.Insts[i]
	for ai, x := range in.Args {
		if x == nil {
			break
		}
		m, ok := x.(x86asm.Mem)
		if !ok {
			continue
		}
		if m.Index != 0 || m.Segment != 0 || m.Base == 0 || m.Base == x86asm.RIP {
			return
		}
		addr := a.memAddr(i, regs, m)
		if addr.node == symUnknown {
			return
		}
		pc := in.PC
		for _, k := range active {
			pl := &a.in.PtrLocs[k]
			if pc < pl.Lo || pc >= pl.Hi {
				continue
			}
			// The operand's address is the pointer's value plus the
			// field's offset, whichever register it is formed from: an
			// inlined function's pointer to its caller's local is the
			// local's frame address, and gcc reads the fields at rsp+k
			// (method.md §2, D357).
			v := a.evalLoc(i, regs, pl.Expr, epoch)
			if v.node != addr.node || addr.off-v.off != int64(int32(addr.off-v.off)) {
				continue
			}
			fv, ok := a.in.Fields.find(pl.Var, addr.off-v.off)
			if !ok {
				continue
			}
			d := a.denseOf(fv)
			u := &a.uops[i]
			write := ai == 0 && u.class != cCmp && u.class != cJrcxz && u.class != cPush && u.class != cJmp && u.class != cCall
			if !write || u.class != cMove && u.class != cMoveF {
				u.gsrc = d
			}
			if write {
				u.gdst = d
			}
			return
		}
		return // one memory operand per instruction
	}
}

// frameRegs returns, per block, the frame addresses (symCFA values) the
// registers other than rsp and rbp hold at its start on every path that
// reaches it (a forward fixpoint over the blocks, a register known where
// all its predecessors agree), nil when no block has one. A pointer to a
// local copied into a callee-saved register (`mov %rsp,%rbx`, `lea
// 0x70(%rsp),%r13`) in one block is the pointer an inlined function's
// location names in the blocks after it, where the fields are read at
// rsp+k (D357).
func (a *Analyzer) frameRegs(epoch *int32) [][16]symVal {
	g := a.g
	nb := len(g.Blocks)
	// A quick look first: no register gets a frame address but from an
	// lea or mov of rsp or of a frame pointer.
	any := false
	for i := range g.Insts {
		in := &g.Insts[i].Inst
		if in.Op != x86asm.LEA && in.Op != x86asm.MOV {
			continue
		}
		switch x := in.Args[1].(type) {
		case x86asm.Mem:
			any = in.Op == x86asm.LEA && (x.Base == x86asm.RSP || x.Base == x86asm.RBP)
		case x86asm.Reg:
			any = x == x86asm.RSP || x == x86asm.RBP
		}
		if any {
			break
		}
	}
	if !any {
		return nil
	}
	const unvisited = symUnknown - 1
	in := a.frameIn[:0]
	for range nb {
		in = append(in, [16]symVal{})
	}
	a.frameIn = in
	for b := range in {
		for c := range in[b] {
			in[b][c] = symVal{node: unvisited}
		}
	}
	// Only entries start known (nothing held); a block no entry reaches
	// (padding that falls into real code) stays unvisited, as in stackSim.
	for _, r := range g.Roots[:g.Entries] {
		for c := range in[r] {
			in[r][c] = unknownVal
		}
	}
	var regs [16]symVal
	found := false
	for changed := true; changed; {
		changed = false
		for _, b := range g.rpo {
			if in[b][0].node == unvisited {
				continue
			}
			*epoch++
			for c := range regs {
				regs[c] = symVal{node: int32(c)}
				if in[b][c].node == symCFA {
					regs[c] = in[b][c]
				}
			}
			blk := &g.Blocks[b]
			for i := int(blk.First); i < int(blk.Last); i++ {
				a.symStep(i, &regs, epoch)
			}
			for c := range regs {
				if c == cellRSP || c == cellRBP || regs[c].node != symCFA {
					regs[c] = unknownVal
				} else {
					found = true
				}
			}
			for _, s := range blk.Succs {
				for c := range regs {
					switch old := in[s][c]; {
					case old == regs[c] || old.node == symUnknown:
					case old.node == unvisited:
						in[s][c], changed = regs[c], true
					default:
						in[s][c], changed = unknownVal, true
					}
				}
			}
		}
	}
	if !found {
		return nil
	}
	return in
}

// regVal is the value of register cell c before instruction i: rsp and,
// where it is a frame pointer, rbp from the stack simulation.
func (a *Analyzer) regVal(i int, regs *[16]symVal, c int16) symVal {
	switch {
	case c < 0 || c >= 16:
		return unknownVal
	case c == cellRSP:
		if a.sp[i] == unknownSP {
			return unknownVal
		}
		return symVal{symCFA, int64(a.sp[i])}
	case c == cellRBP && a.fp[i] != unknownSP:
		return symVal{symCFA, int64(a.fp[i])}
	}
	return regs[c]
}

// load interns an 8-byte load from addr at epoch.
func (a *Analyzer) load(addr symVal, epoch int32) symVal {
	if addr.node == symUnknown {
		return unknownVal
	}
	return symVal{node: a.loads.intern(addr.node, addr.off, epoch)}
}

// memAddr is the address of memory operand m at instruction i.
func (a *Analyzer) memAddr(i int, regs *[16]symVal, m x86asm.Mem) symVal {
	if m.Index != 0 || m.Segment != 0 {
		return unknownVal
	}
	in := &a.g.Insts[i]
	switch m.Base {
	case 0:
		return symVal{symAbs, m.Disp}
	case x86asm.RIP:
		return symVal{symAbs, int64(in.PC+uint64(in.Len)) + m.Disp}
	}
	v := a.regVal(i, regs, cellOf(m.Base))
	if v.node == symUnknown || canon(m.Base) != m.Base {
		return unknownVal // a 32-bit address register: not a pointer
	}
	v.off += m.Disp
	return v
}

// symStep applies instruction i to the block's register values; an
// instruction that may write memory starts a new epoch.
func (a *Analyzer) symStep(i int, regs *[16]symVal, epoch *int32) {
	in := &a.g.Insts[i]
	u := &a.uops[i]
	dst, _ := in.Args[0].(x86asm.Reg)
	full := dst >= x86asm.RAX && dst <= x86asm.R15
	nv := unknownVal
	switch {
	case u.class == cMove && in.Op == x86asm.MOV && full:
		switch s := in.Args[1].(type) {
		case x86asm.Reg:
			if s >= x86asm.RAX && s <= x86asm.R15 {
				nv = a.regVal(i, regs, cellOf(s))
			}
		case x86asm.Mem:
			nv = a.load(a.memAddr(i, regs, s), *epoch)
		case x86asm.Imm:
			nv = symVal{symAbs, int64(s)}
		}
	case in.Op == x86asm.LEA && full:
		if m, ok := in.Args[1].(x86asm.Mem); ok && m.Base != x86asm.RIP && m.Base != 0 {
			nv = a.memAddr(i, regs, m)
		}
	case (in.Op == x86asm.ADD || in.Op == x86asm.SUB) && full:
		if imm, ok := in.Args[1].(x86asm.Imm); ok {
			nv = a.regVal(i, regs, cellOf(dst))
			if nv.node != symUnknown {
				if in.Op == x86asm.SUB {
					nv.off -= int64(imm)
				} else {
					nv.off += int64(imm)
				}
			}
		}
	case u.class == cPop && full && a.sp[i] != unknownSP:
		nv = a.load(symVal{symCFA, int64(a.sp[i])}, *epoch)
	}
	// Memory: anything that may store ends what earlier loads hold.
	switch u.class {
	case cCall, cPush, cString, cSyscall:
		*epoch++
	case cCmp, cJcc, cJrcxz, cJmp, cRet, cNop, cFlagsConst, cStrCmp, cMulDiv, cCdq, cCbw, cLeave:
	default:
		if _, ok := in.Args[0].(x86asm.Mem); ok {
			*epoch++
		}
	}
	// Registers: the written ones get nv (the first destination) or
	// become unknown.
	set := func(c int16, v symVal) {
		if c >= 0 && c < 16 {
			regs[c] = v
		}
	}
	switch u.class {
	case cCall:
		for _, c := range callerSaved {
			regs[c] = unknownVal
		}
	case cClobber:
		for _, c := range [...]int16{cellRAX, cellRCX, cellRDX, cellRBX} {
			regs[c] = unknownVal
		}
	case cSyscall:
		for _, c := range [...]int16{cellRAX, cellRCX, cellR11} {
			regs[c] = unknownVal
		}
	case cString:
		for _, c := range [...]int16{cellRSI, cellRDI, cellRCX, cellRAX} {
			regs[c] = unknownVal
		}
	default:
		if u.dst >= 0 && u.dst < 16 {
			set(u.dst, nv)
		}
		set(u.dst2, unknownVal)
	}
}

// evalLoc evaluates location expression e symbolically before instruction
// i: the pointer's value. A memory location (no DW_OP_stack_value) is a
// load from the computed address; a register location is the register's
// value. Pieces, entry values and anything else give unknownVal.
func (a *Analyzer) evalLoc(i int, regs *[16]symVal, e []byte, epoch int32) symVal {
	var stack [8]symVal
	n := 0
	push := func(v symVal) bool {
		if n == len(stack) {
			return false
		}
		stack[n] = v
		n++
		return true
	}
	value := false
	for len(e) > 0 {
		o, rest, err := dwarfexpr.Next(e)
		if err != nil {
			return unknownVal
		}
		e = rest
		c := o.Code
		switch {
		case isRegOp(c):
			if n != 0 || len(e) != 0 {
				return unknownVal
			}
			r := dwarfToCell(int(o.U))
			if r < 0 || r >= 16 {
				return unknownVal
			}
			return a.regVal(i, regs, int16(r))
		case isBregOp(c):
			r := dwarfToCell(int(o.U))
			if r < 0 || r >= 16 {
				return unknownVal
			}
			v := a.regVal(i, regs, int16(r))
			if v.node == symUnknown {
				return unknownVal
			}
			v.off += o.S
			if !push(v) {
				return unknownVal
			}
		case c == op.DW_OP_fbreg:
			fb := a.in.FrameBase
			var v symVal
			switch fb.Kind {
			case FrameCFA:
				v = symVal{symCFA, o.S}
			case FrameReg:
				r := dwarfToCell(int(fb.Reg))
				if r < 0 || r >= 16 {
					return unknownVal
				}
				v = a.regVal(i, regs, int16(r))
				v.off += fb.Off + o.S
			default:
				return unknownVal
			}
			if v.node == symUnknown || !push(v) {
				return unknownVal
			}
		case c == op.DW_OP_deref:
			if n == 0 {
				return unknownVal
			}
			stack[n-1] = a.load(stack[n-1], epoch)
			if stack[n-1].node == symUnknown {
				return unknownVal
			}
		case c == op.DW_OP_plus_uconst:
			if n == 0 {
				return unknownVal
			}
			stack[n-1].off += int64(o.U)
		case c == op.DW_OP_plus || c == op.DW_OP_minus:
			// Only a constant added to (or taken from) a value.
			if n < 2 || stack[n-1].node != symAbs {
				return unknownVal
			}
			k := stack[n-1].off
			n--
			if c == op.DW_OP_minus {
				k = -k
			}
			stack[n-1].off += k
		case c == op.DW_OP_stack_value:
			value = true
			if len(e) != 0 {
				return unknownVal
			}
		default:
			if k, ok := o.Constant(); ok {
				if !push(symVal{symAbs, k}) {
					return unknownVal
				}
				continue
			}
			return unknownVal // pieces, entry values, other operations
		}
	}
	if n != 1 {
		return unknownVal
	}
	if value {
		return stack[0]
	}
	return a.load(stack[0], epoch)
}
