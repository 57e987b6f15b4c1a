package cfg

import (
	"encoding/binary"

	"golang.org/x/arch/x86/x86asm"
)

// decodeFast decodes the integer instructions that make up most compiler
// output (moves, ALU operations, compares, jumps, calls, pushes, shifts,
// lea, setcc, cmovcc, movzx/movsx, nops) an order of magnitude faster than
// x86asm's table-driven decoder. It returns ok false for anything else,
// and the caller then uses x86asm.Decode. Whatever it accepts decodes as
// x86asm would (Op, Args, Len, MemBytes, DataSize, PCRel): fastdecode_test
// checks that on real binaries and by fuzzing.
func decodeFast(src []byte) (x86asm.Inst, bool) {
	var in x86asm.Inst
	ok := decodeFastInto(&in, src)
	return in, ok
}

// decodeFastInto is decodeFast into *in, which must be zero; on failure
// *in is left in an unspecified state.
func decodeFastInto(in *x86asm.Inst, src []byte) bool {
	return decodeFastBoxed(in, src, nil)
}

// decodeFastBoxed is decodeFastInto, taking the boxed memory operands and
// branch displacements from box (nil: boxed anew each time).
func decodeFastBoxed(in *x86asm.Inst, src []byte, box *argBoxes) bool {
	d := fastDecoder{src: src, in: in, box: box}
	if !d.decode() {
		return false
	}
	in.Mode = 64
	in.AddrSize = 64
	in.Len = d.pos
	return true
}

type fastDecoder struct {
	src      []byte
	pos      int
	in       *x86asm.Inst
	rex      byte
	hasREX   bool
	opsize16 bool
	nargs    int
	// ModRM
	mod, reg, rm byte
	mem          x86asm.Mem
	dispOff      int // position of a RIP-relative displacement
	box          *argBoxes
}

// argBoxes keeps the operands a decoder has boxed, for reuse. An
// x86asm.Arg holding a Mem (16 bytes) or a Rel of 256 or more is a heap
// allocation each time one is made: over a C server's code, some
// 150,000 of them per load, a third of all of Load's allocations (on
// redis-server), most of them the same few frame and structure slots
// ([rsp+0x18], [rbx+0x8]) and branch distances again. A boxed value is
// never written, so one box can stand in every Inst that holds the same
// operand. Direct-mapped, by a hash of the operand: a miss boxes it anew
// and takes the slot.
type argBoxes struct {
	mem [argBoxSlots]struct {
		m x86asm.Mem
		a x86asm.Arg
	}
	rel [argBoxSlots]struct {
		r x86asm.Rel
		a x86asm.Arg
	}
}

const (
	argBoxBits  = 11
	argBoxSlots = 1 << argBoxBits
)

func (c *argBoxes) memArg(m x86asm.Mem) x86asm.Arg {
	if c == nil {
		return m
	}
	h := uint64(m.Disp)*0x9e3779b97f4a7c15 ^ (uint64(m.Base)|uint64(m.Index)<<8|uint64(m.Scale)<<16|uint64(m.Segment)<<24)*0xff51afd7ed558ccd
	e := &c.mem[h>>(64-argBoxBits)]
	if e.a == nil || e.m != m {
		e.m, e.a = m, m
	}
	return e.a
}

func (c *argBoxes) relArg(r x86asm.Rel) x86asm.Arg {
	if c == nil || uint32(r) < 256 { // small ones are not allocated
		return r
	}
	e := &c.rel[(uint64(uint32(r))*0x9e3779b97f4a7c15)>>(64-argBoxBits)]
	if e.a == nil || e.r != r {
		e.r, e.a = r, r
	}
	return e.a
}

