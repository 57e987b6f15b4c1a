package main

import (
	"sync"

	"github.com/vprof/vprof/dwarfschema"
	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/proffile"
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

type tailCallsOnce struct {
	once  sync.Once
	edges []model.CallEdge
}
