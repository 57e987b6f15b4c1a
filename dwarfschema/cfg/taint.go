package cfg

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"sort"

	"golang.org/x/arch/x86/x86asm"
)

// LocKind says where a variable lives over a PC range, in the terms the
// dataflow matches against instruction operands.
type LocKind uint8

const (
	InReg        LocKind = iota + 1 // in DWARF register Reg
	InDerived                       // computed from register Reg (DW_OP_bregN ... DW_OP_stack_value)
	InFrameSlot                     // memory at frame base + Off (see FrameBaseRule)
	InCFASlot                       // memory at CFA + Off
	InRegSlot                       // memory at register Reg (rsp or rbp) + Off
	AtAddr                          // memory at [Off, Off+Size), at any PC (globals, statics)
	InEntryValue                    // the value register Reg had at function entry
)

// VarLoc is one location of variable Var (an opaque number of the
// caller's) over [Lo, Hi). Size is the value's size in bytes.
type VarLoc struct {
	Var    int32
	Lo, Hi uint64
	Kind   LocKind
	Reg    int16
	Off    int64
	Size   int32
}

// CallSite is a DWARF call-site record (DW_TAG_call_site): the call whose
// return address is ReturnPC and what is known of its arguments.
type CallSite struct {
	ReturnPC uint64
	Params   []CallParam
	// Callee is the signature of the called function (DW_AT_call_origin),
	// if known.
	Callee *Signature
}

// CallParam is one DW_TAG_call_site_parameter: where the argument is
// passed (DW_AT_location) and what its value was computed from
// (DW_AT_call_value), both as ExprRefs.
type CallParam struct {
	Loc, Value []ExprRef
}

// Tags are the method's variable tags (same bits as model.Tags).
type Tags uint8

const (
	TagLoop Tags = 1 << iota // induction variable: updated in a loop and used in its exit test
	TagCond                  // read by a conditional branch, select or switch
	TagArgs                  // passed to a call
	// TagStored: the function's own code writes into a place where the
	// variable lives (not a model tag: dwarfschema keeps the fields of a
	// struct local only where the function stores them, method.md §2).
	TagStored
	// TagCounter: updated from itself in the own blocks of a loop whose
	// exits test no variable that the loop updates (not a model tag:
	// dwarfschema makes it TagLoop for an integer local, method.md §2, D96).
	TagCounter
	// TagRead: an instruction of the function reads or writes the
	// variable (a global, or a field at its offset: not a model tag;
	// dwarfschema chooses a struct's sampled fields by it, method.md §2,
	// D130). Reported only where Input.Reads asks for it.
	TagRead
)

// VarTags is the result for one variable.
type VarTags struct {
	Var  int32
	Tags Tags
}

// Globals are the variables at fixed addresses, shared by every function
// of an object: a memory operand whose address falls in one reads or
// writes it, at any PC.
type Globals struct{ ents []globalEnt }

type globalEnt struct {
	lo, hi uint64
	v      int32
}

// NewGlobals indexes the AtAddr entries of locs.
func NewGlobals(locs []VarLoc) *Globals {
	g := &Globals{}
	for _, l := range locs {
		if l.Kind == AtAddr {
			g.ents = append(g.ents, globalEnt{uint64(l.Off), uint64(l.Off) + uint64(max(l.Size, 1)), l.Var})
		}
	}
	// An enclosing entry (a struct) before the entries inside it (its
	// fields): find then names the innermost one.
	slices.SortFunc(g.ents, func(a, b globalEnt) int {
		if a.lo != b.lo {
			return cmp.Compare(a.lo, b.lo)
		}
		return cmp.Compare(b.hi, a.hi)
	})
	return g
}

func (g *Globals) find(addr uint64) (int32, bool) {
	if g == nil {
		return 0, false
	}
	i := sort.Search(len(g.ents), func(i int) bool { return g.ents[i].lo > addr }) - 1
	// Nested entries (a static inside a larger object) are rare; look back
	// a little for one that still covers addr.
	for k := i; k >= 0 && k > i-4; k-- {
		if addr < g.ents[k].hi {
			return g.ents[k].v, true
		}
	}
	return 0, false
}

// Input is what Analyze knows of one function besides its code.
type Input struct {
	Locs      []VarLoc   // locations of the variables whose ranges lie in this code
	Calls     []CallSite // call-site records, sorted by ReturnPC (may hold other functions' too)
	FrameBase FrameBaseRule
	Globals   *Globals
	// Sigs gives the signatures of the object's functions by entry
	// address, for direct calls.
	Sigs *Signatures
	// Fields are the variables behind pointers: the memory at a pointer
	// variable's value + an offset. A memory operand [reg+disp] where reg
	// holds pointer variable P (an exact location of P) reads or writes
	// field (P, disp), which is then tagged like a global.
	Fields *Fields
	// PtrLocs are the locations of the pointers with Fields in this
	// code, as expressions: a register that holds such a pointer's value
	// where no location says so (a copy, a load of the pointer from the
	// memory its location names) is found from them (ptrFieldOps).
	PtrLocs []PtrLoc
	// Reads asks for TagRead: the variables the code reads or writes
	// through memory operands (globals and fields), tagged or not.
	Reads bool
}

// FieldKey names a field: pointer variable Ptr, byte offset Off.
type FieldKey struct {
	Ptr int32
	Off int64
}

const (
	unknownSP = math.MinInt32     // stack offset not known
	unvisited = math.MinInt32 + 1 // block not reached yet
	maxSlots  = 4096
)

// maxStateWords bounds the per-block states of one function (8 bytes
// each); a larger function is analysed block by block, each block from an
// empty state (locations still say where variables are). A variable for
// tests.
var maxStateWords = 1 << 21

// uop is an instruction reduced to its dataflow: which cells it reads and
// writes.
type uop struct {
	class    opClass
	partial  bool // dst write merges into the cell
	zero     bool // result independent of the sources
	nsrc     uint8
	dst      int16
	dst2     int16
	src      [4]int16
	gsrc     int32 // dense index of a global read, -1
	gdst     int32 // dense index of a global written, -1
	pushArg  bool  // a push or [rsp+k] store: maybe a stack argument
	callOff  int32 // call: cells of its DWARF call-site record in callCells
	callN    int32 // -1: no record
	sigKnown bool  // call: the callee's signature gave its argument registers
	record   bool  // call: it has a DWARF call-site record
}

type locEntry struct {
	cell       int16
	derived    bool
	v          int32 // dense variable index
	start, end int32 // instruction indices [start, end)
}

