package unwind

import (
	"bufio"
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// sliceMem is a Memory over a copied stack.
type sliceMem struct {
	base uint64
	b    []byte
}

func (m *sliceMem) Read(addr uint64, size int) (uint64, bool) {
	if addr < m.base || addr-m.base > uint64(len(m.b)) || uint64(size) > uint64(len(m.b))-(addr-m.base) {
		return 0, false
	}
	o := addr - m.base
	var buf [8]byte
	copy(buf[:], m.b[o:o+uint64(size)])
	return binary.LittleEndian.Uint64(buf[:]), true
}

func needGCC(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not installed")
	}
}

// symtab symbolises link-time addresses of one object.
type symtab struct {
	addrs []uint64
	names []string
}

func loadSyms(t testing.TB, path string) *symtab {
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var syms []elf.Symbol
	if s, err := f.Symbols(); err == nil {
		syms = append(syms, s...)
	}
	if s, err := f.DynamicSymbols(); err == nil {
		syms = append(syms, s...)
	}
	sort.Slice(syms, func(i, j int) bool { return syms[i].Value < syms[j].Value })
	st := &symtab{}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Value != 0 {
			st.addrs = append(st.addrs, s.Value)
			st.names = append(st.names, s.Name)
		}
	}
	return st
}

func (s *symtab) lookup(pc uint64) string {
	i := sort.Search(len(s.addrs), func(i int) bool { return s.addrs[i] > pc }) - 1
	if i < 0 {
		return "?"
	}
	return s.names[i]
}

// snapshot is the parsed output of testdata/selfsnap.c.
type snapshot struct {
	regs  Regs
	maps  []string
	stack sliceMem
}

func runSelfSnap(t testing.TB) (*snapshot, string) {
	needGCC(t)
	dir := t.TempDir()
	exe := filepath.Join(dir, "selfsnap")
	if out, err := exec.Command("gcc", "-O2", "-g", "-o", exe, "testdata/selfsnap.c").CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	outf := filepath.Join(dir, "snap.out")
	if out, err := exec.Command(exe, outf).CombinedOutput(); err != nil {
		t.Fatalf("selfsnap: %v\n%s", err, out)
	}
	data, err := os.ReadFile(outf)
	if err != nil {
		t.Fatal(err)
	}
	s := &snapshot{}
	r := bufio.NewReader(bytes.NewReader(data))
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("truncated snapshot: %v", err)
		}
		f := strings.Fields(line)
		switch {
		case len(f) == 9 && f[0] == "REGS":
			cols := []int{RIP, RSP, RBP, RBX, R12, R13, R14, R15}
			for i, c := range cols {
				v, _ := strconv.ParseUint(f[i+1], 16, 64)
				s.regs.Set(c, v)
			}
		case len(f) == 3 && f[0] == "STACK":
			s.stack.base, _ = strconv.ParseUint(f[1], 16, 64)
			n, _ := strconv.ParseUint(f[2], 16, 64)
			s.stack.b = make([]byte, n)
			if _, err := readFull(r, s.stack.b); err != nil {
				t.Fatalf("stack: %v", err)
			}
			return s, exe
		default:
			s.maps = append(s.maps, line)
		}
	}
}

func readFull(r *bufio.Reader, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := r.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// space builds a Space from maps lines, loading tables and symbols of the
// executable mappings.
func spaceFromMaps(t testing.TB, lines []string) (*Space, map[int32]*symtab, map[int32]string) {
	sp := &Space{}
	syms := map[int32]*symtab{}
	paths := map[int32]string{}
	var id int32
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) < 6 || !strings.Contains(f[1], "x") || !strings.HasPrefix(f[5], "/") {
			continue
		}
		var start, end uint64
		fmt.Sscanf(f[0], "%x-%x", &start, &end)
		off, _ := strconv.ParseUint(f[2], 16, 64)
		path := f[5]
		ef, err := elf.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		bias, ok := Bias(ef, start, off)
		ef.Close()
		if !ok {
			t.Fatalf("no bias for %s", l)
		}
		tab, err := Load(path)
		if err != nil {
			t.Fatalf("load %s: %v", path, err)
		}
		id++
		sp.Add(Mapped{Start: start, End: end, Bias: bias, Table: tab, Obj: id})
		syms[id] = loadSyms(t, path)
		paths[id] = path
	}
	return sp, syms, paths
}

