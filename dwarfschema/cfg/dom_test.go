package cfg

import (
	"reflect"
	"testing"
)

// graphOf builds a graph from an edge list alone (no code): blocks 0..n-1,
// block 0 the first root.
func graphOf(n int, edges [][2]int32) *Graph {
	b := &Builder{}
	g := &b.g
	g.Blocks = make([]Block, n)
	for i := range g.Blocks {
		g.Blocks[i].Start = uint64(i * 16)
		g.Blocks[i].End = uint64(i*16 + 16)
	}
	for _, e := range edges {
		g.Blocks[e[0]].Succs = append(g.Blocks[e[0]].Succs, e[1])
		g.Blocks[e[1]].Preds = append(g.Blocks[e[1]].Preds, e[0])
	}
	b.dominators()
	b.loops()
	return g
}

func TestDominators(t *testing.T) {
	tests := []struct {
		name  string
		n     int
		edges [][2]int32
		idom  []int32
		roots []int32
	}{
		{"line", 3, [][2]int32{{0, 1}, {1, 2}}, []int32{-1, 0, 1}, []int32{0}},
		{"diamond", 4, [][2]int32{{0, 1}, {0, 2}, {1, 3}, {2, 3}}, []int32{-1, 0, 0, 0}, []int32{0}},
		{"loop", 4, [][2]int32{{0, 1}, {1, 2}, {2, 1}, {2, 3}}, []int32{-1, 0, 1, 2}, []int32{0}},
		// The example of Cooper, Harvey and Kennedy, figure 4 (irreducible):
		// 5 -> 4, 5 -> 3, 4 -> 1, 3 -> 2, 1 -> 2, 2 -> 1; renumbered from 0.
		{"chk-fig4", 5, [][2]int32{{0, 1}, {0, 2}, {1, 3}, {2, 4}, {3, 4}, {4, 3}}, []int32{-1, 0, 0, 0, 0}, []int32{0}},
		// Block 2 is unreachable from 0: it becomes a root of its own, and
		// its edge into 3 (reached from 0) does not count for 3's dominator.
		{"unreachable", 4, [][2]int32{{0, 1}, {2, 3}, {1, 3}}, []int32{-1, 0, -1, 1}, []int32{0, 2}},
		// Padding (4) falling into a loop header (1) reached from the entry.
		{"padding into loop", 5, [][2]int32{{0, 1}, {1, 2}, {2, 1}, {2, 3}, {4, 1}}, []int32{-1, 0, 1, 2, -1}, []int32{0, 4}},
		// The Appel/Tiger textbook graph: 0->1, 1->2,1->3, 2->4, 3->4, 4->5, 5->1, 5->6.
		{"textbook", 7, [][2]int32{{0, 1}, {1, 2}, {1, 3}, {2, 4}, {3, 4}, {4, 5}, {5, 1}, {5, 6}}, []int32{-1, 0, 1, 1, 1, 4, 5}, []int32{0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := graphOf(tc.n, tc.edges)
			if !reflect.DeepEqual(g.Idom, tc.idom) {
				t.Errorf("idom = %v, want %v", g.Idom, tc.idom)
			}
			if !reflect.DeepEqual(g.Roots, tc.roots) {
				t.Errorf("roots = %v, want %v", g.Roots, tc.roots)
			}
			// Dominates must agree with the idom chains.
			for a := 0; a < tc.n; a++ {
				for d := 0; d < tc.n; d++ {
					want := false
					for x := int32(d); x >= 0; x = g.Idom[x] {
						if int(x) == a {
							want = true
							break
						}
					}
					if got := g.Dominates(a, d); got != want {
						t.Errorf("Dominates(%d, %d) = %v, want %v", a, d, got, want)
					}
				}
			}
		})
	}
}

func TestLoops(t *testing.T) {
	type lp struct {
		header  int32
		body    []int32
		latches []int32
		parent  int32
	}
	tests := []struct {
		name  string
		n     int
		edges [][2]int32
		loops []lp
	}{
		{"none", 3, [][2]int32{{0, 1}, {0, 2}, {1, 2}}, nil},
		{"self", 3, [][2]int32{{0, 1}, {1, 1}, {1, 2}}, []lp{{1, []int32{1}, []int32{1}, -1}}},
		{"while", 4, [][2]int32{{0, 1}, {1, 2}, {2, 1}, {1, 3}}, []lp{{1, []int32{1, 2}, []int32{2}, -1}}},
		{"nested", 6, [][2]int32{{0, 1}, {1, 2}, {2, 3}, {3, 2}, {3, 4}, {4, 1}, {1, 5}},
			[]lp{{1, []int32{1, 2, 3, 4}, []int32{4}, -1}, {2, []int32{2, 3}, []int32{3}, 0}}},
		{"two latches", 5, [][2]int32{{0, 1}, {1, 2}, {1, 3}, {2, 1}, {3, 1}, {1, 4}},
			[]lp{{1, []int32{1, 2, 3}, []int32{2, 3}, -1}}},
		// Unreachable padding (4) falling into the loop is not part of it.
		{"padding", 5, [][2]int32{{0, 1}, {1, 2}, {2, 1}, {2, 3}, {4, 2}}, []lp{{1, []int32{1, 2}, []int32{2}, -1}}},
		// Irreducible: neither 1 nor 2 dominates the other, so no natural loop.
		{"irreducible", 4, [][2]int32{{0, 1}, {0, 2}, {1, 2}, {2, 1}, {2, 3}}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := graphOf(tc.n, tc.edges)
			var got []lp
			for _, l := range g.Loops {
				got = append(got, lp{l.Header, l.Body, l.Latches, l.Parent})
			}
			if !reflect.DeepEqual(got, tc.loops) {
				t.Errorf("loops = %v, want %v", got, tc.loops)
			}
		})
	}
}