// Analyzer infers tags function by function, reusing its memory. It is not
// safe for concurrent use; use one per goroutine.
type Analyzer struct {
	g  *Graph
	in *Input

	sp, fp     []int32 // per instruction: rsp and rbp minus the CFA, or unknownSP
	bsp, bfp   []int32 // per block at entry
	uops       []uop
	callCells  []int16
	slotCell   map[int32]int16
	slotOffs   []int32 // sorted CFA offsets of slot cells
	slotByCell []int32 // cell-numRegCells -> CFA offset
	dense      map[int32]int32
	vars       []int32 // dense -> caller's Var
	entries    []locEntry
	actOff     []int32 // per block: its entries active at entry are actList[actOff[b]:actOff[b+1]]
	actList    []int32
	locCells   []int16
	entryMask  []uint64 // per register cell (0..31): params in it at entry

	ncells, w int
	state     []uint64 // per block entry state: nb * ncells * w
	s         []uint64 // current state
	val, tmp  []uint64
	tmp2      []uint64
	maskE     []uint64 // active exact locations per cell
	maskD     []uint64 // active derived locations per cell
	cond      []uint64
	stored    []uint64 // variables written by an instruction of the function (TagStored)
	args      []uint64
	upd       []uint64 // per block: variables updated (v = f(v)) in it
	cnt       []uint64 // per block: variables stepped by a constant (v += c) in it
	tmp3      []uint64 // collect: what a loop's own blocks step
	cntBits   []uint64 // counters of loops whose bound is in memory (TagCounter)
	readBits  []uint64 // variables read or written through memory (TagRead)
	everLoc   []uint64 // per cell: variables located in it somewhere in the function
	hullLo    []int32  // per variable: the first and past-the-last instruction of its locations
	hullHi    []int32
	dwrites   []derivedWrite
	innermost []int32 // per block: its innermost loop, or -1
	dwSeen    map[derivedWrite]struct{}
	exitT     []uint64 // per block: taint of its conditional jump
	loopBits  []uint64
	cur       []int32  // active entries during a block
	cellPass  []uint32 // per cell: the pass that last met it (firstInPass)
	passNo    uint32
	changed   []int16 // run's cells whose locations changed
	pending   []bool
	rpoPos    []int32
	out       []VarTags
	stackArgs [8]int16
	loads     *loadTable   // ptrFieldOps: interned loads
	ptrActive []int32      // ptrFieldOps: PtrLocs overlapping a block
	epoch     int32        // ptrFieldOps: the last memory epoch
	frameIn   [][16]symVal // ptrFieldOps: frame addresses held at each block's start (frameRegs)
	walks     []Walk       // findWalks: the function's walks
}

// A derivedWrite is a value derived from variable v written into cell, in
// block b, where v does not live at that point: it is an update of v if v
// lives in cell elsewhere in a loop that holds b (collect). gcc's location
// lists often leave the instruction that advances an induction variable
// uncovered: in `for (p = tail; p; p = prev) { prev = p->prev; ... }` p is
// in rbp at the loop's head, and `mov 0x40(%rbp),%rbp` writes its next
// value where the list only says that prev now lives in memory.
type derivedWrite struct {
	b, v int32
	cell int16
}

// NewAnalyzer returns an Analyzer.
func NewAnalyzer() *Analyzer {
	return &Analyzer{slotCell: map[int32]int16{}, dense: map[int32]int32{}, dwSeen: map[derivedWrite]struct{}{}}
}

// Analyze infers the tags of the variables located in g's code (and of the
// globals it touches) and returns those with at least one tag. The result
// is valid until the next call.
func (a *Analyzer) Analyze(g *Graph, in *Input) []VarTags {
	a.g, a.in = g, in
	a.out = a.out[:0]
	a.walks = a.walks[:0]
	if len(g.Blocks) == 0 {
		return a.out
	}
	clear(a.dense)
	a.vars = a.vars[:0]
	a.stackSim()
	a.buildUops()
	a.buildEntries()
	a.fieldOps()
	a.ptrFieldOps()
	a.findWalks()
	if len(a.vars) == 0 {
		return a.out
	}
	a.dataflow()
	a.collect()
	return a.out
}

func (a *Analyzer) denseOf(v int32) int32 {
	if d, ok := a.dense[v]; ok {
		return d
	}
	d := int32(len(a.vars))
	a.dense[v] = d
	a.vars = append(a.vars, v)
	return d
}

// ---------------------------------------------------------------- stack

// stackSim computes, for every instruction, rsp and rbp as offsets from
// the CFA (rsp at the call + 8) by simulating push, pop, rsp arithmetic and
// frame-pointer set-up forward over the graph; a block reached with two
// different values gets "unknown".
func (a *Analyzer) stackSim() {
	g := a.g
	n, nb := len(g.Insts), len(g.Blocks)
	a.sp, a.fp = resize(a.sp, n), resize(a.fp, n)
	a.bsp, a.bfp = resize(a.bsp, nb), resize(a.bfp, nb)
	for b := range a.bsp {
		a.bsp[b], a.bfp[b] = unvisited, unvisited
	}
	// Only entries start with a known stack; a block no entry reaches
	// stays unvisited, so padding that falls into real code does not blur
	// the offsets there.
	for _, r := range g.Roots[:g.Entries] {
		a.bsp[r], a.bfp[r] = -8, unknownSP // the return address was just pushed
	}
	merge := func(old *int32, v int32) bool {
		switch {
		case *old == v || *old == unknownSP:
			return false
		case *old == unvisited:
			*old = v
		default:
			*old = unknownSP
		}
		return true
	}
	for changed := true; changed; {
		changed = false
		for _, b := range g.rpo {
			sp, fp := a.bsp[b], a.bfp[b]
			if sp == unvisited {
				continue
			}
			blk := &g.Blocks[b]
			for i := blk.First; i < blk.Last; i++ {
				a.sp[i], a.fp[i] = sp, fp
				sp, fp = stackStep(&g.Insts[i].Inst, sp, fp)
			}
			for _, s := range blk.Succs {
				c1 := merge(&a.bsp[s], sp)
				c2 := merge(&a.bfp[s], fp)
				changed = changed || c1 || c2
			}
		}
	}
	for b := range g.Blocks {
		if a.bsp[b] == unvisited { // not reached: leave the values unknown
			blk := &g.Blocks[b]
			for i := blk.First; i < blk.Last; i++ {
				a.sp[i], a.fp[i] = unknownSP, unknownSP
			}
		}
	}
}

func add(x int32, d int64) int32 {
	if x == unknownSP || d > 1<<30 || d < -(1<<30) {
		return unknownSP
	}
	return x + int32(d)
}

