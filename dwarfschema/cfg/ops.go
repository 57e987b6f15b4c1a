package cfg

import "golang.org/x/arch/x86/x86asm"

// opClass is how an instruction moves values, for the dataflow.
type opClass uint8

const (
	cDefault    opClass = iota // unknown: Args[0] = f(all args); VEX forms write Args[0] from the rest
	cMove                      // Args[0] = f(Args[1:]), no flags
	cMoveF                     // Args[0] = f(Args[1:]), flags written (bsf, popcnt, 3-operand imul...)
	cRMW                       // Args[0] = f(Args[0], Args[1:]), flags written
	cRMWNoF                    // Args[0] = f(Args[0], Args[1:]), flags untouched (not, bswap, SSE arithmetic)
	cAdcSbb                    // cRMW that also reads the flags (adc, sbb, rcl, rcr)
	cCmp                       // flags = f(args)
	cSetcc                     // Args[0] = flags; a condition
	cCmov                      // Args[0] = f(Args[0], Args[1], flags); a condition (select)
	cJcc                       // conditional jump on flags
	cJrcxz                     // conditional jump on rcx (jrcxz, loop)
	cJmp                       // jmp
	cCall                      // call
	cRet                       // ret
	cPush                      // push
	cPop                       // pop
	cXchg                      // swap
	cXadd                      // xadd: swap and add
	cCmpxchg                   // cmpxchg: flags and rax from rax and Args[0]
	cMulDiv                    // one-operand mul/imul/div/idiv: rax, rdx = f(rax, rdx, Args[0])
	cCdq                       // cwd/cdq/cqo: rdx = f(rax)
	cCbw                       // cbw/cwde/cdqe: rax = f(rax)
	cLeave                     // leave
	cNop                       // no dataflow
	cFlagsConst                // flags set to constants (stc, clc, cmc)
	cClobber                   // rax, rcx, rdx, rbx get unrelated values (cpuid, rdtsc, xgetbv...)
	cSyscall                   // syscall: rax, rcx, r11 clobbered
	cStrCmp                    // cmps/scas: flags from rsi/rdi/rax
	cString                    // other string ops: ignored
)

var opClasses [4096]opClass

