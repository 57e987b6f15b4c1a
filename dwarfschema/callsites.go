package dwarfschema

import (
	"cmp"
	"debug/dwarf"
	"fmt"
	"slices"

	"github.com/vprof/vprof/runtime/dwarfexpr"
	"github.com/vprof/vprof/runtime/model"
)

// The call-site records are read by the tag pass's walk of the call sites
// (scanCalls, tagging.go), which already visits every
// DW_TAG_call_site_parameter: Schema.CallSites costs no second walk.

// addCallParam records, for the call scanned as call index call (whose
// return address is pc), that argument location loc held value (both raw
// DWARF expressions). Parameters not passed in a register (stack
// arguments: DW_OP_fbreg, DW_OP_bregN) or without a value expression are
// of no use to DW_OP_entry_value, which names a register: skipped.
func (c *callScan) addCallParam(call int, pc uint64, loc, value []byte) {
	reg, ok := dwarfexpr.Register(loc)
	if !ok || len(value) == 0 {
		return
	}
	last := c.siteCall == call && len(c.sites) > 0
	if !last {
		c.sites = append(c.sites, model.CallSite{ReturnPC: pc})
		c.siteCall = call
	}
	s := &c.sites[len(c.sites)-1]
	s.Params = blockAppend(&c.siteParams, s.Params, last, model.CallParam{Reg: reg, Value: value})
}

// finishCallSites sorts sites by return address, keeps the first record
// of a return address in DWARF order (two records for one call would be
// a producer's bug), and copies the value expressions into one block so
// that the schema keeps no reference to .debug_info.
func finishCallSites(sites []model.CallSite) []model.CallSite {
	if len(sites) == 0 {
		return nil
	}
	// Stable by ReturnPC, through an index (stableOrder: a radix sort, or
	// nothing where the scan's order is sorted already); the first of
	// equal ReturnPCs kept.
	order := stableOrder(len(sites), func(i int32) uint64 { return sites[i].ReturnPC })
	permute(sites, order)
	out := sites[:0]
	nparams, nbytes := 0, 0
	for _, s := range sites {
		if n := len(out); n > 0 && out[n-1].ReturnPC == s.ReturnPC {
			continue
		}
		out = append(out, s)
		nparams += len(s.Params)
		for _, p := range s.Params {
			nbytes += len(p.Value)
		}
	}
	params := make([]model.CallParam, 0, nparams)
	block := make([]byte, 0, nbytes)
	for i := range out {
		first := len(params)
		for _, p := range out[i].Params {
			start := len(block)
			block = append(block, p.Value...)
			params = append(params, model.CallParam{Reg: p.Reg, Value: block[start:len(block):len(block)]})
		}
		out[i].Params = params[first:len(params):len(params)]
	}
	clear(sites[len(out):]) // drop the duplicates' references
	return slices.Clip(out)
}

// permute reorders s in place so that s[k] is the old s[order[k]],
// following the permutation's cycles; order is used up.
func permute[T any](s []T, order []int32) {
	for k := range order {
		if order[k] < 0 {
			continue
		}
		tmp := s[k]
		j := k
		for {
			src := int(order[j])
			order[j] = -1
			if src == k {
				s[j] = tmp
				break
			}
			s[j] = s[src]
			j = src
		}
	}
}

// DWARF 4's GNU extension marking a tail call (DWARF 5's
// DW_AT_call_tail_call).
const attrTailCallGNU dwarf.Attr = 0x2115

// rawEdge is a call-site record as scanned, for Schema.TailCalls: origin is
// its DW_AT_call_origin (0: an indirect call, of no use) and caller the
// subprogram DIE it sits in (through inlined bodies and blocks).
type rawEdge struct {
	pc     uint64
	origin dwarf.Offset
	caller dwarf.Offset
	tail   bool
}

// addEdge records call site e for Schema.TailCalls; pc (when ok) is its
// return address, origin its callee DIE, stack scanCalls' enclosing DIEs
// (indices in c.subs, -1 for DIEs other than subprograms). A tail call
// that clang marks by the jump's own address (DW_AT_call_pc) gets that
// address plus one, which is looked up, as a return address is, one
// byte before: inside the jump.
func (c *callScan) addEdge(e *die, pc uint64, ok bool, origin dwarf.Offset, stack []int) {
	if origin == 0 {
		return
	}
	tail := e.flag(dwarf.AttrCallTailCall) || e.flag(attrTailCallGNU)
	if !ok && tail {
		pc, ok = e.uint64(dwarf.AttrCallPC)
		pc++
	}
	if !ok {
		return
	}
	var caller dwarf.Offset
	for i := len(stack) - 1; i >= 0; i-- {
		if stack[i] >= 0 {
			caller = c.subs.off(stack[i])
			break
		}
	}
	if caller == 0 {
		return
	}
	c.edges = append(c.edges, rawEdge{pc: pc, origin: origin, caller: caller, tail: tail})
}

