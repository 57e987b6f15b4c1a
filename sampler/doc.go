// Package sampler is vprof's recorder: it launches a program or attaches
// to a running one under ptrace, follows every thread and child process,
// and at each tick records per thread the PC, the whole PC stack (CFI
// unwinding, sampler/unwind), and the values of the variables accessible
// in the innermost program frames (runtime/pcindex), streaming them into a
// profile file (runtime/proffile). See docs/method.md §3.
//
// # Samplers
//
// ptrace controls the program in both samplers (threads, forks, execs,
// signals, group-stops, detaching, the exit status). What differs is how
// a tick's registers and stack are taken (Config.Sampler):
//
//   - perf (perf.go; auto's choice for both clocks where the kernel allows
//     it): each thread has a software task-clock event per CPU
//     (perf_event_open, pid=tid), which fires after each interval of the
//     thread's CPU time, exactly method.md's cpu clock, and makes the
//     kernel copy the user registers and the stack window above the SP
//     into a ring buffer, in the thread's own context: a microsecond or
//     two, no stop, no scheduling of vprof. vprof drains the rings (one per
//     CPU: the kernel only lets events of different threads share a ring
//     on one CPU) every 2 ms and makes each record a sample with the same
//     unwinding, value reading and encoding as the ptrace path. A sample's
//     weight is the thread's task clock since its previous sample, so CPU
//     time of samples the kernel skipped (in the kernel where
//     perf_event_paranoid forbids sampling there, or lost to a full ring,
//     counted as lost ticks) is not lost. With --jitter the kernel samples
//     four times as often and vprof keeps one sample in four at random:
//     geometric gaps (the discrete exponential) with the interval as mean,
//     for four times the kernel's share of the cost. A running thread is
//     never stopped, so the program cannot tell it is sampled.
//   - ptrace: each running thread is stopped (PTRACE_INTERRUPT), its
//     registers read and its stack window copied, and it is resumed; the
//     values are then read. Everything is exact at the tick, but each
//     sample costs a stop and resume round trip: the thread waits for the
//     tracer to be scheduled, and on a machine with fewer CPUs than busy
//     threads the tracer competes with them. It may also harm the
//     program: a thread that /proc shows running may be inside a system
//     call (see "Stopping a running thread" below), which the stop can cut
//     short. Only when asked (--sampler ptrace), or where perf cannot be
//     used (auto falls back to it with a warning saying so).
//
// # The wall clock with the perf sampler
//
// --clock wall samples every thread at every tick, running or blocked
// (method.md §3), and with the perf sampler it still stops no running
// thread (wall.go). A thread's wall time is split three ways, each
// measured by the kernel:
//
//   - CPU time: sampled by the perf events as for --clock cpu, state
//     running, each sample weighing the CPU time since the previous one;
//   - time runnable but waiting for a CPU (run_delay in
//     /proc/PID/task/TID/schedstat): counted as running, and added to the
//     weight of the thread's next perf sample. /proc shows such a thread
//     running; the program waits for no event of its own but for the
//     machine, and the code it waits in is the code that runs once it has
//     a CPU. The ptrace sampler counts it the same way (it stops a thread
//     once it has a CPU, weighing the sample by the wall time since its
//     previous one). On an overloaded machine the running share thus grows
//     beyond the CPU time;
//   - blocked time: at each tick a thread that /proc shows blocked in the
//     kernel is sampled as a blocked thread is with ptrace (below:
//     registers from an allowlisted stop, else SP and PC from /proc), state
//     blocked and its system call, weighing the wall time it spent neither
//     on a CPU nor waiting for one since its previous blocked sample (wall
//     time less CPU time and run delay, which are exact while a thread is
//     off the CPU).
//
// So a thread's weights add up to its wall time while recorded, but for
// what falls after its last sample. Blocked time between two ticks that
// found the thread running (a sleep shorter than the interval) goes to
// its next blocked sample, as CPU time between two samples goes to the
// next. A thread whose perf events cannot be opened (too many open
// files) is not sampled while it runs, with a warning: stopping it would
// bring back the hazard below.
//
// Cost: a tick reads two /proc files per thread (schedstat, syscall),
// one when a thread was running at its previous tick and its CPU time
// shows it ran throughout. A stop of a blocked thread for its registers
// (once per wait) switches it on and off a CPU twice, and under perf each
// switch also schedules its event (the per-switch cost above): with long
// waits the wall clock costs vprof the same CPU with either sampler
// (BenchmarkBlockedWall/long: 16% of a CPU for 8 threads at 1 kHz), with
// 2 ms sleeps in a loop (a new wait every other tick) a little more with
// perf (36% against 34%, and more ticks lost on a loaded 2-core
// machine); a CPU-bound program costs half as much (`make bench`: no stop
// at all).
//
// The perf sampler's costs: per sample, the kernel's copy (a microsecond
// or two) and vprof's processing (about 15 µs; `make bench`); and per
// switch of a sampled thread on or off a CPU, the kernel's scheduling of
// its event, whose timer is stopped and started (about 3 µs in a virtual
// machine, where timer programming traps). The ptrace sampler costs
// nothing per switch but far more per sample. So a program that switches
// threads tens of thousands of times a second (lock hand-offs, sched_yield
// loops: testprogs/lru_scan, 40,000 a second, records 12% slower with perf
// than plain and 4% with ptrace) is cheaper to record with --sampler
// ptrace; a CPU-bound one (the bench's workload) is three times cheaper
// with perf.
//
// What the perf sampler reads when: registers and the stack window (locals
// and parameters in registers or in the frames the window holds, and the
// unwinding) are as of the tick. Globals, heap values and pointees are
// read when the ring is drained, a few milliseconds after the tick (the
// summary and Result.Steps give the mean and largest lag), as are locals
// in a leaf function's red zone below the SP, which the kernel does not
// copy (used only when the stack just above the SP is unchanged since the
// tick: the frame is still there). Stack the window could have held but
// did not is never read live: such values are unavailable, and the
// thread's window grows (its events are re-opened with a larger
// sample_stack_user, up to 64 KiB). Locals in SSE registers are not
// sampled (the kernel does not copy them). Samples of a process's old
// image are dropped at its exec.
//
// The perf sampler needs perf_event_open to be allowed: perf_event_paranoid
// 2 (Debian's default) allows it for one's own processes, user-space only;
// samples in the kernel too need 1, or CAP_PERFMON. A seccomp filter
// (containers) may forbid it. Config.Sampler auto then falls back to
// ptrace with a warning that says why; a thread whose events cannot be
// opened (too many open files: threads x CPUs events) is sampled with
// ptrace ticks (--clock cpu), or not while it runs (--clock wall).
//
// # Process control
//
// All ptrace requests come from one locked OS thread. Tracees are attached
// with PTRACE_SEIZE (a launched program is started under PTRACE_TRACEME,
// handed over at its exec stop) and stopped for sampling with
// PTRACE_INTERRUPT, so sampling stops are told apart from group-stops
// (which are left in place with PTRACE_LISTEN) and from signals, which are
// delivered unchanged. New threads, forks, vforks and execs are followed;
// after an exec the new image's schema is loaded.
//
// A thread blocked in a system call is read without a stop where a stop
// could change what the program sees: its stack is copied from memory at
// the SP and PC that /proc/PID/task/TID/syscall reports and unwound with no
// other register, so variables held in registers are mostly lost there.
// With --clock wall, a thread blocked in a call that the kernel restarts
// transparently after a ptrace stop is stopped once per blocking episode
// instead (blocked.go): its registers and stack are captured, it is resumed
// at once and the kernel restarts the call (it returned -ERESTARTSYS,
// -ERESTARTNOINTR, -ERESTARTNOHAND or -ERESTART_RESTARTBLOCK to the stop,
// and no signal is delivered; %rax, which holds that code, is not used for
// values). Its frames are then reused while it stays in that call (same
// /proc line, then same CPU time; the first tick after the stop checks
// the stack instead, as the restart used some CPU), with values read again
// at each sample. The calls, and why a stop is invisible to the program in
// each:
//
//   - futex FUTEX_WAIT and FUTEX_WAIT_BITSET (mutexes, condition
//     variables, joins, semaphores; with or without a timeout): restarted
//     with the same absolute deadline. A wake-up that comes during the
//     stop shows as the futex word having changed (EAGAIN), which the
//     futex protocol handles, as after a SIGSTOP/SIGCONT.
//   - nanosleep, clock_nanosleep (realtime, monotonic, boottime clocks):
//     restarted with the same deadline; the time left, written on the
//     stop, must go to writable memory, so a remaining-time pointer must be
//     null or on the caller's stack (as glibc's are).
//   - wait4, waitid, pause, rt_sigsuspend: restarted as they were (the
//     signal mask of sigsuspend is restored and set again).
//   - poll (timeout kept as a deadline); ppoll, select, pselect6 with no
//     timeout, or with a timeout on the caller's stack (the time left is
//     written back to it, as when the call returns) and without the
//     STICKY_TIMEOUTS personality (which turns the stop into EINTR).
//   - read, readv on a pipe or FIFO (a blocked read has read nothing);
//     write on a pipe or FIFO of at most PIPE_BUF (4096) bytes (such a
//     write waits before copying anything); read, readv on a terminal
//     (pty slave, console, serial) in canonical mode, or raw with VMIN at
//     most 1 and no VTIME (a partial VMIN count or a VTIME timer started
//     again would show).
//
// Never stopped, among others: epoll_wait, epoll_pwait, sigtimedwait,
// semop, sockets (a receive or send timeout turns the stop into EINTR, an
// interrupted connect restarts as EALREADY), regular files (a read there
// sleeps uninterruptibly, or on FUSE and NFS may fail), writes of more than
// PIPE_BUF, writev, terminal writes, restart_syscall unless it continues a
// call stopped here. In --clock cpu mode blocked threads are never
// stopped: a stop would make them use CPU, and be sampled again.
//
// # Stopping a running thread (the ptrace sampler only)
//
// The ptrace sampler stops every thread that /proc shows running, whatever
// it is doing, also when it runs in the kernel inside a system call
// (entering it, copying data, or just woken and not yet back in user
// space: /proc says "running" for all of these). The stop is a
// PTRACE_INTERRUPT, which the kernel delivers like a signal: a call that
// has done part of its work returns what it has done so far, and one that
// looks at pending signals before it sleeps or after it wakes fails with
// EINTR, as after a SIGSTOP. Measured with testdata/blocking.c under
// --clock wall, 10 recordings each: a 64 KiB write to a full pipe returned
// a short count 6 to 8 times, a terminal read waiting for VMIN=4 bytes
// returned fewer 2 to 4 times, a socket receive with SO_RCVTIMEO failed
// with EINTR 2 to 4 times, epoll_wait with a timeout up to once; the pipe
// write also under --clock cpu (5 in 10). Programs that retry short counts
// and EINTR, as POSIX asks, see nothing; others fail. The perf sampler
// never stops a running thread, for either clock (TestWallNoHarm).
//
// # Ending a recording
//
//   - The first process exits: vprof detaches from the others (children
//     left running go on) and exits with the program's status (128+n for
//     signal n).
//   - Launch mode, Ctrl-C (SIGINT): the signal is the program's. The
//     terminal sends it to the whole foreground process group, the program
//     included; when it did not (vprof in the background, or SIGINT sent to
//     vprof alone), vprof forwards it. Recording goes on until the program
//     exits, so a program that handles SIGINT (to print a report, say) is
//     profiled to the end.
//   - Launch mode, --duration: vprof detaches at the deadline, writes the
//     profile, then waits for the program and exits with its status.
//   - Launch mode, SIGTERM or SIGHUP to vprof: vprof detaches, writes the
//     profile and exits at once (status 143 or 129); the program runs on to
//     completion on its own.
//   - Attach mode (-p PID), SIGINT, SIGTERM, SIGHUP or --duration: vprof
//     interrupts every thread, detaches each one delivering any signal it
//     was stopped for, and exits 0; the program keeps running unharmed.
//   - A signal ignored when vprof starts (SIGHUP under nohup) stays
//     ignored, by vprof and by the program it launches.
//   - vprof killed (SIGKILL) or crashing: the kernel detaches the tracees
//     (PTRACE_O_EXITKILL is not used) and the program runs on; the profile
//     written so far stays readable. A recorder panic detaches explicitly
//     first.
package sampler
