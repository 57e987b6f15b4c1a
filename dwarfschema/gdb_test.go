package dwarfschema

import (
	"bufio"
	"bytes"
	"debug/elf"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-delve/delve/pkg/dwarf/op"
	"golang.org/x/arch/x86/x86asm"

	"github.com/vprof/vprof/runtime/model"
)

// gdbScript stops the program at the given link-time PCs (two hits each)
// and writes, for every frame at the stop (inlined frames included), the
// registers, the CFA and each visible variable's value or address as gdb
// computes them from the same DWARF: one JSON object per line.
const gdbScript = `
import gdb, json, struct
MAIN = %d
PCS = %s
OUT = open(%q, "w")
REGS = ["rax","rdx","rcx","rbx","rsi","rdi","rbp","rsp","r8","r9","r10","r11","r12","r13","r14","r15","rip"]
ulong = gdb.lookup_type("unsigned long")
hits = {}

def value(sym, f):
    try:
        v = sym.value(f)
        if v.is_optimized_out:
            return {"opt": True}
        t = v.type.strip_typedefs()
        d = {"size": t.sizeof}
        if v.address is not None:
            d["addr"] = int(v.address.cast(ulong))
        c = t.code
        if c in (gdb.TYPE_CODE_INT, gdb.TYPE_CODE_ENUM, gdb.TYPE_CODE_BOOL, gdb.TYPE_CODE_CHAR, gdb.TYPE_CODE_PTR):
            d["val"] = int(v.cast(ulong)) & ((1 << (8 * t.sizeof)) - 1)
        elif c == gdb.TYPE_CODE_FLT and t.sizeof == 8:
            d["val"] = struct.unpack("<Q", struct.pack("<d", float(v)))[0]
        elif c == gdb.TYPE_CODE_FLT and t.sizeof == 4:
            d["val"] = struct.unpack("<I", struct.pack("<f", float(v)))[0]
        return d
    except gdb.error:
        return None

def dump():
    f = gdb.newest_frame()
    real = f
    while real.type() == gdb.INLINE_FRAME:
        real = real.older()
    real.select()
    info = gdb.execute("info frame", to_string=True)
    cfa = int(info.split("frame at ")[1].split(":")[0].split()[0], 16)
    regs = {r: int(real.read_register(r).cast(ulong)) for r in REGS}
    xmm = [int(real.read_register("xmm%%d" %% i)["v2_int64"][0]) & (2**64 - 1) for i in range(16)]
    rec = {"pc": int(f.pc()), "cfa": cfa, "regs": regs, "xmm": xmm, "vars": []}
    fr = f
    while True:
        fn = fr.function()
        b = fr.block()
        while b is not None:
            for sym in b:
                if not (sym.is_variable or sym.is_argument):
                    continue
                d = value(sym, fr)
                if d is not None:
                    d.update({"func": fn.name if fn else "", "name": sym.name, "line": sym.line})
                    rec["vars"].append(d)
            if b.function is not None:
                break
            b = b.superblock
        if fr.type() != gdb.INLINE_FRAME:
            break
        fr = fr.older()
    OUT.write(json.dumps(rec) + "\n")

class Stop(gdb.Breakpoint):
    def stop(self):
        n = hits.get(self.number, 0)
        if n >= 2:
            self.enabled = False
            return False
        hits[self.number] = n + 1
        dump()
        return False

gdb.execute("starti")
bias = int(gdb.parse_and_eval("&main").cast(ulong)) - MAIN
gdb.write("BIAS %%d\n" %% bias)
for pc in PCS:
    Stop("*0x%%x" %% (pc + bias), internal=True)
gdb.execute("continue")
OUT.close()
`

type gdbVar struct {
	Func string  `json:"func"`
	Name string  `json:"name"`
	Line int32   `json:"line"`
	Size int     `json:"size"`
	Addr *uint64 `json:"addr"`
	Val  *uint64 `json:"val"`
	Opt  bool    `json:"opt"` // gdb: <optimized out>
}

type gdbStop struct {
	PC   uint64            `json:"pc"`
	CFA  uint64            `json:"cfa"`
	Regs map[string]uint64 `json:"regs"`
	XMM  []uint64          `json:"xmm"`
	Vars []gdbVar          `json:"vars"`
}

// dwarfRegNames are the x86-64 DWARF register numbers 0-16.
var dwarfRegNames = []string{"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip"}