func stackStep(in *x86asm.Inst, sp, fp int32) (int32, int32) {
	switch in.Op {
	case x86asm.PUSH, x86asm.PUSHFQ:
		return add(sp, -8), fp
	case x86asm.POP, x86asm.POPFQ:
		if r, ok := in.Args[0].(x86asm.Reg); ok {
			switch canon(r) {
			case x86asm.RBP:
				fp = unknownSP
			case x86asm.RSP:
				return unknownSP, fp
			}
		}
		return add(sp, 8), fp
	case x86asm.LEAVE:
		return add(fp, 8), unknownSP
	case x86asm.CALL, x86asm.RET, x86asm.CMP, x86asm.TEST, x86asm.JMP:
		return sp, fp
	}
	r, ok := in.Args[0].(x86asm.Reg)
	if !ok {
		return sp, fp
	}
	c := canon(r)
	if c != x86asm.RSP && c != x86asm.RBP {
		return sp, fp
	}
	switch classOf(in) {
	case cCmp, cJcc, cJrcxz, cJmp, cCall, cRet, cPush, cNop:
		return sp, fp
	}
	imm, isImm := in.Args[1].(x86asm.Imm)
	mem, isMem := in.Args[1].(x86asm.Mem)
	src, isSrcReg := in.Args[1].(x86asm.Reg)
	full := r == x86asm.RSP || r == x86asm.RBP
	if c == x86asm.RSP {
		switch {
		case in.Op == x86asm.SUB && isImm && full:
			return add(sp, -int64(imm)), fp
		case in.Op == x86asm.ADD && isImm && full:
			return add(sp, int64(imm)), fp
		case in.Op == x86asm.LEA && isMem && mem.Index == 0 && mem.Base == x86asm.RSP:
			return add(sp, mem.Disp), fp
		case in.Op == x86asm.LEA && isMem && mem.Index == 0 && mem.Base == x86asm.RBP:
			return add(fp, mem.Disp), fp
		case in.Op == x86asm.MOV && isSrcReg && src == x86asm.RBP:
			return fp, fp
		}
		return unknownSP, fp
	}
	switch {
	case in.Op == x86asm.MOV && isSrcReg && src == x86asm.RSP:
		return sp, sp
	case in.Op == x86asm.LEA && isMem && mem.Index == 0 && mem.Base == x86asm.RSP:
		return sp, add(sp, mem.Disp)
	}
	return sp, unknownSP
}

// ---------------------------------------------------------------- uops

func (a *Analyzer) slot(off int32) int16 {
	if c, ok := a.slotCell[off]; ok {
		return c
	}
	if len(a.slotCell) >= maxSlots {
		return noCell
	}
	c := int16(numRegCells + len(a.slotCell))
	a.slotCell[off] = c
	a.slotByCell = append(a.slotByCell, off)
	return c
}

// memCell resolves a memory operand at instruction i: a stack slot cell,
// or a global, or (else) the registers that form its address.
func (a *Analyzer) memCell(i int, m x86asm.Mem) (slot int16, global int32, base, index int16) {
	slot, global, base, index = noCell, -1, noCell, noCell
	in := &a.g.Insts[i]
	if m.Segment == x86asm.FS || m.Segment == x86asm.GS {
		base = cellOf(m.Base)
		index = cellOf(m.Index)
		return
	}
	switch {
	case m.Base == x86asm.RIP:
		if v, ok := a.in.Globals.find(in.PC + uint64(in.Len) + uint64(m.Disp)); ok {
			global = a.denseOf(v)
		}
		return
	case m.Base == 0:
		if v, ok := a.in.Globals.find(uint64(m.Disp)); ok {
			global = a.denseOf(v)
		}
		index = cellOf(m.Index)
		return
	case m.Index == 0 && canon(m.Base) == x86asm.RSP && a.sp[i] != unknownSP:
		if o := add(a.sp[i], m.Disp); o != unknownSP {
			slot = a.slot(o)
		}
		return
	case m.Index == 0 && canon(m.Base) == x86asm.RBP && a.fp[i] != unknownSP:
		if o := add(a.fp[i], m.Disp); o != unknownSP {
			slot = a.slot(o)
		}
		return
	}
	base = cellOf(m.Base)
	index = cellOf(m.Index)
	if base == cellRSP || base == cellRBP && a.fp[i] != unknownSP {
		base = noCell
	}
	return
}

func (u *uop) addSrc(c int16) {
	if c < 0 || c == cellRSP || int(u.nsrc) == len(u.src) {
		return
	}
	for _, x := range u.src[:u.nsrc] {
		if x == c {
			return
		}
	}
	u.src[u.nsrc] = c
	u.nsrc++
}

// readArg adds what reading argument x costs: its register, or the memory
// operand's slot, global or address registers.
func (a *Analyzer) readArg(u *uop, i int, x x86asm.Arg) {
	switch x := x.(type) {
	case x86asm.Reg:
		c, _ := regCell(x)
		u.addSrc(int16(c))
	case x86asm.Mem:
		slot, global, base, index := a.memCell(i, x)
		u.addSrc(slot)
		if global >= 0 {
			u.gsrc = global
		}
		u.addSrc(base)
		u.addSrc(index)
	}
}

// writeArg sets the destination for a write to argument x.
func (a *Analyzer) writeArg(u *uop, i int, x x86asm.Arg) {
	switch x := x.(type) {
	case x86asm.Reg:
		c, partial := regCell(x)
		u.dst, u.partial = int16(c), partial
	case x86asm.Mem:
		slot, global, _, _ := a.memCell(i, x)
		u.dst = slot
		if global >= 0 {
			u.gdst = global
		}
		// With a frame pointer, locals are rbp-relative and an rsp-relative
		// store at the bottom of the frame is an outgoing stack argument;
		// without one it may as well be a spill, so only call-site records
		// say.
		if slot >= 0 && canon(x.Base) == x86asm.RSP && x.Disp >= 0 && x.Disp < 64 && a.fp[i] != unknownSP {
			u.pushArg = true
		}
	}
}

