package cfg

import (
	"math/bits"
	"slices"
)

// dominators computes Roots, the reverse postorder and Idom with the
// iterative algorithm of Cooper, Harvey and Kennedy ("A Simple, Fast
// Dominance Algorithm", 2001) over a virtual entry whose successors are the
// roots, then numbers the dominator tree for O(1) Dominates queries.
func (b *Builder) dominators() {
	g := &b.g
	n := len(g.Blocks)
	g.rpo = g.rpo[:0]
	g.Idom = resize(g.Idom, n)
	g.pre = resize(g.pre, n)
	g.post = resize(g.post, n)
	if n == 0 {
		return
	}
	// num[b]: reverse-postorder number + 1 (0 = not reached yet; the virtual
	// entry is number 0 in the intersect walk below).
	num := g.pre // reused as scratch until the dominator tree is numbered
	clear(num)
	post := g.post[:0]
	tree := resize(b.tree, n)
	b.tree = tree
	ntree := int32(0)
	visit := func(root int32) {
		g.Roots = append(g.Roots, root)
		num[root] = -1
		tree[root] = ntree
		st := append(b.stack[:0], root, 0)
		for len(st) > 0 {
			top := len(st) - 2
			v, k := st[top], st[top+1]
			succ := g.Blocks[v].Succs
			if int(k) < len(succ) {
				st[top+1]++
				if w := succ[k]; num[w] == 0 {
					num[w] = -1
					tree[w] = ntree
					st = append(st, w, 0)
				}
				continue
			}
			post = append(post, v)
			st = st[:top]
		}
		b.stack = st
	}
	for _, r := range g.Ranges {
		i := g.InstAt(r.Lo)
		if i < 0 {
			continue
		}
		blk := int32(g.BlockOf(i))
		outside := false
		for _, p := range g.Blocks[blk].Preds {
			if g.Blocks[p].Start < r.Lo || g.Blocks[p].Start >= r.Hi {
				outside = true
			}
		}
		if !outside && num[blk] == 0 {
			visit(blk)
		}
	}
	g.Entries = len(g.Roots)
	// Blocks no entry reaches (alignment padding, code after a noreturn
	// call, cases of an unresolved switch) start trees of their own, later
	// ones; an edge from a later tree into an earlier one is ignored below,
	// so padding that falls into a loop header does not hide its dominator.
	if len(g.Roots) == 0 {
		ntree = -1
	}
	for blk := range g.Blocks {
		if num[blk] == 0 {
			ntree++
			visit(int32(blk))
		}
	}
	// Reverse postorder. Roots found later come first in it, which is
	// fine: every block's dominators precede it.
	for i := len(post) - 1; i >= 0; i-- {
		g.rpo = append(g.rpo, post[i])
	}
	for i, v := range g.rpo {
		num[v] = int32(i + 1)
	}
	isRoot := b.rootMask(n)
	// doms by RPO number; 0 is the virtual entry, -1 undefined.
	doms := resize(b.ints[:0], n+1)
	for i := range doms {
		doms[i] = -1
	}
	doms[0] = 0
	intersect := func(x, y int32) int32 {
		for x != y {
			for x > y {
				x = doms[x]
			}
			for y > x {
				y = doms[y]
			}
		}
		return x
	}
	for changed := true; changed; {
		changed = false
		for _, v := range g.rpo {
			nv := num[v]
			newIdom := int32(-1)
			if isRoot[v/64]&(1<<(v%64)) != 0 {
				newIdom = 0
			}
			for _, p := range g.Blocks[v].Preds {
				pn := num[p]
				if doms[pn] < 0 || tree[p] > tree[v] {
					continue
				}
				if newIdom < 0 {
					newIdom = pn
				} else {
					newIdom = intersect(pn, newIdom)
				}
			}
			if doms[nv] != newIdom {
				doms[nv] = newIdom
				changed = true
			}
		}
	}
	for _, v := range g.rpo {
		d := doms[num[v]]
		if d <= 0 {
			g.Idom[v] = -1
		} else {
			g.Idom[v] = g.rpo[d-1]
		}
	}
	b.ints = doms
	// Number the dominator tree (children lists in a flat CSR array).
	first := resize(b.first, n+2)
	b.first = first
	clear(first)
	for v := 0; v < n; v++ {
		first[g.Idom[v]+2]++
	}
	for i := 1; i < len(first); i++ {
		first[i] += first[i-1]
	}
	kids := resize(b.kids, n)
	fill := resize(b.fill, n+1)
	clear(fill)
	for v := 0; v < n; v++ {
		p := g.Idom[v] + 1
		kids[first[p]+fill[p]] = int32(v)
		fill[p]++
	}
	b.kids, b.fill = kids, fill
	clock := int32(0)
	st := b.stack[:0]
	// Virtual entry is node -1 (slot 0 in first).
	st = append(st, -1, 0)
	for len(st) > 0 {
		top := len(st) - 2
		v, k := st[top], st[top+1]
		lo, hi := first[v+1], first[v+2]
		if k == 0 && v >= 0 {
			g.pre[v] = clock
			clock++
		}
		if lo+k < hi {
			st[top+1]++
			st = append(st, kids[lo+k], 0)
			continue
		}
		if v >= 0 {
			g.post[v] = clock
			clock++
		}
		st = st[:top]
	}
	b.stack = st
}