func (st *gdbStop) reg(n int16) (uint64, bool) {
	switch {
	case n >= 0 && int(n) < len(dwarfRegNames):
		v, ok := st.Regs[dwarfRegNames[n]]
		return v, ok
	case n >= 17 && n <= 32 && len(st.XMM) == 16:
		return st.XMM[n-17], true
	}
	return 0, false
}

// TestLocationsAgainstGDB stops a -O2 program under gdb at many PCs and
// checks that what the schema says about each variable there (accessible
// or not, and where) gives what gdb prints.
func TestLocationsAgainstGDB(t *testing.T) {
	if _, err := exec.LookPath("gdb"); err != nil {
		t.Skip("gdb not installed")
	}
	if out, err := exec.Command("gdb", "-nx", "-batch", "-ex", "python print(6*7)").CombinedOutput(); err != nil || !strings.Contains(string(out), "42") {
		t.Skip("gdb has no Python")
	}
	for _, tc := range []struct {
		name, cc, ext, src string
		flags              []string
		funcs              []string // where to stop
	}{
		{"dwarf5", "gcc", ".c", sampleC, []string{"-g", "-O2"}, []string{"main", "work", "scan"}},
		{"dwarf4", "gcc", ".c", sampleC, []string{"-g", "-gdwarf-4", "-O2"}, []string{"main", "work", "scan"}},
		{"cplusplus", "g++", ".cc", sampleCC, []string{"-g", "-O2"}, []string{"main", "_Z3runi"}},
		{"clang", "clang", ".c", sampleC, []string{"-g", "-O2"}, []string{"main", "work", "scan"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.cc == "clang" && !haveClang() {
				t.Skip("clang not installed")
			}
			bin := build(t, t.TempDir(), tc.cc, tc.ext, tc.src, tc.flags...)
			gdbCrossCheck(t, bin, nil, tc.funcs)
		})
	}
}

// TestLocationsAgainstGDBOn cross-checks a program of one's own, such as
// a real server built with -g -O2, as TestLocationsAgainstGDB does the
// small samples:
//
//	VPROF_GDB_CHECK='./objdump -d -l ./size' VPROF_GDB_FUNCS=disassemble_bytes,print_insn \
//	    go test -run TestLocationsAgainstGDBOn -v ./dwarfschema
//
// It stops at up to 150 PCs of those functions, where the program's run
// reaches them.
func TestLocationsAgainstGDBOn(t *testing.T) {
	cmdline := strings.Fields(os.Getenv("VPROF_GDB_CHECK"))
	if len(cmdline) == 0 {
		t.Skip("set VPROF_GDB_CHECK to a program and its arguments, VPROF_GDB_FUNCS to functions to stop in")
	}
	if _, err := exec.LookPath("gdb"); err != nil {
		t.Skip("gdb not installed")
	}
	bin, err := filepath.Abs(cmdline[0])
	if err != nil {
		t.Fatal(err)
	}
	args := cmdline[1:]
	for i, a := range args {
		if _, err := os.Stat(a); err == nil { // gdb runs the program in a temporary directory
			if abs, err := filepath.Abs(a); err == nil {
				args[i] = abs
			}
		}
	}
	funcs := strings.Split(os.Getenv("VPROF_GDB_FUNCS"), ",")
	dir := t.TempDir()
	link := filepath.Join(dir, filepath.Base(bin))
	if err := os.Symlink(bin, link); err != nil {
		t.Fatal(err)
	}
	gdbCrossCheck(t, link, args, funcs)
}

