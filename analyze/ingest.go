package analyze

import (
	"errors"
	"fmt"
	"math"

	"github.com/vprof/vprof/dwarfschema"
	"github.com/vprof/vprof/runtime/proffile"
)

// Run is one profile fed to an Analyzer record by record, in file order
// (Reader.Next's records: *Object, *Mapping, *ProcEvent, *ThreadEvent,
// *Block, *Trailer). Nothing of a record is kept after Record returns.
type Run struct {
	a    *Analyzer
	Kind Kind
	Name string

	hdr      proffile.Header
	interval float64 // seconds: weight of a sample that carries none
	space    *proffile.AddrSpace
	objs     []*objInfo // by proffile Object.ID

	pc, vc, self []float64 // per global function, seconds
	via          map[[2]int32]float64

	threads map[uint64]*threadState
	lastKey uint64
	lastTS  *threadState

	frames []frameRes // the current sample's resolved frames
	fstamp []uint64   // which event each entry of frames belongs to

	total        float64 // seconds sampled
	unattributed float64 // seconds with no program frame on the stack
	samples      int64
	values       int64
	badValues    int64 // value samples naming an unknown object or variable
	programBuild string
	trailer      *proffile.Trailer
	flatOnly     bool
	ended        bool
}

// threadState is the per-thread state of the delta and duration dimensions.
type threadState struct {
	pid  int32
	vars []tvState // by global variable
}

// tvState is one variable on one thread: its last analysed value and the
// current run of equal values (for duration), with up to four PCs at which
// the run was read, for the abnormal-sample locations of buggy runs.
type tvState struct {
	has         bool
	npc         uint8
	x           float64 // last analysed value
	key         uint64  // its bits, compared for the run
	first, last uint64  // ticks of the current run
	pcs         [4]uint64
	pobj        [4]int32
	pn          [4]float64
}

type frameRes struct {
	oi   *objInfo
	link uint64
	fn   int32 // global function, or the object's/analysis' unknown bucket
	prog bool  // a program frame: in a program object and inside a function
}

// maxWalk bounds the frames walked to find the innermost program frame.
const maxWalk = 128

// BeginRun starts feeding a run. All normal runs must be fed (and ended)
// before the first buggy run: the buggy runs' abnormal samples are found
// against the normal runs' ranges as they stream by.
func (a *Analyzer) BeginRun(kind Kind, name string, hdr proffile.Header) (*Run, error) {
	if kind == Normal && a.frozen {
		return nil, errors.New("analyze: normal runs must be added before buggy runs")
	}
	for _, r := range a.runs {
		if !r.ended {
			return nil, fmt.Errorf("analyze: run %s is not ended", r.Name)
		}
	}
	if kind == Buggy {
		a.freeze()
	}
	r := &Run{
		a: a, Kind: kind, Name: name, hdr: hdr,
		space:   proffile.NewAddrSpace(),
		via:     map[[2]int32]float64{},
		threads: map[uint64]*threadState{},
	}
	r.interval = float64(hdr.IntervalNS) / 1e9
	if r.interval <= 0 {
		r.interval = 1e-3
	}
	r.growFuncs()
	a.runs = append(a.runs, r)
	return r, nil
}

func (r *Run) growFuncs() {
	n := len(r.a.funcs)
	for len(r.pc) < n {
		r.pc = append(r.pc, 0)
		r.vc = append(r.vc, 0)
		r.self = append(r.self, 0)
	}
}

