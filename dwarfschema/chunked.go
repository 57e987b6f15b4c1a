package dwarfschema

// chunked is an append-only list stored in fixed-size chunks: growing it
// never copies what is already there (the loader's lists reach hundreds of
// thousands of records, and growslice copies were a third of Load's time),
// and indexing stays O(1).
type chunked[T any] struct {
	chunks [][]T
	n      int
}

const chunkBits = 14

func (c *chunked[T]) add(x T) {
	if c.n&(1<<chunkBits-1) == 0 {
		c.chunks = append(c.chunks, make([]T, 0, 1<<chunkBits))
	}
	k := len(c.chunks) - 1
	c.chunks[k] = append(c.chunks[k], x)
	c.n++
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
