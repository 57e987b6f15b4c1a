package main

import (
	"os"
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
// (method.md §3). The tail-call frames under an indirect call are restored
// from what the recorded object's code and data say (dwarfschema.LoadIndirect,
// §3, D85), for every recording whose object is still the one recorded;
// the scan is kept in the schema cache, as `vprof record` keeps it, so that
// the next report of the same binary reads it instead of scanning again
// (VPROF_SCHEMA_CACHE=off: no cache).
func init() {
	proffile.TailCallSource = perObject(func(path, buildID string) []model.CallEdge {
		edges, _ := dwarfschema.LoadTailCalls(path, buildID, dwarfschema.Options{})
		return edges
	})
	proffile.IndirectSource = perObject(func(path, buildID string) *tailcall.Indirect {
		ind, _ := readerCache().LoadIndirect(path, buildID, dwarfschema.Options{})
		return ind
	})
}

// perObject returns a source that reads, with load, what a recorded object
// with DWARF still has in its file (same build ID), once per object and
// process; the zero T for an object it cannot read.
func perObject[T any](load func(path, buildID string) T) func(*model.Object) T {
	type once struct {
		sync.Once
		v T
	}
	var (
		mu   sync.Mutex
		memo = map[[2]string]*once{}
	)
	return func(o *model.Object) T {
		if o.Schema == nil || !o.Schema.HasDWARF || o.BuildID == "" || o.Path == "" {
			var zero T
			return zero
		}
		k := [2]string{o.Path, o.BuildID}
		mu.Lock()
		e := memo[k]
		if e == nil {
			e = &once{}
			memo[k] = e
		}
		mu.Unlock()
		e.Do(func() { e.v = load(o.Path, o.BuildID) })
		return e.v
	}
}

// readerCache is the schema cache of the readers (report, flat, timeline,
// export): the default directory unless VPROF_SCHEMA_CACHE=off; nil then.
var readerCache = sync.OnceValue(func() *dwarfschema.Cache {
	if os.Getenv("VPROF_SCHEMA_CACHE") == "off" {
		return nil
	}
	return &dwarfschema.Cache{Dir: dwarfschema.DefaultCacheDir()}
})