// rootMask returns a bitset of g.Roots.
func (b *Builder) rootMask(n int) []uint64 {
	b.rootBits = resize(b.rootBits, (n+63)/64)
	clear(b.rootBits)
	for _, r := range b.g.Roots {
		b.rootBits[r/64] |= 1 << (r % 64)
	}
	return b.rootBits
}

// Dominates reports whether block a dominates block d (every block
// dominates itself).
func (g *Graph) Dominates(a, d int) bool {
	return g.pre[a] <= g.pre[d] && g.post[d] <= g.post[a]
}

// loops finds the natural loops: an edge u->h is a back edge when h
// dominates u; the body is h plus every block that reaches u backwards
// without passing h. Back edges to one header make one loop.
func (b *Builder) loops() {
	g := &b.g
	n := len(g.Blocks)
	words := (n + 63) / 64
	g.words = words
	g.inLoop = g.inLoop[:0]
	loopOf := resize(b.fill, n)
	for i := range loopOf {
		loopOf[i] = -1
	}
	// Latches, bodies and exits go to flat buffers that the loops slice
	// once complete: a header's back edges are all found together, and
	// the loops are completed one after the other.
	lat := b.latches[:0]
	offs := b.loopOffs[:0] // per loop: latches start, body start, exits start
	for h := range g.Blocks {
		for _, u := range g.Blocks[h].Preds {
			if !g.Dominates(h, int(u)) {
				continue
			}
			li := loopOf[h]
			if li < 0 {
				li = int32(len(g.Loops))
				loopOf[h] = li
				g.Loops = append(g.Loops, Loop{Header: int32(h), Parent: -1})
				offs = append(offs, int32(len(lat)), 0, 0)
				n := len(g.inLoop)
				g.inLoop = slices.Grow(g.inLoop, words)[:n+words]
				clear(g.inLoop[n:])
				g.inLoop[int(li)*words+h/64] |= 1 << (h % 64)
			}
			lat = append(lat, u)
			set := g.inLoop[int(li)*words : int(li+1)*words]
			st := b.stack[:0]
			if set[u/64]&(1<<(u%64)) == 0 {
				set[u/64] |= 1 << (u % 64)
				st = append(st, u)
			}
			for len(st) > 0 {
				v := st[len(st)-1]
				st = st[:len(st)-1]
				for _, p := range g.Blocks[v].Preds {
					// Unreachable padding falling into the body is not in it.
					if set[p/64]&(1<<(p%64)) == 0 && g.Dominates(h, int(p)) {
						set[p/64] |= 1 << (p % 64)
						st = append(st, p)
					}
				}
			}
			b.stack = st
		}
	}
	b.fill = loopOf
	body := b.bodies[:0]
	exits := b.exits[:0]
	for li := range g.Loops {
		offs[3*li+1], offs[3*li+2] = int32(len(body)), int32(len(exits))
		set := g.inLoop[li*words : (li+1)*words]
		for w, x := range set {
			for x != 0 {
				v := int32(w*64 + bits.TrailingZeros64(x))
				x &= x - 1
				body = append(body, v)
				for _, s := range g.Blocks[v].Succs {
					if set[s/64]&(1<<(s%64)) == 0 {
						exits = append(exits, Edge{v, s})
					}
				}
			}
		}
	}
	for li := range g.Loops {
		l := &g.Loops[li]
		end := func(k int, total int) int32 {
			if li+1 < len(g.Loops) {
				return offs[3*(li+1)+k]
			}
			return int32(total)
		}
		l.Latches = lat[offs[3*li]:end(0, len(lat)):end(0, len(lat))]
		l.Body = body[offs[3*li+1]:end(1, len(body)):end(1, len(body))]
		l.Exits = exits[offs[3*li+2]:end(2, len(exits)):end(2, len(exits))]
		sortInt32(l.Latches)
	}
	b.latches, b.bodies, b.exits, b.loopOffs = lat, body, exits, offs
	// Parent: the smallest other loop whose body holds this header.
	for li := range g.Loops {
		best := -1
		for lj := range g.Loops {
			if lj == li || len(g.Loops[lj].Body) <= len(g.Loops[li].Body) {
				continue
			}
			if g.InLoop(lj, int(g.Loops[li].Header)) && (best < 0 || len(g.Loops[lj].Body) < len(g.Loops[best].Body)) {
				best = lj
			}
		}
		g.Loops[li].Parent = int32(best)
	}
}

// InLoop reports whether block blk is in the body of loop li.
func (g *Graph) InLoop(li, blk int) bool {
	return g.inLoop[li*g.words+blk/64]&(1<<(blk%64)) != 0
}

func sortInt32(s []int32) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
