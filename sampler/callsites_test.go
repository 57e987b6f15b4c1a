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

// TestEntryValueChain reads d's p in testdata/entrychain.c, which only a
// chain of four call-site records gives (D116): d and c are restored
// tail-call frames, and each record's value for %rdi is the caller's own
// entry value. p->n behind it must be what main stored (argv[1]) and p
// the pointer c, b and a hold in the same sample. d's n, whose chain ends
// at main's record with no value for %rsi, must never be read. With
// --depth 5 main's frame is read too: its argc and argv are entry values
// that only libc's record could give, and libc is read for its symbols
// only, so they count as from a caller without records.
func TestEntryValueChain(t *testing.T) {
	const rows = 4242
	eachDwarfSampler(t, func(t *testing.T, dwarf, sampler string) {
		exe := buildC(t, "entrychain", "-g", dwarf)
		res, p := record(t, Config{Args: []string{exe, strconv.Itoa(rows), "300000000"}, Depth: 5, Sampler: sampler, TailFrames: true})
		if res.ExitStatus != 0 {
			t.Fatalf("exit status %d", res.ExitStatus)
		}
		inLeaf := 0
		for _, s := range p.samples {
			if len(s.funcs) > 4 && s.funcs[0] == "leaf" && s.funcs[1] == "d" && s.funcs[2] == "c" && s.funcs[4] == "a" {
				inLeaf++
			}
		}
		if inLeaf < 20 {
			t.Fatalf("%d samples in leaf under the restored d and c, want 20 or more", inLeaf)
		}
		n := 0
		for _, v := range p.values("d", "p->n") {
			if v.Bits != rows {
				t.Fatalf("d's p->n = %d in frame %d, want %d", int64(v.Bits), v.Frame, rows)
			}
			if v.Frame == 1 && p.samples[v.sample].funcs[0] == "leaf" {
				n++
			}
		}
		if n < inLeaf*9/10 {
			t.Errorf("d's p->n read in %d of %d samples in leaf, want most (entry values unknown: %d)", n, inLeaf, res.Values.EntryValue)
		}
		if v := res.Values; v.EntryLast == 0 || v.EntryNoValueDeep == 0 || v.EntryNoRecords == 0 || v.EntryBound != 0 {
			// d's p takes the 4th record; d's n stops at main's, the
			// 4th too, for want of %rsi there, not at the bound.
			t.Errorf("entry values: %d found at the last record (want some), %d stopped at a deeper record without the register (want some), %d from a caller without records (want some: main's), %d past the bound (want 0)",
				v.EntryLast, v.EntryNoValueDeep, v.EntryNoRecords, v.EntryBound)
		}
		// The same pointer in every frame of the chain.
		ptr := map[int]map[string]uint64{}
		for _, fn := range []string{"d", "c", "b", "a"} {
			for _, v := range p.values(fn, "p") {
				if ptr[v.sample] == nil {
					ptr[v.sample] = map[string]uint64{}
				}
				ptr[v.sample][fn] = v.Bits
			}
		}
		full := 0
		for i, m := range ptr {
			if len(m) == 4 {
				full++
				if m["d"] != m["c"] || m["c"] != m["b"] || m["b"] != m["a"] {
					t.Fatalf("sample %d: p differs along the chain: %#x", i, m)
				}
			}
		}
		if full < inLeaf*9/10 {
			t.Errorf("p read in all of d, c, b and a in %d of %d samples in leaf, want most", full, inLeaf)
		}
		if vs := p.values("d", "n"); len(vs) > 0 {
			t.Errorf("d's n read %d times (= %d in frame %d): main's record gives no %%rsi", len(vs), int64(vs[0].Bits), vs[0].Frame)
		}
	})
}
