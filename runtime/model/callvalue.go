package model

// CallValue returns the value expression of argument register reg at the
// call whose return address is returnPC (link-time), from s.CallSites: the
// entry value of reg in the function that call entered. It does not
// allocate (the sampler calls it per caller frame).
func (s *Schema) CallValue(returnPC uint64, reg int) ([]byte, bool) {
	cs := s.CallSites
	lo, hi := 0, len(cs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if cs[m].ReturnPC < returnPC {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == len(cs) || cs[lo].ReturnPC != returnPC {
		return nil, false
	}
	for _, p := range cs[lo].Params {
		if int(p.Reg) == reg {
			return p.Value, true
		}
	}
	return nil, false
}
