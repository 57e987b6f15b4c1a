package sampler

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// mapEntry is one line of /proc/PID/maps.
type mapEntry struct {
	Start, End uint64
	Perms      string
	Offset     uint64
	Inode      uint64
	Path       string // file, "[vdso]", "[stack]", "" for anonymous
}

func (m *mapEntry) exec() bool { return strings.Contains(m.Perms, "x") }

// parseMaps parses the text of /proc/PID/maps.
func parseMaps(data []byte) ([]mapEntry, error) {
	var out []mapEntry
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		s := sc.Text()
		if s == "" {
			continue
		}
		// start-end perms offset dev inode path (path may hold spaces)
		var e mapEntry
		f := strings.Fields(s)
		if len(f) < 5 {
			return nil, fmt.Errorf("maps line %d: %q: too few fields", line, s)
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		var err1, err2, err3, err4 error
		e.Start, err1 = strconv.ParseUint(lo, 16, 64)
		e.End, err2 = strconv.ParseUint(hi, 16, 64)
		e.Offset, err3 = strconv.ParseUint(f[2], 16, 64)
		e.Inode, err4 = strconv.ParseUint(f[4], 10, 64)
		if !ok || err1 != nil || err2 != nil || err3 != nil || err4 != nil || e.End < e.Start {
			return nil, fmt.Errorf("maps line %d: %q: malformed", line, s)
		}
		e.Perms = f[1]
		if len(f) > 5 {
			// The path starts after the inode column's padding.
			i := strings.Index(s, f[5])
			e.Path = strings.TrimSuffix(s[i:], " (deleted)")
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

func readMaps(pid int) ([]mapEntry, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return nil, err
	}
	return parseMaps(data)
}

// taskStatus returns the thread group (process) and parent of a task.
func taskStatus(tid int) (tgid, ppid int, err error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", tid))
	if err != nil {
		return 0, 0, err
	}
	tgid, ppid = -1, -1
	for _, l := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		switch k {
		case "Tgid":
			tgid, _ = strconv.Atoi(strings.TrimSpace(v))
		case "PPid":
			ppid, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	if tgid <= 0 {
		return 0, 0, fmt.Errorf("/proc/%d/status: no Tgid", tid)
	}
	return tgid, ppid, nil
}

// isTaskOf reports whether tid is a thread of process pid: procfs finds
// /proc/PID/task/TID only then. One path lookup, where taskStatus opens,
// formats and reads the task's whole status text.
func isTaskOf(pid, tid int) bool {
	var st unix.Stat_t
	return unix.Stat(fmt.Sprintf("/proc/%d/task/%d", pid, tid), &st) == nil
}

func listTasks(pid int) ([]int, error) {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return nil, err
	}
	out := make([]int, 0, len(ents))
	for _, e := range ents {
		if n, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, n)
		}
	}
	return out, nil
}

// taskComm is a thread's name (at most 15 bytes), "" if unreadable.
func taskComm(pid, tid int) string {
	fd, err := unix.Open(fmt.Sprintf("/proc/%d/task/%d/comm", pid, tid), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return ""
	}
	defer unix.Close(fd)
	var b [64]byte
	n, err := unix.Read(fd, b[:])
	if err != nil || n <= 0 {
		return ""
	}
	return strings.TrimSpace(string(b[:n]))
}

func openTaskFile(pid, tid int, name string) int {
	fd, err := unix.Open(fmt.Sprintf("/proc/%d/task/%d/%s", pid, tid, name), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1
	}
	return fd
}

// schedStat is /proc/PID/task/TID/schedstat: the thread's time on a CPU
// and its time runnable but waiting for one (run_delay), in ns, and how
// many times it was put on a CPU (both without CONFIG_SCHED_INFO: 0).
// The first two are exact while the thread is off the CPU; a running
// thread's CPU time lags by up to a scheduler tick.
type schedStat struct {
	CPU, Delay, Runs uint64
}

// parseSchedstat returns the first field of /proc/.../schedstat: the
// thread's time on CPU in nanoseconds.
func parseSchedstat(b []byte) (uint64, bool) {
	var s schedStat
	ok := parseSchedstatAll(b, &s)
	return s.CPU, ok
}

// parseSchedstatAll parses "cpu delay runs" without allocating; a missing
// second or third field reads as 0.
func parseSchedstatAll(b []byte, s *schedStat) bool {
	*s = schedStat{}
	i := 0
	field := func() (uint64, bool) {
		var v uint64
		n := 0
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			v = v*10 + uint64(b[i]-'0')
			n++
		}
		return v, n > 0
	}
	var ok bool
	if s.CPU, ok = field(); !ok {
		return false
	}
	for _, f := range []*uint64{&s.Delay, &s.Runs} {
		if i >= len(b) || b[i] != ' ' {
			break
		}
		i++
		if *f, ok = field(); !ok {
			break
		}
	}
	return true
}

// sysState is /proc/.../syscall parsed: a running thread, or one blocked
// in system call Nr (-1: blocked outside a system call) with its user SP
// and PC.
type sysState struct {
	Running bool
	Nr      int32
	SP, PC  uint64
	Args    [6]uint64
}

// parseSyscall parses "running", "-1 sp pc" or "nr a0..a5 sp pc" without
// allocating.
func parseSyscall(b []byte, s *sysState) bool {
	*s = sysState{}
	if bytes.HasPrefix(b, []byte("running")) {
		s.Running = true
		return true
	}
	var f [9]uint64
	n := 0
	i := 0
	for n < len(f) && i < len(b) {
		for i < len(b) && (b[i] == ' ' || b[i] == '\n') {
			i++
		}
		if i >= len(b) {
			break
		}
		neg := false
		if b[i] == '-' {
			neg = true
			i++
		}
		base := uint64(10)
		if i+1 < len(b) && b[i] == '0' && b[i+1] == 'x' {
			base, i = 16, i+2
		}
		var v uint64
		start := i
		for i < len(b) && b[i] != ' ' && b[i] != '\n' {
			c := b[i]
			var d uint64
			switch {
			case c >= '0' && c <= '9':
				d = uint64(c - '0')
			case base == 16 && c >= 'a' && c <= 'f':
				d = uint64(c-'a') + 10
			default:
				return false
			}
			v = v*base + d
			i++
		}
		if i == start {
			return false
		}
		if neg {
			v = -v
		}
		f[n] = v
		n++
	}
	switch n {
	case 3:
		s.Nr, s.SP, s.PC = int32(f[0]), f[1], f[2]
	case 9:
		s.Nr = int32(f[0])
		copy(s.Args[:], f[1:7])
		s.SP, s.PC = f[7], f[8]
	default:
		return false
	}
	return true
}
