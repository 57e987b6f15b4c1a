package dwarfschema

import (
	"cmp"
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
	if c.siteCall != call || len(c.sites) == 0 {
		c.sites = append(c.sites, model.CallSite{ReturnPC: pc})
		c.siteCall = call
	}
	s := &c.sites[len(c.sites)-1]
	s.Params = append(s.Params, model.CallParam{Reg: reg, Value: value})
}

// finishCallSites sorts sites by return address, keeps the first record
// of a return address in DWARF order (two records for one call would be
// a producer's bug), and copies the value expressions into one block so
// that the schema keeps no reference to .debug_info.
func finishCallSites(sites []model.CallSite) []model.CallSite {
	if len(sites) == 0 {
		return nil
	}
	slices.SortStableFunc(sites, func(a, b model.CallSite) int { return cmp.Compare(a.ReturnPC, b.ReturnPC) })
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
