// Package sampler is vprof's recorder: a ptrace sampler that launches a
// program or attaches to a running one, follows every thread and child
// process, and at each tick records per thread the PC, the whole PC stack
// (CFI unwinding, runtime/unwind), and the values of the variables
// accessible in the innermost program frames (runtime/pcindex), streaming
// them into a profile file (runtime/proffile). See
// ../shared/docs/method.md §3.
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
// A thread is stopped only when it is running: one blocked in a system call
// is never interrupted (that could make epoll_wait and friends fail with
// EINTR in the program); its stack is read from memory at the SP and PC
// that /proc/PID/task/TID/syscall reports, with no registers.
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
//   - vprof killed (SIGKILL) or crashing: the kernel detaches the tracees
//     (PTRACE_O_EXITKILL is not used) and the program runs on; the profile
//     written so far stays readable. A recorder panic detaches explicitly
//     first.
package sampler
