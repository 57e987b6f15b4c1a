package dwarfschema

import (
	"debug/elf"
	"os"
	"slices"
	"testing"

	"github.com/vprof/vprof/dwarfschema/cfg"
	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/testprogs"
)

// TestGraphReadsMatchDecode checks that the reads of globals the tagger
// takes from its graphs (graphReads) are those narrowGlobals finds by
// decoding the code itself, function by function, with every address
// taken for a global's so that each RIP-relative or absolute operand
// counts. binutils' gold (Debian's, built with endbr64 at every function
// and indirect-branch target) is checked when it is installed.
func TestGraphReadsMatchDecode(t *testing.T) {
	const goldPath = "/usr/bin/x86_64-linux-gnu-ld.gold"
	bins := []string{testprogs.Path(t, "dict_status"), testprogs.Path(t, "recovery_budget")}
	if _, err := os.Stat(goldPath); err == nil {
		bins = append(bins, goldPath)
	}
	for _, bin := range bins {
		t.Run(bin, func(t *testing.T) {
			_, ef, err := openPath(bin)
			if err != nil {
				t.Fatal(err)
			}
			syms, err := readSymbols(ef)
			if err != nil {
				t.Fatal(err)
			}
			if len(syms) == 0 {
				// A stripped binary: its symbols are in its debug file.
				dw, _, err := findDWARF(bin, ef, buildID(ef), nil)
				if err != nil || dw == nil {
					t.Skipf("%s: no symbols (%v)", bin, err)
				}
				defer dw.close()
				if syms, err = readSymbols(dw.ef); err != nil {
					t.Fatal(err)
				}
			}
			img, err := imageOf(ef)
			if err != nil {
				t.Fatal(err)
			}
			gl := &globalSet{gs: []glob{{lo: 0, hi: ^uint64(0)}}}
			gl.readText(ef)
			var b cfg.Builder
			var buf, insts []decoded
			var got, want []globalRead
			same, endbrs := 0, 0
			for _, sy := range syms {
				if sy.Size == 0 {
					continue
				}
				ranges := []model.PCRange{{Lo: sy.Value, Hi: sy.Value + sy.Size}}
				g, err := b.Build(img, []cfg.Range{{Lo: sy.Value, Hi: sy.Value + sy.Size}})
				if err != nil {
					continue
				}
				var ok bool
				if got, ok = gl.graphReads(got[:0], g, ranges, &buf); !ok {
					continue
				}
				want = want[:0]
				for _, r := range ranges {
					code := gl.code(r)
					insts, _ = decodeOld(insts[:0], r.Lo, code, len(code))
					want = gl.appendReads(want, insts, nil)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("%s: reads from the graph %v, decoded apart %v", sy.Name, got, want)
				}
				same++
				for i := range g.Insts {
					if in := &g.Insts[i]; (in.Len == 4 && cfg.IsEndbr(gl.code(model.PCRange{Lo: in.PC, Hi: in.PC + 4}))) {
						endbrs++
					}
				}
			}
			if same == 0 {
				t.Fatalf("no function compared")
			}
			t.Logf("%d functions alike, %d endbr64", same, endbrs)
		})
	}
}

// TestGraphReadsEndbr: the graph holds endbr64 as one instruction, which
// cfg.DecodeInto decodes as two; readsThrough looks 8 instructions ahead
// in narrowGlobals' stream, so the graph's must count the same.
func TestGraphReadsEndbr(t *testing.T) {
	code := []byte{0x48, 0x8d, 0x05, 0xf9, 0x0f, 0x00, 0x00} // lea rax, [rip+0xff9] (0x2000)
	code = append(code, 0xf3, 0x0f, 0x1e, 0xfa)              // endbr64
	for range 6 {
		code = append(code, 0x90) // nop
	}
	code = append(code, 0x48, 0x8b, 0x08, 0xc3) // mov rcx, [rax]; ret
	const at = 0x1000
	var img cfg.Image
	img.Add(at, code)
	sec := &elf.Section{SectionHeader: elf.SectionHeader{Addr: at, Size: uint64(len(code))}}
	gl := &globalSet{gs: []glob{{lo: 0x2000, hi: 0x2008}}, text: []*elf.Section{sec}, data: [][]byte{code}}
	var b cfg.Builder
	g, err := b.Build(&img, []cfg.Range{{Lo: at, Hi: at + uint64(len(code))}})
	if err != nil {
		t.Fatal(err)
	}
	var buf []decoded
	got, ok := gl.graphReads(nil, g, []model.PCRange{{Lo: at, Hi: at + uint64(len(code))}}, &buf)
	if !ok {
		t.Fatal("graphReads gave up")
	}
	insts, _ := decodeOld(nil, at, code, len(code))
	want := gl.appendReads(nil, insts, nil)
	if !slices.Equal(got, want) || len(want) != 1 || want[0].how != readIfAggregate {
		t.Errorf("from the graph %v, decoded apart %v (want one read, how %d)", got, want, readIfAggregate)
	}
}
