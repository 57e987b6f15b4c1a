package proffile

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// tailSchema: run (0x1000) calls decide (returning to 0x1010); decide
// (0x2000) ends in a jump to work (0x3000) whose record returns to 0x2010.
func tailSchema(read bool) *model.Schema {
	s := &model.Schema{Path: "/bin/t", Type: "exec", HasDWARF: true}
	for i, n := range []string{"run", "decide", "work"} {
		lo := uint64(i+1) << 12
		s.Funcs = append(s.Funcs, model.Func{Name: n, Display: n, Ranges: []model.PCRange{{Lo: lo, Hi: lo + 0x100}}})
	}
	if read {
		s.TailCalls = []model.CallEdge{{ReturnPC: 0x1010, Callee: 0x2000}, {ReturnPC: 0x2010, Callee: 0x3000, Tail: true}}
		s.TailCallsRead = true
	}
	return s
}

// writeTailProfile writes one sample under work, called through decide's
// tail call from run, with a value in each frame, and returns the path.
func writeTailProfile(t *testing.T, s *model.Schema) string {
	path := filepath.Join(t.TempDir(), "p.data")
	w, err := Create(path, model.Header{Target: "/bin/t", PID: 10, IntervalNS: 1e6, Clock: model.ClockCPU, Depth: 3, Stack: 64})
	if err != nil {
		t.Fatal(err)
	}
	w.AddObject(&model.Object{ID: 0, Path: "/bin/t", Program: true, Schema: s})
	w.AddMapping(model.Mapping{PID: 10, Start: 0x401000, End: 0x404000, Bias: 0x400000, Obj: 0})
	// work at 0x3004, run's return address 0x1010, then an unknown frame.
	smp := model.Sample{Tick: 1, WeightNS: 1e6, Syscall: -1, Stack: []uint64{0x403004, 0x401010, 0x7fff0000},
		Values: []model.Value{{Frame: 0, Var: 0, Bits: 1}, {Frame: 1, Var: 1, Bits: 2}, {Frame: 2, Var: 2, Bits: 3}}}
	if err := w.AddSample(10, 11, &smp); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(model.Trailer{}); err != nil {
		t.Fatal(err)
	}
	return path
}

func readSamples(t *testing.T, path string, raw bool) []model.Sample {
	t.Helper()
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.RawStacks = raw
	var out []model.Sample
	for {
		rec, err := r.Next()
		if err != nil {
			break
		}
		if b, ok := rec.(*model.Block); ok {
			for _, s := range b.Samples {
				s.Stack = slices.Clone(s.Stack)
				s.Values = slices.Clone(s.Values)
				out = append(out, s)
			}
		}
	}
	return out
}

func TestTailFrames(t *testing.T) {
	restored := []uint64{0x403004, 0x402010, 0x401010, 0x7fff0000}
	recorded := []uint64{0x403004, 0x401010, 0x7fff0000}
	for _, tc := range []struct {
		name   string
		schema *model.Schema
		source []model.CallEdge // TailCallSource's answer
		raw    bool
		stack  []uint64
	}{
		{"recorded with the records", tailSchema(true), nil, false, restored},
		{"RawStacks", tailSchema(true), nil, true, recorded},
		{"recorded without them, none to be had", tailSchema(false), nil, false, recorded},
		{"recorded without them, read afresh", tailSchema(false), tailSchema(true).TailCalls, false, restored},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			TailCallSource = func(o *model.Object) []model.CallEdge { calls++; return tc.source }
			defer func() { TailCallSource = nil }()
			got := readSamples(t, writeTailProfile(t, tc.schema), tc.raw)
			if len(got) != 1 {
				t.Fatalf("%d samples, want 1", len(got))
			}
			s := got[0]
			if !slices.Equal(s.Stack, tc.stack) {
				t.Errorf("stack %#x, want %#x", s.Stack, tc.stack)
			}
			wantMask, wantFrames := uint64(0), []uint8{0, 1, 2}
			if len(tc.stack) == 4 {
				wantMask, wantFrames = 1<<1, []uint8{0, 2, 3}
			}
			if s.TailFrames != wantMask {
				t.Errorf("TailFrames %#b, want %#b", s.TailFrames, wantMask)
			}
			var frames []uint8
			for _, v := range s.Values {
				frames = append(frames, v.Frame)
			}
			if !slices.Equal(frames, wantFrames) {
				t.Errorf("value frames %v, want %v", frames, wantFrames)
			}
			if wantCalls := 0; !tc.schema.TailCallsRead && !tc.raw {
				if calls != 1 {
					t.Errorf("TailCallSource called %d times, want once", calls)
				}
			} else if calls != wantCalls {
				t.Errorf("TailCallSource called %d times for a schema that has its records", calls)
			}
		})
	}
}
