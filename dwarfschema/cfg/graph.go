// Package cfg builds the control-flow graph of x86-64 machine code and runs
// the dataflow analyses that give vprof its variable tags (method.md §2):
// basic blocks, dominators, natural loops, and the forward propagation of
// "derived from variable v" through registers and stack slots that finds
// the variables read by conditions, loop exit tests and call arguments.
//
// The package knows nothing of vprof's schema: its inputs are code ranges,
// the bytes of the image, and variable locations given as DWARF register
// numbers and frame offsets; its output is a set of tags per variable.
package cfg

import (
	"cmp"
	"fmt"
	"slices"
	"sort"

	"golang.org/x/arch/x86/x86asm"
)

// Range is the half-open address range [Lo, Hi).
type Range struct{ Lo, Hi uint64 }

// Inst is one decoded instruction at PC. A byte that does not decode is an
// Inst with Op 0 and Len 1, so that decoding resynchronises on the next byte.
type Inst struct {
	PC uint64
	x86asm.Inst
}

// Bad reports whether the instruction could not be decoded.
func (in *Inst) Bad() bool { return in.Op == 0 }

// Term says how a basic block ends.
type Term uint8

const (
	TermFall     Term = iota // falls through into the next block
	TermJump                 // direct unconditional jump inside the function
	TermCond                 // conditional jump (two successors, or one if both are the same)
	TermRet                  // return
	TermTail                 // jump out of the function: a tail call
	TermIndirect             // indirect jump; Succs are the jump table's targets when it was resolved
	TermStop                 // ud2, hlt, an undecodable byte or the end of a range
)

// Block is a basic block: instructions Insts[First:Last] at [Start, End).
// Calls do not end blocks.
type Block struct {
	Start, End  uint64
	First, Last int32
	Term        Term
	Succs       []int32
	Preds       []int32
}

// Loop is a natural loop: the blocks dominated by Header that reach one of
// its back edges (Latch -> Header) without passing through Header. Loops
// sharing a header are one loop.
type Loop struct {
	Header  int32
	Body    []int32 // sorted block indices, Header included
	Latches []int32 // sources of the back edges, sorted
	Exits   []Edge  // edges from the body to outside it
	Parent  int32   // innermost enclosing loop, -1 if none
}

// Edge is a control-flow edge between two blocks.
type Edge struct{ From, To int32 }

// Graph is the control-flow graph of one function's code over all its
// ranges (main body, .cold parts, clones). A Graph returned by a Builder is
// valid until that Builder's next Build.
type Graph struct {
	Ranges []Range
	Insts  []Inst
	Blocks []Block
	// Roots are the blocks control enters from outside: range starts not
	// reached from another range, then (lowest address first) any block still
	// unreachable, so that every block has a dominator.
	Roots []int32
	// Entries is how many of the Roots (the first ones) are entry points;
	// the others are blocks no entry reaches.
	Entries int
	// Idom is each block's immediate dominator; -1 for the roots, which are
	// dominated only by the virtual entry above them.
	Idom  []int32
	Loops []Loop
	// BadBytes counts undecodable bytes; Unresolved counts indirect jumps
	// whose targets could not be read from a jump table.
	BadBytes   int
	Unresolved int

	rpo       []int32 // blocks in reverse postorder from the virtual entry
	pre, post []int32 // dominator-tree DFS numbers, for O(1) Dominates
	inLoop    []uint64
	words     int
	edges     []int32
}

// Builder builds graphs, reusing its memory from one function to the next.
// It is not safe for concurrent use; use one per goroutine.
type Builder struct {
	g        Graph
	leader   []bool
	ints     []int32
	stack    []int32
	first    []int32
	kids     []int32
	fill     []int32
	rootBits []uint64
	tree     []int32
	spans    []edgeSpan
	npred    []int32
	latches  []int32
	bodies   []int32
	exits    []Edge
	loopOffs []int32
	box      argBoxes // the decoder's boxed operands, kept across graphs
}

