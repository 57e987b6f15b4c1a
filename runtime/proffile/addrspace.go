package proffile

import (
	"sort"

	"github.com/vprof/vprof/runtime/model"
)

// AddrSpace resolves runtime PCs of the recorded processes to objects and
// link-time addresses, following mappings, forks and execs as the records
// that describe them are observed in file order.
type AddrSpace struct {
	procs map[int32][]model.Mapping // per process, sorted by Start
	last  struct {                  // one-entry cache: samples of a thread cluster
		pid int32
		m   model.Mapping
		ok  bool
	}
}

// NewAddrSpace returns an empty address space.
func NewAddrSpace() *AddrSpace { return &AddrSpace{procs: map[int32][]model.Mapping{}} }

// Observe updates the address space with a record from Reader.Next; records
// other than *Mapping and *ProcEvent are ignored.
func (a *AddrSpace) Observe(rec any) {
	switch r := rec.(type) {
	case *model.Mapping:
		a.last.ok = false
		ms := a.procs[r.PID]
		if r.Reset {
			ms = nil
		}
		i := sort.Search(len(ms), func(i int) bool { return ms[i].Start >= r.Start })
		if i < len(ms) && ms[i].Start == r.Start {
			ms[i] = *r
		} else {
			ms = append(ms, model.Mapping{})
			copy(ms[i+1:], ms[i:])
			ms[i] = *r
		}
		ms[i].Reset = false
		a.procs[r.PID] = ms
	case *model.ProcEvent:
		if r.Kind == model.ProcFork {
			// The child starts with a copy of its parent's address space.
			a.last.ok = false
			if _, own := a.procs[r.PID]; !own {
				a.procs[r.PID] = append([]model.Mapping(nil), a.procs[r.PPID]...)
			}
		}
	}
}

// Resolve maps pc of process pid to its object and link-time address.
func (a *AddrSpace) Resolve(pid int32, pc uint64) (obj uint16, link uint64, ok bool) {
	if l := &a.last; l.ok && l.pid == pid && pc >= l.m.Start && pc < l.m.End {
		return l.m.Obj, pc - l.m.Bias, true
	}
	ms := a.procs[pid]
	i := sort.Search(len(ms), func(i int) bool { return ms[i].End > pc })
	if i == len(ms) || pc < ms[i].Start {
		return 0, 0, false
	}
	a.last.pid, a.last.m, a.last.ok = pid, ms[i], true
	return ms[i].Obj, pc - ms[i].Bias, true
}

// Lookup returns the mapping of process pid that holds pc.
func (a *AddrSpace) Lookup(pid int32, pc uint64) (model.Mapping, bool) {
	ms := a.procs[pid]
	i := sort.Search(len(ms), func(i int) bool { return ms[i].End > pc })
	if i == len(ms) || pc < ms[i].Start {
		return model.Mapping{}, false
	}
	return ms[i], true
}
