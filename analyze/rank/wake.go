package rank

import (
	"sync"

	"github.com/vprof/vprof/analyze/debugsyms"
	"github.com/vprof/vprof/runtime/model"
)

// The waking side of a contended lock (method.md §4, decision D44). A
// thread that releases a mutex another thread waits for makes a futex
// wake call (glibc: pthread_mutex_unlock calls __lll_lock_wake only when
// the lock's word says that a thread waits); a release that nobody waits
// for is an atomic instruction in the unlock's own code. The wake is
// contention's cost, as the wait is (D25): it exists only because another
// thread waits, and it grows with the time the holder keeps the lock, not
// with the releasing function's work. A sample whose innermost frame is
// the C library's lock wake counts for no function's cost, as a wait
// does; the flat profile keeps it. A stripped C library names that code
// no better than "[libc.so.6]", and the unlock reaches it through a jump
// (a tail call), so no public name is on the stack: the wake is named
// from the library's separate debug file (debugsyms: Debian's libc6-dbg,
// installed by `make debug-tools`), and without one it stays its
// caller's, as before this rule.

// wakeCalls are the C library's futex wakes of its locks.
var wakeCalls = map[string]bool{"lll_lock_wake": true, "lll_lock_wake_private": true, "futex_wake": true}

// wakeName reports whether a library symbol is one of wakeCalls, whatever
// alias names it (libBase).
func wakeName(name string) bool { return wakeCalls[libBase(name)] }

// libNames names library code from debug files for waking; runs are read
// concurrently.
type libNames struct {
	mu  sync.Mutex
	tab debugsyms.Table
}

func (l *libNames) name(buildID string, link uint64) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, _ := l.tab.Name(buildID, link)
	return n
}

// waking reports whether sample s is in the C library's lock wake: its
// innermost frame is library code that is one of wakeCalls, by the
// library's own symbols or, where they name none, its debug file's.
func (r *Run) waking(pid int32, s *model.Sample, nf int, stamp uint64) bool {
	if nf < 2 {
		return false
	}
	fr := r.frame(pid, s, 0, stamp)
	if fr.prog || fr.oi == nil || fr.oi.program {
		return false
	}
	if fr.fn != fr.oi.unknown {
		return r.a.funcs[fr.fn].wake
	}
	return wakeName(r.a.libNames.name(fr.oi.buildID, fr.link))
}
