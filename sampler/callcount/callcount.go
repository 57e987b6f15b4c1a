// Package callcount counts the entries of named functions of one
// executable exactly, with one uprobe perf counter per function and task
// and no sampling (docs/method.md D200, D202): `vprof count` and `vprof
// record --count` share it.
//
// Counters are opened per task, none inherited: one inherited counter
// counted the task it was opened on and none of the threads created after
// (lru_scan's workers: 0 against perf stat's 800). Whoever follows the
// program's tasks (ptrace) opens a task's counters at its first stop,
// before it runs an instruction, and closes them when it is gone: the
// counts are the sums over the tasks.
package callcount

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/ianlancetaylor/demangle"
	"golang.org/x/sys/unix"

	"github.com/vprof/vprof/runtime/symname"
)

// Target is one function to count: the name asked for, the symbol it
// resolved to, the file offset of its entry (where the uprobe goes), and
// its count.
type Target struct {
	Name   string `json:"function"`
	Symbol string `json:"symbol"`
	Offset uint64 `json:"-"`
	Calls  uint64 `json:"calls"`
}

// ParseNames splits a --count / --func list: comma-separated names,
// blanks dropped. (A C++ name with a parameter list that holds a comma is
// given by its symbol, which has none.)
func ParseNames(s string) []string {
	var names []string
	for _, n := range strings.Split(s, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	return names
}

// Resolve finds each name among the executable's function symbols: the
// symbol itself, or its demangled name with or without parameters.
// Clones and split parts (foo.cold, foo.constprop.0) are left out: a call
// enters the function at its own symbol. A name that matches functions at
// several addresses (overloads) is an error that lists them.
func Resolve(path string, names []string) ([]Target, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%v", err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return nil, fmt.Errorf("%s: %v (a stripped binary: its functions cannot be named)", path, err)
	}
	var out []Target
	for _, name := range names {
		var found []elf.Symbol
		for _, s := range syms {
			if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Value == 0 || s.Section == elf.SHN_UNDEF || symname.StripClone(s.Name) != s.Name {
				continue
			}
			if s.Name == name || symname.Demangle(s.Name) == name || symname.Demangle(s.Name, demangle.NoParams) == name {
				if !slices.ContainsFunc(found, func(o elf.Symbol) bool { return o.Value == s.Value }) {
					found = append(found, s)
				}
			}
		}
		switch len(found) {
		case 0:
			return nil, fmt.Errorf("%s: no function %q among its symbols (a function inlined at every call has none: count its caller, as vprof report names it)", path, name)
		case 1:
		default:
			var alts []string
			for _, s := range found {
				alts = append(alts, strconv.Quote(s.Name))
			}
			return nil, fmt.Errorf("%s: %q names %d functions (give one symbol): %s", path, name, len(found), strings.Join(alts, ", "))
		}
		off, ok := fileOffset(f, found[0].Value)
		if !ok {
			return nil, fmt.Errorf("%s: %s at %#x is in no loaded segment", path, found[0].Name, found[0].Value)
		}
		out = append(out, Target{Name: name, Symbol: found[0].Name, Offset: off})
	}
	return out, nil
}

// fileOffset maps a virtual address of the executable to its offset in
// the file, through the loadable segment that holds it.
func fileOffset(f *elf.File, addr uint64) (uint64, bool) {
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0 && addr >= p.Vaddr && addr < p.Vaddr+p.Filesz {
			return addr - p.Vaddr + p.Off, true
		}
	}
	return 0, false
}

// ErrNoUprobes says the kernel has no uprobe PMU.
var ErrNoUprobes = errors.New("this kernel has no uprobe PMU (/sys/bus/event_source/devices/uprobe/type)")

// UprobeType is the uprobe PMU's perf event type, or ErrNoUprobes.
func UprobeType() (uint32, error) {
	b, err := os.ReadFile("/sys/bus/event_source/devices/uprobe/type")
	if err != nil {
		return 0, ErrNoUprobes
	}
	t, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 32)
	if err != nil {
		return 0, ErrNoUprobes
	}
	return uint32(t), nil
}

// Set is the counters of Targets (functions of the executable at Path),
// opened per task.
type Set struct {
	Path    string
	Targets []Target
	typ     uint32
	path    *byte
	fds     map[int][]int // per task: one counter per target, in Targets' order

	// A set made by NewLazySet is bound to the first executable that
	// has every one of names (Bind): a command that is a script, or a
	// launcher, execs the program whose functions are counted.
	names []string
	tried map[string]error
}