func init() {
	set := func(c opClass, ops ...x86asm.Op) {
		for _, op := range ops {
			if int(op) < len(opClasses) {
				opClasses[op] = c
			}
		}
	}
	set(cMove, x86asm.MOV, x86asm.MOVZX, x86asm.MOVSX, x86asm.MOVSXD, x86asm.MOVD, x86asm.MOVQ,
		x86asm.MOVSS, x86asm.MOVSD_XMM, x86asm.MOVAPS, x86asm.MOVAPD, x86asm.MOVUPS, x86asm.MOVUPD,
		x86asm.MOVDQA, x86asm.MOVDQU, x86asm.MOVBE, x86asm.MOVNTI, x86asm.MOVNTDQ, x86asm.MOVNTPS,
		x86asm.MOVNTPD, x86asm.MOVDDUP, x86asm.MOVSHDUP, x86asm.MOVSLDUP, x86asm.MOVMSKPD, x86asm.MOVMSKPS,
		x86asm.PMOVMSKB, x86asm.LEA, x86asm.CVTSI2SD, x86asm.CVTSI2SS, x86asm.CVTSD2SI, x86asm.CVTSS2SI,
		x86asm.CVTTSD2SI, x86asm.CVTTSS2SI, x86asm.CVTSD2SS, x86asm.CVTSS2SD, x86asm.CVTDQ2PD, x86asm.CVTDQ2PS,
		x86asm.CVTPD2DQ, x86asm.CVTPD2PS, x86asm.CVTPS2DQ, x86asm.CVTPS2PD, x86asm.CVTTPD2DQ, x86asm.CVTTPS2DQ,
		x86asm.PSHUFD, x86asm.PSHUFHW, x86asm.PSHUFLW, x86asm.PEXTRB, x86asm.PEXTRD, x86asm.PEXTRQ, x86asm.PEXTRW,
		x86asm.EXTRACTPS, x86asm.LDDQU, x86asm.MOVNTDQA, x86asm.SQRTSD, x86asm.SQRTSS, x86asm.SQRTPD, x86asm.SQRTPS,
		x86asm.RCPPS, x86asm.RSQRTPS, x86asm.ROUNDPD, x86asm.ROUNDPS,
		x86asm.PMOVSXBD, x86asm.PMOVSXBQ, x86asm.PMOVSXBW, x86asm.PMOVSXDQ, x86asm.PMOVSXWD, x86asm.PMOVSXWQ,
		x86asm.PMOVZXBD, x86asm.PMOVZXBQ, x86asm.PMOVZXBW, x86asm.PMOVZXDQ, x86asm.PMOVZXWD, x86asm.PMOVZXWQ,
		x86asm.PABSB, x86asm.PABSD, x86asm.PABSW, x86asm.RORX, x86asm.SARX, x86asm.SHLX, x86asm.SHRX,
		x86asm.PDEP, x86asm.PEXT, x86asm.CRC32)
	set(cMoveF, x86asm.BSF, x86asm.BSR, x86asm.POPCNT, x86asm.LZCNT, x86asm.TZCNT, x86asm.ANDN,
		x86asm.BLSI, x86asm.BLSMSK, x86asm.BLSR, x86asm.BZHI)
	set(cRMW, x86asm.ADD, x86asm.SUB, x86asm.AND, x86asm.OR, x86asm.XOR, x86asm.INC, x86asm.DEC,
		x86asm.NEG, x86asm.SHL, x86asm.SHR, x86asm.SAR, x86asm.ROL, x86asm.ROR, x86asm.SHLD, x86asm.SHRD,
		x86asm.IMUL, x86asm.BTS, x86asm.BTR, x86asm.BTC)
	set(cRMWNoF, x86asm.NOT, x86asm.BSWAP)
	set(cAdcSbb, x86asm.ADC, x86asm.SBB, x86asm.RCL, x86asm.RCR)
	set(cCmp, x86asm.CMP, x86asm.TEST, x86asm.BT, x86asm.UCOMISD, x86asm.UCOMISS, x86asm.COMISD,
		x86asm.COMISS, x86asm.PTEST, x86asm.VUCOMISD, x86asm.VUCOMISS, x86asm.VCOMISD, x86asm.VCOMISS,
		x86asm.VPTEST, x86asm.VTESTPD, x86asm.VTESTPS, x86asm.KORTESTB, x86asm.KORTESTW, x86asm.KORTESTD,
		x86asm.KORTESTQ, x86asm.FCOMI, x86asm.FCOMIP, x86asm.FUCOMI, x86asm.FUCOMIP)
	set(cSetcc, x86asm.SETA, x86asm.SETAE, x86asm.SETB, x86asm.SETBE, x86asm.SETE, x86asm.SETG,
		x86asm.SETGE, x86asm.SETL, x86asm.SETLE, x86asm.SETNE, x86asm.SETNO, x86asm.SETNP, x86asm.SETNS,
		x86asm.SETO, x86asm.SETP, x86asm.SETS)
	set(cCmov, x86asm.CMOVA, x86asm.CMOVAE, x86asm.CMOVB, x86asm.CMOVBE, x86asm.CMOVE, x86asm.CMOVG,
		x86asm.CMOVGE, x86asm.CMOVL, x86asm.CMOVLE, x86asm.CMOVNE, x86asm.CMOVNO, x86asm.CMOVNP,
		x86asm.CMOVNS, x86asm.CMOVO, x86asm.CMOVP, x86asm.CMOVS, x86asm.FCMOVB, x86asm.FCMOVBE,
		x86asm.FCMOVE, x86asm.FCMOVNB, x86asm.FCMOVNBE, x86asm.FCMOVNE, x86asm.FCMOVNU, x86asm.FCMOVU)
	set(cJcc, x86asm.JA, x86asm.JAE, x86asm.JB, x86asm.JBE, x86asm.JE, x86asm.JG, x86asm.JGE,
		x86asm.JL, x86asm.JLE, x86asm.JNE, x86asm.JNO, x86asm.JNP, x86asm.JNS, x86asm.JO, x86asm.JP, x86asm.JS)
	set(cJrcxz, x86asm.JCXZ, x86asm.JECXZ, x86asm.JRCXZ, x86asm.LOOP, x86asm.LOOPE, x86asm.LOOPNE)
	set(cJmp, x86asm.JMP, x86asm.LJMP)
	set(cCall, x86asm.CALL, x86asm.LCALL)
	set(cRet, x86asm.RET, x86asm.LRET, x86asm.IRET, x86asm.IRETD, x86asm.IRETQ, x86asm.UD0, x86asm.UD1,
		x86asm.UD2, x86asm.HLT)
	set(cPush, x86asm.PUSH, x86asm.PUSHF, x86asm.PUSHFD, x86asm.PUSHFQ)
	set(cPop, x86asm.POP, x86asm.POPF, x86asm.POPFD, x86asm.POPFQ)
	set(cXchg, x86asm.XCHG)
	set(cXadd, x86asm.XADD)
	set(cCmpxchg, x86asm.CMPXCHG)
	set(cMulDiv, x86asm.MUL, x86asm.DIV, x86asm.IDIV)
	set(cCdq, x86asm.CWD, x86asm.CDQ, x86asm.CQO)
	set(cCbw, x86asm.CBW, x86asm.CWDE, x86asm.CDQE)
	set(cLeave, x86asm.LEAVE)
	set(cNop, x86asm.NOP, x86asm.PAUSE, x86asm.LFENCE, x86asm.MFENCE, x86asm.SFENCE, x86asm.PREFETCHNTA,
		x86asm.PREFETCHT0, x86asm.PREFETCHT1, x86asm.PREFETCHT2, x86asm.PREFETCHW, x86asm.CLFLUSH,
		x86asm.VZEROUPPER, x86asm.FWAIT, x86asm.EMMS, x86asm.CLD, x86asm.STD, x86asm.INT, x86asm.ICEBP,
		x86asm.LDMXCSR, x86asm.STMXCSR, x86asm.FLDCW, x86asm.FNSTCW, x86asm.XEND, x86asm.XABORT)
	set(cFlagsConst, x86asm.STC, x86asm.CLC, x86asm.CMC, x86asm.SAHF)
	set(cClobber, x86asm.CPUID, x86asm.RDTSC, x86asm.RDTSCP, x86asm.XGETBV, x86asm.RDRAND, x86asm.RDPMC,
		x86asm.XBEGIN)
	set(cSyscall, x86asm.SYSCALL, x86asm.SYSENTER)
	set(cStrCmp, x86asm.CMPSB, x86asm.CMPSW, x86asm.CMPSD, x86asm.CMPSQ, x86asm.SCASB, x86asm.SCASW,
		x86asm.SCASD, x86asm.SCASQ)
	set(cString, x86asm.MOVSB, x86asm.MOVSW, x86asm.MOVSD, x86asm.MOVSQ, x86asm.STOSB, x86asm.STOSW,
		x86asm.STOSD, x86asm.STOSQ, x86asm.LODSB, x86asm.LODSW, x86asm.LODSD, x86asm.LODSQ)
}

