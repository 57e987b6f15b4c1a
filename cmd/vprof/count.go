package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"
	"text/tabwriter"

	"golang.org/x/sys/unix"

	"github.com/vprof/vprof/sampler/callcount"
)

const countHelp = `
Usage: vprof count --func F[,G...] [--json] [--] PROGRAM [ARGS...]

Runs PROGRAM once and prints how many times each named function was
entered (tail calls into it included), counted exactly with a uprobe perf
event per function, with no sampling. A function's gcc clones count as
the function (foo.isra.0, foo.constprop.1: whole copies; a split part,
foo.part.0, is entered from foo's head, and foo's count is the larger of
its heads' and its parts' entries); so does each instance of it inlined
into another function, probed at its entry address (DWARF). Such a count
is marked unsure: gcc -O2 may duplicate an inlined body's code on paths,
leaving its entry on some of them only (docs/method.md D257), and vprof
report does not read it. Its threads and the children it forks are
counted too. A function is named by its symbol (a C++ linkage name) or by
its demangled name with or without its parameter list, as vprof report
shows it.

What it is for (docs/method.md D200): two frames that both ran only in
the slow runs, a cheap caller and the costly callee it called, look the
same in the samples; how often each was called, in one normal and one
slow run of the same binary, tells which one changed. The callee called
more often per call of its caller, each call as long as before, is the
caller's decision; the callee called as often, each call longer, is the
callee's work; a function never called in the normal runs is where the
slow runs' extra work begins.

Each call costs a trap (a few microseconds): count the few functions a
report names, not functions called millions of times a second, and do not
time this run. The program's exit status is vprof's; SIGTERM and SIGHUP
to vprof are passed on to it. Needs root (or perf_event_paranoid at most 1 with
CAP_PERFMON) and a kernel with the uprobe PMU
(/sys/bus/event_source/devices/uprobe).

Examples:
  vprof count --func 'DB::MemoryTracker::alloc,DB::QueryOperatorSpillContexts::triggerAutoSpill' -- ./spill_check buggy
  vprof count --json --func H5C__flush_marked_entries ./tagged_flush normal
`

func init() {
	register(&command{name: "count", order: 40, summary: "count the calls of named functions in one run of a program", run: runCount})
}

// countTarget is one function to count (callcount.Target).
type countTarget = callcount.Target

func runCount(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("count", countHelp, stdout)
	funcs := fs.String("func", "", "comma-separated `NAMES` of the functions to count (symbols or demangled names)")
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *funcs == "" {
		return usageErr("--func is required: the functions to count")
	}
	if fs.NArg() == 0 {
		return usageErr("no program to run")
	}
	prog, err := exec.LookPath(fs.Arg(0))
	if err != nil {
		return fmt.Errorf("%v", err)
	}
	if prog, err = filepath.Abs(prog); err != nil {
		return fmt.Errorf("%v", err)
	}
	targets, err := callcount.Resolve(prog, callcount.ParseNames(*funcs))
	if err != nil {
		return err
	}
	status, err := countCalls(prog, fs.Args()[1:], targets)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Program string        `json:"program"`
			Args    []string      `json:"args"`
			Exit    int           `json:"exit_status"`
			Counts  []countTarget `json:"counts"`
		}{prog, fs.Args()[1:], status, targets}); err != nil {
			return err
		}
	} else {
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "calls\t function\t")
		var unsure []string
		for _, t := range targets {
			fmt.Fprintf(tw, "%d\t %s\t\n", t.Calls, t.Name)
			if t.Unsure != "" {
				unsure = append(unsure, t.Name+": "+t.Unsure)
			}
		}
		tw.Flush()
		for _, u := range unsure {
			fmt.Fprintf(stdout, "unsure: %s\n", u)
		}
	}
	if status != 0 {
		return &exitError{status}
	}
	return nil
}