// edgeSpan is a block's successors in Graph.edges.
type edgeSpan struct{ off, n int32 }

// InstAt returns the index of the instruction starting at pc, or -1.
func (g *Graph) InstAt(pc uint64) int {
	i := sort.Search(len(g.Insts), func(i int) bool { return g.Insts[i].PC >= pc })
	if i < len(g.Insts) && g.Insts[i].PC == pc {
		return i
	}
	return -1
}

// BlockOf returns the index of the block containing instruction i.
func (g *Graph) BlockOf(i int) int {
	return sort.Search(len(g.Blocks), func(b int) bool { return g.Blocks[b].Last > int32(i) })
}

// BlockAt returns the index of the block containing pc, or -1.
func (g *Graph) BlockAt(pc uint64) int {
	b := sort.Search(len(g.Blocks), func(b int) bool { return g.Blocks[b].End > pc })
	if b < len(g.Blocks) && g.Blocks[b].Start <= pc {
		return b
	}
	return -1
}

// Contains reports whether pc lies in one of the graph's ranges.
func (g *Graph) Contains(pc uint64) bool {
	i := sort.Search(len(g.Ranges), func(i int) bool { return g.Ranges[i].Hi > pc })
	return i < len(g.Ranges) && g.Ranges[i].Lo <= pc
}

// Build decodes the code in ranges (any order; overlaps are merged) and
// builds its graph, dominators and loops. It fails only if a range is not
// mapped by img.
func (b *Builder) Build(img *Image, ranges []Range) (*Graph, error) {
	g := &b.g
	g.Ranges = append(g.Ranges[:0], ranges...)
	g.Ranges = normalize(g.Ranges)
	g.Insts = g.Insts[:0]
	g.Blocks = g.Blocks[:0]
	g.Roots = g.Roots[:0]
	g.Loops = g.Loops[:0]
	g.BadBytes, g.Unresolved = 0, 0
	g.edges = g.edges[:0]
	for _, r := range g.Ranges {
		code := img.Slice(r.Lo, r.Hi)
		if code == nil {
			return nil, fmt.Errorf("cfg: code at [%#x, %#x) is not in a mapped section", r.Lo, r.Hi)
		}
		g.BadBytes += decodeRange(&g.Insts, r.Lo, code, &b.box)
	}
	b.blocks(img)
	b.dominators()
	b.loops()
	return g, nil
}

func normalize(rs []Range) []Range {
	out := rs[:0]
	slices.SortFunc(rs, func(a, b Range) int { return cmp.Compare(a.Lo, b.Lo) })
	for _, r := range rs {
		if r.Hi <= r.Lo {
			continue
		}
		if n := len(out); n > 0 && r.Lo <= out[n-1].Hi {
			out[n-1].Hi = max(out[n-1].Hi, r.Hi)
			continue
		}
		out = append(out, r)
	}
	return out
}

// decodeRange appends the instructions of code (at address pc) to insts
// and returns the number of bytes that did not decode. box, if not nil,
// keeps the boxed operands for reuse.
func decodeRange(insts *[]Inst, pc uint64, code []byte, box *argBoxes) (bad int) {
	for off := 0; off < len(code); {
		// Decode in place: an Inst is some 200 bytes.
		*insts = append(*insts, Inst{PC: pc + uint64(off)})
		in := &(*insts)[len(*insts)-1].Inst
		switch {
		case isEndbr(code[off:]):
			// x86asm does not know endbr64/endbr32 (f3 0f 1e fa/fb): they
			// are no-ops for dataflow.
			*in = x86asm.Inst{Op: x86asm.NOP, Len: 4, Mode: 64}
		case decodeFastBoxed(in, code[off:], box):
		default:
			var err error
			*in, err = x86asm.Decode(code[off:], 64)
			if err != nil || in.Op == 0 || in.Len <= 0 {
				*in = x86asm.Inst{Len: 1, Mode: 64}
				bad++
			}
			fixDisp(in)
		}
		off += in.Len
	}
	return bad
}

