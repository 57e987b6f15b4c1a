package sampler

import (
	"bytes"
	"encoding/binary"
	"math"

	"golang.org/x/sys/unix"

	"github.com/vprof/vprof/runtime/dwarfexpr"
	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/sampler/unwind"
)

// normalise turns the little-endian bytes of a value of the given kind into
// a model.Value's Bits (see its doc): integers sign- or zero-extended,
// floats as float64 bits, pointers as addresses, aggregates as FNV-1a.
func normalise(kind model.Kind, b []byte) uint64 {
	switch kind {
	case model.KindInt, model.KindEnum:
		if len(b) > 8 {
			b = b[:8]
		}
		v := leUint(b)
		if n := len(b); n > 0 && n < 8 {
			shift := 64 - 8*uint(n)
			v = uint64(int64(v<<shift) >> shift)
		}
		return v
	case model.KindFloat:
		switch len(b) {
		case 4:
			return math.Float64bits(float64(math.Float32frombits(binary.LittleEndian.Uint32(b))))
		case 8:
			return binary.LittleEndian.Uint64(b)
		case 10, 12, 16:
			return math.Float64bits(x87ToFloat64(b[:10]))
		}
		return 0
	case model.KindAggregate:
		return fnv1a(b)
	default: // uint, bool, pointer
		if len(b) > 8 {
			b = b[:8]
		}
		return leUint(b)
	}
}