func (a *Analyzer) buildUops() {
	g := a.g
	clear(a.slotCell)
	a.slotByCell = a.slotByCell[:0]
	a.callCells = a.callCells[:0]
	a.uops = resize(a.uops, len(g.Insts))
	for i := range g.Insts {
		in := &g.Insts[i]
		u := &a.uops[i]
		*u = uop{dst: noCell, dst2: noCell, gsrc: -1, gdst: -1, callN: -1}
		c := classOf(&in.Inst)
		u.class = c
		u.zero = isZeroIdiom(&in.Inst)
		switch c {
		case cMove, cMoveF:
			for _, x := range in.Args[1:] {
				if x == nil {
					break
				}
				a.readArg(u, i, x)
			}
			a.writeArg(u, i, in.Args[0])
		case cRMW, cRMWNoF, cAdcSbb, cCmov, cDefault:
			for _, x := range in.Args {
				if x == nil {
					break
				}
				a.readArg(u, i, x)
			}
			a.writeArg(u, i, in.Args[0])
		case cCmp, cJrcxz:
			for _, x := range in.Args {
				if x == nil {
					break
				}
				a.readArg(u, i, x)
			}
			if c == cJrcxz {
				u.addSrc(cellRCX)
			}
		case cStrCmp:
			u.addSrc(cellRSI)
			u.addSrc(cellRDI)
			u.addSrc(cellRAX)
		case cSetcc:
			a.writeArg(u, i, in.Args[0])
		case cJmp, cCall:
			if _, ok := in.Args[0].(x86asm.Rel); !ok && in.Args[0] != nil {
				a.readArg(u, i, in.Args[0])
			}
			if c == cCall || a.isTailJump(i) {
				a.callSite(u, i)
			}
		case cPush:
			if in.Args[0] != nil {
				a.readArg(u, i, in.Args[0])
			}
			if o := add(a.sp[i], -8); o != unknownSP {
				u.dst = a.slot(o)
				// Saving a callee-saved register is a prologue, not an argument.
				r, _ := in.Args[0].(x86asm.Reg)
				switch canon(r) {
				case x86asm.RBX, x86asm.RBP, x86asm.R12, x86asm.R13, x86asm.R14, x86asm.R15:
				default:
					u.pushArg = true
				}
			}
		case cPop:
			if o := a.sp[i]; o != unknownSP {
				u.addSrc(a.slot(o))
			}
			if in.Args[0] != nil {
				a.writeArg(u, i, in.Args[0])
			}
		case cXchg, cXadd, cCmpxchg:
			a.readArg(u, i, in.Args[0])
			a.readArg(u, i, in.Args[1])
			a.writeArg(u, i, in.Args[0])
			var v uop
			v.dst = noCell
			a.writeArg(&v, i, in.Args[1])
			u.dst2 = v.dst
			if c == cCmpxchg {
				u.addSrc(cellRAX)
				u.dst2 = cellRAX
			}
			if u.dst == u.dst2 { // xchg ax, ax
				u.class = cNop
			}
		case cMulDiv:
			a.readArg(u, i, in.Args[0])
			u.addSrc(cellRAX)
			u.addSrc(cellRDX)
			u.dst, u.dst2 = cellRAX, cellRDX
		case cCdq:
			u.addSrc(cellRAX)
			u.dst = cellRDX
		case cCbw:
			u.addSrc(cellRAX)
			u.dst = cellRAX
		case cLeave:
			if o := a.fp[i]; o != unknownSP {
				u.addSrc(a.slot(o))
			}
			u.dst = cellRBP
		}
	}
	a.slotOffs = append(a.slotOffs[:0], a.slotByCell...)
	slices.Sort(a.slotOffs)
}

// isTailJump reports a jmp that leaves the function: a direct jump outside
// its ranges, or an indirect jump that is not a resolved switch.
func (a *Analyzer) isTailJump(i int) bool {
	b := &a.g.Blocks[a.g.BlockOf(i)]
	return b.Term == TermTail || b.Term == TermIndirect && len(b.Succs) == 0
}

// callSite records the cells that a call's DWARF call-site record names:
// where each argument is passed and what its value was computed from. An
// entry value of register r is stored as -2-r.
func (a *Analyzer) callSite(u *uop, i int) {
	in := &a.g.Insts[i]
	ret := in.PC + uint64(in.Len)
	calls := a.in.Calls
	k := sort.Search(len(calls), func(k int) bool { return calls[k].ReturnPC >= ret })
	var site *CallSite
	if k < len(calls) && calls[k].ReturnPC == ret {
		site = &calls[k]
	}
	// The callee's signature: from the record, else from the direct
	// target; never for a clone, whose parameters the compiler changed.
	var sig *Signature
	target, direct := branchTarget(in)
	clone := false
	if direct {
		var known bool
		sig, known, clone = a.in.Sigs.Find(target)
		if !known {
			sig = nil
		}
	}
	if site != nil && site.Callee != nil && !clone {
		sig = site.Callee
	}
	if site == nil && sig == nil {
		return
	}
	u.callOff, u.callN = int32(len(a.callCells)), 0
	add := func(c int16) {
		if c != noCell && c != cellRSP {
			a.callCells = append(a.callCells, c)
			u.callN++
		}
	}
	if sig != nil {
		n := len(a.callCells)
		a.callCells = argCellsOf(a.callCells, sig)
		u.callN += int32(len(a.callCells) - n)
		u.sigKnown = !sig.Variadic
	}
	if site == nil {
		return
	}
	u.record = true
	for _, p := range site.Params {
		for _, refs := range [2][]ExprRef{p.Loc, p.Value} {
			for _, r := range refs {
				switch r.Kind {
				case InReg, InDerived:
					add(int16(dwarfToCell(int(r.Reg))))
				case InEntryValue:
					if c := dwarfToCell(int(r.Reg)); c >= 0 && c < 32 {
						add(int16(-2 - c))
					}
				default:
					if off, ok := a.slotOffset(r, i); ok {
						if c, ok := a.slotCell[off]; ok {
							add(c)
						}
					}
				}
			}
		}
	}
}

// slotOffset converts a memory reference at instruction i to a CFA offset.
func (a *Analyzer) slotOffset(r ExprRef, i int) (int32, bool) {
	var o int32
	switch r.Kind {
	case InCFASlot:
		o = add(0, r.Off)
	case InFrameSlot:
		switch fb := a.in.FrameBase; fb.Kind {
		case FrameCFA:
			o = add(0, r.Off)
		case FrameReg:
			return a.slotOffset(ExprRef{Kind: InRegSlot, Reg: fb.Reg, Off: r.Off + fb.Off}, i)
		default:
			return 0, false
		}
	case InRegSlot:
		switch r.Reg {
		case 7:
			o = add(a.sp[i], r.Off)
		case 6:
			o = add(a.fp[i], r.Off)
		default:
			return 0, false
		}
	default:
		return 0, false
	}
	return o, o != unknownSP
}

// ---------------------------------------------------------------- locations

func (a *Analyzer) instIndex(pc uint64) int32 {
	g := a.g
	return int32(sort.Search(len(g.Insts), func(i int) bool { return g.Insts[i].PC >= pc }))
}

