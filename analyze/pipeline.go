package analyze

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/vprof/vprof/runtime/proffile"
)

// maxWorkers bounds the goroutines that process value samples.
const maxWorkers = 4

// A file streams through three stages: the reading goroutine decodes
// records and does everything that needs a whole sample (costs, frames,
// the variable-based cost) and groups the block's values by variable;
// workers then process the groups, each worker the variables v with
// v % workers == its number, so no two goroutines touch one variable's
// state and the result does not depend on scheduling. Records other than
// blocks (new objects, exits) wait until the workers are idle.

// batch is one block's values, grouped by variable.
type batch struct {
	ts     *threadState
	sorted []valRec
	groups []group      // worker-major
	left   atomic.Int32 // workers yet to process it
}

type group struct {
	gv         int32
	start, end int32
}

type pipeline struct {
	work     []chan *batch
	free     chan *batch
	inflight sync.WaitGroup
	done     sync.WaitGroup
}

func (r *Run) startPipeline() {
	a := r.a
	p := &pipeline{free: make(chan *batch, 8)}
	for range 8 {
		p.free <- &batch{}
	}
	for w := range a.workers {
		ch := make(chan *batch, 8)
		p.work = append(p.work, ch)
		p.done.Add(1)
		go func() {
			defer p.done.Done()
			for b := range ch {
				for _, g := range b.groups {
					if a.worker(g.gv) == w {
						r.variable(b.ts, g.gv, b.sorted[g.start:g.end])
					}
				}
				if b.left.Add(-1) == 0 {
					p.inflight.Done()
					p.free <- b
				}
			}
		}()
	}
	r.pipe = p
}

// dispatch hands the queued values of one block to the workers.
func (r *Run) dispatch(ts *threadState) {
	if len(r.recs) == 0 {
		return
	}
	p := r.pipe
	r.a.growThread(ts, r.Kind == Buggy)
	b := <-p.free
	b.ts = ts
	r.group(b)
	b.left.Store(int32(len(p.work)))
	p.inflight.Add(1)
	for _, ch := range p.work {
		ch <- b
	}
}

// quiesce waits until the workers have processed every dispatched batch.
func (r *Run) quiesce() {
	if r.pipe != nil {
		r.pipe.inflight.Wait()
	}
}

func (r *Run) stopPipeline() {
	if p := r.pipe; p != nil {
		p.inflight.Wait()
		for _, ch := range p.work {
			close(ch)
		}
		p.done.Wait()
		r.pipe = nil
	}
}

// feed streams a profile through the run.
func (r *Run) feed(rd *proffile.Reader, size int64, progress Progress) error {
	defer r.End()
	if !r.flatOnly {
		r.startPipeline()
		defer r.stopPipeline()
	}
	const step = 64 << 20
	next := int64(step)
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			r.a.warnf("%s: %v: analysing the records before it", r.Name, err)
			break
		}
		if b, ok := rec.(*proffile.Block); ok && r.pipe != nil {
			ts := r.thread(b.PID, b.TID)
			for i := range b.Samples {
				r.sample(b.PID, &b.Samples[i])
			}
			r.dispatch(ts)
		} else {
			r.quiesce()
			if err := r.Record(rec); err != nil {
				return fmt.Errorf("%s: %v", r.Name, err)
			}
		}
		if progress != nil {
			if n := rd.Recovery().Bytes; n >= next {
				progress(r.Name, n, size)
				next = n + step
			}
		}
	}
	r.stopPipeline()
	rec := rd.Recovery()
	if progress != nil {
		progress(r.Name, rec.Bytes, size)
	}
	if !rec.Complete && rec.Reason != "" {
		r.a.warnf("%s: %s", r.Name, rec)
	}
	if r.samples == 0 {
		r.a.warnf("%s: no samples", r.Name)
	}
	return nil
}
