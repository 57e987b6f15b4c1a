package unwind

import "sort"

// Mapped is one object's executable mapping in a process: runtime PCs in
// [Start, End) belong to the object at link-time address PC - Bias.
type Mapped struct {
	Start, End uint64
	Bias       uint64
	Table      *Table // nil: no CFI (frame pointers only)
	Obj        int32  // the caller's object id
}

// Space is the set of executable mappings of one process.
type Space struct {
	maps []Mapped // sorted by Start, disjoint
	last int      // index of the last hit
}

// Reset forgets every mapping (after exec).
func (s *Space) Reset() { s.maps, s.last = s.maps[:0], 0 }

// Len is the number of mappings.
func (s *Space) Len() int { return len(s.maps) }

// Mappings returns the mappings, sorted by Start. The slice is owned by s.
func (s *Space) Mappings() []Mapped { return s.maps }

// Clone returns an independent copy (a forked child's address space).
func (s *Space) Clone() *Space {
	return &Space{maps: append([]Mapped(nil), s.maps...)}
}

// Add inserts m, replacing the mappings it overlaps (an unmapped and
// remapped range).
func (s *Space) Add(m Mapped) {
	out := s.maps[:0:0]
	for _, o := range s.maps {
		if o.End <= m.Start || o.Start >= m.End {
			out = append(out, o)
		}
	}
	i := sort.Search(len(out), func(i int) bool { return out[i].Start > m.Start })
	out = append(out, Mapped{})
	copy(out[i+1:], out[i:])
	out[i] = m
	s.maps, s.last = out, 0
}