// tailCalls makes Schema.TailCalls from the scanned call sites: each call's
// callee as an entry address, kept if it is a tail call or if its callee
// makes one (the only calls the unwinder's look-up can use, method.md §3),
// sorted by return address, the first record of a return address kept.
//
// A callee DIE (DW_AT_call_origin) is a function's declaration, its
// abstract instance or a concrete one: it names the function whose
// out-of-line code has that DIE on its chain of DW_AT_abstract_origin and
// DW_AT_specification, the copy with the function's own symbol rather
// than a clone's. A declaration whose definition is in another unit has
// no such code there: as gdb does, its linkage name (DW_AT_name in C)
// names the ELF symbol, if exactly one has it. Unresolved calls are left
// out.
func tailCalls(d *dieData, syms []model.Symbol, subs *offTable[csSub], edges []rawEdge) []model.CallEdge {
	if len(edges) == 0 {
		return nil
	}
	// Every DIE on the chain of a function with code names that code.
	type code struct {
		entry uint64
		clone bool
	}
	named := map[dwarf.Offset]code{}
	for k := range subs.len() {
		si := subs.at(k)
		if !si.hasEntry {
			continue
		}
		name, _ := symbolAt(syms, si.entry)
		c := code{si.entry, isClone(name)}
		off := subs.off(k)
		for hop := 0; hop < 8 && off != 0; hop++ {
			if old, ok := named[off]; !ok || (old.clone && !c.clone) || (old.clone == c.clone && c.entry < old.entry) {
				named[off] = c
			}
			j := subs.index(off)
			if j < 0 {
				break
			}
			off = subs.at(j).origin
		}
	}
	var bySym map[string]uint64 // linkage name -> the one symbol (0: several)
	entryOf := map[dwarf.Offset]uint64{}
	var lr *dieReader // for linkageName
	resolve := func(off dwarf.Offset) uint64 {
		if e, ok := entryOf[off]; ok {
			return e
		}
		// The farthest DIE of the chain that names code: the source
		// function's, whichever of its copies (a clone's concrete DIE,
		// its abstract instance) the record names.
		var entry uint64
		x := off
		for hop := 0; hop < 8 && x != 0; hop++ {
			if c, ok := named[x]; ok {
				entry = c.entry
			}
			j := subs.index(x)
			if j < 0 {
				break
			}
			x = subs.at(j).origin
		}
		if entry == 0 {
			if bySym == nil {
				bySym = map[string]uint64{}
				for _, s := range syms {
					if _, dup := bySym[s.Name]; dup {
						bySym[s.Name] = 0
					} else {
						bySym[s.Name] = s.Value
					}
				}
			}
			if lr == nil {
				lr = d.reader(0, 0)
			}
			entry = bySym[linkageName(lr, off)]
		}
		entryOf[off] = entry
		return entry
	}
	// The functions that make a tail call, by the entry of their code
	// (resolve's, so that a clone's tail call marks its source function).
	tails := map[uint64]bool{}
	for _, e := range edges {
		if e.tail {
			if entry := resolve(e.caller); entry != 0 {
				tails[entry] = true
			}
		}
	}
	if len(tails) == 0 {
		return nil
	}
	var out []model.CallEdge
	for _, e := range edges {
		callee := resolve(e.origin)
		if callee == 0 || !(e.tail || tails[callee]) {
			continue
		}
		out = append(out, model.CallEdge{ReturnPC: e.pc, Callee: callee, Tail: e.tail})
	}
	slices.SortStableFunc(out, func(a, b model.CallEdge) int { return cmp.Compare(a.ReturnPC, b.ReturnPC) })
	out = slices.CompactFunc(out, func(a, b model.CallEdge) bool { return a.ReturnPC == b.ReturnPC })
	return slices.Clip(out)
}

// linkageName returns the linkage name of the subprogram DIE at off
// (DW_AT_linkage_name, the older DW_AT_MIPS_linkage_name, else DW_AT_name),
// following DW_AT_specification and DW_AT_abstract_origin, or "".
// r is a reader of d, moved to each DIE of the chain.
func linkageName(r *dieReader, off dwarf.Offset) string {
	for hop := 0; hop < 8 && off != 0; hop++ {
		if !r.seek(uint64(off)) {
			return ""
		}
		e, err := r.next()
		if err != nil || e == nil || e.off != off {
			return ""
		}
		if n, ok := e.string(dwarf.AttrLinkageName); ok {
			return string(n)
		}
		if n, ok := e.string(attrMIPSLinkageName); ok {
			return string(n)
		}
		next, _ := e.offset(dwarf.AttrSpecification)
		if next == 0 {
			next, _ = e.offset(dwarf.AttrAbstractOrigin)
		}
		if next == 0 {
			n, _ := e.string(dwarf.AttrName)
			return string(n)
		}
		off = next
	}
	return ""
}

// LoadTailCalls reads only Schema.TailCalls of the object at path, if its
// build ID is buildID: what a schema recorded before vprof read tail calls
// lacks (proffile.TailCallSource). It returns nil, nil for an object
// without DWARF.
func LoadTailCalls(path, buildID string, opt Options) ([]model.CallEdge, error) {
	f, ef, err := openPath(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s, err := symbolSchema(path, ef)
	if err != nil {
		return nil, err
	}
	if s.BuildID != buildID {
		return nil, fmt.Errorf("%s: build ID %q, not the recorded %q (rebuilt since)", path, s.BuildID, buildID)
	}
	dw, dwPath, err := findDWARF(path, ef, s.BuildID, opt.DebugDirs)
	if err != nil || dw == nil {
		return nil, err
	}
	defer dw.close()
	if dwPath != path && (len(s.Symbols) == 0 || !hasSection(ef, ".symtab")) {
		if ds, err := readSymbols(dw.ef); err == nil && len(ds) > len(s.Symbols) {
			s.Symbols = ds
		}
	}
	_, _, _, tails, err := callInfo(dw.dies, s.Symbols)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dwPath, err)
	}
	return tails, nil
}