func TestWalkThroughLibc(t *testing.T) {
	snap, exe := runSelfSnap(t)
	sp, syms, paths := spaceFromMaps(t, snap.maps)
	frames := make([]Frame, 64)
	var st Stats
	n := sp.Walk(&snap.regs, &snap.stack, frames, &st)
	var names []string
	for _, f := range frames[:n] {
		if f.Map == nil {
			names = append(names, fmt.Sprintf("%#x?", f.PC))
			continue
		}
		name := syms[f.Map.Obj].lookup(f.LookupPC() - f.Map.Bias)
		if paths[f.Map.Obj] != exe {
			name = filepath.Base(paths[f.Map.Obj]) + ":" + name
		}
		names = append(names, name)
	}
	t.Logf("stack: %s (stats %+v)", strings.Join(names, " <- "), st)
	want := []string{"snap", "cmp", "libc", "level2", "level1", "main"}
	j := 0
	for _, nm := range names {
		if j < len(want) && (nm == want[j] || want[j] == "libc" && strings.HasPrefix(nm, "libc")) {
			j++
		}
	}
	if j < len(want) {
		t.Fatalf("stack %v lacks %v in order (matched %d)", names, want, j)
	}
	if st.FramePointer != 0 {
		t.Errorf("%d frames needed the frame-pointer fallback; CFI should cover all", st.FramePointer)
	}
	// Callers' frames keep only the registers the CFI restores.
	for i, f := range frames[1:n] {
		for _, r := range []int{RAX, RCX, RDX, RSI, RDI, R8, R9, R10, R11} {
			if _, ok := f.Regs.Get(r); ok {
				t.Errorf("frame %d: caller-saved register %d marked valid", i+1, r)
			}
		}
		if !frames[i].HasCFA {
			t.Errorf("frame %d has no CFA", i)
		}
	}
	// The second walk hits the caches and does not allocate.
	allocs := testing.AllocsPerRun(100, func() { sp.Walk(&snap.regs, &snap.stack, frames, nil) })
	if allocs != 0 {
		t.Errorf("Walk allocates %.1f times per call with warm caches", allocs)
	}
}

// TestWalkStops: why a walk ends, per case: a whole stack ends at the
// outermost frame; the others are cut short, and say why.
func TestWalkStops(t *testing.T) {
	snap, _ := runSelfSnap(t)
	sp, _, _ := spaceFromMaps(t, snap.maps)
	short := &sliceMem{base: snap.stack.base, b: snap.stack.b[:16]}
	noBP := snap.regs
	noBP.Valid &^= 1 << RBP
	zeroBP := snap.regs
	zeroBP.Set(RBP, 0) // the ABI's mark of the deepest frame
	for _, c := range []struct {
		name   string
		space  *Space
		regs   *Regs
		mem    Memory
		frames int
		want   Stop
	}{
		{"whole", sp, &snap.regs, &snap.stack, 64, StopOutermost},
		{"frame limit", sp, &snap.regs, &snap.stack, 3, StopDepth},
		{"stack unreadable", sp, &snap.regs, short, 64, StopUnreadable},
		{"no mapping, no frame pointer", &Space{}, &noBP, &snap.stack, 64, StopNoCFI},
		{"no mapping, frame pointer 0", &Space{}, &zeroBP, &snap.stack, 64, StopOutermost},
	} {
		var st Stats
		n := c.space.Walk(c.regs, c.mem, make([]Frame, c.frames), &st)
		if st.Last != c.want || st.Stops[c.want] != 1 {
			t.Errorf("%s: %d frames, stop %q (counts %v), want %q", c.name, n, st.Last, st.Stops, c.want)
		}
	}
}

// BenchmarkWalk is a cached unwind of the qsort-comparator stack
// (about ten frames through libc).
func BenchmarkWalk(b *testing.B) {
	snap, _ := runSelfSnap(b)
	sp, _, _ := spaceFromMaps(b, snap.maps)
	frames := make([]Frame, 64)
	n := sp.Walk(&snap.regs, &snap.stack, frames, nil)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		sp.Walk(&snap.regs, &snap.stack, frames, nil)
	}
	b.ReportMetric(float64(n), "frames")
}

func TestBias(t *testing.T) {
	// PIE: text at file offset 0x1000, link address 0x1000.
	f := &elf.File{}
	f.Progs = []*elf.Prog{
		{ProgHeader: elf.ProgHeader{Type: elf.PT_LOAD, Off: 0, Vaddr: 0, Filesz: 0x600, Align: 0x1000}},
		{ProgHeader: elf.ProgHeader{Type: elf.PT_LOAD, Off: 0x1000, Vaddr: 0x1000, Filesz: 0x300, Align: 0x1000}},
		{ProgHeader: elf.ProgHeader{Type: elf.PT_LOAD, Off: 0x2db8, Vaddr: 0x3db8, Filesz: 0x258, Align: 0x1000}},
	}
	for _, c := range []struct {
		start, off, bias uint64
		ok               bool
	}{
		{0x5555_5555_5000, 0x1000, 0x5555_5555_4000, true},
		{0x5555_5555_4000, 0, 0x5555_5555_4000, true},
		{0x5555_5555_7000, 0x2000, 0x5555_5555_4000, true}, // data: 0x3000 link at 0x2000 offset
		{0x1000, 0x9000, 0, false},
	} {
		b, ok := Bias(f, c.start, c.off)
		if ok != c.ok || (ok && b != c.bias) {
			t.Errorf("Bias(%#x, %#x) = %#x, %v; want %#x, %v", c.start, c.off, b, ok, c.bias, c.ok)
		}
	}
}