// Find returns the mapping holding pc, or nil. The pointer is valid until
// the next Add or Reset.
func (s *Space) Find(pc uint64) *Mapped {
	if s.last < len(s.maps) {
		if m := &s.maps[s.last]; pc >= m.Start && pc < m.End {
			return m
		}
	}
	lo, hi := 0, len(s.maps)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if s.maps[mid].End <= pc {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(s.maps) && pc >= s.maps[lo].Start {
		s.last = lo
		return &s.maps[lo]
	}
	return nil
}

// Frame is one frame of an unwound stack.
type Frame struct {
	PC     uint64 // frame 0: the sampled PC; others: the return address
	CFA    uint64 // canonical frame address (valid when HasCFA)
	HasCFA bool
	Exact  bool // PC is not a return address (frame 0, or interrupted by a signal): look it up at PC, else PC-1
	Signal bool // a signal-handler trampoline
	FP     bool // unwound from this frame by frame pointer (no CFI)
	Regs   Regs
	Map    *Mapped // nil when PC is in no known mapping; valid until the Space changes
}

// LookupPC is the address at which the frame's code is looked up: the
// return address minus one for callers, inside the call instruction.
func (f *Frame) LookupPC() uint64 {
	if f.Exact {
		return f.PC
	}
	return f.PC - 1
}

// Stats counts how frames were unwound, and why walks stopped.
type Stats struct {
	CFI, FramePointer, NoMapping uint64
	// Stops counts the walks by the reason they stopped (Stop); Last is
	// the last walk's.
	Stops [NumStops]uint64
	Last  Stop
}

// Stop is why a walk ended. StopOutermost is a whole stack; the others
// cut it short of its entry frame.
type Stop uint8

const (
	StopOutermost  Stop = iota // the CFI leaves the return address undefined (_start, a thread's clone), it is 0, or no CFI and %rbp 0
	StopUnreadable             // the memory holding the return address (or the CFA) could not be read
	StopNoCFI                  // no CFI for the PC, and no usable frame pointer
	StopSP                     // the caller's stack pointer is not above the frame's: a corrupt step
	StopDepth                  // the frame limit (frames full)
	NumStops
)

// String names the reason.
func (s Stop) String() string {
	switch s {
	case StopOutermost:
		return "outermost frame"
	case StopUnreadable:
		return "return address unreadable"
	case StopNoCFI:
		return "no CFI nor frame pointer"
	case StopSP:
		return "stack pointer not growing"
	case StopDepth:
		return "frame limit"
	}
	return "unknown"
}

// maxFrameSize bounds how far the stack pointer may move in one frame
// when following frame pointers (a corrupt chain otherwise wanders).
const maxFrameSize = 1 << 24

// Walk unwinds the stack whose innermost frame has registers regs, filling
// frames (at most len(frames)) and returning how many it filled. It stops at
// the outermost frame, at a return address of 0, when the stack pointer
// does not grow, or when memory cannot be read. It does not allocate once
// the tables' caches hold the PCs met.
func (s *Space) Walk(regs *Regs, mem Memory, frames []Frame, st *Stats) int {
	if len(frames) == 0 {
		return 0
	}
	n := 0
	frames[0].Regs = *regs
	exact := true
	stop := StopDepth
	for n < len(frames) {
		f := &frames[n] // f.Regs was set by the previous step (or above)
		n++
		f.PC = f.Regs.R[RIP]
		f.Exact = exact
		f.Signal, f.FP, f.HasCFA = false, false, false
		f.Map = s.Find(f.PC)
		if n == len(frames) {
			// The last frame still needs its CFA (values in it use the
			// frame base) but not its caller.
			s.cfaOnly(f, mem)
			break
		}
		next := &frames[n].Regs
		if stop = s.step(f, mem, next, st); stop != NumStops {
			break
		}
		stop = StopDepth
		if next.R[RIP] == 0 {
			stop = StopOutermost
			break
		}
		if !f.Signal && next.R[RSP] <= f.Regs.R[RSP] {
			stop = StopSP
			break
		}
		exact = f.Signal
	}
	if st != nil {
		st.Stops[stop]++
		st.Last = stop
	}
	return n
}

// cfaOnly sets f's CFA without unwinding further.
func (s *Space) cfaOnly(f *Frame, mem Memory) {
	if f.Map == nil || f.Map.Table == nil {
		return
	}
	if row := f.Map.Table.Lookup(f.LookupPC() - f.Map.Bias); row != nil {
		f.CFA, f.HasCFA = row.ComputeCFA(&f.Regs, mem)
		f.Signal = row.Signal
	}
}

// step computes the caller registers of f into next. It returns NumStops
// when it did, else why not.
func (s *Space) step(f *Frame, mem Memory, next *Regs, st *Stats) Stop {
	if f.Map != nil && f.Map.Table != nil {
		if row := f.Map.Table.Lookup(f.LookupPC() - f.Map.Bias); row != nil {
			cfa, ok := row.ComputeCFA(&f.Regs, mem)
			if !ok {
				return StopUnreadable
			}
			f.CFA, f.HasCFA, f.Signal = cfa, true, row.Signal
			if st != nil {
				st.CFI++
			}
			if row.Step(&f.Regs, cfa, mem, next) {
				return NumStops
			}
			if row.Regs[RIP].Kind == RuleUndefined {
				return StopOutermost
			}
			return StopUnreadable
		}
	}
	if f.Map == nil && st != nil {
		st.NoMapping++
	}
	// Frame-pointer fallback: %rbp points at the saved %rbp, the return
	// address above it.
	bp, ok := f.Regs.Get(RBP)
	sp := f.Regs.R[RSP]
	if ok && bp == 0 {
		// The ABI's mark of the deepest frame (the dynamic loader's
		// entry, which has no CFI, sets it so).
		return StopOutermost
	}
	if !ok || bp < sp || bp-sp > maxFrameSize || bp%8 != 0 {
		return StopNoCFI
	}
	ra, ok1 := mem.Read(bp+8, 8)
	savedBP, ok2 := mem.Read(bp, 8)
	if !ok1 || !ok2 {
		return StopUnreadable
	}
	f.CFA, f.HasCFA, f.FP = bp+16, true, true
	if st != nil {
		st.FramePointer++
	}
	next.Valid, next.Weak = 0, 0
	next.Set(RIP, ra)
	next.Set(RSP, bp+16)
	next.Set(RBP, savedBP)
	return NumStops
}