// Record processes one record of the profile.
func (r *Run) Record(rec any) error {
	if r.ended {
		return fmt.Errorf("analyze: run %s already ended", r.Name)
	}
	switch x := rec.(type) {
	case *proffile.Object:
		oi := r.a.loadObject(x)
		for len(r.objs) <= int(x.ID) {
			r.objs = append(r.objs, nil)
		}
		r.objs[x.ID] = oi
		if x.Program && r.programBuild == "" {
			r.programBuild = x.BuildID
		}
		r.growFuncs()
	case *proffile.Mapping:
		r.space.Observe(x)
	case *proffile.ProcEvent:
		r.space.Observe(x)
		if x.Kind == proffile.ProcExit || x.Kind == proffile.ProcExec {
			// A process that exits or replaces its image ends its threads'
			// runs of equal values.
			for k, ts := range r.threads {
				if ts.pid == x.PID {
					r.flushThread(ts)
					delete(r.threads, k)
				}
			}
			r.lastTS = nil
		}
	case *proffile.ThreadEvent:
		if x.Exit {
			k := threadKey(x.PID, x.TID)
			if ts := r.threads[k]; ts != nil {
				r.flushThread(ts)
				delete(r.threads, k)
				r.lastTS = nil
			}
		}
	case *proffile.Block:
		ts := r.thread(x.PID, x.TID)
		for i := range x.Samples {
			r.sample(x.PID, ts, &x.Samples[i])
		}
	case *proffile.Trailer:
		t := *x
		r.trailer = &t
	case nil:
		return errors.New("analyze: nil record")
	default:
		return fmt.Errorf("analyze: unexpected record %T", rec)
	}
	return nil
}

// End finishes the run: open runs of equal values become durations.
func (r *Run) End() {
	if r.ended {
		return
	}
	for k, ts := range r.threads {
		r.flushThread(ts)
		delete(r.threads, k)
	}
	r.lastTS = nil
	r.ended = true
}

func threadKey(pid, tid int32) uint64 { return uint64(uint32(pid))<<32 | uint64(uint32(tid)) }

func (r *Run) thread(pid, tid int32) *threadState {
	k := threadKey(pid, tid)
	if r.lastTS != nil && r.lastKey == k {
		return r.lastTS
	}
	ts := r.threads[k]
	if ts == nil {
		ts = &threadState{pid: pid}
		r.threads[k] = ts
	}
	r.lastKey, r.lastTS = k, ts
	return ts
}

// frame resolves frame i of s: the innermost frame at its PC, callers at
// their return address minus one (inside the call instruction).
func (r *Run) frame(pid int32, s *proffile.Sample, i int, stamp uint64) *frameRes {
	fr := &r.frames[i]
	if r.fstamp[i] == stamp {
		return fr
	}
	r.fstamp[i] = stamp
	pc := s.Stack[i]
	if i > 0 && pc > 0 {
		pc--
	}
	*fr = frameRes{fn: 0}
	id, link, ok := r.space.Resolve(pid, pc)
	if !ok || int(id) >= len(r.objs) || r.objs[id] == nil {
		return fr
	}
	oi := r.objs[id]
	fr.oi, fr.link, fr.fn = oi, link, oi.unknown
	if f := oi.inner.lookup(link); f >= 0 && int(f) < len(oi.funcMap) {
		fr.fn = oi.funcMap[f]
		fr.prog = oi.program
	}
	return fr
}

func (r *Run) sample(pid int32, ts *threadState, s *proffile.Sample) {
	a := r.a
	a.stamp++
	stamp := a.stamp
	w := float64(s.WeightNS) / 1e9
	if s.WeightNS <= 0 {
		w = r.interval
	}
	r.total += w
	r.samples++

	nf := min(len(s.Stack), 255)
	if len(r.frames) < nf {
		r.frames = make([]frameRes, nf)
		r.fstamp = make([]uint64, nf)
	}
	if nf == 0 {
		r.self[0] += w
		r.unattributed += w
	} else {
		r.self[r.frame(pid, s, 0, stamp).fn] += w
		charged := false
		for i := 0; i < nf && i < maxWalk; i++ {
			fr := r.frame(pid, s, i, stamp)
			if !fr.prog {
				continue
			}
			r.pc[fr.fn] += w
			if i > 0 {
				// The library function the program called carried the cost.
				r.via[[2]int32{fr.fn, r.frame(pid, s, i-1, stamp).fn}] += w
			}
			charged = true
			break
		}
		if !charged {
			r.unattributed += w
		}
	}
	if r.flatOnly {
		return
	}
	for j := range s.Values {
		r.value(pid, ts, s, &s.Values[j], nf, w, stamp)
	}
}

