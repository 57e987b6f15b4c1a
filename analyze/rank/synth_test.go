package rank

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/proffile"
)

// synth describes a synthetic profile of a program shaped like a server:
// many functions, each with a few monitored locals, some globals, a libc,
// several threads, stacks of ~10 frames with values in up to 3 program
// frames. In the buggy variant the loop variable "scanned" of function
// root (a fifth of the samples) takes values ten times larger, the shape of
// the thesis' MDEV-23399.
type synth struct {
	funcs   int   // program functions
	threads int   // threads
	bytes   int64 // stop after about this many bytes (0: use samples)
	samples int   // samples per thread when bytes is 0
	buggy   bool
	seed    uint64
}

const (
	synthBase    = 0x10000
	synthFnSize  = 0x200
	synthLocals  = 3
	synthGlobals = 40
	synthLibBase = 0x7f0000000000
)

// synthSchema: function k spans [base + k*size, ...), with locals
// k*3 .. k*3+2 (a loop counter, a condition flag, a pointer), then the
// globals. Function 0 is "root".
func synthSchema(nf int) *model.Schema {
	s := &model.Schema{Path: "/srv/bin/server", BuildID: "5e7f", Type: "exec", HasDWARF: true,
		Files: []string{"/src/server.c", "/src/util.c"}}
	for k := range nf {
		lo := uint64(synthBase + k*synthFnSize)
		name := fmt.Sprintf("fn_%d", k)
		if k == 0 {
			name = "root"
		}
		var blocks []uint64
		for b := uint64(0); b < synthFnSize; b += 0x40 {
			blocks = append(blocks, lo+b)
		}
		s.Funcs = append(s.Funcs, model.Func{Name: name, File: int32(k % 2), Line: int32(10 + 40*k),
			Ranges: []model.PCRange{{Lo: lo, Hi: lo + synthFnSize}}, Blocks: blocks})
		s.Vars = append(s.Vars,
			model.Var{Name: "scanned", Func: int32(k), Line: int32(11 + 40*k), Type: "unsigned long", Kind: model.KindUint, Size: 8, Tags: model.TagLoop},
			model.Var{Name: "flag", Func: int32(k), Line: int32(12 + 40*k), Type: "int", Kind: model.KindInt, Size: 4, Tags: model.TagCond},
			model.Var{Name: "node", Func: int32(k), Line: int32(13 + 40*k), Type: "struct node *", Kind: model.KindPointer, Size: 8, Tags: model.TagArgs},
		)
		for l := uint64(0); l < synthFnSize; l += 0x10 {
			s.Lines = append(s.Lines, model.LineRow{PC: lo + l, File: int32(k % 2), Line: int32(10 + 40*k + int(l/0x10))})
		}
	}
	for g := range synthGlobals {
		s.Vars = append(s.Vars, model.Var{Name: fmt.Sprintf("g_%d", g), Func: model.NoFunc, Type: "long", Kind: model.KindInt, Size: 8})
	}
	return s
}

