package dwarfschema

// chunked is an append-only list stored in fixed-size chunks: growing it
// never copies what is already there (the loader's lists reach hundreds of
// thousands of records, and growslice copies were a third of Load's time),
// and indexing stays O(1). Chunk k holds elements [k<<chunkBits,
// (k+1)<<chunkBits). (A first chunk that started small and doubled cost
// more than it saved: on redis-server 21 MB more allocated per load.)
type chunked[T any] struct {
	chunks [][]T
	n      int
}

const chunkBits = 14

// populateBits: add populates (makes resident) a chunk a quarter at a
// time, just before it fills it, so that a list's last chunk holds no
// more resident pages unused than a quarter of it (nginx: 2 MB of peak
// RSS with whole chunks).
const populateBits = chunkBits - 2

func (c *chunked[T]) add(x T) {
	if c.n&(1<<populateBits-1) == 0 {
		c.next()
	}
	k := len(c.chunks) - 1
	c.chunks[k] = append(c.chunks[k], x)
	c.n++
}

// next starts a new chunk at a chunk's boundary, and populates the
// quarter that add fills next.
func (c *chunked[T]) next() {
	if c.n&(1<<chunkBits-1) == 0 {
		c.newChunk()
	}
	ch := c.chunks[len(c.chunks)-1]
	populate(ch[len(ch):min(len(ch)+1<<populateBits, cap(ch))])
}

func (c *chunked[T]) newChunk() {
	c.chunks = append(c.chunks, make([]T, 0, 1<<chunkBits))
}

// addAll appends xs: a copy per chunk, not per element.
func (c *chunked[T]) addAll(xs []T) {
	for len(xs) > 0 {
		if c.n&(1<<chunkBits-1) == 0 {
			c.newChunk()
		}
		k := len(c.chunks) - 1
		room := 1<<chunkBits - len(c.chunks[k])
		m := min(room, len(xs))
		c.chunks[k] = append(c.chunks[k], xs[:m]...)
		c.n += m
		xs = xs[m:]
	}
}

// takeAll moves o's elements to the end of c, leaving o empty. o's
// chunks become c's: the elements are first moved down, within them, by
// the room left in c's last chunk (filled with o's first ones), so that
// every chunk of c but the last stays full. Nothing is allocated: a copy
// to new chunks holds both copies until the next collection.
func (c *chunked[T]) takeAll(o *chunked[T]) {
	const full = 1 << chunkBits
	n := o.n
	if n == 0 {
		return
	}
	m := 0
	if c.n%full != 0 {
		m = min(full-len(c.chunks[len(c.chunks)-1]), n)
		c.addAll(o.chunks[0][:m])
	}
	if m > 0 {
		// Element i of o goes to i-m: chunk k keeps its tail and takes
		// the head of chunk k+1 (not yet moved).
		left := n - m
		keep := 0
		for k := range o.chunks {
			if left == 0 {
				break
			}
			ch := o.chunks[k]
			size := min(full, left)
			moved := copy(ch, ch[m:])
			if moved < size {
				copy(ch[moved:size], o.chunks[k+1][:size-moved])
			}
			clear(ch[size:len(ch)]) // no stale pointers past the end
			o.chunks[k] = ch[:size]
			left -= size
			keep = k + 1
		}
		clear(o.chunks[keep:])
		o.chunks = o.chunks[:keep]
	}
	c.chunks = append(c.chunks, o.chunks...)
	c.n += n - m // m came by addAll
	*o = chunked[T]{}
}

func (c *chunked[T]) len() int { return c.n }

func (c *chunked[T]) at(i int) *T { return &c.chunks[i>>chunkBits][i&(1<<chunkBits-1)] }

// last returns the most recently added element, or nil.
func (c *chunked[T]) last() *T {
	if c.n == 0 {
		return nil
	}
	return c.at(c.n - 1)
}

// pop drops the last element.
func (c *chunked[T]) pop() {
	k := len(c.chunks) - 1
	c.chunks[k] = c.chunks[k][:len(c.chunks[k])-1]
	c.n--
	if len(c.chunks[k]) == 0 {
		c.chunks = c.chunks[:k]
	}
}

// slice returns all elements in one slice of exactly the right size.
func (c *chunked[T]) slice() []T {
	out := make([]T, 0, c.n)
	for _, ch := range c.chunks {
		out = append(out, ch...)
	}
	return out
}
