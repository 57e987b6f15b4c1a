package rank

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/proffile"
)

// maxWorkers bounds the goroutines that process value samples.
const maxWorkers = 4

// batchValues is the number of value samples from which the pending
// blocks are dispatched (maxBatchBlocks bounds their number).
const batchValues = 64 << 10

// A file streams through three stages (doc.go, Speed): a goroutine reads
// a profile's head ahead; the feeding goroutine decodes the blocks and
// does everything that needs a whole sample (costs, frames, the
// variable-based cost), then groups a batch of blocks' values by
// variable; workers process the groups, each worker the variables v with
// v % workers == its number, so no two goroutines touch one variable's
// state and the result does not depend on scheduling. Records other than
// blocks (new objects, exits) wait until the workers are idle.

// batch is the values of a few blocks, grouped by variable.
type batch struct {
	ts     []*threadState // by valRec.blk
	sorted []valRec
	groups [][]group    // per worker
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

// batchPool keeps batches (a few MiB of buffers) from one run to the
// next, and recsPool the feeder's value records.
var (
	batchPool = sync.Pool{New: func() any { return new(batch) }}
	recsPool  = sync.Pool{New: func() any { return new([]valRec) }}
)

// batchesInFlight is the number of batches of a pipeline.
const batchesInFlight = 4

func (r *Run) startPipeline() {
	a := r.a
	p := &pipeline{free: make(chan *batch, batchesInFlight)}
	for range batchesInFlight {
		p.free <- batchPool.Get().(*batch)
	}
	r.recs = *recsPool.Get().(*[]valRec)
	for w := range a.workers {
		ch := make(chan *batch, 8)
		p.work = append(p.work, ch)
		p.done.Add(1)
		go func() {
			defer p.done.Done()
			var sc scratch
			for b := range ch {
				for _, g := range b.groups[w] {
					r.variable(b.ts, g.gv, b.sorted[g.start:g.end], &sc)
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

// dispatch hands the queued values of the pending blocks to the workers.
func (r *Run) dispatch() {
	if len(r.recs) == 0 {
		r.bts = r.bts[:0]
		return
	}
	p := r.pipe
	b := <-p.free
	r.group(b)
	b.left.Store(int32(len(p.work)))
	p.inflight.Add(1)
	for _, ch := range p.work {
		ch <- b
	}
}

// quiesce dispatches the pending blocks and waits until the workers have
// processed every batch.
func (r *Run) quiesce() {
	if r.pipe != nil {
		r.dispatch()
		r.pipe.inflight.Wait()
	}
}

func (r *Run) stopPipeline() {
	if p := r.pipe; p != nil {
		r.dispatch()
		p.inflight.Wait()
		for _, ch := range p.work {
			close(ch)
		}
		p.done.Wait()
		for range batchesInFlight {
			b := <-p.free
			b.ts = b.ts[:0]
			batchPool.Put(b)
		}
		recs := r.recs[:0]
		r.recs = nil
		recsPool.Put(&recs)
		r.pipe = nil
	}
}

// item is one record (or the reading error) of a profile being read.
type item struct {
	rec   any
	blk   *proffile.BlockBuffer // a block, decoded into the reading's buffer
	err   error
	bytes int64 // read so far
}

// reading is a profile being read. A goroutine reads its head ahead of
// the analysis, while the run before is analysed: the header, the objects
// (JSON schemas, a tenth of a second for a large program) and the
// mappings, up to the first block. Then the feeding goroutine reads on
// itself: a block is decoded where it is analysed, its 200 KB of samples
// still in that core's cache, instead of crossing from the core that
// decoded it (which cost more than decoding).
type reading struct {
	rd      *proffile.Reader
	buf     *proffile.BlockBuffer // the goroutine's until it hands over, then the feeder's
	items   chan item
	stop    chan struct{}
	stopped bool
	direct  bool // the goroutine has handed the reader over
}

func startReading(rd *proffile.Reader) *reading {
	rg := &reading{rd: rd, buf: new(proffile.BlockBuffer), items: make(chan item, 8), stop: make(chan struct{})}
	go rg.readHead()
	return rg
}

// readHead reads records until the first block, the end of the records,
// an error, or until stop closes.
func (rg *reading) readHead() {
	defer close(rg.items)
	for {
		it, block := rg.read()
		select {
		case rg.items <- it:
		case <-rg.stop:
			return
		}
		if it.err != nil || block {
			return
		}
	}
}

func (rg *reading) read() (it item, block bool) {
	rec, err := rg.rd.NextInto(rg.buf)
	it = item{rec: rec, err: err, bytes: rg.rd.Recovery().Bytes}
	if _, ok := rec.(*model.Block); ok && err == nil {
		it.blk, it.rec, block = rg.buf, nil, true
	}
	return it, block
}

// next returns the next record, or false once readHead has stopped for
// good. A block's buffer is reused by the next call.
func (rg *reading) next() (item, bool) {
	if rg.direct {
		it, _ := rg.read()
		return it, true
	}
	it, ok := <-rg.items
	if ok && it.blk != nil {
		rg.direct = true // readHead stops after its first block
	}
	return it, ok
}

// close stops the reading goroutine and waits until it has left the
// reader.
func (rg *reading) close() {
	if !rg.stopped {
		rg.stopped = true
		close(rg.stop)
		for range rg.items {
		}
	}
}

// addFiles adds the profiles at paths as runs of kinds, in order. Each
// file is opened and its decoding started while the one before is
// analysed: the objects at its head (schemas, decoded from JSON, a tenth
// of a second for a large program) are ready when its run begins, instead
// of keeping the workers idle between runs. An error opening a file is
// returned once the runs before it are added, as one at a time would.
func (a *Analyzer) addFiles(kinds []Kind, paths []string, progress Progress) error {
	type opened struct {
		rg   *reading
		size int64
		err  error
	}
	open := func(path string) opened {
		rd, err := proffile.Open(path)
		if err != nil {
			return opened{err: err}
		}
		rd.Schemas = &a.schemas
		var size int64
		if st, err := os.Stat(path); err == nil {
			size = st.Size()
		}
		return opened{rg: startReading(rd), size: size}
	}
	shut := func(o opened) {
		if o.rg != nil {
			o.rg.close()
			o.rg.rd.Close()
		}
	}
	var next opened
	for i, path := range paths {
		cur := next
		if i == 0 {
			cur = open(path)
		}
		next = opened{}
		if cur.err != nil {
			return cur.err
		}
		if i+1 < len(paths) {
			next = open(paths[i+1])
		}
		r, err := a.BeginRun(kinds[i], path, cur.rg.rd.Header())
		if err == nil {
			err = r.feedFrom(cur.rg, cur.size, progress)
		}
		shut(cur)
		if err != nil {
			shut(next)
			return err
		}
	}
	return nil
}

// feed streams a profile through the run.
func (r *Run) feed(rd *proffile.Reader, size int64, progress Progress) error {
	return r.feedFrom(startReading(rd), size, progress)
}

// feedFrom streams a profile being read through the run.
func (r *Run) feedFrom(rg *reading, size int64, progress Progress) error {
	defer r.End()
	if !r.flatOnly {
		r.startPipeline()
		defer r.stopPipeline()
	}
	const step = 64 << 20
	next := int64(step)
	defer rg.close()
	for {
		it, ok := rg.next()
		if !ok {
			break
		}
		if errors.Is(it.err, io.EOF) {
			break
		}
		if it.err != nil {
			r.a.warnf("%s: %v: analysing the records before it", r.Name, it.err)
			break
		}
		if c := it.blk; c != nil {
			b := &c.Block
			r.beginBlock(r.thread(b.PID, b.TID))
			for i := range b.Samples {
				r.sample(b.PID, &b.Samples[i])
			}
			if r.pipe == nil {
				r.recs, r.bts = r.recs[:0], r.bts[:0]
			} else if len(r.bts) >= maxBatchBlocks || len(r.recs) >= batchValues {
				r.dispatch()
			}
		} else {
			r.quiesce()
			if err := r.Record(it.rec); err != nil {
				return fmt.Errorf("%s: %w", r.Name, err)
			}
		}
		if progress != nil && it.bytes >= next {
			progress(r.Name, it.bytes, size)
			next = it.bytes + step
		}
	}
	r.stopPipeline()
	rec := rg.rd.Recovery()
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

// varVerdicts returns the verdicts of the sampled variables in variable
// order, computed by a goroutine per processor (at most maxWorkers), and
// per variable its index in them + 1 (0: not sampled). Verdicts only read
// the analysis.
func (a *Analyzer) varVerdicts() ([]VarVerdict, []int) {
	verdictOf := make([]int, len(a.vars))
	var n int
	for i := range a.vars {
		if a.vars[i].count[Normal]+a.vars[i].count[Buggy] != 0 {
			n++
			verdictOf[i] = n
		}
	}
	out := make([]VarVerdict, n)
	var next atomic.Int64 // chunks of variables, taken in turn
	const chunk = 64
	var wg sync.WaitGroup
	for range max(1, min(runtime.GOMAXPROCS(0), maxWorkers)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				lo := int(next.Add(chunk)) - chunk
				if lo >= len(a.vars) {
					return
				}
				for i := lo; i < min(lo+chunk, len(a.vars)); i++ {
					if j := verdictOf[i]; j > 0 {
						out[j-1] = a.varVerdict(int32(i))
					}
				}
			}
		}()
	}
	wg.Wait()
	return out, verdictOf
}