// write writes the profile to path and returns its size.
func (sy synth) write(tb testing.TB, path string) int64 {
	tb.Helper()
	w, err := proffile.Create(path, model.Header{Target: "/srv/bin/server", PID: 100, IntervalNS: 1e6, Clock: model.ClockCPU, Depth: 3, Stack: 64})
	if err != nil {
		tb.Fatal(err)
	}
	must := func(err error) {
		if err != nil {
			tb.Fatal(err)
		}
	}
	must(w.AddObject(&model.Object{ID: 0, Path: "/srv/bin/server", BuildID: "5e7f", Program: true, Schema: synthSchema(sy.funcs)}))
	lib := &model.Schema{Path: "/lib/libc.so.6", Type: "dyn"}
	for k := range 200 {
		lo := uint64(0x20000 + k*0x100)
		lib.Funcs = append(lib.Funcs, model.Func{Name: fmt.Sprintf("libc_%d", k), File: -1, Ranges: []model.PCRange{{Lo: lo, Hi: lo + 0x100}}})
	}
	must(w.AddObject(&model.Object{ID: 1, Path: "/lib/libc.so.6", Schema: lib}))
	must(w.AddMapping(model.Mapping{PID: 100, Start: 0x400000 + synthBase, End: 0x400000 + synthBase + uint64(sy.funcs)*synthFnSize, Bias: 0x400000, Obj: 0}))
	must(w.AddMapping(model.Mapping{PID: 100, Start: synthLibBase + 0x20000, End: synthLibBase + 0x20000 + 200*0x100, Bias: synthLibBase, Obj: 1}))
	must(w.AddProc(model.ProcEvent{Kind: model.ProcStart, PID: 100, Path: "/srv/bin/server"}))

	rng := rand.New(rand.NewPCG(sy.seed, 77))
	type thr struct {
		tick    uint64
		scanned [8]uint64
	}
	ths := make([]thr, sy.threads)
	var s model.Sample
	s.Stack = make([]uint64, 0, 16)
	s.Values = make([]model.Value, 0, 16)
	var samples, values int64
	pcIn := func(fn int) uint64 {
		return 0x400000 + synthBase + uint64(fn)*synthFnSize + uint64(rng.IntN(synthFnSize))
	}
	// Zipf-like popularity: a few functions carry most of the time.
	zipf := rand.NewZipf(rng, 1.3, 4, uint64(sy.funcs-1))
	for i := 0; ; i++ {
		if sy.bytes > 0 {
			if i%4096 == 0 {
				if st, err := os.Stat(w.PartialPath()); err == nil && st.Size() >= sy.bytes {
					break
				}
			}
		} else if i >= sy.samples*sy.threads {
			break
		}
		tid := i % sy.threads
		th := &ths[tid]
		th.tick += 1 + uint64(rng.IntN(3))
		s.Tick, s.TimeNS, s.WeightNS = th.tick, int64(th.tick)*1e6, 1e6
		s.State, s.Syscall = model.Running, -1
		s.Stack, s.Values = s.Stack[:0], s.Values[:0]
		// The root cause, root, is the innermost program frame of 20% of the samples.
		depth := 3 + rng.IntN(6)
		var prog [3]int
		np := 0
		if rng.IntN(3) == 0 { // innermost frames in libc
			for range 1 + rng.IntN(2) {
				s.Stack = append(s.Stack, synthLibBase+0x20000+uint64(rng.IntN(200*0x100)))
			}
		}
		for d := 0; d < depth; d++ {
			fn := int(zipf.Uint64()) + 1
			// The slow run is slow because root takes a larger share.
			if d == 0 && (rng.IntN(5) == 0 || sy.buggy && rng.IntN(4) == 0) {
				fn = 0
			}
			s.Stack = append(s.Stack, pcIn(fn))
			if np < 3 {
				prog[np] = fn
				np++
				frame := uint8(len(s.Stack) - 1)
				sc := &th.scanned[np-1]
				*sc++
				if *sc > 50 || rng.IntN(40) == 0 {
					*sc = 0
				}
				x := *sc
				if sy.buggy && fn == 0 {
					x = *sc * 10
				}
				s.Values = append(s.Values,
					model.Value{Frame: frame, Obj: 0, Var: int32(3 * fn), Bits: x},
					model.Value{Frame: frame, Obj: 0, Var: int32(3*fn + 1), Bits: uint64(rng.IntN(4))},
					model.Value{Frame: frame, Obj: 0, Var: int32(3*fn + 2), Bits: 0x55550000 + uint64(rng.IntN(64))*64},
				)
			}
		}
		// A global or two, read in the innermost program frame.
		for range rng.IntN(3) {
			g := rng.IntN(synthGlobals)
			s.Values = append(s.Values, model.Value{Frame: uint8(len(s.Stack) - depth), Obj: 0,
				Var: int32(3*sy.funcs + g), Bits: uint64(rng.Int64N(1 << 40))})
		}
		// main at the bottom.
		s.Stack = append(s.Stack, pcIn(sy.funcs-1))
		samples++
		values += int64(len(s.Values))
		must(w.AddSample(100, int32(101+tid), &s))
	}
	must(w.Close(model.Trailer{EndNS: 1e9, Samples: samples, ValueSamples: values}))
	st, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	return st.Size()
}
