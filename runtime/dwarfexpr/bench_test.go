package dwarfexpr

import "testing"

// BenchmarkNext decodes the operations of the expressions the sampler
// evaluates most: frame slots, register-relative values, entry values.
func BenchmarkNext(b *testing.B) {
	exprs := [][]byte{
		{0x91, 0x70},
		{0x73, 0x02, 0x9f},
		{0x77, 0x08, 0x06},
		{0xa3, 0x01, 0x55, 0x9f},
		{0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22},
	}
	n := 0
	for b.Loop() {
		for _, e := range exprs {
			for len(e) > 0 {
				_, rest, err := Next(e)
				if err != nil {
					b.Fatal(err)
				}
				e = rest
				n++
			}
		}
	}
}