var (
	aluOps  = [8]x86asm.Op{x86asm.ADD, x86asm.OR, x86asm.ADC, x86asm.SBB, x86asm.AND, x86asm.SUB, x86asm.XOR, x86asm.CMP}
	jccOps  = [16]x86asm.Op{x86asm.JO, x86asm.JNO, x86asm.JB, x86asm.JAE, x86asm.JE, x86asm.JNE, x86asm.JBE, x86asm.JA, x86asm.JS, x86asm.JNS, x86asm.JP, x86asm.JNP, x86asm.JL, x86asm.JGE, x86asm.JLE, x86asm.JG}
	setOps  = [16]x86asm.Op{x86asm.SETO, x86asm.SETNO, x86asm.SETB, x86asm.SETAE, x86asm.SETE, x86asm.SETNE, x86asm.SETBE, x86asm.SETA, x86asm.SETS, x86asm.SETNS, x86asm.SETP, x86asm.SETNP, x86asm.SETL, x86asm.SETGE, x86asm.SETLE, x86asm.SETG}
	cmovOps = [16]x86asm.Op{x86asm.CMOVO, x86asm.CMOVNO, x86asm.CMOVB, x86asm.CMOVAE, x86asm.CMOVE, x86asm.CMOVNE, x86asm.CMOVBE, x86asm.CMOVA, x86asm.CMOVS, x86asm.CMOVNS, x86asm.CMOVP, x86asm.CMOVNP, x86asm.CMOVL, x86asm.CMOVGE, x86asm.CMOVLE, x86asm.CMOVG}
	shOps   = [8]x86asm.Op{x86asm.ROL, x86asm.ROR, x86asm.RCL, x86asm.RCR, x86asm.SHL, x86asm.SHR, 0, x86asm.SAR}
	grp3Ops = [8]x86asm.Op{x86asm.TEST, 0, x86asm.NOT, x86asm.NEG, x86asm.MUL, x86asm.IMUL, x86asm.DIV, x86asm.IDIV}
)

func (d *fastDecoder) byte1() (byte, bool) {
	if d.pos >= len(d.src) {
		return 0, false
	}
	b := d.src[d.pos]
	d.pos++
	return b, true
}

func (d *fastDecoder) imm(n int) (int64, bool) {
	if d.pos+n > len(d.src) {
		return 0, false
	}
	b := d.src[d.pos:]
	d.pos += n
	switch n {
	case 1:
		return int64(int8(b[0])), true
	case 2:
		return int64(int16(binary.LittleEndian.Uint16(b))), true
	case 4:
		return int64(int32(binary.LittleEndian.Uint32(b))), true
	}
	return int64(binary.LittleEndian.Uint64(b)), true
}

func (d *fastDecoder) arg(a x86asm.Arg) {
	d.in.Args[d.nargs] = a
	d.nargs++
}

// gpr returns general register n at size bits.
func (d *fastDecoder) gpr(n byte, size int) x86asm.Reg {
	switch size {
	case 8:
		if d.hasREX && n >= 4 {
			return x86asm.AL + x86asm.Reg(n) + 4 // SPB.., R8B..
		}
		return x86asm.AL + x86asm.Reg(n) // AL..BH
	case 16:
		return x86asm.AX + x86asm.Reg(n)
	case 32:
		return x86asm.EAX + x86asm.Reg(n)
	}
	return x86asm.RAX + x86asm.Reg(n)
}

// modrm reads a ModRM byte with its SIB and displacement.
func (d *fastDecoder) modrm() bool {
	b, ok := d.byte1()
	if !ok {
		return false
	}
	d.mod, d.reg, d.rm = b>>6, (b>>3)&7, b&7
	if d.rex&4 != 0 {
		d.reg |= 8
	}
	if d.mod == 3 {
		if d.rex&1 != 0 {
			d.rm |= 8
		}
		return true
	}
	var m x86asm.Mem
	dispSize := 0
	switch d.mod {
	case 1:
		dispSize = 1
	case 2:
		dispSize = 4
	}
	switch {
	case d.rm == 4:
		sib, ok := d.byte1()
		if !ok {
			return false
		}
		m.Scale = 1 << (sib >> 6)
		index := (sib >> 3) & 7
		if d.rex&2 != 0 {
			index |= 8
		}
		if index != 4 {
			m.Index = x86asm.RAX + x86asm.Reg(index)
		}
		base := sib & 7
		if base == 5 && d.mod == 0 {
			dispSize = 4
		} else {
			if d.rex&1 != 0 {
				base |= 8
			}
			m.Base = x86asm.RAX + x86asm.Reg(base)
		}
	case d.rm == 5 && d.mod == 0:
		m.Base = x86asm.RIP
		dispSize = 4
		d.dispOff = d.pos
	default:
		rm := d.rm
		if d.rex&1 != 0 {
			rm |= 8
		}
		m.Base = x86asm.RAX + x86asm.Reg(rm)
	}
	if dispSize > 0 {
		v, ok := d.imm(dispSize)
		if !ok {
			return false
		}
		m.Disp = v
	}
	d.mem = m
	return true
}

