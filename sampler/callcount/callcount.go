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
// resolved to (the linkage name of a function inlined at every call), the
// places in the file where a call of it begins (Entries) and where its
// split part begins (Parts), and its count.
type Target struct {
	Name   string `json:"function"`
	Symbol string `json:"symbol"`
	Calls  uint64 `json:"calls"`
	// Inlined is how many of Entries are inlined instances: their count
	// is as exact as their entry addresses are (method.md D257).
	Inlined int    `json:"inlined,omitempty"`
	Entries []Site `json:"-"`
	Parts   []Site `json:"-"`
	// Unsure says why the count is not to be trusted: it rests on the
	// entries of inlined instances, which gcc's -O2 may leave on some of
	// the paths through the instance only (D257); "" when it rests on
	// symbols alone.
	Unsure string `json:"unsure,omitempty"`
	// EntryCalls and PartCalls are the sums over Entries and Parts;
	// Calls is the larger (see Resolve).
	EntryCalls uint64 `json:"-"`
	PartCalls  uint64 `json:"-"`
}

// Site is one probed address: its file offset (where the uprobe goes),
// what it is, for people, and its count (the sum over the tasks).
type Site struct {
	Offset uint64
	What   string
	Calls  uint64
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

// Resolve finds where each named function is entered in the executable at
// path (method.md D256, D257). A name is a symbol (a C++ linkage name) or
// its demangled name with or without parameters. A call of F begins at
//   - F's symbol;
//   - a gcc clone's symbol that is a whole copy of F (F.isra.0,
//     F.constprop.1, F.lto_priv.0, F.clone.0, F.localalias: a caller calls
//     the copy instead of F);
//   - the entry address of each instance of F inlined into another
//     function (DWARF's DW_TAG_inlined_subroutine: DW_AT_entry_pc, else its
//     DW_AT_low_pc, else the start of its first range).
//
// These are F's Entries, each address probed once. A split part (F.part.0,
// gcc's partial inlining: the head of F, a test, inlined into its callers,
// calls the part for the rest) is entered once per call of F that went
// past the head, from F's symbol or from an inlined head; its entries are
// counted apart (Parts) and F's count is the larger of the two sums: a head
// that left no inlined instance (its test folded away) still entered the
// part. A cold part (F.cold, F.part.0.cold) is jumped to from within F,
// never called: not probed. A name that matches different functions
// (overloads: different parameter lists, or two symbols of one name at two
// addresses) is an error that lists them.
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
	inl, err := inlinedInstances(f)
	if err != nil {
		return nil, fmt.Errorf("%s: reading its DWARF: %v", path, err)
	}
	var out []Target
	for _, name := range names {
		// Everything the name matches, grouped by function: its demangled
		// name with parameters (C++ constructors' C1, C2 and C4 symbols
		// are one function; overloads are several).
		type group struct {
			base    []elf.Symbol // F's own symbols
			clones  []elf.Symbol // whole copies
			parts   []elf.Symbol // split parts
			inlined []inlined
			ident   string
		}
		groups := map[string]*group{}
		var order []string
		get := func(ident string) *group {
			k := symname.Demangle(ident)
			g := groups[k]
			if g == nil {
				g = &group{ident: ident}
				groups[k] = g
				order = append(order, k)
			}
			return g
		}
		for _, s := range syms {
			if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Value == 0 || s.Section == elf.SHN_UNDEF {
				continue
			}
			base := symname.StripClone(s.Name)
			if !nameMatches(base, name) {
				continue
			}
			g := get(base)
			switch {
			case base == s.Name:
				g.base = append(g.base, s)
			case isPart(s.Name[len(base):]) == "cold":
			case isPart(s.Name[len(base):]) == "part":
				g.parts = append(g.parts, s)
			default:
				g.clones = append(g.clones, s)
			}
		}
		for _, in := range inl {
			if nameMatches(in.ident, name) {
				g := get(in.ident)
				g.inlined = append(g.inlined, in)
			}
		}
		if len(order) == 0 {
			return nil, fmt.Errorf("%s: no function %q among its symbols or its inlined functions (DWARF)", path, name)
		}
		if len(order) > 1 {
			var alts []string
			for _, k := range order {
				alts = append(alts, strconv.Quote(groups[k].ident))
			}
			return nil, fmt.Errorf("%s: %q names %d functions (give one symbol): %s", path, name, len(order), strings.Join(alts, ", "))
		}
		g := groups[order[0]]
		t := Target{Name: name, Symbol: g.ident}
		seen := map[uint64]bool{}
		add := func(list *[]Site, addr uint64, what string) error {
			off, ok := fileOffset(f, addr)
			if !ok {
				if strings.HasPrefix(what, "inlined ") {
					return nil // code the linker dropped
				}
				return fmt.Errorf("%s: %s at %#x is in no loaded segment", path, what, addr)
			}
			if !seen[off] {
				seen[off] = true
				*list = append(*list, Site{Offset: off, What: what})
			}
			return nil
		}
		// F's own symbols: one address (aliases and constructor variants
		// share it); two are two functions of one name (static ones).
		var bases []elf.Symbol
		for _, s := range g.base {
			if !slices.ContainsFunc(bases, func(o elf.Symbol) bool { return o.Value == s.Value }) {
				bases = append(bases, s)
			}
		}
		if len(bases) > 1 {
			var alts []string
			for _, s := range bases {
				alts = append(alts, fmt.Sprintf("%q at %#x", s.Name, s.Value))
			}
			return nil, fmt.Errorf("%s: %q names %d functions (give one symbol): %s", path, name, len(bases), strings.Join(alts, ", "))
		}
		for _, s := range bases {
			t.Symbol = s.Name
			if err := add(&t.Entries, s.Value, "symbol "+s.Name); err != nil {
				return nil, err
			}
		}
		if len(g.base) == 0 && len(g.clones)+len(g.parts) > 0 {
			t.Symbol = symname.StripClone(append(g.clones, g.parts...)[0].Name)
		}
		for _, s := range g.clones {
			if err := add(&t.Entries, s.Value, "clone "+s.Name); err != nil {
				return nil, err
			}
		}
		for _, in := range g.inlined {
			n := len(t.Entries)
			if err := add(&t.Entries, in.entry, "inlined "+in.where); err != nil {
				return nil, err
			}
			if len(t.Entries) > n {
				t.Inlined++
			}
		}
		for _, s := range g.parts {
			if err := add(&t.Parts, s.Value, "part "+s.Name); err != nil {
				return nil, err
			}
		}
		if len(t.Entries)+len(t.Parts) == 0 {
			return nil, fmt.Errorf("%s: %q has no code to probe (only cold parts)", path, name)
		}
		out = append(out, t)
	}
	return out, nil
}