// fixDisp sign-extends 32-bit memory displacements, which x86asm (as of
// v0.32.0) returns zero-extended: [rbp-0x118] would read as
// [rbp+0xfffffee8]. In 64-bit mode a disp32 is always sign-extended; only
// the moffs forms of mov (a0-a3) carry a full 64-bit address.
func fixDisp(in *x86asm.Inst) {
	if op := in.Opcode >> 24; op >= 0xa0 && op <= 0xa3 {
		return
	}
	for k, a := range in.Args {
		m, ok := a.(x86asm.Mem)
		if !ok {
			if a == nil {
				break
			}
			continue
		}
		if m.Disp >= 1<<31 && m.Disp < 1<<32 {
			m.Disp -= 1 << 32
			in.Args[k] = m
		}
	}
}

func isEndbr(b []byte) bool {
	return len(b) >= 4 && b[0] == 0xf3 && b[1] == 0x0f && b[2] == 0x1e && (b[3] == 0xfa || b[3] == 0xfb)
}

// branchTarget returns the target of a direct (relative) branch.
func branchTarget(in *Inst) (uint64, bool) {
	if r, ok := in.Args[0].(x86asm.Rel); ok {
		return in.PC + uint64(in.Len) + uint64(int64(r)), true
	}
	return 0, false
}

// isCondJump reports conditional branches: Jcc, and JRCXZ/LOOP, which test
// rcx instead of flags.
func isCondJump(op x86asm.Op) bool {
	switch op {
	case x86asm.JA, x86asm.JAE, x86asm.JB, x86asm.JBE, x86asm.JE, x86asm.JG, x86asm.JGE,
		x86asm.JL, x86asm.JLE, x86asm.JNE, x86asm.JNO, x86asm.JNP, x86asm.JNS, x86asm.JO,
		x86asm.JP, x86asm.JS, x86asm.JCXZ, x86asm.JECXZ, x86asm.JRCXZ,
		x86asm.LOOP, x86asm.LOOPE, x86asm.LOOPNE:
		return true
	}
	return false
}

func endsBlock(in *Inst) bool {
	switch in.Op {
	case 0, x86asm.JMP, x86asm.RET, x86asm.LRET, x86asm.IRET, x86asm.IRETD, x86asm.IRETQ,
		x86asm.UD0, x86asm.UD1, x86asm.UD2, x86asm.HLT:
		return true
	}
	return isCondJump(in.Op)
}

