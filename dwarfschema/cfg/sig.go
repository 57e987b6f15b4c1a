package cfg

import "sort"

// ArgClass is how the System V x86-64 ABI passes one parameter.
type ArgClass uint8

const (
	ArgInt    ArgClass = iota + 1 // in the next integer register (rdi, rsi, rdx, rcx, r8, r9)
	ArgFloat                      // in the next vector register (xmm0..xmm7)
	ArgInt2                       // a 9 to 16-byte aggregate: the next two integer registers
	ArgMemory                     // on the stack
)

// Signature is what a callee takes: its parameters' classes, and whether
// more follow (a "...").
type Signature struct {
	Params   []ArgClass
	Variadic bool
}

// Signatures maps function entry addresses to signatures. An entry marked
// as a clone (gcc's .constprop, .isra, .part) has an unknown signature even
// if its source function's is known: the compiler changed it.
type Signatures struct {
	addrs []uint64
	sigs  []*Signature // nil: a clone
}

// Add records the signature of the function at entry (nil for a clone).
// Call Sort once all are added.
func (s *Signatures) Add(entry uint64, sig *Signature) {
	s.addrs = append(s.addrs, entry)
	s.sigs = append(s.sigs, sig)
}

// Sort prepares s for Find; for an address added twice the first wins.
func (s *Signatures) Sort() {
	idx := make([]int, len(s.addrs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return s.addrs[idx[i]] < s.addrs[idx[j]] })
	addrs := make([]uint64, 0, len(idx))
	sigs := make([]*Signature, 0, len(idx))
	for _, i := range idx {
		if n := len(addrs); n > 0 && addrs[n-1] == s.addrs[i] {
			continue
		}
		addrs = append(addrs, s.addrs[i])
		sigs = append(sigs, s.sigs[i])
	}
	s.addrs, s.sigs = addrs, sigs
}

// Find returns the signature of the function entered at addr; known is
// false for an address with no entry, clone is true for a clone.
func (s *Signatures) Find(addr uint64) (sig *Signature, known, clone bool) {
	if s == nil {
		return nil, false, false
	}
	i := sort.Search(len(s.addrs), func(i int) bool { return s.addrs[i] >= addr })
	if i == len(s.addrs) || s.addrs[i] != addr {
		return nil, false, false
	}
	return s.sigs[i], s.sigs[i] != nil, s.sigs[i] == nil
}

// argCellsOf appends the registers that carry sig's parameters.
func argCellsOf(dst []int16, sig *Signature) []int16 {
	ni, nf := 0, 0
	intRegs := [...]int16{cellRDI, cellRSI, cellRDX, cellRCX, cellR8, cellR9}
	for _, c := range sig.Params {
		switch c {
		case ArgInt, ArgInt2:
			n := 1
			if c == ArgInt2 {
				n = 2
			}
			if ni+n > len(intRegs) {
				ni = len(intRegs) // the whole aggregate goes to memory
				continue
			}
			for k := 0; k < n; k++ {
				dst = append(dst, intRegs[ni])
				ni++
			}
		case ArgFloat:
			if nf < 8 {
				dst = append(dst, int16(cellXMM0+nf))
				nf++
			}
		}
	}
	return dst
}