// countCalls starts prog stopped at its exec (under ptrace), opens one
// counting uprobe per target on it, and follows it to its end: every
// thread and child it creates stops once at its start (PTRACE_O_TRACECLONE,
// FORK, VFORK), gets counters of its own, and runs on. Counters are opened
// per task, none inherited: one inherited counter counted the task it was
// opened on and none of the threads created after (lru_scan's workers: 0
// against perf stat's 800). It returns the program's exit status (128+signal
// when a signal ended it) and fills in the targets' counts: the sums over
// the tasks.
func countCalls(prog string, args []string, targets []countTarget) (int, error) {
	set, err := callcount.NewSet(prog, targets)
	if err != nil {
		return 0, err
	}
	defer set.Discard()
	// ptrace requests come from the thread that started the tracee.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cmd := exec.Command(prog, args...)
	// Files, not pipes: nothing to copy, so the tracee is reaped here, not by cmd.Wait.
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Ptrace: true}
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("starting %s: %v", prog, err)
	}
	pid := cmd.Process.Pid
	// The program gets the signals that end vprof: a SIGINT from the
	// terminal reaches it through the process group, SIGTERM and SIGHUP
	// are passed on; vprof counts on until it exits (its exit status is
	// the program's), instead of dying and killing it (PTRACE_O_EXITKILL).
	sigs := make(chan os.Signal, 4)
	for _, s := range []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		if !signal.Ignored(s) {
			signal.Notify(sigs, s)
		}
	}
	go func() {
		for s := range sigs {
			if s != syscall.SIGINT {
				unix.Kill(pid, s.(syscall.Signal))
			}
		}
	}()
	defer func() { signal.Stop(sigs); close(sigs) }() // no send after the close
	var ws unix.WaitStatus
	if _, err := unix.Wait4(pid, &ws, 0, nil); err != nil || !ws.Stopped() {
		cmd.Process.Kill()
		cmd.Wait()
		return 0, fmt.Errorf("%s did not stop at its exec (%v, status %#x)", prog, err, uint32(ws))
	}
	// A task's counters are opened once, at its first stop, and kept
	// open to the end: the program's exit status first, then the counts.
	open := set.Open
	opts := unix.PTRACE_O_TRACECLONE | unix.PTRACE_O_TRACEFORK | unix.PTRACE_O_TRACEVFORK | unix.PTRACE_O_TRACEEXEC | unix.PTRACE_O_EXITKILL
	if err := unix.PtraceSetOptions(pid, opts); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return 0, fmt.Errorf("tracing %s: %v", prog, err)
	}
	if err := open(pid); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return 0, err
	}
	status := -1
	for resume := pid; ; {
		if resume > 0 {
			unix.PtraceCont(resume, 0)
		}
		resume = 0
		wpid, err := unix.Wait4(-1, &ws, unix.WALL, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil { // ECHILD: every task is gone
			break
		}
		switch {
		case ws.Exited() || ws.Signaled():
			if wpid == pid {
				if ws.Signaled() {
					status = 128 + int(ws.Signal())
				} else {
					status = ws.ExitStatus()
				}
			}
		case ws.Stopped():
			if err := open(wpid); err != nil {
				cmd.Process.Kill()
				return 0, err
			}
			sig := ws.StopSignal()
			switch {
			case sig == unix.SIGTRAP && ws.TrapCause() > 0: // clone, fork, vfork, exec
				if ws.TrapCause() != unix.PTRACE_EVENT_EXEC {
					if msg, err := unix.PtraceGetEventMsg(wpid); err == nil {
						if err := open(int(msg)); err != nil {
							cmd.Process.Kill()
							return 0, err
						}
					}
				}
				resume = wpid
			case sig == unix.SIGSTOP || sig == unix.SIGTRAP:
				// a new task's first stop, or the exec trap
				resume = wpid
			default:
				unix.PtraceCont(wpid, int(sig)) // the program's own signal, delivered
			}
		}
	}
	if status < 0 {
		return 0, fmt.Errorf("%s: its exit status was not seen", prog)
	}
	if err := set.CloseAll(); err != nil {
		return status, err
	}
	copy(targets, set.Targets)
	return status, nil
}
