package sampler

import (
	"github.com/vprof/vprof/dwarfschema"
	"github.com/vprof/vprof/runtime/tailcall"
	"github.com/vprof/vprof/sampler/unwind"
)

// restoreTailFrames puts back into frames[:n] the frames that tail calls
// removed (runtime/tailcall, method.md §3): between a caller frame and the
// frame under it, when the caller's call-site record names a function
// other than the one found there and exactly one chain of tail calls
// leads to it. It returns the new count. A restored frame has no registers of
// its own: it is at its tail call's return address (the address after
// the jump), with the frame under it's CFA (the callee reused its frame)
// and its caller's callee-saved registers (restored before the jump), so
// that what its location lists give there, its parameters' entry values
// from its caller's call-site record (DW_OP_entry_value) and the fields
// behind them, can be read; it is a frame like the others for --depth.
// Frames that do not fit are not restored (the readers of the profile
// restore them then, without values).
func (sm *sampling) restoreTailFrames(frames []unwind.Frame, n int) int {
	for i := 0; i+1 < n; i++ {
		f, c := &frames[i], &frames[i+1]
		if f.Map == nil || c.Map == nil || f.Map.Obj != c.Map.Obj || c.Exact || int(c.Map.Obj) >= len(sm.objs.list) {
			continue
		}
		o := sm.objs.list[c.Map.Obj]
		if o.tails == nil || !o.restore {
			continue
		}
		sm.tailIns = o.tails.Between(sm.tailIns[:0], f.PC-f.Map.Bias, f.Exact, c.PC-c.Map.Bias)
		k := len(sm.tailIns)
		if k == 0 || n+k > len(frames) {
			continue
		}
		copy(frames[i+1+k:n+k], frames[i+1:n])
		caller := frames[i+1+k]
		for j, r := range sm.tailIns {
			t := &frames[i+1+j]
			*t = caller // its registers and mapping
			t.PC = r + caller.Map.Bias
			t.CFA, t.HasCFA = f.CFA, f.HasCFA
			t.Exact, t.Signal, t.FP = false, false, false
			t.Regs.Weak = 0
			if t.PC <= caller.Map.Start || t.PC > caller.Map.End {
				t.Map = nil
			}
		}
		n += k
		i += k
	}
	return n
}

// tailIndex indexes the tail calls of a program object's schema, or nil,
// and what its file at path says of its indirect calls (decision D85):
// a frame under an indirect call that its callee's tail call left there
// is restored too, and takes no entry values from the call's record.
// The scan is read from the schema cache when it is there (c nil: none).
func tailIndex(o *object, path string, c *dwarfschema.Cache) *tailcall.Index {
	if o.schema == nil {
		return nil
	}
	x := tailcall.New(o.schema, o.schema.TailCalls)
	if x != nil && o.schema.BuildID != "" {
		if in, err := c.LoadIndirect(path, o.schema.BuildID, dwarfschema.Options{}); err == nil {
			x.AddIndirect(in)
		}
	}
	return x
}
