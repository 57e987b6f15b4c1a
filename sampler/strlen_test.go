package sampler

import (
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// TestStrLen: a char * parameter's string length variable (method.md
// D140) reads the length of the string append_all is building: a
// multiple of its 8-byte appends below model.StrLenBound, the bound at
// and past it (the string grows to 64 KiB). Without StrLens there is no
// such variable.
func TestStrLen(t *testing.T) {
	exe := buildC(t, "strbuild", "-g")
	_, p := record(t, Config{Args: []string{exe, "30"}, Depth: 3, StrLens: true})
	vs := p.values("append_all", "strlen(buf)")
	if len(vs) < 10 {
		t.Fatalf("strlen(buf): %d value samples, want 10 or more", len(vs))
	}
	below, at := 0, 0
	for _, v := range vs {
		switch n := v.Bits; {
		case n == model.StrLenBound:
			at++
		case n < model.StrLenBound && n%8 == 0:
			below++
		default:
			t.Fatalf("strlen(buf) = %d in sample %d: neither a multiple of 8 below %d nor the bound", n, v.sample, model.StrLenBound)
		}
	}
	// The string spends three quarters of its appends (and more of its
	// time: each append walks it) at 16 KiB or more.
	if at == 0 || below == 0 || at < below {
		t.Errorf("strlen(buf): %d values at the bound, %d below it; want both, most at the bound", at, below)
	}
	_, p = record(t, Config{Args: []string{exe, "2"}, Depth: 3})
	if vs := p.values("append_all", "strlen(buf)"); len(vs) != 0 {
		t.Errorf("without StrLens: %d values of strlen(buf)", len(vs))
	}
}
