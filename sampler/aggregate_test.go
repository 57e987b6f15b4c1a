package sampler

import (
	"encoding/binary"
	"testing"
)

// TestSmallAggregateLocal: a local of struct type that fits a scalar (a
// cursor like a C++ iterator, here the induction variable of walk's inner
// loop, in a register described by DW_OP_piece) is sampled as the hash of
// its bytes, as a global aggregate is: each value is the hash of a pointer
// into walk's array a, read in the same sample.
func TestSmallAggregateLocal(t *testing.T) {
	exe := buildC(t, "aggloop", "-g")
	_, p := record(t, Config{Args: []string{exe, "30000"}, Depth: 3})
	as := map[int]uint64{}
	for _, v := range p.values("walk", "a") {
		as[v.sample] = v.Bits
	}
	const n = 4096                          // aggloop.c's array length
	cursors := map[uint64]map[uint64]bool{} // a -> hashes of a+8k, k in 0..n
	checked := 0
	for _, v := range p.values("walk", "c") {
		a, ok := as[v.sample]
		if !ok {
			continue
		}
		hs := cursors[a]
		if hs == nil {
			hs = map[uint64]bool{}
			var b [8]byte
			for k := uint64(0); k <= n; k++ {
				binary.LittleEndian.PutUint64(b[:], a+8*k)
				hs[fnv1a(b[:])] = true
			}
			cursors[a] = hs
		}
		if !hs[v.Bits] {
			t.Fatalf("walk.c = %#x in sample %d: not the hash of a pointer into a = %#x", v.Bits, v.sample, a)
		}
		checked++
	}
	if checked == 0 {
		t.Fatalf("walk.c: no value sample next to walk.a (%d samples)", len(p.samples))
	}
}
