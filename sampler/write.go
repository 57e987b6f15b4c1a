package sampler

import (
	"fmt"
	"math"
	"os"
	"sync/atomic"
	"time"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/proffile"
	"github.com/vprof/vprof/sampler/unwind"
)

// profWriter is the profile a recording writes and the counts of what it
// holds. Before create (the first process known) there is no file: events
// are dropped, as they belong to no profile yet.
type profWriter struct {
	w         *proffile.Writer
	lastFlush int64
	warn      func(string)
	now       func() int64 // the recording's clock
	// pending are the objects added whose schema is still being read
	// (object.naming), each with the place of its record.
	pending []pendingObject

	// read by the progress goroutine
	samples  atomic.Int64
	vsamples atomic.Int64
}

// create creates the profile at path with header h and the objects
// loaded so far.
func (pw *profWriter) create(path string, h model.Header, objs []*object) error {
	w, err := proffile.Create(path, h)
	if err != nil {
		return err
	}
	pw.w = w
	for _, o := range objs { // loaded before the profile existed
		pw.object(o)
	}
	return nil
}

// pendingObject is an object whose record waits for its schema.
type pendingObject struct {
	o     *object
	place *proffile.Place
	at    int64 // when it was added (clock time)
}

// object writes a newly loaded object, or keeps the place of its record
// until its schema is read (settle): the records written meanwhile are
// held behind it, so the samples in it follow it in the file as before,
// written a little later.
func (pw *profWriter) object(o *object) {
	if pw.w == nil {
		return
	}
	if ok, err := o.named(false); !ok {
		pw.pending = append(pw.pending, pendingObject{o, pw.w.Reserve(), pw.now()})
		return
	} else if err != nil {
		pw.namingFailed(o, err)
	}
	pw.w.AddEncoded(o.record(), o.enc)
	o.enc = nil
}

// settle writes the records of the pending objects whose schemas are
// read, waiting for those added at or before time wait (math.MaxInt64:
// all of them; -1: none).
func (pw *profWriter) settle(wait int64) {
	keep := pw.pending[:0]
	for _, po := range pw.pending {
		ok, err := po.o.named(po.at <= wait)
		if !ok {
			keep = append(keep, po)
			continue
		}
		if err != nil {
			pw.namingFailed(po.o, err)
		}
		pw.w.Fill(po.place, po.o.record(), po.o.enc)
		po.o.enc = nil
	}
	clear(pw.pending[len(keep):])
	pw.pending = keep
}

func (pw *profWriter) namingFailed(o *object, err error) {
	if pw.warn != nil {
		pw.warn(fmt.Sprintf("cannot read the symbols of %s: %v (its functions stay unnamed)", o.path, err))
	}
}

// proc writes a process event.
func (pw *profWriter) proc(ev model.ProcEvent) {
	if pw.w != nil {
		pw.w.AddProc(ev)
	}
}

// thread writes a thread event.
func (pw *profWriter) thread(ev model.ThreadEvent) {
	if pw.w != nil {
		pw.w.AddThread(ev)
	}
}

// mapping writes a mapping.
func (pw *profWriter) mapping(m model.Mapping) { pw.w.AddMapping(m) }

// sample writes the sample of thread tid of process pid.
func (pw *profWriter) sample(pid, tid int, s *model.Sample) {
	pw.w.AddSample(int32(pid), int32(tid), s)
	pw.samples.Add(1)
	pw.vsamples.Add(int64(len(s.Values)))
}

// flush puts what was written on disk.
func (pw *profWriter) flush() { pw.w.Flush() }

