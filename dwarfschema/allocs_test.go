package dwarfschema

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestObjectSizesSame: objectSizes, which reads the symbol table's
// entries without their names, finds what the same loop over
// ef.Symbols() found (the sizes newGlobalSet read before), on the test
// programs, binaries built here and $VPROF_BENCH_BINARY; and none where
// Symbols fails (a stripped file).
func TestObjectSizesSame(t *testing.T) {
	bins := dieTestBinaries(t)
	more, _ := filepath.Glob("../testprogs/bin/*")
	if b := os.Getenv("VPROF_BENCH_BINARY"); b != "" {
		more = append(more, b)
	}
	bins = append(bins, more...)
	bins = append(bins, stripped(t))
	for _, b := range bins {
		ef, err := elf.Open(b)
		if err != nil {
			continue
		}
		want := map[uint64]uint64{}
		if syms, err := ef.Symbols(); err == nil {
			for _, sy := range syms {
				if elf.ST_TYPE(sy.Info) == elf.STT_OBJECT || elf.ST_TYPE(sy.Info) == elf.STT_TLS {
					if sy.Size > want[sy.Value] {
						want[sy.Value] = sy.Size
					}
				}
			}
		}
		got := objectSizes(ef)
		ef.Close()
		if len(got) != len(want) {
			t.Errorf("%s: %d objects, want %d", b, len(got), len(want))
		}
		for a, n := range want {
			if got[a] != n {
				t.Errorf("%s: object at %#x: size %d, want %d", b, a, got[a], n)
			}
		}
	}
}

// stripped returns a copy of a test program without its symbol table.
func stripped(t *testing.T) string {
	t.Helper()
	src := filepath.Join(t.TempDir(), "s.c")
	if err := os.WriteFile(src, []byte("int g[4];\nint main(void) { return g[1]; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "s")
	run := func(args ...string) {
		if b, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Skipf("%v: %v\n%s", args, err, b)
		}
	}
	run("cc", "-g", "-o", bin, src)
	run("strip", bin)
	return bin
}

// TestExprCopies: the expressions the loader keeps are copies of what it
// was given (cut from blocks: writing the input afterwards changes
// nothing), one per distinct expression, capacity clipped (an append to
// one cannot write over the next), and nil for the empty one, as the
// copies made one by one were; past a block's size too.
func TestExprCopies(t *testing.T) {
	l := &loader{exprs: map[string]int32{}}
	var inputs [][]byte
	for i := range 3000 {
		b := []byte{0x91, byte(i), byte(i >> 8), 0x06}[:1+i%4]
		if i%7 == 0 {
			b = bytes.Repeat([]byte{byte(i)}, 40)
		}
		inputs = append(inputs, b)
	}
	inputs = append(inputs, nil, make([]byte, exprBlock+5))
	idx := make([]int32, len(inputs))
	var kept [][]byte
	for i, b := range inputs {
		idx[i] = l.expr(b)
		kept = append(kept, append([]byte(nil), b...))
		b2 := append([]byte(nil), b...)
		if j := l.expr(b2); j != idx[i] {
			t.Fatalf("expression %d (% x): index %d, then %d", i, b, idx[i], j)
		}
		for k := range b {
			b[k] ^= 0xff // the caller's bytes change: the copy must not
		}
	}
	for i := range inputs {
		e := l.exprList[idx[i]]
		if !bytes.Equal(e, kept[i]) {
			t.Errorf("expression %d: kept % x, want % x", i, e, kept[i])
		}
		if cap(e) != len(e) {
			t.Errorf("expression %d: capacity %d for length %d", i, cap(e), len(e))
		}
		if len(kept[i]) == 0 && e != nil {
			t.Errorf("the empty expression is kept as %#v, want nil", e)
		}
		if j := l.expr(kept[i]); j != idx[i] {
			t.Errorf("expression %d (% x): index %d, then %d", i, kept[i], idx[i], j)
		}
	}
}
