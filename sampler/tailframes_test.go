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

// TestTailCallEntryValues records testdata/tailarg.c, where decide jumps to
// flush with an argument of its own making (c->tab): while work runs,
// run's call-site record (it names decide, %rdi = c) lies above flush's
// frame, whose t is DW_OP_entry_value(%rdi). That record's value is not
// flush's entry value: by default (no TailFrames) t is then not read, so
// t->n_rows never reads the struct conn's id; with TailFrames decide's
// frame is restored, and t comes from decide's tail call record, if gcc
// wrote one. Whatever is read is the table's n_rows.
func TestTailCallEntryValues(t *testing.T) {
	const rows = 800
	eachDwarfSampler(t, func(t *testing.T, dwarf, sampler string) {
		exe := buildC(t, "tailarg", "-g", dwarf)
		for _, tails := range []bool{false, true} {
			res, p := record(t, Config{Args: []string{exe, "800", "300000000"}, Depth: 2, Sampler: sampler, TailFrames: tails})
			if res.ExitStatus != 0 {
				t.Fatalf("exit status %d", res.ExitStatus)
			}
			inWork := 0
			for _, s := range p.samples {
				if len(s.funcs) > 1 && s.funcs[0] == "work" && s.funcs[1] == "flush" {
					inWork++
				}
			}
			if inWork < 20 {
				t.Fatalf("TailFrames %v: %d samples in work under flush, want at least 20", tails, inWork)
			}
			for _, v := range p.values("flush", "t->n_rows") {
				if v.Bits != rows {
					t.Fatalf("TailFrames %v: flush's t->n_rows = %d in frame %d, want %d (an entry value from the record of a call to another function)", tails, int64(v.Bits), v.Frame, rows)
				}
			}
			if !tails && res.Values.EntryValue == 0 {
				t.Errorf("no entry value refused: flush's t under work should be")
			}
		}
	})
}