// rmArg is the r/m operand at size bits (a memory access of size/8 bytes).
func (d *fastDecoder) rmArg(size int) x86asm.Arg {
	if d.mod == 3 {
		return d.gpr(d.rm, size)
	}
	d.in.MemBytes = size / 8
	return d.box.memArg(d.mem)
}

// ripDone finishes a RIP-relative operand: its displacement is PC-relative.
func (d *fastDecoder) ripDone() {
	if d.mod != 3 && d.mem.Base == x86asm.RIP {
		d.in.PCRel, d.in.PCRelOff = 4, d.dispOff
	}
}

func (d *fastDecoder) decode() bool {
	b, ok := d.byte1()
	if !ok {
		return false
	}
	if b == 0x66 {
		d.opsize16 = true
		if b, ok = d.byte1(); !ok {
			return false
		}
	}
	if b&0xf0 == 0x40 {
		d.rex, d.hasREX = b, true
		if b, ok = d.byte1(); !ok {
			return false
		}
	}
	size := 32
	switch {
	case d.rex&8 != 0:
		size = 64
	case d.opsize16:
		size = 16
	}
	d.in.DataSize = size
	wide := d.rex&8 != 0 || d.opsize16 // an 8-bit or fixed-size form with a size prefix: leave it to x86asm
	in := d.in
	switch {
	case b < 0x40 && b&7 < 6:
		// ALU: add, or, adc, sbb, and, sub, xor, cmp.
		in.Op = aluOps[b>>3]
		switch b & 7 {
		case 0, 1, 2, 3:
			sz := size
			if b&1 == 0 {
				if wide {
					return false
				}
				sz = 8
			}
			if !d.modrm() {
				return false
			}
			if b&2 == 0 {
				d.arg(d.rmArg(sz))
				d.arg(d.gpr(d.reg, sz))
			} else {
				d.arg(d.gpr(d.reg, sz))
				d.arg(d.rmArg(sz))
			}
			d.ripDone()
		case 4:
			if wide {
				return false
			}
			v, ok := d.imm(1)
			if !ok {
				return false
			}
			d.arg(x86asm.AL)
			d.arg(x86asm.Imm(uint8(v)))
		case 5:
			n := min(size, 32) / 8
			v, ok := d.imm(n)
			if !ok {
				return false
			}
			d.arg(d.gpr(0, size))
			d.arg(x86asm.Imm(v))
		}
	case b >= 0x50 && b <= 0x5f:
		if d.opsize16 {
			return false
		}
		r := b & 7
		if d.rex&1 != 0 {
			r |= 8
		}
		in.Op = x86asm.PUSH
		if b >= 0x58 {
			in.Op = x86asm.POP
		}
		in.DataSize = 32
		if d.rex&8 != 0 {
			in.DataSize = 64
		}
		d.arg(x86asm.RAX + x86asm.Reg(r))
	case b == 0x63:
		if d.rex&8 == 0 || d.opsize16 || !d.modrm() {
			return false
		}
		in.Op = x86asm.MOVSXD
		d.arg(d.gpr(d.reg, 64))
		d.arg(d.rmArg(32))
		d.ripDone()
	case b == 0x68 || b == 0x6a:
		if wide {
			return false
		}
		n := 4
		if b == 0x6a {
			n = 1
		}
		v, ok := d.imm(n)
		if !ok {
			return false
		}
		in.Op = x86asm.PUSH
		d.arg(x86asm.Imm(v))
	case b == 0x69 || b == 0x6b:
		if !d.modrm() {
			return false
		}
		in.Op = x86asm.IMUL
		d.arg(d.gpr(d.reg, size))
		d.arg(d.rmArg(size))
		n := min(size, 32) / 8
		if b == 0x6b {
			n = 1
		}
		v, ok := d.imm(n)
		if !ok {
			return false
		}
		d.arg(x86asm.Imm(v))
		d.ripDone()
	case b >= 0x70 && b <= 0x7f:
		if wide {
			return false
		}
		v, ok := d.imm(1)
		if !ok {
			return false
		}
		in.Op = jccOps[b&15]
		d.arg(d.box.relArg(x86asm.Rel(v)))
		in.PCRel, in.PCRelOff = 1, d.pos-1
	case b == 0x80 || b == 0x81 || b == 0x83:
		sz := size
		if b == 0x80 {
			if wide {
				return false
			}
			sz = 8
		}
		if !d.modrm() {
			return false
		}
		in.Op = aluOps[d.reg&7]
		d.arg(d.rmArg(sz))
		var v int64
		switch b {
		case 0x80:
			v, ok = d.imm(1)
			v = int64(uint8(v))
		case 0x81:
			v, ok = d.imm(min(sz, 32) / 8)
		default:
			v, ok = d.imm(1)
		}
		if !ok {
			return false
		}
		d.arg(x86asm.Imm(v))
		d.ripDone()
	case b >= 0x84 && b <= 0x8b:
		sz := size
		if b&1 == 0 {
			if wide {
				return false
			}
			sz = 8
		}
		if !d.modrm() {
			return false
		}
		switch b {
		case 0x84, 0x85:
			in.Op = x86asm.TEST
		case 0x86, 0x87:
			in.Op = x86asm.XCHG
		default:
			in.Op = x86asm.MOV
		}
		if b < 0x8a {
			d.arg(d.rmArg(sz))
			d.arg(d.gpr(d.reg, sz))
		} else {
			d.arg(d.gpr(d.reg, sz))
			d.arg(d.rmArg(sz))
		}
		d.ripDone()
	case b == 0x8d:
		if !d.modrm() || d.mod == 3 {
			return false
		}
		in.Op = x86asm.LEA
		d.arg(d.gpr(d.reg, size))
		d.arg(d.box.memArg(d.mem))
		d.ripDone()
	case b == 0x90:
		if d.hasREX || d.opsize16 {
			return false
		}
		in.Op = x86asm.NOP
	case b >= 0xb0 && b <= 0xbf:
		r := b & 7
		if d.rex&1 != 0 {
			r |= 8
		}
		if b < 0xb8 {
			if wide {
				return false
			}
			v, ok := d.imm(1)
			if !ok {
				return false
			}
			in.Op = x86asm.MOV
			d.arg(d.gpr(r, 8))
			d.arg(x86asm.Imm(uint8(v)))
			break
		}
		n := size / 8
		v, ok := d.imm(n)
		if !ok {
			return false
		}
		in.Op = x86asm.MOV
		d.arg(d.gpr(r, size))
		d.arg(x86asm.Imm(v))
	case b == 0xc0 || b == 0xc1 || b >= 0xd0 && b <= 0xd3:
		sz := size
		if b&1 == 0 {
			if wide {
				return false
			}
			sz = 8
		}
		if !d.modrm() || shOps[d.reg&7] == 0 {
			return false
		}
		in.Op = shOps[d.reg&7]
		d.arg(d.rmArg(sz))
		switch {
		case b <= 0xc1:
			v, ok := d.imm(1)
			if !ok {
				return false
			}
			d.arg(x86asm.Imm(uint8(v)))
		case b <= 0xd1:
			d.arg(x86asm.Imm(1))
		default:
			d.arg(x86asm.CL)
		}
		d.ripDone()
	case b == 0xc3:
		if wide {
			return false
		}
		in.Op = x86asm.RET
	case b == 0xc6 || b == 0xc7:
		sz := size
		if b == 0xc6 {
			if wide {
				return false
			}
			sz = 8
		}
		if !d.modrm() || d.reg&7 != 0 {
			return false
		}
		in.Op = x86asm.MOV
		d.arg(d.rmArg(sz))
		v, ok := d.imm(min(sz, 32) / 8)
		if !ok {
			return false
		}
		if sz == 8 {
			v = int64(uint8(v))
		}
		d.arg(x86asm.Imm(v))
		d.ripDone()
	case b == 0xc9:
		if wide {
			return false
		}
		in.Op = x86asm.LEAVE
	case b == 0xe8 || b == 0xe9 || b == 0xeb:
		if wide {
			return false
		}
		n := 4
		if b == 0xeb {
			n = 1
		}
		v, ok := d.imm(n)
		if !ok {
			return false
		}
		in.Op = x86asm.JMP
		if b == 0xe8 {
			in.Op = x86asm.CALL
		}
		d.arg(d.box.relArg(x86asm.Rel(v)))
		in.PCRel, in.PCRelOff = n, d.pos-n
	case b == 0xf6 || b == 0xf7:
		sz := size
		if b == 0xf6 {
			if wide {
				return false
			}
			sz = 8
		}
		if !d.modrm() || grp3Ops[d.reg&7] == 0 {
			return false
		}
		in.Op = grp3Ops[d.reg&7]
		d.arg(d.rmArg(sz))
		if in.Op == x86asm.TEST {
			v, ok := d.imm(min(sz, 32) / 8)
			if !ok {
				return false
			}
			if sz == 8 {
				v = int64(uint8(v))
			}
			d.arg(x86asm.Imm(v))
		}
		d.ripDone()
	case b == 0xfe || b == 0xff:
		if !d.modrm() {
			return false
		}
		switch r := d.reg & 7; {
		case r <= 1:
			sz := size
			if b == 0xfe {
				if wide {
					return false
				}
				sz = 8
			}
			in.Op = x86asm.INC
			if r == 1 {
				in.Op = x86asm.DEC
			}
			d.arg(d.rmArg(sz))
		case b == 0xff && (r == 2 || r == 4 || r == 6) && !wide:
			in.Op = [...]x86asm.Op{2: x86asm.CALL, 4: x86asm.JMP, 6: x86asm.PUSH}[r]
			d.arg(d.rmArg(64))
		default:
			return false
		}
		d.ripDone()
	case b == 0x0f:
		return d.decode0F(size, wide)
	default:
		return false
	}
	return true
}