// buildEntries turns the input locations into per-cell entries over
// instruction index ranges, and records which are active at each block's
// first instruction.
func (a *Analyzer) buildEntries() {
	g := a.g
	a.entries = a.entries[:0]
	a.locCells = a.locCells[:0]
	for _, l := range a.in.Locs {
		if l.Kind == AtAddr || l.Kind == InEntryValue || l.Hi <= l.Lo {
			continue
		}
		s, e := a.instIndex(l.Lo), a.instIndex(l.Hi)
		if s >= e {
			continue
		}
		switch l.Kind {
		case InReg, InDerived:
			c := dwarfToCell(int(l.Reg))
			if c < 0 || c == cellRSP {
				continue
			}
			a.entries = append(a.entries, locEntry{cell: int16(c), derived: l.Kind == InDerived, v: a.denseOf(l.Var), start: s, end: e})
		default:
			// A register-relative slot is converted where the register's
			// offset from the CFA is known (an rbp-based location usually
			// starts before the prologue has set rbp up; a few instructions
			// in, rbp is a frame pointer or it is not one).
			var off int32
			ok := false
			for k := s; k < e && k < s+64 && !ok; k++ {
				off, ok = a.slotOffset(ExprRef{Kind: l.Kind, Reg: l.Reg, Off: l.Off}, int(k))
			}
			if !ok {
				continue
			}
			// Every slot cell inside the variable's bytes is the variable.
			hi := int64(off) + int64(max(l.Size, 1))
			k := sort.Search(len(a.slotOffs), func(k int) bool { return a.slotOffs[k] >= off })
			for ; k < len(a.slotOffs) && int64(a.slotOffs[k]) < hi; k++ {
				a.entries = append(a.entries, locEntry{cell: a.slotCell[a.slotOffs[k]], v: a.denseOf(l.Var), start: s, end: e})
			}
		}
	}
	slices.SortStableFunc(a.entries, func(x, y locEntry) int { return cmp.Compare(x.start, y.start) })
	seen := uint64(0)
	for _, e := range a.entries {
		if e.cell < 64 {
			if seen&(1<<e.cell) != 0 {
				continue
			}
			seen |= 1 << e.cell
		} else if containsInt16(a.locCells, e.cell) {
			continue
		}
		a.locCells = append(a.locCells, e.cell)
	}
	// Active entries at each block start: a sweep in address order.
	nb := len(g.Blocks)
	a.actOff = resize(a.actOff, nb+1)
	a.actList = a.actList[:0]
	cur := a.cur[:0]
	next := 0
	for b := range g.Blocks {
		f := g.Blocks[b].First
		for next < len(a.entries) && a.entries[next].start <= f {
			cur = append(cur, int32(next))
			next++
		}
		k := 0
		for _, x := range cur {
			if a.entries[x].end > f {
				cur[k] = x
				k++
			}
		}
		cur = cur[:k]
		a.actOff[b] = int32(len(a.actList))
		a.actList = append(a.actList, cur...)
	}
	a.actOff[nb] = int32(len(a.actList))
	a.cur = cur
}

// fieldOps makes the memory operands that address a field through its
// pointer, while a register holds the pointer (an exact location), reads
// and writes of that field: gsrc and gdst, as for a global. A copy of the
// pointer in another register, not a location of it, is ptrFieldOps'.
func (a *Analyzer) fieldOps() {
	fs := a.in.Fields
	if fs == nil || fs.n == 0 {
		return
	}
	n := len(a.entries)
	for k := 0; k < n; k++ {
		e := a.entries[k]
		if e.derived || e.cell >= 16 {
			continue
		}
		ptr := a.vars[e.v]
		if !fs.isPtr(ptr) {
			continue
		}
		for i := e.start; i < e.end; i++ {
			in := &a.g.Insts[i].Inst
			for ai, x := range in.Args {
				if x == nil {
					break
				}
				m, ok := x.(x86asm.Mem)
				if !ok || m.Index != 0 || m.Segment != 0 || m.Base == 0 || cellOf(m.Base) != e.cell {
					continue
				}
				fv, ok := fs.find(ptr, int64(int32(m.Disp)))
				if !ok {
					break
				}
				d := a.denseOf(fv)
				u := &a.uops[i]
				if in.Op == x86asm.LEA {
					break // the field's address, not its value
				}
				write := ai == 0 && u.class != cCmp && u.class != cJrcxz && u.class != cPush && u.class != cJmp && u.class != cCall
				if !write || u.class != cMove && u.class != cMoveF {
					u.gsrc = d
				}
				if write {
					u.gdst = d
				}
				break // one memory operand per instruction
			}
		}
	}
}

func containsInt16(s []int16, x int16) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// ---------------------------------------------------------------- dataflow

func orInto(dst, src []uint64) (changed bool) {
	dst = dst[:len(src)]
	var diff uint64
	for i, x := range src {
		y := dst[i]
		n := y | x
		diff |= n ^ y
		dst[i] = n
	}
	return diff != 0
}

func (a *Analyzer) cell(c int16) []uint64 {
	return a.s[int(c)*a.w : int(c+1)*a.w]
}

// dataflow propagates "derived from v" forward to a fixpoint (a may
// analysis: union at joins), recording on the way the tag events of every
// instruction. States only grow, so the events of the last visit of each
// block are a superset of the earlier ones and accumulating them all is
// exact.
func (a *Analyzer) dataflow() {
	g := a.g
	nb := len(g.Blocks)
	a.ncells = numRegCells + len(a.slotByCell)
	a.w = (len(a.vars) + 63) / 64
	w := a.w
	a.s = resize(a.s, a.ncells*w)
	a.val = resize(a.val, w)
	a.tmp = resize(a.tmp, w)
	a.maskE = resize(a.maskE, a.ncells*w)
	a.maskD = resize(a.maskD, a.ncells*w)
	clear(a.maskE)
	clear(a.maskD)
	a.cond = resize(a.cond, w)
	a.args = resize(a.args, w)
	a.stored = resize(a.stored, w)
	clear(a.cond)
	clear(a.args)
	clear(a.stored)
	a.upd = resize(a.upd, nb*w)
	a.cnt = resize(a.cnt, nb*w)
	a.exitT = resize(a.exitT, nb*w)
	clear(a.upd)
	clear(a.cnt)
	clear(a.exitT)
	a.everLoc = resize(a.everLoc, a.ncells*w)
	clear(a.everLoc)
	a.cellPass = resize(a.cellPass, a.ncells)
	clear(a.cellPass)
	a.passNo = 0
	a.hullLo = resize(a.hullLo, len(a.vars))
	a.hullHi = resize(a.hullHi, len(a.vars))
	for v := range a.vars {
		a.hullLo[v], a.hullHi[v] = math.MaxInt32, 0
	}
	for _, e := range a.entries {
		if int(e.cell) < a.ncells {
			a.everLoc[int(e.cell)*w+int(e.v)/64] |= 1 << (e.v % 64)
		}
		a.hullLo[e.v] = min(a.hullLo[e.v], e.start)
		a.hullHi[e.v] = max(a.hullHi[e.v], e.end)
	}
	a.dwrites = a.dwrites[:0]
	clear(a.dwSeen)
	a.entryValues()

	perBlock := a.ncells * w
	if nb*perBlock > maxStateWords {
		// Too big to keep a state per block: each block from nothing.
		for b := range g.Blocks {
			clear(a.s)
			a.run(b)
		}
		return
	}
	a.state = resize(a.state, nb*perBlock)
	clear(a.state)
	a.pending = resize(a.pending, nb)
	a.rpoPos = resize(a.rpoPos, nb)
	for p, b := range g.rpo {
		a.rpoPos[b] = int32(p)
		a.pending[b] = true
	}
	for p := 0; p < len(g.rpo); {
		b := g.rpo[p]
		if !a.pending[b] {
			p++
			continue
		}
		a.pending[b] = false
		copy(a.s, a.state[int(b)*perBlock:int(b+1)*perBlock])
		a.run(int(b))
		for _, s := range g.Blocks[b].Succs {
			if orInto(a.state[int(s)*perBlock:int(s+1)*perBlock], a.s) {
				a.pending[s] = true
				if q := int(a.rpoPos[s]); q < p {
					p = q
				}
			}
		}
	}
}

