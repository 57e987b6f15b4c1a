package sampler

import (
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/vprof/vprof/sampler/unwind"
)

// The ptrace requests and options the tracer uses. Every call must come
// from the tracer's locked OS thread: ptrace binds a tracee to the thread
// that attached it.
const (
	traceOptions = unix.PTRACE_O_TRACECLONE | unix.PTRACE_O_TRACEFORK |
		unix.PTRACE_O_TRACEVFORK | unix.PTRACE_O_TRACEVFORKDONE | unix.PTRACE_O_TRACEEXEC | unix.PTRACE_O_TRACEEXIT
	// No PTRACE_O_EXITKILL: if vprof dies, the kernel detaches its tracees
	// and they run on; a recorder crash must not kill the program.
)

// ptrace issues a request that does not block (RawSyscall: no scheduler
// hand-off, which is a measurable part of a sample's cost).
func ptrace(req, pid int, addr, data uintptr) error {
	_, _, e := unix.RawSyscall6(unix.SYS_PTRACE, uintptr(req), uintptr(pid), addr, data, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

func ptraceSeize(pid int) error { return ptrace(unix.PTRACE_SEIZE, pid, 0, traceOptions) }
func ptraceInterrupt(tid int) error {
	return ptrace(unix.PTRACE_INTERRUPT, tid, 0, 0)
}
func ptraceCont(tid, sig int) error   { return ptrace(unix.PTRACE_CONT, tid, 0, uintptr(sig)) }
func ptraceListen(tid int) error      { return ptrace(unix.PTRACE_LISTEN, tid, 0, 0) }
func ptraceDetach(tid, sig int) error { return ptrace(unix.PTRACE_DETACH, tid, 0, uintptr(sig)) }

func ptraceGetRegs(tid int, r *unix.PtraceRegs) error {
	return ptrace(unix.PTRACE_GETREGS, tid, 0, uintptr(unsafe.Pointer(r)))
}

// fpRegs is struct user_fpregs_struct (the FXSAVE area): %xmm0 is at 160.
type fpRegs [512]byte

const xmmOffset = 160

func ptraceGetFPRegs(tid int, r *fpRegs) error {
	return ptrace(unix.PTRACE_GETFPREGS, tid, 0, uintptr(unsafe.Pointer(r)))
}

func ptraceEventMsg(tid int) (uint64, error) {
	var msg uint64
	err := ptrace(unix.PTRACE_GETEVENTMSG, tid, 0, uintptr(unsafe.Pointer(&msg)))
	return msg, err
}

// The tracer thread makes its blocking calls (wait4, the sleep between
// ticks) as raw system calls too: through the Go scheduler, each block of
// more than 20µs made sysmon hand the thread's P to another thread and
// back, costing more CPU than the call itself at a thousand ticks a second.
// The tracer blocks for microseconds to milliseconds; the price is that a
// garbage collection waits for it that long (the recorder hardly allocates).

// wait4 waits for a state change of pid (-1: any tracee or child of this
// thread: __WNOTHREAD, so that two recordings in one process do not take
// each other's events).
func wait4(pid int, opts int) (int, unix.WaitStatus, error) {
	var status int32
	r, _, e := unix.RawSyscall6(unix.SYS_WAIT4, uintptr(pid), uintptr(unsafe.Pointer(&status)), uintptr(opts|unix.WALL|unix.WNOTHREAD), 0, 0, 0)
	if e != 0 {
		return -1, 0, e
	}
	return int(r), unix.WaitStatus(status), nil
}

// trapCause is the PTRACE_EVENT_* of a stop (status >> 16), 0 for a
// signal-delivery-stop.
func trapCause(ws unix.WaitStatus) int { return int(ws>>16) & 0xff }

// readv copies remote[i] into local[i] with one process_vm_readv. It
// returns the number of bytes read; the read stops at the first fault
// (partially inside an iovec), so callers retry from the iovec after it.
func readv(pid int, local []unix.Iovec, remote []unix.RemoteIovec) (int, error) {
	if len(local) == 0 {
		return 0, nil
	}
	r, _, e := unix.RawSyscall6(unix.SYS_PROCESS_VM_READV, uintptr(pid),
		uintptr(unsafe.Pointer(&local[0])), uintptr(len(local)),
		uintptr(unsafe.Pointer(&remote[0])), uintptr(len(remote)), 0)
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

// pread reads from fd at offset 0 (a /proc file kept open).
func pread(fd int, b []byte) (int, error) {
	r, _, e := unix.RawSyscall6(unix.SYS_PREAD64, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), 0, 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

// sleepUntilMono sleeps until CLOCK_MONOTONIC reaches abs ns.
func sleepUntilMono(abs int64) {
	ts := unix.NsecToTimespec(abs)
	unix.RawSyscall6(unix.SYS_CLOCK_NANOSLEEP, unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
}

// pollFor waits up to d ns for fd to be readable (or a signal): a raw
// system call, like sleepUntilMono's, so that the Go runtime does not hand
// the tracer's P to another thread at each wait.
func pollFor(fd int, d int64) {
	ts := unix.NsecToTimespec(d)
	pfd := unix.PollFd{Fd: int32(fd), Events: unix.POLLIN}
	unix.RawSyscall6(unix.SYS_PPOLL, uintptr(unsafe.Pointer(&pfd)), 1, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
}

// regsFromPtrace fills an unwinder register set from PTRACE_GETREGS.
func regsFromPtrace(p *unix.PtraceRegs, r *unwind.Regs) {
	r.R = [17]uint64{
		p.Rax, p.Rdx, p.Rcx, p.Rbx, p.Rsi, p.Rdi, p.Rbp, p.Rsp,
		p.R8, p.R9, p.R10, p.R11, p.R12, p.R13, p.R14, p.R15, p.Rip,
	}
	r.Valid = 1<<17 - 1
}

// blockPreemptSignal blocks SIGURG, the Go runtime's asynchronous
// preemption signal, on the calling thread: the tracer's, once the
// program is launched (a child forked from this thread would inherit the
// mask through exec). The tracer goroutine never parks, so the runtime
// preempts it every 10 ms; the signal cut its 2 ms sleep short, a wake-up
// with nothing to do before the preemption it announced. Blocked, the
// signal stays pending (the runtime sends no other while it is) and the
// preemption happens at the goroutine's next function call, as a
// synchronous one: after the sleep, which is at most 2 ms.
func blockPreemptSignal() error {
	var set unix.Sigset_t
	set.Val[(unix.SIGURG-1)/64] |= 1 << ((uint(unix.SIGURG) - 1) % 64)
	return unix.PthreadSigmask(unix.SIG_BLOCK, &set, nil)
}
