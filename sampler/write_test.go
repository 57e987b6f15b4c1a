package sampler

import (
	"path/filepath"
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// TestProfWriter tests the writer on its own: events before the profile
// exists are dropped (they belong to no profile), the rest are written in
// order with the samples and counted, and the trailer closes the file.
func TestProfWriter(t *testing.T) {
	var pw profWriter
	pw.proc(model.ProcEvent{Kind: model.ProcStart, PID: 1})
	pw.thread(model.ThreadEvent{PID: 1, TID: 1})
	pw.abort()
	path := filepath.Join(t.TempDir(), "w.vprof")
	h := model.Header{Target: "/bin/true", PID: 7, IntervalNS: 1e6, Clock: model.ClockCPU, Depth: 3, Stack: 64}
	if err := pw.create(path, h, nil); err != nil {
		t.Fatal(err)
	}
	pw.proc(model.ProcEvent{Kind: model.ProcStart, PID: 7, TimeNS: 1, Path: "/bin/true"})
	pw.thread(model.ThreadEvent{PID: 7, TID: 7, TimeNS: 1, Name: "true"})
	for i := range 3 {
		s := model.Sample{Tick: uint64(i + 1), TimeNS: int64(i+1) * 1e6, WeightNS: 1e6, State: model.Running, Stack: []uint64{0x401000}}
		pw.sample(7, 7, &s)
	}
	pw.flushDue(int64(flushEvery))
	pw.thread(model.ThreadEvent{PID: 7, TID: 7, TimeNS: 4e6, Exit: true})
	pw.proc(model.ProcEvent{Kind: model.ProcExit, PID: 7, TimeNS: 4e6})
	if pw.samples.Load() != 3 || pw.vsamples.Load() != 0 || pw.lastFlush != int64(flushEvery) {
		t.Errorf("counted %d samples, %d values, last flush %d", pw.samples.Load(), pw.vsamples.Load(), pw.lastFlush)
	}
	if err := pw.w.Close(model.Trailer{EndNS: 5e6, Samples: pw.samples.Load()}); err != nil {
		t.Fatal(err)
	}
	p := readProfile(t, path)
	if p.hdr.PID != 7 || len(p.procs) != 2 || p.procs[0].PID != 7 || len(p.threads) != 2 || len(p.samples) != 3 {
		t.Errorf("read back: pid %d, processes %v, threads %v, %d samples", p.hdr.PID, p.procs, p.threads, len(p.samples))
	}
	if p.trailer == nil || p.trailer.Samples != 3 {
		t.Errorf("trailer %+v", p.trailer)
	}
}