func (d *fastDecoder) decode0F(size int, wide bool) bool {
	b, ok := d.byte1()
	if !ok {
		return false
	}
	in := d.in
	switch {
	case b == 0x1f:
		if !d.modrm() || d.reg&7 != 0 || d.mod == 3 || d.rex&8 != 0 {
			return false
		}
		in.Op = x86asm.NOP
		d.arg(d.rmArg(size))
		d.ripDone()
	case b >= 0x40 && b <= 0x4f:
		if !d.modrm() {
			return false
		}
		in.Op = cmovOps[b&15]
		d.arg(d.gpr(d.reg, size))
		d.arg(d.rmArg(size))
		d.ripDone()
	case b >= 0x80 && b <= 0x8f:
		if wide {
			return false
		}
		v, ok := d.imm(4)
		if !ok {
			return false
		}
		in.Op = jccOps[b&15]
		d.arg(d.box.relArg(x86asm.Rel(v)))
		in.PCRel, in.PCRelOff = 4, d.pos-4
	case b >= 0x90 && b <= 0x9f:
		if wide || !d.modrm() {
			return false
		}
		in.Op = setOps[b&15]
		d.arg(d.rmArg(8))
		d.ripDone()
	case b == 0xaf:
		if !d.modrm() {
			return false
		}
		in.Op = x86asm.IMUL
		d.arg(d.gpr(d.reg, size))
		d.arg(d.rmArg(size))
		d.ripDone()
	case b == 0xb6 || b == 0xb7 || b == 0xbe || b == 0xbf:
		if !d.modrm() {
			return false
		}
		in.Op = x86asm.MOVZX
		if b >= 0xbe {
			in.Op = x86asm.MOVSX
		}
		src := 8
		if b&1 != 0 {
			src = 16
		}
		d.arg(d.gpr(d.reg, size))
		d.arg(d.rmArg(src))
		d.ripDone()
	default:
		return false
	}
	return true
}

// DecodeInto decodes the 64-bit instruction at the start of src into *in
// as x86asm.Decode(src, 64) would, through the fast decoder where it can
// (an order of magnitude faster on compiler output). One difference: a
// 32-bit displacement may come back sign-extended or, from x86asm,
// zero-extended; callers read it as int32. On error *in is unspecified.
func DecodeInto(in *x86asm.Inst, src []byte) error {
	*in = x86asm.Inst{}
	if decodeFastInto(in, src) {
		return nil
	}
	var err error
	*in, err = x86asm.Decode(src, 64)
	return err
}
