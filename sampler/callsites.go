package sampler

import (
	"debug/dwarf"
	"debug/elf"
	"sort"
)

// callSites holds the DW_TAG_call_site_parameter records of a program:
// what each argument register held at each call, as an expression in the
// caller's frame. They resolve DW_OP_entry_value in the callee, which gcc
// -O2 uses for most parameters once their register is reused.
type callSites struct {
	pcs    []uint64 // return addresses (link-time), sorted
	params [][]siteParam
}

type siteParam struct {
	reg   int    // DWARF register of the argument at the call
	value []byte // DW_AT_call_value: expression in the caller's frame
}

const (
	tagGNUCallSite      dwarf.Tag  = 0x4109
	tagGNUCallSiteParam dwarf.Tag  = 0x410a
	attrGNUCallSiteVal  dwarf.Attr = 0x2111
)

// loadCallSites reads the call-site parameters of the ELF file at path.
func loadCallSites(path string) (*callSites, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d, err := f.DWARF()
	if err != nil {
		return nil, err
	}
	type site struct {
		pc     uint64
		params []siteParam
	}
	var sites []site
	r := d.Reader()
	var cur *site
	for {
		e, err := r.Next()
		if err != nil {
			return nil, err
		}
		if e == nil {
			break
		}
		switch e.Tag {
		case dwarf.TagCallSite, tagGNUCallSite:
			cur = nil
			pc, ok := e.Val(dwarf.AttrCallReturnPC).(uint64)
			if !ok {
				pc, ok = e.Val(dwarf.AttrLowpc).(uint64) // GNU: the return address
			}
			if ok && e.Children {
				sites = append(sites, site{pc: pc})
				cur = &sites[len(sites)-1]
			}
		case dwarf.TagCallSiteParameter, tagGNUCallSiteParam:
			if cur == nil {
				continue
			}
			loc, _ := e.Val(dwarf.AttrLocation).([]byte)
			val, ok := e.Val(dwarf.AttrCallValue).([]byte)
			if !ok {
				val, ok = e.Val(attrGNUCallSiteVal).([]byte)
			}
			if !ok || len(loc) == 0 {
				continue
			}
			reg := -1
			switch {
			case loc[0] >= 0x50 && loc[0] <= 0x6f && len(loc) == 1:
				reg = int(loc[0] - 0x50)
			case loc[0] == 0x90 && len(loc) == 2 && loc[1] < 0x80:
				reg = int(loc[1])
			}
			if reg >= 0 {
				cur.params = append(cur.params, siteParam{reg: reg, value: val})
			}
		case 0:
			// End of a children list: the parameters of a call site end
			// with its children, but a call site's siblings are not its
			// parameters either way.
		default:
			if e.Tag != dwarf.TagCallSiteParameter && e.Tag != tagGNUCallSiteParam {
				cur = nil
			}
		}
	}
	sort.Slice(sites, func(i, j int) bool { return sites[i].pc < sites[j].pc })
	cs := &callSites{}
	for _, s := range sites {
		if len(s.params) == 0 {
			continue
		}
		if n := len(cs.pcs); n > 0 && cs.pcs[n-1] == s.pc {
			continue
		}
		cs.pcs = append(cs.pcs, s.pc)
		cs.params = append(cs.params, s.params)
	}
	return cs, nil
}

// lookup returns the value expression of argument register reg at the call
// returning to link-time address ret.
func (cs *callSites) lookup(ret uint64, reg int) ([]byte, bool) {
	if cs == nil {
		return nil, false
	}
	lo, hi := 0, len(cs.pcs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if cs.pcs[m] < ret {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == len(cs.pcs) || cs.pcs[lo] != ret {
		return nil, false
	}
	for _, p := range cs.params[lo] {
		if p.reg == reg {
			return p.value, true
		}
	}
	return nil, false
}
