package stats

import (
	"math"
	"slices"
)

// sortFloats sorts s ascending in the order of slices.Sort (NaNs first).
// Large inputs use an LSD radix sort on the IEEE bits (8 passes of 8 bits,
// skipping passes where all keys share the digit), several times faster
// than a comparison sort on millions of samples.
func sortFloats(s []float64) {
	if len(s) < 1<<12 {
		slices.Sort(s)
		return
	}
	keys := make([]uint64, len(s))
	for i, v := range s {
		keys[i] = floatKey(v)
	}
	tmp := make([]uint64, len(s))
	var count [256]int
	for shift := uint(0); shift < 64; shift += 8 {
		count = [256]int{}
		for _, k := range keys {
			count[byte(k>>shift)]++
		}
		if count[byte(keys[0]>>shift)] == len(keys) {
			continue // every key has this digit: the pass would not move anything
		}
		sum := 0
		for i, c := range count {
			count[i] = sum
			sum += c
		}
		for _, k := range keys {
			d := byte(k >> shift)
			tmp[count[d]] = k
			count[d]++
		}
		keys, tmp = tmp, keys
	}
	for i, k := range keys {
		s[i] = keyFloat(k)
	}
}

// floatKey maps a float64 to a uint64 with the same order; every NaN maps
// to 0, below -Inf, as slices.Sort places NaNs first.
func floatKey(v float64) uint64 {
	if v != v {
		return 0
	}
	b := math.Float64bits(v)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

func keyFloat(k uint64) float64 {
	if k == 0 {
		return math.NaN()
	}
	if k>>63 != 0 {
		return math.Float64frombits(k &^ (1 << 63))
	}
	return math.Float64frombits(^k)
}