// NewLazySet prepares counters of the functions names, to be bound to an
// executable by Bind. It fails when the kernel has no uprobe PMU.
func NewLazySet(names []string) (*Set, error) {
	typ, err := UprobeType()
	if err != nil {
		return nil, err
	}
	return &Set{typ: typ, names: names, tried: map[string]error{}, fds: map[int][]int{}}, nil
}

// Bound reports whether the set has its executable.
func (s *Set) Bound() bool { return s.path != nil }

// Bind binds a lazy set to the executable prog if every name resolves
// in it (and it is not bound yet); it returns why not. Each executable
// is read once.
func (s *Set) Bind(prog string) error {
	if s.Bound() {
		return nil
	}
	if err, ok := s.tried[prog]; ok {
		return err
	}
	targets, err := Resolve(prog, s.names)
	if err == nil {
		var path *byte
		if path, err = unix.BytePtrFromString(prog); err == nil {
			s.Path, s.Targets, s.path = prog, targets, path
		}
	}
	s.tried[prog] = err
	return err
}

// Unbound says why no executable had the functions, after Bind failed
// on each one tried.
func (s *Set) Unbound() string {
	if s.Bound() {
		return ""
	}
	var whys []string
	for _, err := range s.tried {
		whys = append(whys, err.Error())
	}
	slices.Sort(whys)
	if len(whys) == 0 {
		return "no program ran"
	}
	return "no program run had them all: " + strings.Join(whys, "; ")
}

// NewSet prepares counters for targets of the executable prog (an absolute
// path: the uprobe is set on that file). It fails when the kernel has no
// uprobe PMU.
func NewSet(prog string, targets []Target) (*Set, error) {
	typ, err := UprobeType()
	if err != nil {
		return nil, err
	}
	path, err := unix.BytePtrFromString(prog)
	if err != nil {
		return nil, err
	}
	for i := range targets {
		targets[i].Calls = 0
	}
	return &Set{Path: prog, Targets: targets, typ: typ, path: path, fds: map[int][]int{}}, nil
}

// Open opens task tid's counters, unless they are open. Call it while
// the task is stopped before its first instruction (its first ptrace
// stop), or its earlier calls are not counted.
func (s *Set) Open(tid int) error {
	if _, ok := s.fds[tid]; ok || !s.Bound() {
		return nil
	}
	fds := make([]int, 0, len(s.Targets))
	for _, t := range s.Targets {
		attr := unix.PerfEventAttr{
			Type: s.typ,
			Size: uint32(unsafe.Sizeof(unix.PerfEventAttr{})),
			Ext1: uint64(uintptr(unsafe.Pointer(s.path))),
			Ext2: t.Offset,
		}
		fd, err := unix.PerfEventOpen(&attr, tid, -1, -1, unix.PERF_FLAG_FD_CLOEXEC)
		runtime.KeepAlive(s.path)
		if err != nil {
			for _, fd := range fds {
				unix.Close(fd)
			}
			return fmt.Errorf("a uprobe on %s (%s+%#x): %v (root, or perf_event_paranoid at most 1 with CAP_PERFMON)", t.Name, s.Path, t.Offset, err)
		}
		fds = append(fds, fd)
	}
	s.fds[tid] = fds
	return nil
}

// Close adds task tid's counts to the targets' and closes its counters
// (a task that exited: its final counts; one detached: its counts so far).
func (s *Set) Close(tid int) error {
	fds, ok := s.fds[tid]
	if !ok {
		return nil
	}
	delete(s.fds, tid)
	var errs []error
	for i, fd := range fds {
		var b [8]byte
		if n, err := unix.Read(fd, b[:]); err != nil || n != 8 {
			errs = append(errs, fmt.Errorf("reading the count of %s in task %d: %v", s.Targets[i].Name, tid, err))
		} else {
			s.Targets[i].Calls += binary.NativeEndian.Uint64(b[:])
		}
		unix.Close(fd)
	}
	return errors.Join(errs...)
}

// CloseAll closes every task's counters, adding their counts.
func (s *Set) CloseAll() error {
	tids := make([]int, 0, len(s.fds))
	for tid := range s.fds {
		tids = append(tids, tid)
	}
	slices.Sort(tids)
	var errs []error
	for _, tid := range tids {
		errs = append(errs, s.Close(tid))
	}
	return errors.Join(errs...)
}

// Discard closes every counter without reading it.
func (s *Set) Discard() {
	for tid, fds := range s.fds {
		for _, fd := range fds {
			unix.Close(fd)
		}
		delete(s.fds, tid)
	}
}
