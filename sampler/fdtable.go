package sampler

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// fdsPerThread is how many file descriptors vprof holds per traced thread
// besides its perf events: /proc/PID/task/TID/schedstat and syscall.
const fdsPerThread = 2

// fdThreads is how many threads growFDTable makes room for.
const fdThreads = 64

// growFDTable grows vprof's file descriptor table at once to hold the
// descriptors of fdThreads threads (one perf event per CPU and
// fdsPerThread each), by duplicating a descriptor to the table's last
// slot and closing it. The kernel grows a table by doubling, and a process
// whose table is shared by several threads (every Go program) waits for an
// RCU grace period at each doubling: 20 to 30 ms on a machine whose CPUs
// are all busy running the program's threads. Met while following thread
// creations, each doubling held the creating thread stopped that long
// (measured: 3 stalls of 20-30 ms while a program started 16 threads on 16
// CPUs). Grown before the program runs, the grace period is short and
// nobody waits for it. The table never shrinks; the limit (RLIMIT_NOFILE)
// bounds the size, and a refusal only means later growth as before.
func growFDTable() {
	want := fdThreads*(runtime.NumCPU()+fdsPerThread) + runtime.NumCPU() + 64
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &lim) == nil && uint64(want) > lim.Cur {
		want = int(lim.Cur)
	}
	if want <= 64 {
		return // the kernel's initial table
	}
	fd, err := unix.FcntlInt(0, unix.F_DUPFD_CLOEXEC, want-1)
	if err != nil {
		// Standard input closed: any descriptor will do.
		p := make([]int, 2)
		if unix.Pipe2(p, unix.O_CLOEXEC) != nil {
			return
		}
		fd, err = unix.FcntlInt(uintptr(p[0]), unix.F_DUPFD_CLOEXEC, want-1)
		unix.Close(p[0])
		unix.Close(p[1])
		if err != nil {
			return
		}
	}
	unix.Close(fd)
}