// blocks splits the instructions into basic blocks and links them.
func (b *Builder) blocks(img *Image) {
	g := &b.g
	n := len(g.Insts)
	if cap(b.leader) < n {
		b.leader = make([]bool, n)
	}
	lead := b.leader[:n]
	clear(lead)
	// Range starts, jump targets and the instruction after any block end.
	for _, r := range g.Ranges {
		if i := g.InstAt(r.Lo); i >= 0 {
			lead[i] = true
		}
	}
	for i := range g.Insts {
		in := &g.Insts[i]
		if !endsBlock(in) {
			continue
		}
		if i+1 < n {
			lead[i+1] = true
		}
		if in.Op == x86asm.JMP || isCondJump(in.Op) {
			if t, ok := branchTarget(in); ok {
				if j := g.InstAt(t); j >= 0 {
					lead[j] = true
				}
			}
		}
	}
	// Jump-table targets are leaders too; resolve tables before cutting.
	tables := b.ints[:0]
	for i := range g.Insts {
		in := &g.Insts[i]
		if in.Op != x86asm.JMP {
			continue
		}
		if _, ok := branchTarget(in); ok {
			continue
		}
		start := len(tables)
		tables = append(tables, int32(i), 0)
		tables = resolveJumpTable(g, img, i, tables)
		tables[start+1] = int32(len(tables) - start - 2)
		for _, t := range tables[start+2:] {
			lead[t] = true
		}
	}
	b.ints = tables

	for i := 0; i < n; {
		j := i + 1
		for j < n && !lead[j] {
			j++
		}
		g.Blocks = append(g.Blocks, Block{
			Start: g.Insts[i].PC,
			End:   g.Insts[j-1].PC + uint64(g.Insts[j-1].Len),
			First: int32(i), Last: int32(j),
		})
		i = j
	}

	// Successors into one flat array; Succs/Preds slice it afterwards.
	succ := resize(b.spans, len(g.Blocks))
	b.spans = succ
	tab := 0
	for bi := range g.Blocks {
		blk := &g.Blocks[bi]
		last := &g.Insts[blk.Last-1]
		off := int32(len(g.edges))
		fall := func() {
			if int(blk.Last) < n && g.Insts[blk.Last].PC == blk.End {
				g.edges = append(g.edges, int32(bi+1))
			} else if blk.Term == TermFall {
				blk.Term = TermStop
			}
		}
		switch {
		case last.Bad() || last.Op == x86asm.UD0 || last.Op == x86asm.UD1 || last.Op == x86asm.UD2 || last.Op == x86asm.HLT:
			blk.Term = TermStop
		case last.Op == x86asm.RET || last.Op == x86asm.LRET || last.Op == x86asm.IRET || last.Op == x86asm.IRETD || last.Op == x86asm.IRETQ:
			blk.Term = TermRet
		case isCondJump(last.Op):
			blk.Term = TermCond
			fall()
			if t, ok := branchTarget(last); ok {
				if j := g.BlockAt(t); j >= 0 && g.Blocks[j].Start == t && (len(g.edges) == int(off) || g.edges[off] != int32(j)) {
					g.edges = append(g.edges, int32(j))
				}
			}
		case last.Op == x86asm.JMP:
			if t, ok := branchTarget(last); ok {
				if j := g.BlockAt(t); j >= 0 && g.Blocks[j].Start == t {
					blk.Term = TermJump
					g.edges = append(g.edges, int32(j))
				} else {
					blk.Term = TermTail
				}
				break
			}
			blk.Term = TermIndirect
			for tab < len(b.ints) && b.ints[tab] < blk.Last-1 {
				tab += 2 + int(b.ints[tab+1])
			}
			if tab < len(b.ints) && b.ints[tab] == blk.Last-1 {
				cnt := int(b.ints[tab+1])
				for _, t := range b.ints[tab+2 : tab+2+cnt] {
					j := int32(g.BlockOf(int(t)))
					if !containsInt32(g.edges[off:], j) {
						g.edges = append(g.edges, j)
					}
				}
				if cnt == 0 {
					g.Unresolved++
				}
			}
		default:
			blk.Term = TermFall
			fall()
		}
		succ[bi] = edgeSpan{off, int32(len(g.edges)) - off}
	}
	// Predecessors: count, then fill, in the same flat array.
	npred := resize(b.npred, len(g.Blocks)+1)
	b.npred = npred
	clear(npred)
	for _, s := range g.edges {
		npred[s+1]++
	}
	for i := 1; i < len(npred); i++ {
		npred[i] += npred[i-1]
	}
	base := int32(len(g.edges))
	g.edges = slices.Grow(g.edges, len(g.edges))[:2*len(g.edges)]
	fill := resize(b.fill, len(g.Blocks))
	b.fill = fill
	clear(fill)
	for bi := range g.Blocks {
		sp := succ[bi]
		for _, s := range g.edges[sp.off : sp.off+sp.n] {
			g.edges[base+npred[s]+fill[s]] = int32(bi)
			fill[s]++
		}
	}
	for bi := range g.Blocks {
		sp := succ[bi]
		g.Blocks[bi].Succs = g.edges[sp.off : sp.off+sp.n : sp.off+sp.n]
		p0, p1 := base+npred[bi], base+npred[bi+1]
		g.Blocks[bi].Preds = g.edges[p0:p1:p1]
	}
}

func containsInt32(s []int32, x int32) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// IsEndbr reports whether b starts with endbr64 or endbr32, which the
// graphs hold as a 4-byte no-op (x86asm does not know them).
func IsEndbr(b []byte) bool { return isEndbr(b) }
