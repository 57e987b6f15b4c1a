package proffile

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// TestUvarint checks dec.uvarint against binary.Uvarint for every length,
// non-minimal encodings, overflows, cut encodings and what follows them:
// the same values, the same bytes consumed, an error where it fails.
func TestUvarint(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 50000 {
		var b []byte
		for range 1 + rng.IntN(4) {
			x := rng.Uint64() >> rng.IntN(65)
			e := binary.AppendUvarint(nil, x)
			for pad := rng.IntN(3); pad > 0 && len(e) < binary.MaxVarintLen64; pad-- {
				e[len(e)-1] |= 0x80 // non-minimal: a zero group more
				e = append(e, 0)
			}
			b = append(b, e...)
		}
		switch trial % 13 {
		case 0: // overflow in the tenth byte
			b = append(b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02)
		case 1: // no end within ten bytes
			b = append(b, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80)
		case 2: // cut
			b = b[:rng.IntN(len(b))]
		}
		for range rng.IntN(12) {
			b = append(b, byte(rng.IntN(256)))
		}
		d := dec{b: b}
		for rest := b; ; {
			want, n := binary.Uvarint(rest)
			got := d.uvarint()
			if n <= 0 {
				if d.err == nil || got != 0 {
					t.Fatalf("% x: uvarint %d, err %v where binary.Uvarint fails", b, got, d.err)
				}
				break
			}
			if got != want || d.err != nil || d.left() != len(rest)-n {
				t.Fatalf("% x: uvarint %d (%d left, err %v), want %d (%d left)", b, got, d.left(), d.err, want, len(rest)-n)
			}
			rest = rest[n:]
		}
	}
}