// entryValues computes, per register, the variables located in it at a
// function entry: what DW_OP_entry_value(DW_OP_regN) refers to.
func (a *Analyzer) entryValues() {
	w := a.w
	a.entryMask = resize(a.entryMask, 32*w)
	clear(a.entryMask)
	for _, r := range a.g.Roots {
		if a.bsp[r] != -8 {
			continue
		}
		f := a.g.Blocks[r].First
		for _, x := range a.actList[a.actOff[r]:a.actOff[r+1]] {
			if e := &a.entries[x]; e.start == f && !e.derived && e.cell < 32 {
				a.entryMask[int(e.cell)*w+int(e.v)/64] |= 1 << (e.v % 64)
			}
		}
	}
}

func (a *Analyzer) setMask(e *locEntry) {
	m := a.maskE
	if e.derived {
		m = a.maskD
	}
	m[int(e.cell)*a.w+int(e.v)/64] |= 1 << (e.v % 64)
}

// run applies block b's instructions to a.s, recording tag events.
func (a *Analyzer) run(b int) {
	g := a.g
	w := a.w
	blk := &g.Blocks[b]
	// Locations active at the block start, then those starting inside it.
	// The masks are all zero between runs.
	cur := append(a.cur[:0], a.actList[a.actOff[b]:a.actOff[b+1]]...)
	nextEnd := int32(math.MaxInt32)
	for _, x := range cur {
		e := &a.entries[x]
		a.setMask(e)
		nextEnd = min(nextEnd, e.end)
	}
	next := sort.Search(len(a.entries), func(k int) bool { return a.entries[k].start > blk.First })
	var argWritten uint64        // argument registers written since the last call
	stackArgs := a.stackArgs[:0] // slots written by a push or [rsp+k] store since the last call
	val := a.val
	// A location says the cell holds the variable before each instruction
	// of its range. Injecting is idempotent, so it is redone for all cells
	// when the active locations change, else only for the cells the
	// previous instruction wrote.
	injectAll := true
	var dirty [2]int16
	ndirty := 0
	// The cells a call, a clobber or a syscall cleared: re-injected, as
	// all cells once were. Every other cell still holds its injection
	// (nothing else writes the state between injections but the dirty
	// cells, and the flags, which no location names: listed anyway), and
	// inject is idempotent, so the result is the same.
	var reinject []int16
	// The cells of the locations that started or ended at this
	// instruction: only their masks changed, so only they are injected
	// again (the masks of the others are rebuilt alike).
	changed := a.changed[:0]
	for i := blk.First; i < blk.Last; i++ {
		if i >= nextEnd {
			nextEnd = math.MaxInt32
			a.clearMasks(cur)
			k := 0
			for _, x := range cur {
				if e := &a.entries[x]; e.end > i {
					cur[k] = x
					k++
					a.setMask(e)
					nextEnd = min(nextEnd, e.end)
				} else {
					changed = append(changed, e.cell)
				}
			}
			cur = cur[:k]
		}
		for next < len(a.entries) && a.entries[next].start <= i {
			e := &a.entries[next]
			if e.end > i {
				cur = append(cur, int32(next))
				a.setMask(e)
				nextEnd = min(nextEnd, e.end)
				changed = append(changed, e.cell)
			}
			next++
		}
		if injectAll || injectPerEntry && (reinject != nil || len(changed) > 0) {
			a.injectCells(cur)
			injectAll = false
		} else {
			for _, c := range dirty[:ndirty] {
				a.inject(c)
			}
			for _, c := range reinject {
				a.inject(c)
			}
			for _, c := range changed {
				a.inject(c)
			}
		}
		ndirty = 0
		reinject = nil
		changed = changed[:0]

		u := &a.uops[i]
		clear(val)
		if !u.zero {
			for _, c := range u.src[:u.nsrc] {
				orInto(val, a.cell(c))
			}
			if u.gsrc >= 0 {
				val[u.gsrc/64] |= 1 << (u.gsrc % 64)
			}
		}
		flags := a.cell(cellFlags)
		switch u.class {
		case cSetcc, cCmov:
			orInto(a.cond, flags)
			orInto(val, flags)
		case cAdcSbb:
			orInto(val, flags)
		case cJcc:
			orInto(a.cond, flags)
			orInto(a.exitT[b*w:(b+1)*w], flags)
		case cJrcxz:
			orInto(a.cond, val)
			orInto(a.exitT[b*w:(b+1)*w], val)
		case cJmp:
			if blk.Term == TermIndirect && len(blk.Succs) > 0 {
				orInto(a.cond, val) // a switch on the index
			}
		}
		if u.callN >= 0 || u.class == cCall || (u.class == cJmp && a.isTailJump(int(i))) {
			a.callArgs(u, int(i), argWritten, stackArgs)
			argWritten, stackArgs = 0, stackArgs[:0]
		}

		// Writes.
		switch u.class {
		case cCall:
			for _, c := range callerSaved {
				clear(a.cell(int16(c)))
			}
			for c := cellXMM0; c < cellXMM0+16; c++ {
				clear(a.cell(int16(c)))
			}
			clear(flags)
			reinject = callCells[:]
		case cClobber:
			for _, c := range clobberCells[:4] {
				clear(a.cell(c))
			}
			reinject = clobberCells[:]
		case cSyscall:
			for _, c := range syscallCells[:3] {
				clear(a.cell(c))
			}
			reinject = syscallCells[:]
		case cXchg, cXadd, cCmpxchg:
			// Both places end up with a value from either: union.
			for _, c := range [...]int16{u.dst, u.dst2} {
				if c >= 0 {
					copy(a.cell(c), val)
					dirty[ndirty] = c
					ndirty++
				}
			}
		default:
			if u.dst >= 0 {
				dirty[ndirty] = u.dst
				ndirty++
				d := a.cell(u.dst)
				if u.partial {
					orInto(d, val)
				} else {
					copy(d, val)
				}
				a.noteUpdate(b, u.dst, i, next, a.copySrc(u, int(i)))
				if u.dst < 64 && argCellsMask&(1<<u.dst) != 0 {
					argWritten |= 1 << u.dst
				}
				if u.pushArg && len(stackArgs) < cap(stackArgs) {
					stackArgs = append(stackArgs, u.dst)
				}
			}
			if u.dst2 >= 0 {
				copy(a.cell(u.dst2), val)
				dirty[ndirty] = u.dst2
				ndirty++
			}
		}
		if u.gdst >= 0 && val[u.gdst/64]&(1<<(u.gdst%64)) != 0 {
			a.upd[b*w+int(u.gdst)/64] |= 1 << (u.gdst % 64)
		}
		switch u.class {
		case cMoveF, cRMW, cAdcSbb, cCmp, cStrCmp, cMulDiv, cXadd, cCmpxchg:
			copy(flags, val)
		case cFlagsConst:
			clear(flags)
		}
	}
	a.clearMasks(cur)
	a.cur = cur
	a.changed = changed[:0]
}