func fnv1a(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// x87ToFloat64 converts an 80-bit extended-precision value (long double).
func x87ToFloat64(b []byte) float64 {
	mant := binary.LittleEndian.Uint64(b[:8])
	se := binary.LittleEndian.Uint16(b[8:10])
	sign := se >> 15
	exp := int(se & 0x7fff)
	var f float64
	switch {
	case exp == 0 && mant == 0:
		f = 0
	case exp == 0x7fff:
		if mant<<1 == 0 {
			f = math.Inf(1)
		} else {
			f = math.NaN()
		}
	default:
		// value = mant * 2^(exp - 16383 - 63); the integer bit is explicit.
		f = math.Ldexp(float64(mant), exp-16383-63)
	}
	if sign != 0 {
		f = -f
	}
	return f
}

// pending is one value being read in a sample: its bytes are in the batch
// arena at off, either copied already (slot -1) or read by batch slot.
type pending struct {
	obj   *object
	v     model.VarID
	kind  model.Kind
	frame uint8
	slot  int
	off   int
	size  int
	// pointee of a pointer to a basic type
	pkind model.Kind
	psize int
	// strlen: the value read is a pointer to char whose string's length
	// is the variable's value (D140)
	strlen bool
}

// Why a variable accessible at a PC gave no value.
type valueStats struct {
	Read        uint64 // value samples taken
	Unavailable uint64 // register not recoverable in a caller frame, no CFA
	EntryValue  uint64 // DW_OP_entry_value with no caller or call-site value
	EntryLast   uint64 // locations found through the last record MaxEntryHops allows
	// Why entry values were unknown (each of EntryValue counts under the
	// first reason its chain met; the rest are the registers the
	// unwinder did not recover and call-site values reading what is not
	// at hand):
	EntryNoValue     uint64 // the caller's call-site record gives no value for the register (or there is no record)
	EntryNoRecords   uint64 // of EntryNoValue: the caller's object has no call-site records (a library without DWARF)
	EntryNoValueDeep uint64 // of EntryNoValue: at the 2nd or a later record of a chain
	EntryTail        uint64 // the frame under the call is one a tail call left there, no unique chain restoring it
	EntryNoCaller    uint64 // no caller frame, or one in no mapped object
	EntryBound       uint64 // the chain went past MaxEntryHops records
	Unsupported      uint64 // expression the evaluator does not implement
	Faulted          uint64 // memory read failed
	Pointees         uint64 // pointees read
	Strings          uint64 // string lengths read (D140; counted in Read too)
	StringBytes      uint64 // bytes those reads copied
	Fields           uint64 // fields behind pointers read (counted in Read too)
	FieldsNull       uint64 // fields not read: their pointer was NULL
	FieldsOver       uint64 // fields not read: past MaxFieldReads in one sample
}

// MaxEntryHops bounds the call-site records one DW_OP_entry_value may
// follow (method.md §3, decision D116): a record's value may itself be
// an entry value of the caller, given by the caller's caller's record,
// and so on. gcc -O2 writes such chains for a parameter handed on
// unchanged through tail calls and calls after which it is dead; four
// records cover every chain found in the corpus and in libxml2. Each
// hop takes the same checks as the first (a record that names no value
// for the register, a caller frame a tail call no unique chain restores
// left there): any of them leaves the value unknown.
// The recording's summary names it.
const MaxEntryHops = 4

// evaluator resolves DW_OP_entry_value for the frame being read: a
// callee-saved register's entry value is the caller frame's (as unwound),
// an argument register's is the caller's call-site value for it.
type evaluator struct {
	sm     *sampling
	frames []unwind.Frame
	idx    int                       // frame whose entry values are asked
	nest   int                       // call-site records being followed, below MaxEntryHops
	hops   int                       // most records one of the value's entry values took
	why    entryWhy                  // the first reason an entry value was unknown
	regs   [MaxEntryHops]unwind.Regs // per nesting level: the caller's registers, carried-over ones included
}

// entryWhy is why an entry value is unknown (valueStats).
type entryWhy uint8

const (
	entryKnown entryWhy = iota
	entryOther
	entryNoValue
	entryNoValueDeep
	entryNoRecords
	entryTail
	entryNoCaller
	entryBound
)

// unknown notes why the entry value is unknown, unless a deeper hop has.
func (e *evaluator) unknown(w entryWhy) (uint64, error) {
	if e.why == entryKnown {
		e.why = w
	}
	return 0, unwind.ErrEntryValue
}

func (e *evaluator) EntryValue(sub []byte) (uint64, error) {
	r, ok := dwarfexpr.Register(sub)
	reg := int(r)
	if !ok || reg >= unwind.NumRegs {
		return e.unknown(entryOther)
	}
	if e.idx+1 >= len(e.frames) {
		return e.unknown(entryNoCaller)
	}
	if e.nest >= MaxEntryHops {
		return e.unknown(entryBound)
	}
	callee, caller := &e.frames[e.idx], &e.frames[e.idx+1]
	switch reg {
	case unwind.RBX, unwind.RBP, unwind.R12, unwind.R13, unwind.R14, unwind.R15:
		// Preserved by the callee: the caller's value is the entry value.
		if v, ok := caller.Regs.Get(reg); ok {
			return v, nil
		}
		return e.unknown(entryOther)
	case unwind.RSP:
		if callee.HasCFA {
			return callee.CFA - 8, nil // at entry %rsp points at the return address, just below the CFA
		}
		return e.unknown(entryOther)
	}
	if caller.Map == nil {
		return e.unknown(entryNoCaller)
	}
	o := e.sm.objs.list[caller.Map.Obj]
	if callee.Map != nil && callee.Map.Obj == caller.Map.Obj &&
		o.tails.Mismatch(callee.PC-callee.Map.Bias, callee.Exact, caller.PC-caller.Map.Bias) {
		// The caller called another function, which jumped to this one
		// by a tail call no unique chain restores (restoreTailFrames):
		// its call-site values are that function's arguments.
		return e.unknown(entryTail)
	}
	expr, ok := o.schema.CallValue(caller.PC-caller.Map.Bias, reg)
	if !ok {
		switch {
		case e.nest > 0:
			return e.unknown(entryNoValueDeep)
		case len(o.schema.CallSites) == 0:
			return e.unknown(entryNoRecords)
		}
		return e.unknown(entryNoValue)
	}
	// Evaluate the call-site value in the caller's frame.
	// gcc writes call-site values only in terms of what survives the call,
	// which includes caller-saved registers the callee leaves alone
	// (-fipa-ra): carried-over registers count here.
	regs := &e.regs[e.nest] // not a local: Eval's context escapes
	*regs = caller.Regs
	regs.Valid |= regs.Weak
	ctx := unwind.Context{Regs: regs, Mem: &e.sm.cur.mem, CFA: caller.CFA, HasCFA: caller.HasCFA, Bias: caller.Map.Bias, Entry: e}
	if o.index != nil {
		ctx.FrameBase, ctx.HasFB = e.sm.frameBase(o, caller)
	}
	var res unwind.Result
	saved := e.idx
	e.idx, e.nest = e.idx+1, e.nest+1
	err := unwind.Eval(expr, &ctx, &res)
	e.idx, e.nest = saved, e.nest-1
	if err != nil || res.N != 1 {
		return e.unknown(entryOther)
	}
	e.hops = max(e.hops, e.nest+1)
	p := res.Pieces[0]
	switch p.Kind {
	case unwind.PieceMem: // the expression's result is the value itself
		return p.Addr, nil
	case unwind.PieceValue:
		return p.Val, nil
	case unwind.PieceReg:
		if v, ok := caller.Regs.Get(int(p.Reg)); ok {
			return v, nil
		}
	}
	return e.unknown(entryOther)
}

// frameBase is DW_AT_frame_base of the function whose code holds frame f.
func (sm *sampling) frameBase(o *object, f *unwind.Frame) (uint64, bool) {
	link := f.LookupPC() - f.Map.Bias
	fn, ok := o.index.OuterFunc(link)
	if !ok || o.fbIsCFA[fn] {
		return f.CFA, f.HasCFA
	}
	ctx := unwind.Context{Regs: &f.Regs, Mem: &sm.cur.mem, CFA: f.CFA, HasCFA: f.HasCFA, Bias: f.Map.Bias}
	var res unwind.Result
	if unwind.Eval(o.schema.Funcs[fn].FrameBase, &ctx, &res) != nil || res.N != 1 {
		return 0, false
	}
	switch p := res.Pieces[0]; p.Kind {
	case unwind.PieceMem:
		return p.Addr, true
	case unwind.PieceValue:
		return p.Val, true
	case unwind.PieceReg:
		return f.Regs.Get(int(p.Reg))
	}
	return 0, false
}

// maxScalar bounds a local's size (long double is 16 bytes).
const maxScalar = 16

// readLocals queues the values of the variables accessible in the first
// program frames (method.md §3): the innermost program frame and up to
// depth callers. A variable is read once, in its shallowest frame. Globals
// come this way too where the schema places them at the PCs of the
// functions that read them; those valid everywhere come from readGlobals.
func (sm *sampling) readLocals(p *process, frames []unwind.Frame) {
	depth := 0
	sm.eval.frames = frames
	for i := range frames {
		if depth > sm.cfg.Depth {
			break
		}
		f := &frames[i]
		if f.Map == nil {
			continue
		}
		o := sm.objs.list[f.Map.Obj]
		if !o.program {
			continue
		}
		depth++
		if o.index == nil || i > 255 {
			continue
		}
		locs := o.index.Lookup(f.LookupPC() - f.Map.Bias)
		if len(locs) == 0 {
			continue
		}
		fbKnown := false
		var fb uint64
		var fbOK bool
		for _, li := range locs {
			loc := &o.schema.Locs[li]
			if o.seen[loc.Var] == sm.stamp {
				continue
			}
			o.seen[loc.Var] = sm.stamp
			v := &o.schema.Vars[loc.Var]
			size := int(v.Size)
			if v.Kind == model.KindAggregate {
				// A hash of the first bytes (duration dimension only):
				// globals and function-scope statics up to aggBytes; a
				// local or parameter only when small (a C++ iterator, a
				// struct cursor: often a loop's induction variable, kept
				// in registers and described by DW_OP_piece).
				local := !v.Static && v.Func != model.NoFunc
				if size <= 0 || local && size > maxScalar {
					continue
				}
				size = min(size, aggBytes)
			} else if size <= 0 || size > maxScalar {
				continue
			}
			pd := pending{obj: o, v: loc.Var, kind: v.Kind, frame: uint8(i), slot: -1, size: size}
			if loc.BasicTypePtr && v.Kind == model.KindPointer && v.PointeeKind != 0 {
				pd.pkind, pd.psize = v.PointeeKind, int(v.PointeeSize)
			}
			if loc.StrLen {
				pd.strlen, pd.kind, pd.size = true, model.KindPointer, 8
			}
			var addr uint64
			switch loc.Kind {
			case model.LocConst:
				sm.immediate(&pd, uint64(loc.Offset))
				continue
			case model.LocReg:
				sm.fromReg(&pd, f, i, int(loc.Reg), loc)
				continue
			case model.LocRegOff:
				base, ok := frameReg(f, int(loc.Reg), loc)
				if !ok {
					sm.vstats.Unavailable++
					continue
				}
				addr = base + uint64(loc.Offset)
			case model.LocFrame:
				if !fbKnown {
					fb, fbOK = sm.frameBase(o, f)
					fbKnown = true
				}
				if !fbOK {
					sm.vstats.Unavailable++
					continue
				}
				addr = fb + uint64(loc.Offset)
			case model.LocAddr:
				addr = loc.Addr + f.Map.Bias
			case model.LocExpr:
				sm.fromExpr(&pd, o, f, i, loc)
				continue
			default:
				continue
			}
			sm.fromMem(&pd, addr)
		}
	}
}

// immediate records a value whose raw bits are known.
func (sm *sampling) immediate(pd *pending, bits uint64) {
	off, ok := sm.batch.alloc(pd.size)
	if !ok {
		sm.vstats.Faulted++
		return
	}
	b := sm.batch.bytesOf(off, pd.size)
	for k := range b {
		if k < 8 {
			b[k] = byte(bits >> (8 * k))
		} else {
			b[k] = 0
		}
	}
	pd.off = off
	sm.pend = append(sm.pend, *pd)
}

// frameReg reads general register reg of frame f for a variable located by
// loc (nil: no location context). In a caller frame a register the CFI does
// not restore is used only if loc says the variable is still there after the
// call returns: the compiler knew the callee leaves it alone (-fipa-ra).
func frameReg(f *unwind.Frame, reg int, loc *model.Loc) (uint64, bool) {
	if v, ok := f.Regs.Get(reg); ok {
		return v, true
	}
	if loc != nil && !f.Exact && f.Map != nil && loc.PCEnd > f.PC-f.Map.Bias {
		return f.Regs.GetWeak(reg)
	}
	return 0, false
}

// fromReg reads a register of frame f (index i): general registers as
// recovered by unwinding, SSE registers in the innermost frame only.
func (sm *sampling) fromReg(pd *pending, f *unwind.Frame, i, reg int, loc *model.Loc) {
	if reg < unwind.NumRegs {
		v, ok := frameReg(f, reg, loc)
		if !ok {
			sm.vstats.Unavailable++
			return
		}
		sm.immediate(pd, v)
		return
	}
	x := reg - unwind.XMM0
	if i != 0 || !sm.cur.hasFP || x < 0 || x >= 16 || pd.size > 16 {
		sm.vstats.Unavailable++
		return
	}
	off, ok := sm.batch.alloc(pd.size)
	if !ok {
		sm.vstats.Faulted++
		return
	}
	copy(sm.batch.bytesOf(off, pd.size), sm.cur.fp[xmmOffset+16*x:])
	pd.off = off
	sm.pend = append(sm.pend, *pd)
}

// fromMem reads size bytes at addr: from the stack window when it holds
// them, else queued in the batch.
func (sm *sampling) fromMem(pd *pending, addr uint64) {
	if b := sm.cur.mem.bytes(addr, pd.size); b != nil {
		off, ok := sm.batch.alloc(pd.size)
		if !ok {
			sm.vstats.Faulted++
			return
		}
		copy(sm.batch.bytesOf(off, pd.size), b)
		pd.off = off
		sm.pend = append(sm.pend, *pd)
		return
	}
	if sm.cur.mem.snap != nil && sm.cur.mem.snapRefuse(addr, pd.size) {
		sm.vstats.Unavailable++ // stack the perf sample's window did not hold
		return
	}
	slot, off := sm.batch.add(addr, pd.size)
	if slot < 0 {
		sm.vstats.Faulted++
		return
	}
	pd.slot, pd.off = slot, off
	sm.pend = append(sm.pend, *pd)
}

// fromExpr evaluates a general location expression in frame f.
func (sm *sampling) fromExpr(pd *pending, o *object, f *unwind.Frame, i int, loc *model.Loc) {
	expr := loc.Expr
	regs := &f.Regs
	if !f.Exact && f.Regs.Weak != 0 && loc.PCEnd > f.PC-f.Map.Bias {
		// As in frameReg: the location holds after the call returns, so
		// the registers it names survived the callee.
		sm.exprRegs = f.Regs
		sm.exprRegs.Valid |= sm.exprRegs.Weak
		regs = &sm.exprRegs
	}
	ctx := unwind.Context{Regs: regs, Mem: &sm.cur.mem, CFA: f.CFA, HasCFA: f.HasCFA, Bias: f.Map.Bias, Entry: &sm.eval}
	if o.index != nil {
		ctx.FrameBase, ctx.HasFB = sm.frameBase(o, f)
	}
	sm.eval.idx, sm.eval.nest, sm.eval.hops, sm.eval.why = i, 0, 0, entryKnown
	var res unwind.Result
	if err := unwind.Eval(expr, &ctx, &res); err != nil {
		switch err {
		case unwind.ErrEntryValue:
			sm.vstats.EntryValue++
			switch sm.eval.why {
			case entryNoValueDeep:
				sm.vstats.EntryNoValueDeep++
				sm.vstats.EntryNoValue++
			case entryNoValue:
				sm.vstats.EntryNoValue++
			case entryNoRecords:
				sm.vstats.EntryNoRecords++
				sm.vstats.EntryNoValue++
			case entryTail:
				sm.vstats.EntryTail++
			case entryNoCaller:
				sm.vstats.EntryNoCaller++
			case entryBound:
				sm.vstats.EntryBound++
			}
		case unwind.ErrUnsupported:
			sm.vstats.Unsupported++
		case unwind.ErrUnreadable:
			sm.vstats.Faulted++
		default:
			sm.vstats.Unavailable++
		}
		return
	}
	if sm.eval.hops == MaxEntryHops {
		sm.vstats.EntryLast++
	}
	if res.N == 1 && res.Pieces[0].Size == 0 {
		p := res.Pieces[0]
		switch p.Kind {
		case unwind.PieceMem:
			sm.fromMem(pd, p.Addr)
		case unwind.PieceReg:
			sm.fromReg(pd, f, i, int(p.Reg), nil)
		case unwind.PieceValue:
			sm.immediate(pd, p.Val)
		default:
			sm.vstats.Unavailable++
		}
		return
	}
	// Pieces: assemble the value when every piece is at hand now.
	off, ok := sm.batch.alloc(pd.size)
	if !ok {
		sm.vstats.Faulted++
		return
	}
	dst := sm.batch.bytesOf(off, pd.size)
	pos := 0
	for k := 0; k < res.N && pos < len(dst); k++ {
		p := res.Pieces[k]
		n := int(p.Size)
		if n <= 0 || pos+n > len(dst) {
			n = len(dst) - pos
		}
		var src [16]byte
		switch p.Kind {
		case unwind.PieceMem:
			b := sm.cur.mem.bytes(p.Addr, n)
			if b == nil || n > 16 {
				sm.vstats.Unavailable++
				return
			}
			copy(src[:], b)
		case unwind.PieceReg:
			if int(p.Reg) < unwind.NumRegs {
				v, ok := f.Regs.Get(int(p.Reg))
				if !ok {
					sm.vstats.Unavailable++
					return
				}
				binary.LittleEndian.PutUint64(src[:], v)
			} else if x := int(p.Reg) - unwind.XMM0; i == 0 && sm.cur.hasFP && x >= 0 && x < 16 {
				copy(src[:], sm.cur.fp[xmmOffset+16*x:])
			} else {
				sm.vstats.Unavailable++
				return
			}
		case unwind.PieceValue:
			binary.LittleEndian.PutUint64(src[:], p.Val)
		default:
			sm.vstats.Unavailable++
			return
		}
		copy(dst[pos:pos+n], src[:n])
		pos += n
	}
	pd.off = off
	sm.pend = append(sm.pend, *pd)
}

// finishValues runs the queued reads and appends the normalised values,
// then reads the pointees of pointers to basic types and the fields behind
// pointers to structs.
func (sm *sampling) finishValues(pid int) {
	b := sm.batch
	if len(b.local) > 0 {
		b.run(pid)
	}
	sm.ptrs = sm.ptrs[:0]
	sm.freads = sm.freads[:0]
	sm.sreads = sm.sreads[:0]
	nf := 0
	for k := range sm.pend {
		pd := &sm.pend[k]
		if pd.slot >= 0 && !b.ok[pd.slot] {
			sm.vstats.Faulted++
			continue
		}
		val := model.Value{Frame: pd.frame, Obj: pd.obj.id, Var: pd.v, Bits: normalise(pd.kind, b.bytesOf(pd.off, pd.size))}
		if pd.strlen {
			if val.Bits != 0 {
				sm.sreads = append(sm.sreads, strRead{val: val})
			}
			continue // NULL: no string, no value
		}
		sm.values = append(sm.values, val)
		sm.vstats.Read++
		if pd.pkind != 0 && val.Bits != 0 && pd.psize > 0 && pd.psize <= maxScalar {
			sm.ptrs = append(sm.ptrs, ptrRead{idx: len(sm.values) - 1, kind: pd.pkind, size: pd.psize})
		}
		if pd.obj.fieldStart != nil && pd.kind == model.KindPointer {
			sm.queueFields(pd.obj, len(sm.values)-1, &val, &nf)
		}
	}
	sm.readBehind(pid, &sm.values, true)
	sm.readStrings(pid)
}

// strRead is a string length variable being read: val.Bits is the
// pointer, the string's address.
type strRead struct {
	val model.Value
}

// readStrings appends, for each queued string length variable, the length
// of the string at its pointer, up to model.StrLenBound: a first read to
// the end of the pointer's page (a page is readable whole or not at all),
// then, when no NUL was there, one read of the rest up to the bound. A
// read that faults (a pointer to no string, or a string running into
// unmapped memory) gives no value (Faulted). At most two system calls
// per string, and only strings longer than their page's rest take the
// second.
func (sm *sampling) readStrings(pid int) {
	if len(sm.sreads) == 0 {
		return
	}
	if sm.sbuf == nil {
		sm.sbuf = make([]byte, model.StrLenBound)
	}
	const page = 4096
	for _, sr := range sm.sreads {
		addr := sr.val.Bits
		first := min(int(page-addr%page), model.StrLenBound)
		n, ok := sm.readString(pid, addr, sm.sbuf[:first])
		if !ok {
			sm.vstats.Faulted++
			continue
		}
		length := n
		if n == first && first < model.StrLenBound {
			m, ok := sm.readString(pid, addr+uint64(first), sm.sbuf[first:])
			if !ok {
				sm.vstats.Faulted++
				continue
			}
			length += m
		}
		v := sr.val
		v.Bits = uint64(length)
		sm.values = append(sm.values, v)
		sm.vstats.Read++
		sm.vstats.Strings++
	}
}

// readString reads len(buf) bytes at addr and returns the length of the
// string there: the offset of the first NUL, or len(buf) when there is
// none. A read that stops short (unmapped memory) counts when the bytes
// it got hold the NUL.
func (sm *sampling) readString(pid int, addr uint64, buf []byte) (int, bool) {
	local := [1]unix.Iovec{{Base: &buf[0]}}
	local[0].SetLen(len(buf))
	remote := [1]unix.RemoteIovec{{Base: uintptr(addr), Len: len(buf)}}
	n, err := readv(pid, local[:], remote[:])
	if err != nil {
		return 0, false
	}
	sm.vstats.StringBytes += uint64(n)
	if k := bytes.IndexByte(buf[:n], 0); k >= 0 {
		return k, true // a partial read that holds the end is enough
	}
	return len(buf), n == len(buf)
}

type ptrRead struct {
	idx, slot, off, size int
	kind                 model.Kind
}

// vectorLen is the element count of a std::vector whose begin and end
// pointers are b's two words (D266): (end - begin) / elem, 0 where end
// is below begin (a vector being moved or torn down).
func vectorLen(b []byte, elem int64) uint64 {
	begin, end := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
	if end < begin || elem <= 0 {
		return 0
	}
	return (end - begin) / uint64(elem)
}

// MaxFieldReads bounds the fields read behind pointers in one sample (one
// thread at one tick, all frames; and the globals of a process at one
// tick): with dwarfschema.MaxFields per pointer, the per-sample budget of
// method.md §2. Fields past it are not read (ValueStats.FieldsOver).
const MaxFieldReads = 64

// fieldRead is a field behind a pointer being read: the pointer's value
// is vals[idx], the field o.fields[f].
type fieldRead struct {
	obj       *object
	idx, f    int
	slot, off int
	addr      uint64
}

// queueFields queues the fields behind pointer value *val, vals[idx] of
// object o; n counts this sample's field reads.
func (sm *sampling) queueFields(o *object, idx int, val *model.Value, n *int) {
	if int(val.Var)+1 >= len(o.fieldStart) {
		return
	}
	lo, hi := int(o.fieldStart[val.Var]), int(o.fieldStart[val.Var+1])
	if lo == hi {
		return
	}
	if val.Bits == 0 {
		sm.vstats.FieldsNull += uint64(hi - lo) // NULL: nothing behind it
		return
	}
	for f := lo; f < hi; f++ {
		if *n >= MaxFieldReads {
			sm.vstats.FieldsOver += uint64(hi - f)
			return
		}
		*n++
		sm.freads = append(sm.freads, fieldRead{obj: o, idx: idx, f: f, addr: val.Bits + uint64(o.fields[f].off)})
	}
}

// readBehind reads, with one batch, the pointees queued in sm.ptrs and the
// fields queued in sm.freads, for the values in *vals: pointees complete
// their pointer's value, fields are appended as values of their own, in
// their pointer's frame. A read that faults (a dangling pointer) gives no
// value (Faulted for a field; the pointer itself stays). With stack, a field
// in the sampled thread's stack window is taken from the window.
func (sm *sampling) readBehind(pid int, vals *[]model.Value, stack bool) {
	if len(sm.ptrs) == 0 && len(sm.freads) == 0 {
		return
	}
	b := sm.batch
	b.reset()
	for k := range sm.ptrs {
		pr := &sm.ptrs[k]
		pr.slot, pr.off = b.add((*vals)[pr.idx].Bits, pr.size)
	}
	for k := range sm.freads {
		fr := &sm.freads[k]
		size := int(fr.obj.fields[fr.f].size)
		if stack {
			// A struct on the sampled thread's stack (the caller's local
			// passed by address) as the sample saw it: the perf
			// sampler's reads come after the tick, when the frame may be
			// gone.
			if w := sm.cur.mem.bytes(fr.addr, size); w != nil {
				if off, ok := b.alloc(size); ok {
					copy(b.bytesOf(off, size), w)
					fr.slot, fr.off = -2, off
					continue
				}
			}
			if sm.cur.mem.snap != nil && sm.cur.mem.snapRefuse(fr.addr, size) {
				fr.slot = -3 // stack the window did not hold
				continue
			}
		}
		fr.slot, fr.off = b.add(fr.addr, size)
	}
	b.run(pid)
	for _, pr := range sm.ptrs {
		if pr.slot < 0 || !b.ok[pr.slot] {
			continue // a dangling or null-ish pointer: the pointer itself stays
		}
		v := &(*vals)[pr.idx]
		v.Pointee, v.HasPointee = normalise(pr.kind, b.bytesOf(pr.off, pr.size)), true
		sm.vstats.Pointees++
	}
	for _, fr := range sm.freads {
		switch {
		case fr.slot == -3:
			sm.vstats.Unavailable++
			continue
		case fr.slot == -1 || fr.slot >= 0 && !b.ok[fr.slot]:
			sm.vstats.Faulted++
			continue
		}
		f := &fr.obj.fields[fr.f]
		base := (*vals)[fr.idx]
		var bits uint64
		if f.elem > 0 {
			bits = vectorLen(b.bytesOf(fr.off, 16), f.elem)
		} else {
			bits = normalise(f.kind, b.bytesOf(fr.off, int(f.size)))
		}
		*vals = append(*vals, model.Value{Frame: base.Frame, Obj: base.Obj, Var: f.v, Bits: bits})
		sm.vstats.Read++
		sm.vstats.Fields++
	}
}
