package cfg

import (
	"debug/elf"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"golang.org/x/arch/x86/x86asm"
)

// sameDecode reports whether the fast decoder's result matches x86asm's in
// everything the analysis reads.
func sameDecode(fast, ref x86asm.Inst) bool {
	return fast.Op == ref.Op && fast.Len == ref.Len && fast.MemBytes == ref.MemBytes &&
		fast.DataSize == ref.DataSize && fast.PCRel == ref.PCRel && fast.PCRelOff == ref.PCRelOff &&
		reflect.DeepEqual(fast.Args, ref.Args)
}

// diffText decodes the code of an ELF file's .text both ways.
func diffText(t *testing.T, path string) (n, fast int) {
	f, err := elf.Open(path)
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	sec := f.Section(".text")
	if sec == nil {
		t.Skipf("%s: no .text", path)
	}
	code, err := sec.Data()
	if err != nil {
		t.Fatal(err)
	}
	bad := 0
	for off := 0; off < len(code); {
		ref, err := x86asm.Decode(code[off:], 64)
		fixDisp(&ref)
		got, ok := decodeFast(code[off:])
		if ok {
			fast++
			if err != nil || !sameDecode(got, ref) {
				bad++
				if bad < 20 {
					t.Errorf("%s+%#x % x: fast %v %#v len %d mem %d data %d, x86asm %v %#v len %d mem %d data %d (%v)",
						filepath.Base(path), off, code[off:off+min(8, len(code)-off)], got, got.Args[:3], got.Len, got.MemBytes, got.DataSize,
						ref, ref.Args[:3], ref.Len, ref.MemBytes, ref.DataSize, err)
				}
			}
		}
		n++
		if err != nil || ref.Len == 0 {
			off++
			continue
		}
		off += ref.Len
	}
	return n, fast
}

func TestDecodeFastMatchesX86asm(t *testing.T) {
	paths := []string{compileC(t, cfgSrc, "-O2"), compileC(t, cfgSrc, "-O0")}
	// Larger real code where the machine has it.
	for _, p := range []string{"/usr/bin/gdb", "/usr/bin/as", "/usr/lib/x86_64-linux-gnu/libc.so.6", "../../testprogs/bin/cascade_delete"} {
		if _, err := os.Stat(p); err == nil {
			paths = append(paths, p)
		}
	}
	for _, p := range paths {
		n, fast := diffText(t, p)
		t.Logf("%s: %d instructions, %.1f%% decoded by the fast path", filepath.Base(p), n, 100*float64(fast)/float64(max(n, 1)))
	}
}

// TestDecodeBoxedSame: instructions decoded with shared boxes (argBoxes,
// one for a whole .text, as a Builder keeps it across functions) are
// those decoded without, and stay so after every later decode (a box is
// never written once shared); decoding the same code again allocates
// nothing, where boxing anew allocates for each memory operand.
func TestDecodeBoxedSame(t *testing.T) {
	paths := []string{compileC(t, cfgSrc, "-O2"), compileC(t, cfgSrc, "-O0")}
	for _, p := range []string{"/usr/bin/as", "../../testprogs/bin/cascade_delete"} {
		if _, err := os.Stat(p); err == nil {
			paths = append(paths, p)
		}
	}
	for _, path := range paths {
		f, err := elf.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		code, err := f.Section(".text").Data()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		code = code[:min(len(code), 1<<18)]
		var box argBoxes
		var boxed, plain []Inst
		decodeRange(&boxed, 0x1000, code, &box)
		decodeRange(&plain, 0x1000, code, nil)
		var again []Inst
		decodeRange(&again, 0x1000, code, &box) // overwrites slots the first pass left
		if len(boxed) != len(plain) || len(again) != len(plain) {
			t.Fatalf("%s: %d instructions boxed, %d again, %d not", path, len(boxed), len(again), len(plain))
		}
		bad := 0
		for i := range plain {
			if !sameDecode(boxed[i].Inst, plain[i].Inst) || !sameDecode(again[i].Inst, plain[i].Inst) {
				if bad++; bad < 10 {
					t.Errorf("%s+%#x: boxed %v, again %v, not boxed %v", path, plain[i].PC, boxed[i].Inst, again[i].Inst, plain[i].Inst)
				}
			}
		}
		// A short run of code, as one function's: all its operands fit
		// the slots, so a second decode finds them there.
		short := code[:min(len(code), 256)]
		var insts []Inst
		decodeRange(&insts, 0x1000, short, &box)
		mems := 0
		for _, in := range insts {
			for _, a := range in.Args {
				if _, ok := a.(x86asm.Mem); ok {
					mems++
				}
			}
		}
		withBox := testing.AllocsPerRun(10, func() {
			insts = insts[:0]
			decodeRange(&insts, 0x1000, short, &box)
		})
		without := testing.AllocsPerRun(10, func() {
			insts = insts[:0]
			decodeRange(&insts, 0x1000, short, nil)
		})
		t.Logf("%s: %d instructions; the first %d bytes (%d memory operands): %.0f allocations with boxes, %.0f without",
			filepath.Base(path), len(plain), len(short), mems, withBox, without)
		if mems > 0 && (withBox >= without || withBox > float64(mems)/4) {
			t.Errorf("%s: %.0f allocations with boxes, %.0f without, for %d memory operands", path, withBox, without, mems)
		}
	}
}

func FuzzDecodeFast(f *testing.F) {
	for _, s := range [][]byte{
		{0x89, 0x7c, 0x24, 0x0c}, {0x48, 0x8d, 0x15, 0x44, 0x0d, 0, 0}, {0x48, 0x63, 0x04, 0xba},
		{0x41, 0xff, 0x24, 0xc4}, {0x66, 0xc7, 0x04, 0x2a, 1, 0}, {0x0f, 0x1f, 0x44, 0, 0},
		{0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8}, {0x0f, 0x84, 0x10, 0, 0, 0}, {0x66, 0x0f, 0x1f, 0x44, 0, 0},
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := decodeFast(b)
		if !ok {
			return
		}
		ref, err := x86asm.Decode(b, 64)
		fixDisp(&ref)
		if err != nil || !sameDecode(got, ref) {
			t.Fatalf("% x: fast %v %#v len %d mem %d data %d pcrel %d/%d, x86asm %v %#v len %d mem %d data %d pcrel %d/%d (%v)",
				b, got, got.Args[:3], got.Len, got.MemBytes, got.DataSize, got.PCRel, got.PCRelOff,
				ref, ref.Args[:3], ref.Len, ref.MemBytes, ref.DataSize, ref.PCRel, ref.PCRelOff, err)
		}
	})
}

func BenchmarkDecode(b *testing.B) {
	path := "/usr/bin/as"
	f, err := elf.Open(path)
	if err != nil {
		b.Skip(err)
	}
	defer f.Close()
	code, err := f.Section(".text").Data()
	if err != nil {
		b.Fatal(err)
	}
	code = code[:min(len(code), 1<<18)]
	var insts []Inst
	var box argBoxes
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			insts = insts[:0]
			decodeRange(&insts, 0, code, &box)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(insts)), "ns/inst")
	})
	b.Run("x86asm", func(b *testing.B) {
		n := 0
		for b.Loop() {
			n = 0
			for off := 0; off < len(code); n++ {
				in, err := x86asm.Decode(code[off:], 64)
				if err != nil || in.Len == 0 {
					off++
					continue
				}
				off += in.Len
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/inst")
	})
}
