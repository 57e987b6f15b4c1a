package main

import (
	"sync"

	"github.com/vprof/vprof/dwarfschema"
	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/proffile"
	"github.com/vprof/vprof/runtime/tailcall"
)

// A recording made before vprof read tail calls has schemas without them
// (Schema.TailCallsRead false): its readers ask for them here, and get
// them from the recorded object's file if it is still the one recorded
// (same build ID), so that `vprof report`, `flat`, `timeline` and `export`
// restore the frames that tail calls removed from its stacks too
// (method.md §3). Each object is read once per process.
func init() {
	var (
		mu   sync.Mutex
		memo = map[[2]string]*tailCallsOnce{}
	)
	proffile.TailCallSource = func(o *model.Object) []model.CallEdge {
		if o.Schema == nil || !o.Schema.HasDWARF || o.BuildID == "" || o.Path == "" {
			return nil
		}
		k := [2]string{o.Path, o.BuildID}
		mu.Lock()
		e := memo[k]
		if e == nil {
			e = &tailCallsOnce{}
			memo[k] = e
		}
		mu.Unlock()
		e.once.Do(func() {
			e.edges, _ = dwarfschema.LoadTailCalls(o.Path, o.BuildID, dwarfschema.Options{})
		})
		return e.edges
	}
}

// The tail-call frames under an indirect call are restored from what the
// recorded object's code and data say (dwarfschema.LoadIndirect, method.md
// §3, D85), for every recording whose object is still the one recorded.
func init() {
	var (
		mu   sync.Mutex
		memo = map[[2]string]*indirectOnce{}
	)
	proffile.IndirectSource = func(o *model.Object) *tailcall.Indirect {
		if o.Schema == nil || !o.Schema.HasDWARF || o.BuildID == "" || o.Path == "" {
			return nil
		}
		k := [2]string{o.Path, o.BuildID}
		mu.Lock()
		e := memo[k]
		if e == nil {
			e = &indirectOnce{}
			memo[k] = e
		}
		mu.Unlock()
		e.once.Do(func() {
			e.ind, _ = dwarfschema.LoadIndirect(o.Path, o.BuildID, dwarfschema.Options{})
		})
		return e.ind
	}
}

type indirectOnce struct {
	once sync.Once
	ind  *tailcall.Indirect
}

type tailCallsOnce struct {
	once  sync.Once
	edges []model.CallEdge
}