// Many entries share a cell (a variable's pieces, variables of one stack
// slot), and run injects and clears masks per cell: injecting and clearing
// are idempotent and touch only their own cell, so each distinct cell is
// done once per pass, with the same result as doing it per entry. In a
// large function with hundreds of active entries (redis-server's jemalloc
// statistics printer: 1,090 entries over 403 cells, every call injecting
// all of them again) the per-entry work was most of the dataflow's time.

// The cells cleared by a call (the caller-saved registers, the vector
// registers and the flags), by cClobber and by a syscall, each list ending
// with the flags.
var (
	callCells = func() (l [len(callerSaved) + 17]int16) {
		for i, c := range callerSaved {
			l[i] = int16(c)
		}
		for i := range 16 {
			l[len(callerSaved)+i] = int16(cellXMM0 + i)
		}
		l[len(l)-1] = cellFlags
		return l
	}()
	clobberCells = [...]int16{cellRAX, cellRCX, cellRDX, cellRBX, cellFlags}
	syscallCells = [...]int16{cellRAX, cellRCX, cellR11, cellFlags}
)

// newPass starts a pass of once-per-cell work (firstInPass).
func (a *Analyzer) newPass() {
	a.passNo++
	if a.passNo == 0 { // wrapped: forget every mark
		clear(a.cellPass)
		a.passNo = 1
	}
}

// firstInPass says whether cell c is met for the first time in this pass,
// and marks it.
func (a *Analyzer) firstInPass(c int16) bool {
	if int(c) >= len(a.cellPass) || c < 0 {
		return true
	}
	if a.cellPass[c] == a.passNo {
		return false
	}
	a.cellPass[c] = a.passNo
	return true
}

// injectPerEntry restores, for tests, the dataflow's former injection:
// every active entry's cell, entry by entry, whenever any location or a
// call, clobber or syscall changed the state (TestInjectOnce compares).
var injectPerEntry bool

// injectCells injects the cells of the entries xs, each cell once.
func (a *Analyzer) injectCells(xs []int32) {
	if injectPerEntry {
		for _, x := range xs {
			a.inject(a.entries[x].cell)
		}
		return
	}
	a.newPass()
	for _, x := range xs {
		if c := a.entries[x].cell; a.firstInPass(c) {
			a.inject(c)
		}
	}
}

// clearMasks zeroes the masks of the cells of the entries xs, each cell
// once.
func (a *Analyzer) clearMasks(xs []int32) {
	a.newPass()
	w := a.w
	for _, x := range xs {
		if c := a.entries[x].cell; injectPerEntry || a.firstInPass(c) {
			clear(a.maskE[int(c)*w : int(c+1)*w])
			clear(a.maskD[int(c)*w : int(c+1)*w])
		}
	}
}

// inject adds to cell c the variables located in it now. A value
// computed from a register (InDerived) counts only where no variable lives
// in it: v = argc*7 must not make every read of argc's register a read of v.
func (a *Analyzer) inject(c int16) {
	w := a.w
	sc := a.s[int(c)*w : int(c+1)*w]
	me := a.maskE[int(c)*w : int(c+1)*w]
	exact := false
	for k := range sc {
		sc[k] |= me[k]
		exact = exact || me[k] != 0
	}
	if !exact {
		md := a.maskD[int(c)*w : int(c+1)*w]
		for k := range sc {
			sc[k] |= md[k]
		}
	}
}

// noteUpdate records v = f(v): a write of a value derived from v into a
// place where v lives (at this instruction or from the next one on).
//
// A value derived from v written into a cell where v lives elsewhere in the
// function is kept as a derivedWrite, unless it is a copy of v (a reload
// of a spilled v is no update) or lies outside v's code (the loop of a
// caller that an inlined body sits in is not one of v's loops).
func (a *Analyzer) noteUpdate(b int, dst int16, i int32, next int, copyOf int16) {
	w := a.w
	val := a.val
	upd := a.upd[b*w : (b+1)*w]
	me := a.maskE[int(dst)*w : int(dst+1)*w]
	md := a.maskD[int(dst)*w : int(dst+1)*w]
	ever := a.everLoc[int(dst)*w : int(dst+1)*w]
	var same []uint64
	if copyOf >= 0 {
		same = a.maskE[int(copyOf)*w : int(copyOf+1)*w]
	}
	for k := range me {
		a.stored[k] |= me[k]
	}
	step := steps(&a.g.Insts[i].Inst)
	cnt := a.cnt[b*w : (b+1)*w]
	for k := range val {
		upd[k] |= val[k] & (me[k] | md[k])
		if step {
			cnt[k] |= val[k] & me[k]
		}
		m := val[k] & ever[k] &^ (me[k] | md[k])
		if same != nil {
			m &^= same[k]
		}
		for ; m != 0; m &= m - 1 {
			d := derivedWrite{b: int32(b), v: int32(k*64 + bits.TrailingZeros64(m)), cell: dst}
			if i < a.hullLo[d.v] || i >= a.hullHi[d.v] {
				continue
			}
			if _, ok := a.dwSeen[d]; !ok {
				a.dwSeen[d] = struct{}{}
				a.dwrites = append(a.dwrites, d)
			}
		}
	}
	for ; next < len(a.entries) && a.entries[next].start <= i+1; next++ {
		if e := &a.entries[next]; e.cell == dst && e.start == i+1 {
			upd[e.v/64] |= val[e.v/64] & (1 << (e.v % 64))
			a.stored[e.v/64] |= 1 << (e.v % 64)
		}
	}
}