// flushDue flushes at most every flushEvery: a recorder killed later
// loses at most this much.
func (pw *profWriter) flushDue(now int64) {
	due := now-pw.lastFlush >= int64(flushEvery)
	if len(pw.pending) > 0 {
		// At a flush, the names read for two flush intervals or more
		// are waited for (what is left of their reading, seldom
		// anything): the records held behind them would not reach the
		// file, and a recorder killed then would lose more of them than
		// flushEvery's. Not sooner: the wait holds up the samples, so a
		// name that takes long (a large C++ library's symbols on a
		// loaded machine) holds them up at most its time less two
		// intervals, and one read within two intervals, not at all.
		wait := int64(-1)
		if due {
			wait = now - int64(2*flushEvery)
		}
		pw.settle(wait)
	}
	if due {
		pw.w.Flush()
		pw.lastFlush = now
	}
}

// abort ends a profile that will not be completed (a recorder fault).
func (pw *profWriter) abort() {
	if pw.w != nil {
		pw.settle(math.MaxInt64)
		pw.w.Abort()
	}
}

// header is the profile header of the first process.
func (r *Recorder) header(p *process) model.Header {
	h := model.Header{
		Target:      p.exe,
		Args:        r.cfg.Args,
		Attached:    r.tr.attached,
		PID:         int32(p.pid),
		IntervalNS:  int64(r.cfg.Interval),
		Clock:       r.cfg.Clock,
		Depth:       r.cfg.Depth,
		Stack:       r.cfg.Stack,
		StartUnixNS: time.Now().UnixNano(),
		Recorder:    r.cfg.Recorder,
		Sampler:     r.smp.samplerName(),
		Count:       r.cfg.CountNames,
	}
	if p.main != nil {
		h.BuildID = p.main.schema.BuildID
	}
	h.Hostname, _ = os.Hostname()
	return h
}

// result writes the trailer, closes the profile, and returns the
// recording's statistics (ExitStatus left to the caller).
func (r *Recorder) result(end int64, sampler string) (*Result, error) {
	sm := &r.smp
	tr := model.Trailer{
		EndNS:           end,
		Samples:         r.out.samples.Load(),
		ValueSamples:    r.out.vsamples.Load(),
		UnreadableReads: int64(sm.vstats.Faulted + sm.vstats.Unavailable + sm.vstats.EntryValue + sm.vstats.Unsupported),
		LostTicks:       int64(sm.steps.Lost),
		BlockedSamples:  int64(sm.blk.stats.Samples),
		BlockedRegs:     int64(sm.blk.stats.WithRegs),
		ExitStatus:      int32(r.tr.firstStatus),
		Detached:        !r.tr.firstExited,
	}
	tr.Counts, tr.CountError = r.counts()
	for why := unwind.Stop(0); why < unwind.NumStops; why++ {
		if n := sm.ustats.Stops[why]; n > 0 && why != unwind.StopOutermost {
			if tr.CutStacks == nil {
				tr.CutStacks = map[string]int64{}
			}
			tr.CutStacks[why.String()] = int64(n)
		}
	}
	res := &Result{
		Path:      r.cfg.Output,
		Sampler:   sampler,
		Trailer:   tr,
		Reason:    r.stopReason,
		Elapsed:   time.Duration(end),
		Steps:     sm.steps,
		Values:    sm.vstats,
		Unwind:    sm.ustats,
		Blocked:   sm.blk.stats,
		Processes: r.tr.nproc,
		Threads:   r.tr.nthr,
		Objects:   len(r.objs.list),
	}
	res.TracerCPU = ownCPU() - r.cpuAtStart
	if sm.cpuAtTick > 0 {
		res.SetupCPU = sm.cpuAtTick - r.cpuAtStart
		res.LoopCPU = threadCPU() - sm.thrAtTick // result runs on the tracer thread
	}
	res.TargetCPU = time.Duration(sm.targetCPU)
	r.out.settle(math.MaxInt64) // the symbols of the libraries still being read
	if err := r.out.w.Close(tr); err != nil {
		return res, err
	}
	if st, err := os.Stat(r.cfg.Output); err == nil {
		res.FileSize = st.Size()
	}
	return res, nil
}
