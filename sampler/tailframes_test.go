package sampler

import (
	"slices"
	"testing"
)

// TestTailFrames records testdata/tailcall.c, where decide's frame is gone
// while work runs (decide ends in a jump to work): the recorder restores
// it between work and run and reads there decide's t (its entry value,
// from run's call-site record) and t->n_rows behind it (--depth 1: the
// restored frame is the first caller frame), with both samplers and in
// DWARF 4 and 5.
func TestTailFrames(t *testing.T) {
	const rows = 800
	eachDwarfSampler(t, func(t *testing.T, dwarf, sampler string) {
		exe := buildC(t, "tailcall", "-g", dwarf)
		res, p := record(t, Config{Args: []string{exe, "800", "300000000"}, Depth: 1, Sampler: sampler, TailFrames: true})
		if res.ExitStatus != 0 {
			t.Fatalf("exit status %d", res.ExitStatus)
		}
		inWork, through := 0, 0
		for _, s := range p.samples {
			if len(s.funcs) == 0 || s.funcs[0] != "work" {
				continue
			}
			inWork++
			if i := slices.Index(s.funcs, "decide"); i == 1 && len(s.funcs) > 2 && s.funcs[2] == "run" && s.s.TailFrames == 1<<1 {
				through++
			}
		}
		if inWork < 20 || through < inWork*9/10 {
			t.Fatalf("%d samples in work, %d of them with decide's frame restored between work and run (marked), want most", inWork, through)
		}
		vs := p.values("decide", "t->n_rows")
		n := 0
		for _, v := range vs {
			if v.Bits != rows {
				t.Fatalf("decide's t->n_rows = %d in frame %d, want %d", int64(v.Bits), v.Frame, rows)
			}
			if v.Frame == 1 && p.samples[v.sample].funcs[0] == "work" {
				n++
			}
		}
		if n < inWork*9/10 {
			t.Errorf("decide's t->n_rows read in its restored frame in %d of %d samples in work, want most (entry values unknown: %d)", n, inWork, res.Values.EntryValue)
		}
	})
	// Without TailFrames the reader restores the frame, without values.
	exe := buildC(t, "tailcall", "-g")
	_, p := record(t, Config{Args: []string{exe, "800", "300000000"}, Depth: 1, Sampler: SamplerPtrace})
	through := 0
	for _, s := range p.samples {
		if len(s.funcs) > 2 && s.funcs[0] == "work" && s.funcs[1] == "decide" && s.funcs[2] == "run" && s.s.TailFrames == 1<<1 {
			through++
		}
	}
	if through == 0 {
		t.Error("without TailFrames: no stack with decide's frame restored by the reader")
	}
	for _, v := range p.values("decide", "t->n_rows") {
		if p.samples[v.sample].funcs[0] == "work" {
			t.Fatalf("without TailFrames: decide's t->n_rows read in frame %d under work", v.Frame)
		}
	}
}
