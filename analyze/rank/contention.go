package rank

import (
	"fmt"
	"strings"

	"github.com/vprof/vprof/runtime/model"
)

// Lock waits (method.md §4, decision D25). A thread that waits for a lock
// another thread holds, for a condition, a semaphore or another thread's
// end does none of its program's work: the time is that of whoever holds
// what it waits for (another thread's critical section), or of nothing at
// all. Charged to the program frame that called the lock (as any library
// callee's time is), it made that caller look as costly as the work it
// waited on plus the work it did, and a caller of the root cause whose
// lock was contended in the slow runs ranked above it. The C library
// takes a lock that nobody holds with an atomic instruction in the lock
// function's own code, in the caller's time like any other library call
// (a root cause that locks every item it walks pays for it); only when
// another thread holds it does the lock function call further into the
// library, to its futex wait (glibc: pthread_mutex_lock calls
// __lll_lock_wait). A sample whose program frame called one of the C
// library's blocking calls (waitCalls) and that is below that call's own
// code, deeper in the library, waits: it counts for no function's cost
// (PC cost, variable-based cost, time on the stack). The flat profile
// keeps it, as perf's does, and the report says how much time the slow
// runs spent so. Only the names of the library's public calls are needed:
// a stripped C library names its internal wait functions no better than
// "[libc.so.6]".

// waitCalls are the C library's blocking calls of threads: locks,
// condition variables, semaphores, barriers, joins.
var waitCalls = map[string]bool{
	"pthread_mutex_lock": true, "pthread_mutex_timedlock": true, "pthread_mutex_clocklock": true,
	"pthread_rwlock_rdlock": true, "pthread_rwlock_wrlock": true,
	"pthread_rwlock_timedrdlock": true, "pthread_rwlock_timedwrlock": true,
	"pthread_rwlock_clockrdlock": true, "pthread_rwlock_clockwrlock": true,
	"pthread_cond_wait": true, "pthread_cond_timedwait": true, "pthread_cond_clockwait": true,
	"pthread_barrier_wait": true, "pthread_join": true, "pthread_timedjoin_np": true, "pthread_clockjoin_np": true,
	"sem_wait": true, "sem_timedwait": true, "sem_clockwait": true,
}

// waitName reports whether a library symbol is one of waitCalls, whatever
// alias names it (libBase).
func waitName(name string) bool { return waitCalls[libBase(name)] }

// libBase is the public name behind a C library symbol's aliases: leading
// underscores, glibc's internal "__GI_" prefix and a symbol version are
// dropped (___pthread_mutex_lock, pthread_cond_wait@@GLIBC_2.3.2).
func libBase(name string) string {
	if i := strings.IndexByte(name, '@'); i >= 0 {
		name = name[:i]
	}
	name = strings.TrimLeft(name, "_")
	if n, ok := strings.CutPrefix(name, "GI_"); ok {
		name = strings.TrimLeft(n, "_")
	}
	return name
}

// waiting reports whether sample s waits: its innermost program frame
// called one of waitCalls (the library frame right above it), and the
// sample is deeper in the library than that call's own code.
func (r *Run) waiting(pid int32, s *model.Sample, nf int, stamp uint64) bool {
	for i := 0; i < nf && i < maxWalk; i++ {
		if !r.frame(pid, s, i, stamp).prog {
			continue
		}
		if i < 2 {
			return false // no library frame, or the sample is in the call's own code
		}
		call := r.frame(pid, s, i-1, stamp)
		if call.oi == nil || !r.a.funcs[call.fn].wait {
			return false
		}
		for j := range i - 1 {
			if r.frame(pid, s, j, stamp).fn != call.fn {
				return true
			}
		}
		return false
	}
	return false
}

// waitNote says how much of the slow runs' time waited on a lock and so
// counted for no function (decision D25), when it is 1% or more.
func waitNote(buggy []*Run) string {
	var wait, total float64
	for _, r := range buggy {
		wait += r.waited
		total += r.total
	}
	if total <= 0 || wait < 0.01*total {
		return ""
	}
	return fmt.Sprintf("%.3f s (%.0f%%) of the slow runs' samples waited in a lock another thread held, a condition, a semaphore or a join (pthread_mutex_lock, pthread_cond_wait, sem_wait, pthread_join, ... beyond their own code), or woke a thread that waited for a lock (the C library's lock wake, D44): that time is whoever held it, and counts for no function's cost (method.md §4, D25)",
		wait/float64(len(buggy)), 100*wait/total)
}