func classOf(in *x86asm.Inst) opClass {
	c := cDefault
	if int(in.Op) < len(opClasses) {
		c = opClasses[in.Op]
	}
	switch c {
	case cRMW:
		if in.Op == x86asm.IMUL {
			switch {
			case in.Args[1] == nil:
				return cMulDiv
			case in.Args[2] != nil:
				return cMoveF // imul r, r/m, imm
			}
		}
	case cMulDiv:
		if in.Args[1] != nil {
			return cRMW
		}
	case cMove:
		// movss/movsd between registers merge into the destination.
		if (in.Op == x86asm.MOVSS || in.Op == x86asm.MOVSD_XMM) && isReg(in.Args[0]) && isReg(in.Args[1]) {
			return cRMWNoF
		}
	case cDefault:
		if in.Args[0] == nil {
			return cNop
		}
		if isVEX(in) {
			return cMove
		}
	}
	return c
}

func isReg(a x86asm.Arg) bool {
	_, ok := a.(x86asm.Reg)
	return ok
}

func isVEX(in *x86asm.Inst) bool {
	for _, p := range in.Prefix {
		if p == 0 {
			break
		}
		if p.IsVEX() || p.IsEVEX() {
			return true
		}
	}
	return false
}

// isZeroIdiom reports xor r,r / sub r,r / pxor x,x and their VEX forms,
// whose result does not depend on the register's old value.
func isZeroIdiom(in *x86asm.Inst) bool {
	switch in.Op {
	case x86asm.XOR, x86asm.SUB, x86asm.PXOR, x86asm.XORPS, x86asm.XORPD, x86asm.PSUBB, x86asm.PSUBD,
		x86asm.PSUBQ, x86asm.PSUBW, x86asm.PCMPEQB, x86asm.PCMPEQD, x86asm.PCMPEQW, x86asm.SBB:
		return in.Args[2] == nil && isReg(in.Args[0]) && in.Args[0] == in.Args[1] && in.Op != x86asm.SBB
	case x86asm.VPXOR, x86asm.VXORPS, x86asm.VXORPD, x86asm.VPSUBD, x86asm.VPSUBQ, x86asm.VPCMPEQD, x86asm.VPCMPEQB:
		return isReg(in.Args[1]) && in.Args[1] == in.Args[2]
	}
	return false
}