// value processes one value sample.
func (r *Run) value(pid int32, ts *threadState, s *proffile.Sample, v *proffile.Value, nf int, w float64, stamp uint64) {
	a := r.a
	if int(v.Obj) >= len(r.objs) || r.objs[v.Obj] == nil {
		r.badValues++
		return
	}
	oi := r.objs[v.Obj]
	if v.Var < 0 || int(v.Var) >= len(oi.varMap) {
		r.badValues++
		return
	}
	gv := oi.varMap[v.Var]
	if a.varStamp[gv] == stamp {
		return // read once per thread and tick: the first (shallowest) read is kept
	}
	a.varStamp[gv] = stamp
	r.values++
	vi := &a.vars[gv]
	vi.count[r.Kind]++

	var fr *frameRes
	if int(v.Frame) < nf {
		fr = r.frame(pid, s, int(v.Frame), stamp)
		if fr.oi == nil {
			fr = nil
		}
	}
	if fr != nil {
		if a.funcStamp[fr.fn] != stamp {
			a.funcStamp[fr.fn] = stamp
			r.vc[fr.fn] += w
		}
		if vi.fn < 0 && fr.prog && vi.last != fr.fn {
			vi.funcs[fr.fn] = struct{}{}
			vi.last = fr.fn
		}
	}

	var x float64
	var key uint64
	switch vi.mode {
	case modeBasic:
		x = toFloat(v.Bits, vi.kind)
		key = canon(x)
	case modePtrBasic:
		if !v.HasPointee {
			return // no pointee (NULL or unreadable): nothing to analyse
		}
		x = toFloat(v.Pointee, vi.pkind)
		key = canon(x)
	default:
		key = v.Bits
	}
	if int(gv) >= len(ts.vars) {
		ts.vars = append(ts.vars, make([]tvState, len(a.vars)-len(ts.vars))...)
	}
	tv := &ts.vars[gv]
	k := r.Kind
	buggy := k == Buggy && fr != nil
	if vi.mode != modeDurOnly {
		if !vi.natural {
			a.set(gv, k, DimValue).add(x)
			if buggy && vi.abnormal(DimValue, x) {
				a.countAbnormal(gv, DimValue, fr.oi.idx, fr.link, 1)
			}
		}
		if tv.has {
			d := x - tv.x
			a.set(gv, k, DimDelta).add(d)
			if buggy && vi.abnormal(DimDelta, d) {
				a.countAbnormal(gv, DimDelta, fr.oi.idx, fr.link, 1)
			}
		}
	}
	if tv.has && tv.key == key && s.Tick >= tv.last {
		tv.last = s.Tick
	} else {
		if tv.has {
			r.endRun(gv, tv)
		}
		tv.first, tv.last, tv.key, tv.npc = s.Tick, s.Tick, key, 0
	}
	if buggy {
		tv.addPC(fr.oi.idx, fr.link)
	}
	tv.x, tv.has = x, true
}

func (tv *tvState) addPC(obj int32, pc uint64) {
	for i := uint8(0); i < tv.npc; i++ {
		if tv.pcs[i] == pc && tv.pobj[i] == obj {
			tv.pn[i]++
			return
		}
	}
	if int(tv.npc) < len(tv.pcs) {
		tv.pcs[tv.npc], tv.pobj[tv.npc], tv.pn[tv.npc] = pc, obj, 1
		tv.npc++
	}
}

// endRun turns the current run of equal values of variable gv into one
// duration sample, in ticks.
func (r *Run) endRun(gv int32, tv *tvState) {
	a := r.a
	d := float64(tv.last-tv.first) + 1
	a.set(gv, r.Kind, DimDuration).add(d)
	if r.Kind == Buggy && a.vars[gv].abnormal(DimDuration, d) {
		for i := uint8(0); i < tv.npc; i++ {
			a.countAbnormal(gv, DimDuration, tv.pobj[i], tv.pcs[i], tv.pn[i])
		}
	}
	tv.npc = 0
}

func (r *Run) flushThread(ts *threadState) {
	for i := range ts.vars {
		if tv := &ts.vars[i]; tv.has {
			r.endRun(int32(i), tv)
			tv.has = false
		}
	}
}

// toFloat interprets normalised value bits by kind (proffile.Value).
func toFloat(bits uint64, k dwarfschema.Kind) float64 {
	switch k {
	case dwarfschema.KindUint, dwarfschema.KindBool, dwarfschema.KindPointer, dwarfschema.KindAggregate:
		return float64(bits)
	case dwarfschema.KindFloat:
		return math.Float64frombits(bits)
	}
	return float64(int64(bits))
}