func gdbCrossCheck(t *testing.T, bin string, args, funcs []string) {
	dir := filepath.Dir(bin)
	s, err := Load(bin, Options{All: true})
	if err != nil {
		t.Fatal(err)
	}
	_, mainF := funcByName(s, "main")
	if mainF == nil {
		t.Fatal("no main")
	}
	// Stop at every PC where some local's location starts, and at line
	// table rows, in the program's own functions.
	own := map[model.FuncID]bool{}
	for _, n := range funcs {
		if id, _ := funcByName(s, n); id >= 0 {
			own[id] = true
		}
	}
	inOwn := func(pc uint64) bool {
		for id := range own {
			if inRanges(s.Funcs[id].Ranges, pc) {
				return true
			}
		}
		return false
	}
	// gcc starts location list entries at a call's return address - 1,
	// inside the call instruction: only instruction starts can stop.
	insn := instructionStarts(t, bin, s, own)
	seen := map[uint64]bool{}
	var pcs []string
	add := func(pc uint64) {
		if !seen[pc] && inOwn(pc) && insn[pc] && len(pcs) < 150 {
			seen[pc] = true
			pcs = append(pcs, fmt.Sprintf("%d", pc))
		}
	}
	for _, l := range s.Locs {
		if l.PCStart != 0 {
			add(l.PCStart)
		}
	}
	for _, r := range s.Lines {
		add(r.PC)
	}
	out := filepath.Join(dir, "stops.json")
	script := filepath.Join(dir, "dump.py")
	src := fmt.Sprintf(gdbScript, mainF.Ranges[0].Lo, "["+strings.Join(pcs, ",")+"]", out)
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	gargs := append([]string{"-nx", "-batch", "-ex", "set debuginfod enabled off", "-ex", "source " + script, "--args", bin}, args...)
	cmd := exec.Command("gdb", gargs...)
	cmd.Dir = dir
	gout, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("gdb: %v\n%s", err, gout)
	}
	var bias uint64
	for _, line := range strings.Split(string(gout), "\n") {
		if strings.HasPrefix(line, "BIAS ") {
			fmt.Sscan(line[5:], &bias)
		}
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatalf("gdb wrote no stops: %v\n%s", err, gout)
	}
	defer f.Close()

	var stops, checked, skipped int
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var st gdbStop
		if err := json.Unmarshal(sc.Bytes(), &st); err != nil {
			t.Fatal(err)
		}
		stops++
		pc := st.PC - bias
		// gdb lists a name again for outer blocks (with C++ inlined code,
		// an abstract copy that is always <optimized out>); the innermost
		// reading is the one gdb itself prints.
		type key struct {
			fn, name string
			line     int32
		}
		done := map[key]bool{}
		for _, gv := range st.Vars {
			if k := (key{gv.Func, gv.Name, gv.Line}); done[k] {
				continue
			} else {
				done[k] = true
			}
			id, _ := funcByName(s, gv.Func)
			vid := model.VarID(-1)
			for i, v := range s.Vars {
				if v.Func == id && v.Name == gv.Name && v.Line == gv.Line {
					vid = model.VarID(i)
				}
			}
			if vid < 0 {
				if id >= 0 {
					t.Errorf("pc %#x: gdb sees %s.%s (line %d), the schema has no such variable", pc, gv.Func, gv.Name, gv.Line)
				}
				continue
			}
			v := &s.Vars[vid]
			var loc *model.Loc
			for i := range s.Locs {
				if l := &s.Locs[i]; l.Var == vid && l.PCStart <= pc && pc < l.PCEnd {
					loc = l
				}
			}
			switch {
			case loc == nil && !gv.Opt:
				t.Errorf("pc %#x: gdb reads %s.%s, the schema says it is not accessible", pc, gv.Func, gv.Name)
				continue
			case loc == nil:
				checked++ // both say: not accessible here
				continue
			case gv.Opt:
				// gdb gives up on entry values it cannot resolve
				// through the caller's call site; anything else is a
				// disagreement.
				if !bytes.Contains(loc.Expr, []byte{0xa3}) && !bytes.Contains(loc.Expr, []byte{0xf3}) {
					t.Errorf("pc %#x: %s.%s: gdb says optimized out, the schema has %v %x", pc, gv.Func, gv.Name, loc.Kind, loc.Expr)
				}
				skipped++
				continue
			}
			var fbExpr []byte
			for i := range s.Funcs {
				if inRanges(s.Funcs[i].Ranges, pc) {
					fbExpr = s.Funcs[i].FrameBase
				}
			}
			isVal, x, ok := evalLoc(loc, fbExpr, &st, bias)
			if !ok {
				skipped++
				continue
			}
			mask := ^uint64(0)
			if v.Size > 0 && v.Size < 8 {
				mask = 1<<(8*uint(v.Size)) - 1
			}
			switch {
			case isVal && gv.Val != nil:
				if x&mask != *gv.Val&mask {
					t.Errorf("pc %#x: %s.%s = %#x by the schema's %v location %x, gdb prints %#x", pc, gv.Func, gv.Name, x&mask, loc.Kind, loc.Expr, *gv.Val)
				}
				checked++
			case !isVal && gv.Addr != nil:
				if x != *gv.Addr {
					t.Errorf("pc %#x: %s.%s at %#x by the schema's %v location %x, gdb says %#x", pc, gv.Func, gv.Name, x, loc.Kind, loc.Expr, *gv.Addr)
				}
				checked++
			case !isVal && gv.Addr == nil:
				t.Errorf("pc %#x: %s.%s in memory by the schema (%v %x), gdb has no address", pc, gv.Func, gv.Name, loc.Kind, loc.Expr)
			default:
				skipped++
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d stops, %d variable readings checked against gdb, %d not evaluable here (entry values, memory)", stops, checked, skipped)
	if stops < 10 || checked < 50 {
		t.Errorf("only %d stops and %d checked readings; gdb output:\n%s", stops, checked, gout)
	}
}

// evalLoc evaluates a location with the registers gdb read: a value
// (isVal) or an address. ok is false where that needs what a test does not
// have (the caller's frame for DW_OP_entry_value, target memory).
func evalLoc(l *model.Loc, fbExpr []byte, st *gdbStop, bias uint64) (isVal bool, x uint64, ok bool) {
	switch l.Kind {
	case model.LocReg:
		x, ok = st.reg(l.Reg)
		return true, x, ok
	case model.LocFrame:
		fb, ok := frameBase(fbExpr, st)
		return false, fb + uint64(l.Offset), ok
	case model.LocAddr:
		return false, l.Addr + bias, true
	case model.LocRegOff:
		x, ok = st.reg(l.Reg)
		return false, x + uint64(l.Offset), ok
	case model.LocConst:
		return true, uint64(l.Offset), true
	}
	regs := make([]*op.DwarfRegister, 33)
	for i := int16(0); i < 33; i++ {
		if v, ok := st.reg(i); ok {
			b := make([]byte, 8)
			binary.LittleEndian.PutUint64(b, v)
			regs[i] = &op.DwarfRegister{Uint64Val: v, Bytes: b}
		}
	}
	dr := op.NewDwarfRegisters(bias, regs, binary.LittleEndian, 16, 7, 6, 0)
	dr.CFA = int64(st.CFA)
	fb, _ := frameBase(fbExpr, st)
	dr.FrameBase = int64(fb)
	noMem := func([]byte, uint64) (int, error) { return 0, op.ErrMemoryReadUnavailable }
	v, pieces, err := op.ExecuteStackProgram(*dr, l.Expr, 8, noMem)
	if err != nil {
		return false, 0, false
	}
	if len(pieces) > 1 {
		return false, 0, false // composite: not one value to compare
	}
	if len(pieces) == 1 {
		switch p := pieces[0]; p.Kind {
		case op.RegPiece:
			return true, uint64(v), true
		case op.ImmPiece:
			if p.Bytes != nil {
				return false, 0, false
			}
			return true, p.Val, true
		case op.AddrPiece:
			return false, p.Val, true
		}
		return false, 0, false
	}
	return l.Expr[len(l.Expr)-1] == byte(op.DW_OP_stack_value), uint64(v), true
}

// instructionStarts decodes the functions' code and returns the address of
// every instruction.
func instructionStarts(t *testing.T, bin string, s *model.Schema, funcs map[model.FuncID]bool) map[uint64]bool {
	ef, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	text := ef.Section(".text")
	code, err := text.Data()
	if err != nil {
		t.Fatal(err)
	}
	starts := map[uint64]bool{}
	for id := range funcs {
		for _, r := range s.Funcs[id].Ranges {
			for pc := r.Lo; pc < r.Hi && pc >= text.Addr && pc < text.Addr+text.Size; {
				starts[pc] = true
				in, err := x86asm.Decode(code[pc-text.Addr:], 64)
				if err != nil || in.Len == 0 {
					break
				}
				pc += uint64(in.Len)
			}
		}
	}
	return starts
}

// frameBase evaluates a function's DW_AT_frame_base: the CFA for gcc
// (DW_OP_call_frame_cfa), a register for clang (DW_OP_reg7 rsp).
func frameBase(e []byte, st *gdbStop) (uint64, bool) {
	switch {
	case len(e) == 1 && e[0] == byte(op.DW_OP_call_frame_cfa):
		return st.CFA, true
	case len(e) == 1 && e[0] >= byte(op.DW_OP_reg0) && e[0] <= byte(op.DW_OP_reg31):
		return st.reg(int16(e[0] - byte(op.DW_OP_reg0)))
	}
	return 0, false
}
