package cfg

import (
	"debug/elf"
	"testing"

	"golang.org/x/arch/x86/x86asm"
)

const cfgSrc = `
extern void work(long);
__attribute__((noinline)) void loop(int n) { for (int i = 0; i < n; i++) work(i); }
__attribute__((noinline)) void nested(int n, int m) {
	for (int i = 0; i < n; i++)
		for (int j = 0; j < m; j++)
			work(i * j);
}
__attribute__((noinline)) int sw(int k) {
	switch (k) {
	case 0: return 10; case 1: work(3); return 11; case 2: return 17;
	case 3: return 99; case 4: work(7); return 3; case 5: return 8;
	default: return -1;
	}
}
__attribute__((noinline)) int straight(int a, int b) { return a * b + 3; }
void work(long x) { __asm__ volatile("" :: "r"(x)); }
int main(int argc, char **argv) { loop(argc); nested(argc, argc); return sw(argc) + straight(argc, 2); }
`

func TestBuildGCC(t *testing.T) {
	for _, flags := range [][]string{{"-O2"}, {"-O2", "-no-pie", "-fno-pic"}, {"-O0"}, {"-O2", "-fcf-protection=none"}} {
		bin := compileC(t, cfgSrc, flags...)
		t.Run(flags[len(flags)-1], func(t *testing.T) {
			tests := []struct {
				fn          string
				loops       int
				maxDepth    int
				minBlocks   int
				switchSuccs int
			}{
				{"loop", 1, 1, 3, 0},
				{"nested", 2, 2, 4, 0}, // at least

				{"sw", 0, 0, 7, 6},
				{"straight", 0, 0, 1, 0},
			}
			for _, tc := range tests {
				g := buildFunc(t, bin, tc.fn)
				if g.BadBytes != 0 {
					t.Errorf("%s: %d undecodable bytes", tc.fn, g.BadBytes)
				}
				if len(g.Loops) != tc.loops && !(tc.fn == "nested" && len(g.Loops) > tc.loops) {
					t.Errorf("%s: %d loops, want %d", tc.fn, len(g.Loops), tc.loops)
				}
				depth := 0
				for li := range g.Loops {
					d := 1
					for p := g.Loops[li].Parent; p >= 0; p = g.Loops[p].Parent {
						d++
					}
					depth = max(depth, d)
					for _, e := range g.Loops[li].Exits {
						if g.InLoop(li, int(e.To)) || !g.InLoop(li, int(e.From)) {
							t.Errorf("%s: bad exit %v", tc.fn, e)
						}
					}
				}
				if depth != tc.maxDepth {
					t.Errorf("%s: loop depth %d, want %d", tc.fn, depth, tc.maxDepth)
				}
				if len(g.Blocks) < tc.minBlocks {
					t.Errorf("%s: %d blocks, want at least %d", tc.fn, len(g.Blocks), tc.minBlocks)
				}
				if tc.switchSuccs > 0 {
					found := false
					for _, b := range g.Blocks {
						if b.Term == TermIndirect {
							found = true
							if len(b.Succs) != tc.switchSuccs {
								t.Errorf("%s: switch has %d successors, want %d", tc.fn, len(b.Succs), tc.switchSuccs)
							}
						}
					}
					if !found {
						t.Errorf("%s: no indirect jump", tc.fn)
					}
				}
				if g.Unresolved != 0 {
					t.Errorf("%s: %d unresolved indirect jumps", tc.fn, g.Unresolved)
				}
				// Every block but the roots has a dominator; blocks tile the code.
				for i, b := range g.Blocks {
					if i > 0 && g.Blocks[i-1].End > b.Start {
						t.Errorf("%s: blocks %d and %d overlap", tc.fn, i-1, i)
					}
					if b.First >= b.Last {
						t.Errorf("%s: empty block %d", tc.fn, i)
					}
				}
				// The entry is the first root; any other root is unreachable
				// alignment padding.
				if len(g.Roots) == 0 || g.Blocks[g.Roots[0]].Start != g.Ranges[0].Lo {
					t.Errorf("%s: roots %v, want the entry first", tc.fn, g.Roots)
				}
				for _, r := range g.Roots[1:] {
					for _, in := range g.Insts[g.Blocks[r].First:g.Blocks[r].Last] {
						if in.Op != x86asm.NOP {
							t.Errorf("%s: root %d is not padding: %v", tc.fn, r, in)
						}
					}
				}
			}
		})
	}
}

// BenchmarkBuildAnalyze builds and analyses every function of a compiled
// program, with three register variables per function.
func BenchmarkBuildAnalyze(b *testing.B) {
	bin := compileC(b, cfgSrc, "-O2")
	f, err := elf.Open(bin)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	img := imageOf(b, f)
	syms, _ := f.Symbols()
	var funcs [][]Range
	ninst := 0
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Size > 0 && s.Value != 0 {
			funcs = append(funcs, []Range{{s.Value, s.Value + s.Size}})
		}
	}
	var bld Builder
	a := NewAnalyzer()
	var locs []VarLoc
	b.ResetTimer()
	for b.Loop() {
		ninst = 0
		for _, rs := range funcs {
			g, err := bld.Build(img, rs)
			if err != nil {
				b.Fatal(err)
			}
			ninst += len(g.Insts)
			locs = locs[:0]
			for v, reg := range []int16{5, 4, 3} {
				locs = append(locs, VarLoc{Var: int32(v), Lo: rs[0].Lo, Hi: rs[0].Hi, Kind: InReg, Reg: reg, Size: 8})
			}
			a.Analyze(g, &Input{Locs: locs})
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*ninst), "ns/inst")
}
