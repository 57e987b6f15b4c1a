package cfg

import (
	"debug/elf"
	"math/rand/v2"
	"os"
	"reflect"
	"testing"
)

// analyzeBoth runs the analysis with the dataflow's injection once per
// cell and per changed cell (the default) and with the former injection of
// every active entry's cell whenever anything changed (injectPerEntry),
// and reports any difference in the tags or the walks.
func analyzeBoth(t *testing.T, name string, g *Graph, in *Input) {
	t.Helper()
	run := func(perEntry bool) ([]VarTags, []Walk) {
		injectPerEntry = perEntry
		defer func() { injectPerEntry = false }()
		a := NewAnalyzer()
		tags := append([]VarTags(nil), a.Analyze(g, in)...)
		return tags, append([]Walk(nil), a.Walks()...)
	}
	oldTags, oldWalks := run(true)
	newTags, newWalks := run(false)
	if !reflect.DeepEqual(oldTags, newTags) {
		t.Errorf("%s: tags %v, per entry %v", name, newTags, oldTags)
	}
	if !reflect.DeepEqual(oldWalks, newWalks) {
		t.Errorf("%s: walks %v, per entry %v", name, newWalks, oldWalks)
	}
}

// manyLocs draws n locations over few cells (registers and frame slots),
// so that many entries share a cell, start and end inside blocks, and
// live across calls: what the per-cell injection must get right.
func manyLocs(r *rand.Rand, base uint64, size, n int) []VarLoc {
	var locs []VarLoc
	for i := range n {
		lo := base + uint64(r.IntN(size))
		hi := lo + 1 + uint64(r.IntN(size))
		l := VarLoc{Var: int32(i % (1 + n/2)), Lo: lo, Hi: hi, Size: 8}
		switch r.IntN(5) {
		case 0, 1:
			l.Kind, l.Reg = InReg, int16([]int{0, 1, 2, 3, 4, 5, 12, 13, 14, 15, 17, 18}[r.IntN(12)])
		case 2:
			l.Kind, l.Off = InCFASlot, int64(-8*(2+r.IntN(6)))
		case 3:
			l.Kind, l.Reg, l.Off = InRegSlot, int16(6+r.IntN(2)), int64(8*r.IntN(6))
		default:
			l.Kind, l.Reg = InDerived, int16(r.IntN(16))
		}
		locs = append(locs, l)
	}
	return locs
}

// TestInjectOnce: the dataflow injects each cell once per pass and, after
// a call or a change of locations, only the cells that changed; the tags
// and walks must be those of injecting every entry's cell each time. The
// code is this test binary's own (compiled Go: calls, loops, spills), cut
// at random, with many locations sharing few cells, and FuzzAnalyze's
// inputs; both with per-block states and without (maxStateWords 1).
func TestInjectOnce(t *testing.T) {
	type tc struct {
		name string
		code []byte
		seed uint64
	}
	cases := []tc{
		{"frame", []byte{0x55, 0x48, 0x89, 0xe5, 0x89, 0x7d, 0xfc, 0x83, 0x7d, 0xfc, 0x05, 0x7f, 0x02, 0x5d, 0xc3, 0x5d, 0xc3}, 7},
		{"loop", []byte{0x85, 0xff, 0x7e, 0x08, 0x31, 0xc0, 0x01, 0xc0, 0xff, 0xcf, 0x75, 0xfa, 0xc3}, 1},
		{"jumps", []byte{0xff, 0xe0, 0xff, 0x24, 0xc5, 0, 0, 0, 0, 0xe8, 0, 0, 0, 0, 0xc3}, 99},
	}
	var text []byte
	if exe, err := os.Executable(); err == nil {
		if f, err := elf.Open(exe); err == nil {
			if sec := f.Section(".text"); sec != nil {
				text, _ = sec.Data()
			}
			f.Close()
		}
	}
	if len(text) < 1<<16 {
		t.Fatalf("no code of this test binary to cut (%d bytes of .text)", len(text))
	}
	r := rand.New(rand.NewPCG(18, 240))
	n := 400
	if testing.Short() {
		n = 100
	}
	for range n {
		at, size := r.IntN(len(text)-4096), 64+r.IntN(4000)
		cases = append(cases, tc{"text", text[at : at+size], r.Uint64()})
	}
	defer func(n int) { maxStateWords = n }(maxStateWords)
	for _, limit := range []int{maxStateWords, 1} {
		maxStateWords = limit
		for i, c := range cases {
			const base = 0x1000
			img := &Image{}
			img.Add(base, c.code)
			g, err := new(Builder).Build(img, []Range{{base, base + uint64(len(c.code))}})
			if err != nil {
				t.Fatal(err)
			}
			in := fuzzInput(c.code, c.seed)
			analyzeBoth(t, c.name, g, in)
			if c.name == "text" {
				lr := rand.New(rand.NewPCG(c.seed, uint64(i)))
				in.Locs = manyLocs(lr, base, len(c.code), 20+lr.IntN(300))
				analyzeBoth(t, c.name+"/many", g, in)
			}
		}
	}
}

// FuzzInjectOnce: TestInjectOnce's comparison on arbitrary code and
// FuzzAnalyze's inputs.
func FuzzInjectOnce(f *testing.F) {
	f.Add([]byte{0x55, 0x48, 0x89, 0xe5, 0x89, 0x7d, 0xfc, 0xe8, 0, 0, 0, 0, 0x83, 0x7d, 0xfc, 0x05, 0x7f, 0x02, 0x5d, 0xc3, 0x5d, 0xc3}, uint64(7), uint16(40))
	f.Add([]byte{0x85, 0xff, 0x7e, 0x08, 0x31, 0xc0, 0x01, 0xc0, 0xff, 0xcf, 0x75, 0xfa, 0xc3}, uint64(1), uint16(3))
	f.Fuzz(func(t *testing.T, code []byte, seed uint64, nlocs uint16) {
		if len(code) == 0 || len(code) > 4096 {
			return
		}
		const base = 0x1000
		img := &Image{}
		img.Add(base, code)
		g, err := new(Builder).Build(img, []Range{{base, base + uint64(len(code))}})
		if err != nil {
			t.Fatal(err)
		}
		in := fuzzInput(code, seed)
		in.Locs = append(in.Locs, manyLocs(rand.New(rand.NewPCG(seed, 1)), base, len(code), int(nlocs%400))...)
		analyzeBoth(t, "fuzz", g, in)
	})
}