// callArgs adds to a.args what a call receives: the cells its call-site
// record names, else the argument registers (and stack slots) written
// since the previous call.
func (a *Analyzer) callArgs(u *uop, i int, argWritten uint64, stackArgs []int16) {
	w := a.w
	if u.callN >= 0 {
		for _, c := range a.callCells[u.callOff : u.callOff+u.callN] {
			if c < 0 {
				r := int(-2 - c)
				orInto(a.args, a.entryMask[r*w:(r+1)*w])
				continue
			}
			orInto(a.args, a.cell(c))
		}
	}
	if !u.sigKnown {
		for m := argWritten; m != 0; m &= m - 1 {
			orInto(a.args, a.cell(int16(bits.TrailingZeros64(m))))
		}
	}
	if !u.record && a.sp[i] != unknownSP {
		// No record: slots at the bottom of the frame written by a push or
		// an rsp-relative store are the outgoing stack arguments.
		sp := a.sp[i]
		for _, c := range stackArgs {
			if off := a.slotByCell[int(c)-numRegCells]; off >= sp && off < sp+64 {
				orInto(a.args, a.cell(c))
			}
		}
	}
}

// copySrc returns the cell that a plain move copies (a register or a stack
// slot), or noCell: a load through a pointer computes a new value from the
// address, a copy does not.
func (a *Analyzer) copySrc(u *uop, i int) int16 {
	if u.class != cMove || u.nsrc != 1 {
		return noCell
	}
	switch x := a.g.Insts[i].Args[1].(type) {
	case x86asm.Reg:
		return u.src[0]
	case x86asm.Mem:
		if slot, _, _, _ := a.memCell(i, x); slot >= 0 {
			return slot
		}
	}
	return noCell
}

// ---------------------------------------------------------------- results

// livesInLoop reports whether v is located in cell at some instruction of
// loop li's body. Blocks are in instruction order, so the blocks an entry
// covers are found by a binary search.
func (a *Analyzer) livesInLoop(li int, v int32, cell int16) bool {
	g := a.g
	for _, e := range a.entries {
		if e.v != v || e.cell != cell {
			continue
		}
		b := sort.Search(len(g.Blocks), func(k int) bool { return g.Blocks[k].Last > e.start })
		for ; b < len(g.Blocks) && g.Blocks[b].First < e.end; b++ {
			if g.InLoop(li, b) {
				return true
			}
		}
	}
	return false
}

// collect turns the events into tags. A variable is an induction variable
// of loop L when it is updated from itself in L's body and reaches the
// condition of a branch in L that leaves L or jumps back to its header.
func (a *Analyzer) collect() {
	g := a.g
	w := a.w
	a.loopBits = resize(a.loopBits, w)
	clear(a.loopBits)
	a.cntBits = resize(a.cntBits, w)
	clear(a.cntBits)
	a.readBits = resize(a.readBits, w)
	clear(a.readBits)
	if a.in.Reads {
		for i := range a.uops {
			u := &a.uops[i]
			if u.gsrc >= 0 {
				a.readBits[u.gsrc/64] |= 1 << (u.gsrc % 64)
			}
			if u.gdst >= 0 {
				a.readBits[u.gdst/64] |= 1 << (u.gdst % 64)
			}
		}
	}
	if len(g.Loops) > 0 {
		a.innermost = resize(a.innermost, len(g.Blocks))
		for b := range a.innermost {
			a.innermost[b] = -1
		}
		for li := range g.Loops {
			for _, b := range g.Loops[li].Body {
				if k := a.innermost[b]; k < 0 || len(g.Loops[li].Body) < len(g.Loops[k].Body) {
					a.innermost[b] = int32(li)
				}
			}
		}
	}
	u := a.tmp
	a.tmp2 = resize(a.tmp2, w)
	e := a.tmp2
	a.tmp3 = resize(a.tmp3, w)
	own := a.tmp3
	for li := range g.Loops {
		l := &g.Loops[li]
		clear(u)
		clear(e)
		clear(own)
		for _, d := range a.dwrites {
			// A write in a nested loop advances that loop's variable
			// (often an inlined callee's copy of v), not v in this one.
			if a.innermost[d.b] == int32(li) && a.livesInLoop(li, d.v, d.cell) {
				u[d.v/64] |= 1 << (d.v % 64)
			}
		}
		for _, b := range l.Body {
			orInto(u, a.upd[int(b)*w:int(b+1)*w])
			if a.innermost[b] == int32(li) {
				orInto(own, a.cnt[int(b)*w:int(b+1)*w])
			}
			blk := &g.Blocks[b]
			if blk.Term != TermCond {
				continue
			}
			exits := false
			for _, s := range blk.Succs {
				if s == l.Header || !g.InLoop(li, int(s)) {
					exits = true
				}
			}
			if exits {
				orInto(e, a.exitT[int(b)*w:int(b+1)*w])
			}
		}
		iv := false
		for k := range u {
			a.loopBits[k] |= u[k] & e[k]
			iv = iv || u[k]&e[k] != 0
		}
		// A loop whose exits test no variable it updates keeps its bound
		// in memory (a container's begin and end fields behind a pointer,
		// a list's next pointers: method.md §2, D96). A variable that its
		// own body (not a nested loop's) updates from itself counts its
		// iterations (consumed++), and stands for the loop's dimension.
		if !iv {
			for k := range own {
				a.cntBits[k] |= own[k]
			}
		}
	}
	for d, v := range a.vars {
		bit := uint64(1) << (d % 64)
		var t Tags
		if a.loopBits[d/64]&bit != 0 {
			t |= TagLoop
		}
		if a.cond[d/64]&bit != 0 {
			t |= TagCond
		}
		if a.cntBits[d/64]&bit != 0 {
			t |= TagCounter
		}
		if a.args[d/64]&bit != 0 {
			t |= TagArgs
		}
		if a.stored[d/64]&bit != 0 {
			t |= TagStored
		}
		if a.readBits[d/64]&bit != 0 {
			t |= TagRead
		}
		if t != 0 {
			a.out = append(a.out, VarTags{v, t})
		}
	}
}

// steps reports whether inst adds a constant to its destination in place
// (inc, dec, add or sub of an immediate, lea of the same register plus a
// displacement): a counter's step (D96).
func steps(inst *x86asm.Inst) bool {
	switch inst.Op {
	case x86asm.INC, x86asm.DEC:
		return true
	case x86asm.ADD, x86asm.SUB:
		_, ok := inst.Args[1].(x86asm.Imm)
		return ok
	case x86asm.LEA:
		d, ok := inst.Args[0].(x86asm.Reg)
		m, ok2 := inst.Args[1].(x86asm.Mem)
		return ok && ok2 && m.Index == 0 && m.Base != 0 && sameReg(d, m.Base)
	}
	return false
}

// sameReg reports whether two registers are views of one (eax, rax).
func sameReg(a, b x86asm.Reg) bool {
	full := func(r x86asm.Reg) x86asm.Reg {
		switch {
		case r >= x86asm.EAX && r <= x86asm.R15L:
			return r - x86asm.EAX + x86asm.RAX
		}
		return r
	}
	return full(a) == full(b)
}
