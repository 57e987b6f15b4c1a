package sampler

import (
	"strconv"
	"testing"
)

// TestEntryValues reads parameters that only DW_OP_entry_value describes
// (testdata/entryvals.c): their values come from the callers' call-site
// records (Schema.CallSites), two levels deep for inner's key, with both
// samplers and in DWARF 4 (GNU opcodes and tags) and 5.
func TestEntryValues(t *testing.T) {
	const seed = 21
	eachDwarfSampler(t, func(t *testing.T, dwarf, sampler string) {
		exe := buildC(t, "entryvals", "-g", dwarf)
		res, p := record(t, Config{Args: []string{exe, strconv.Itoa(seed), "300000000"}, Depth: 3, Sampler: sampler})
		if res.ExitStatus != 0 {
			t.Fatalf("exit status %d", res.ExitStatus)
		}
		for _, o := range p.objs {
			if o.Program && len(o.Schema.CallSites) == 0 {
				t.Errorf("%s: the profile's schema has no call sites", o.Path)
			}
		}
		for _, c := range []struct {
			fn, name string
			want     uint64
			// minFrame: the frame at which at least one value must
			// have been read (1: the callee's call-site value needed
			// its caller's entry value in turn).
			minFrame uint8
		}{
			{"inner", "key", 2 * seed, 1},
			{"outer", "base", seed, 2},
		} {
			vs := p.values(c.fn, c.name)
			deep := 0
			for _, v := range vs {
				if v.Bits != c.want {
					t.Fatalf("%s.%s = %d in frame %d, want %d", c.fn, c.name, int64(v.Bits), v.Frame, c.want)
				}
				if v.Frame >= c.minFrame {
					deep++
				}
			}
			if deep == 0 {
				t.Errorf("%s.%s: %d values, none read in frame %d or deeper (entry values unknown: %d)",
					c.fn, c.name, len(vs), c.minFrame, res.Values.EntryValue)
			}
		}
	})
}

// eachDwarfSampler runs f as subtests for DWARF 4 and 5 under both
// samplers (perf only where perf events are allowed).
func eachDwarfSampler(t *testing.T, f func(t *testing.T, dwarf, sampler string)) {
	for _, sampler := range []string{SamplerPtrace, SamplerPerf} {
		for _, dwarf := range []string{"-gdwarf-5", "-gdwarf-4"} {
			t.Run("dwarf"+dwarf[len(dwarf)-1:]+"/"+sampler, func(t *testing.T) {
				if sampler == SamplerPerf {
					perfOK(t)
				}
				f(t, dwarf, sampler)
			})
		}
	}
}
