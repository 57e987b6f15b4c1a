package rank

import "github.com/vprof/vprof/runtime/dwarfexpr"

// A variable read through its callers' records (method.md §5, decision
// D335). Where gcc -O2 no longer holds a parameter (its register reused
// after its last use), DWARF locates it as an entry value: the value the
// argument register had at the call, which only the caller's call-site
// record gives (§3). A caller whose record lacks it (the argument computed
// in a register the call clobbers; a caller inlined into another) leaves
// the read unknown, and the sampler skips it, counted for the recording,
// not for the variable. How often such a variable was read is then how long
// its frame ran under the callers that give it, not how often its scope ran:
// its presence ("present only when slow", "rare when normal") says which
// caller called, and how long that call ran, not a path the function took
// only when slow. Its values, where read, are compared as any variable's.

// hasEntryValue reports whether DWARF expression e uses an entry value
// (DW_OP_entry_value, or DWARF 4's DW_OP_GNU_entry_value) at its top
// level. An expression it cannot decode answers false: the variable keeps
// the ordinary reading.
func hasEntryValue(e []byte) bool {
	for len(e) > 0 {
		o, rest, err := dwarfexpr.Next(e)
		if err != nil {
			return false
		}
		if o.Code == dwarfexpr.DW_OP_entry_value || o.Code == dwarfexpr.DW_OP_GNU_entry_value {
			return true
		}
		e = rest
	}
	return false
}

// entryRead reports whether variable v is located as an entry value over
// some PC range of its function, or is a field behind a pointer that is
// (the field is read only where the pointer is).
func (a *Analyzer) entryRead(v int32) bool {
	for range len(a.vars) { // a chain of fields: bounded by the variables
		if v < 0 || int(v) >= len(a.vars) {
			return false
		}
		vi := &a.vars[v]
		if vi.entry {
			return true
		}
		if vi.derefOf <= 0 {
			return false
		}
		v = vi.derefOf - 1
	}
	return false
}

// presenceByCaller reports whether the presence of variable v (its count
// of reads, fewer than MinSamples in the normal runs) is no verdict
// (decision D335): v is read through its callers' records (entryRead) and
// its frame ran in the normal runs (its variables read at MinSamples
// sampling events or more there), so its few reads there are its callers'
// records, not its frame's absence. A frame that did not run in the normal
// runs (fewer events) keeps the verdict: its absence is the frame's own.
func (a *Analyzer) presenceByCaller(v int32) bool {
	if v < 0 || int(v) >= len(a.vars) || a.vars[v].fn < 0 || !a.entryRead(v) {
		return false
	}
	ev, _ := a.frameEvents(a.vars[v].fn)
	return ev[Normal] >= float64(a.opt.MinSamples)
}