// nameMatches reports whether ident (a linkage name or a C name) is the
// function the user named: the name itself, or its demangled form with or
// without parameters.
func nameMatches(ident, name string) bool {
	return ident == name || symname.Demangle(ident) == name || symname.Demangle(ident, demangle.NoParams) == name
}

// isPart classifies the clone suffix of a symbol (".part.0", ".isra.0",
// ".part.0.cold"): "cold" for a cold part, "part" for a split part, ""
// for a whole copy of the function.
func isPart(suffix string) string {
	words := strings.Split(suffix, ".")
	if slices.Contains(words, "cold") {
		return "cold"
	}
	if slices.Contains(words, "part") {
		return "part"
	}
	return ""
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
		t := &targets[i]
		t.Calls, t.EntryCalls, t.PartCalls, t.Unsure = 0, 0, 0, ""
		for _, l := range [][]Site{t.Entries, t.Parts} {
			for k := range l {
				l[k].Calls = 0
			}
		}
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
	var fds []int
	for _, t := range s.Targets {
		for _, site := range slices.Concat(t.Entries, t.Parts) {
			attr := unix.PerfEventAttr{
				Type: s.typ,
				Size: uint32(unsafe.Sizeof(unix.PerfEventAttr{})),
				Ext1: uint64(uintptr(unsafe.Pointer(s.path))),
				Ext2: site.Offset,
			}
			fd, err := unix.PerfEventOpen(&attr, tid, -1, -1, unix.PERF_FLAG_FD_CLOEXEC)
			runtime.KeepAlive(s.path)
			if err != nil {
				for _, fd := range fds {
					unix.Close(fd)
				}
				return fmt.Errorf("a uprobe on %s, %s (%s+%#x): %v (root, or perf_event_paranoid at most 1 with CAP_PERFMON)", t.Name, site.What, s.Path, site.Offset, err)
			}
			fds = append(fds, fd)
		}
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
	i := 0
	for ti := range s.Targets {
		t := &s.Targets[ti]
		ne, np := len(t.Entries), len(t.Parts)
		for k := range ne + np {
			fd := fds[i]
			i++
			var b [8]byte
			n, err := unix.Read(fd, b[:])
			unix.Close(fd)
			if err != nil || n != 8 {
				errs = append(errs, fmt.Errorf("reading the count of %s in task %d: %v", t.Name, tid, err))
				continue
			}
			c := binary.NativeEndian.Uint64(b[:])
			switch {
			case k < ne:
				t.Entries[k].Calls += c
				t.EntryCalls += c
			default:
				t.Parts[k-ne].Calls += c
				t.PartCalls += c
			}
		}
		// Every call of the split part came from a call of the function
		// whose head went past its test: a head with no inlined
		// instance left (folded into its caller) is seen there only.
		t.Calls = max(t.EntryCalls, t.PartCalls)
		t.Unsure = ""
		var inl uint64
		for _, e := range t.Entries {
			if strings.HasPrefix(e.What, "inlined ") {
				inl += e.Calls
			}
		}
		if inl > 0 && t.EntryCalls > t.PartCalls {
			t.Unsure = fmt.Sprintf("%d of its %d calls counted at the entries of its %d inlined instances, which gcc may leave on some paths through an instance only (D257)", inl, t.EntryCalls, t.Inlined)
		}
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
