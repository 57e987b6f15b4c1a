package sampler

import "testing"

// TestTailFramesIndirect records testdata/tailindirect.c, where run calls
// its handler through a pointer and the handler jumps to the work loop
// (method.md §3, D85). Handler 0, decide, is the only function whose
// address is taken that jumps to work: its frame is restored between work
// and run, and its t->n_rows read there from the entry value of t, which
// run's indirect call's record gives. Handler 1 (decide2a, and decide2b
// jumps to work2 too) and handler 3 (work3, called directly; decide3 also
// jumps to it) restore nothing. Without the rule, the record of run's
// indirect call gave work's t too (its argument to decide): work's
// entry values are not taken from it now.
func TestTailFramesIndirect(t *testing.T) {
	const rows = 800
	eachDwarfSampler(t, func(t *testing.T, dwarf, sampler string) {
		exe := buildC(t, "tailindirect", "-g", dwarf)
		for _, tc := range []struct {
			handler, loop, restored string
		}{
			{"0", "work", "decide"},
			{"1", "work2", ""},
			{"3", "work3", ""},
		} {
			res, p := record(t, Config{Args: []string{exe, "800", "300000000", tc.handler}, Depth: 2, Sampler: sampler, TailFrames: true})
			if res.ExitStatus != 0 {
				t.Fatalf("handler %s: exit status %d", tc.handler, res.ExitStatus)
			}
			inLoop, through, under := 0, 0, 0
			for _, s := range p.samples {
				if len(s.funcs) < 2 || s.funcs[0] != tc.loop {
					continue
				}
				inLoop++
				if tc.restored != "" && s.funcs[1] == tc.restored && len(s.funcs) > 2 && s.funcs[2] == "run" && s.s.TailFrames == 1<<1 {
					through++
				}
				if s.funcs[1] == "run" {
					under++
				}
			}
			if inLoop < 20 {
				t.Fatalf("handler %s: %d samples in %s, want at least 20", tc.handler, inLoop, tc.loop)
			}
			if tc.restored == "" {
				if under < inLoop*9/10 {
					t.Errorf("handler %s: %s right under run in %d of %d samples, want all: a frame restored between them", tc.handler, tc.loop, under, inLoop)
				}
				continue
			}
			if through < inLoop*9/10 {
				t.Fatalf("handler %s: %d samples in %s, %d with %s's frame restored between it and run (marked), want most", tc.handler, inLoop, tc.loop, through, tc.restored)
			}
			n := 0
			for _, v := range p.values(tc.restored, "t->n_rows") {
				if v.Bits != rows {
					t.Fatalf("%s's t->n_rows = %d in frame %d, want %d", tc.restored, int64(v.Bits), v.Frame, rows)
				}
				if v.Frame == 1 && p.samples[v.sample].funcs[0] == tc.loop {
					n++
				}
			}
			if n < inLoop*9/10 {
				t.Errorf("%s's t->n_rows read in its restored frame in %d of %d samples, want most (entry values unknown: %d)", tc.restored, n, inLoop, res.Values.EntryValue)
			}
		}
	})
}
