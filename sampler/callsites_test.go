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
	for _, tc := range []struct {
		name, dwarf, sampler string
	}{
		{"dwarf5/ptrace", "-gdwarf-5", SamplerPtrace},
		{"dwarf4/ptrace", "-gdwarf-4", SamplerPtrace},
		{"dwarf5/perf", "-gdwarf-5", SamplerPerf},
		{"dwarf4/perf", "-gdwarf-4", SamplerPerf},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.sampler == SamplerPerf {
				perfOK(t)
			}
			exe := buildC(t, "entryvals", "-g", tc.dwarf)
			res, p := record(t, Config{Args: []string{exe, strconv.Itoa(seed), "300000000"}, Depth: 3, Sampler: tc.sampler})
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
}
