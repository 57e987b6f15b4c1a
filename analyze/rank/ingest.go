package rank

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/proffile"
)

// Run is one profile fed to an Analyzer record by record, in file order
// (Reader.Next's records: *Object, *Mapping, *ProcEvent, *ThreadEvent,
// *Block, *Trailer). Nothing of a record is kept after Record returns.
type Run struct {
	a    *Analyzer
	Kind Kind
	Name string

	hdr      model.Header
	interval float64 // seconds: weight of a sample that carries none
	space    *proffile.AddrSpace
	objs     []*objInfo // by proffile Object.ID

	pc, vc, self []float64            // per global function, seconds
	vn           []float64            // per global function: the sampling events counted in vc (D297)
	via          map[[2]int32]float64 // (program function, library function it called): seconds; made by End from viaW
	viaW         []float64            // seconds per via key, in order of first appearance
	viaKeys      [][2]int32           //
	viaIdx       viaTable             // via key -> index in viaW
	vfeed        []varFeed            // per global variable: what value reads
	// vsets: per global variable, this run's values (the value dimension
	// alone), to tell run-to-run noise from a difference between kinds
	// (verdict.go). Grown only while the workers are idle (new objects).
	vsets []*sampleSet

	threads map[uint64]*threadState
	lastKey uint64
	lastTS  *threadState

	frames  []frameRes // the current sample's resolved frames
	fstamp  []uint64   // which event each entry of frames belongs to
	pcCache *[1 << pcCacheBits]pcEntry
	gen     uint32 // generation of pcCache's entries; 0 is never valid

	recs    []valRec       // the pending blocks' value samples, in file order
	bts     []*threadState // the pending blocks' threads (valRec.blk)
	touched []int32        // scratch of group: variables by first appearance
	pipe    *pipeline

	total        float64 // seconds sampled
	unattributed float64 // seconds with no program frame on the stack
	samples      int64
	values       int64
	badValues    int64 // value samples naming an unknown object or variable
	// tailOn: per global function, seconds on the stack in a frame that
	// the reader restored from a tail call (Sample.TailFrames).
	tailOn       map[int32]float64
	tailOnly     map[int32]float64 // the part of tailOn with no frame of the function's own on the stack (D35)
	programBuild string
	trailer      *model.Trailer
	flatOnly     bool
	// wait: the current sample waits in the C library (contention.go);
	// waited sums such samples' seconds.
	wait   bool
	waited float64
	ended  bool
}

// threadState is the per-thread state of the delta and duration dimensions.
type threadState struct {
	pid   int32
	vars  []tvState // by global variable
	pcs   []runPCs  // by global variable, buggy runs only
	total float64   // seconds sampled (driver frames, drivers.go)
	full  float64   // of those, seconds whose stack is whole (wholeStack)
}

// tvState is one variable on one thread: its last analysed value and the
// current run of equal values (for duration).
type tvState struct {
	has         bool
	x           float64 // last analysed value
	key         uint64  // its bits, compared for the run
	first, last uint64  // ticks of the current run

	// A loop variable compared by its pointee (modePtrBasic): the current
	// run of one address, for the held test (D158).
	ahas          bool
	addr          uint64
	afirst, alast uint64
}

// runPCs holds up to four PCs at which the current run of equal values was
// read, with their sample counts: the locations of an abnormal duration.
type runPCs struct {
	n   int
	pc  [4]uint64
	obj [4]int32
	cnt [4]float64
}

type frameRes struct {
	oi    *objInfo
	link  uint64
	fn    int32   // global function, or the object's/analysis' unknown bucket
	cost  int32   // the function charged with the frame's PC cost (see frame)
	phys  int32   // the out-of-line function holding the code (the symbol)
	chain []int32 // fn, then the functions it is inlined into, out to phys
	prog  bool    // a program frame: in a program object and inside a function
}

// maxWalk bounds the frames walked to find the innermost program frame.
const maxWalk = 128

// BeginRun starts feeding a run. All normal runs must be fed (and ended)
// before the first buggy run: the buggy runs' abnormal samples are found
// against the normal runs' ranges as they stream by.
func (a *Analyzer) BeginRun(kind Kind, name string, hdr model.Header) (*Run, error) {
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
	r.pcCache, r.gen = new([1 << pcCacheBits]pcEntry), 1
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
		r.vn = append(r.vn, 0)
		r.self = append(r.self, 0)
	}
}

// Record processes one record of the profile.
func (r *Run) Record(rec any) error {
	if r.ended {
		return fmt.Errorf("analyze: run %s already ended", r.Name)
	}
	switch x := rec.(type) {
	case *model.Object:
		r.gen++
		oi := r.a.loadObject(x)
		for len(r.objs) <= int(x.ID) {
			r.objs = append(r.objs, nil)
		}
		r.objs[x.ID] = oi
		if x.Program && r.programBuild == "" {
			r.programBuild = x.BuildID
		}
		r.growFuncs()
		for len(r.vsets) < len(r.a.vars) {
			r.vsets = append(r.vsets, nil)
		}
	case *model.Mapping:
		r.gen++
		r.space.Observe(x)
	case *model.ProcEvent:
		r.gen++
		r.space.Observe(x)
		if x.Kind == model.ProcExit || x.Kind == model.ProcExec {
			// A process that exits or replaces its image ends its threads'
			// runs of equal values.
			r.flushThreads(func(ts *threadState) bool { return ts.pid == x.PID })
		}
	case *model.ThreadEvent:
		if x.Exit {
			k := threadKey(x.PID, x.TID)
			if ts := r.threads[k]; ts != nil {
				r.flushThread(ts)
				delete(r.threads, k)
				r.lastTS = nil
			}
		}
	case *model.Block:
		r.beginBlock(r.thread(x.PID, x.TID))
		for i := range x.Samples {
			r.sample(x.PID, &x.Samples[i])
		}
		r.flushValues()
	case *model.Trailer:
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
	r.flushThreads(func(*threadState) bool { return true })
	for i, k := range r.viaKeys {
		r.via[k] = r.viaW[i]
	}
	r.viaW, r.viaKeys, r.viaIdx = nil, nil, viaTable{}
	r.ended = true
}

// viaTable maps a via key to its index in viaW: open addressing on the
// packed key, one probe mostly (a map look-up costs more than a sample's
// other costs together).
type viaTable struct {
	keys []uint64 // (fn, lib) packed
	idx  []int32  // index + 1; 0: empty
	n    int
}

// addVia adds w seconds to the cost that program function fn spent
// calling library function lib.
func (r *Run) addVia(fn, lib int32, w float64) {
	t := &r.viaIdx
	if 2*(t.n+1) > len(t.keys) {
		t.grow()
	}
	k := uint64(uint32(fn))<<32 | uint64(uint32(lib))
	mask := uint64(len(t.keys) - 1)
	for i := hash64(k) & mask; ; i = (i + 1) & mask {
		if t.idx[i] == 0 {
			t.keys[i], t.idx[i] = k, int32(len(r.viaW))+1
			t.n++
			r.viaW = append(r.viaW, w)
			r.viaKeys = append(r.viaKeys, [2]int32{fn, lib})
			return
		}
		if t.keys[i] == k {
			r.viaW[t.idx[i]-1] += w
			return
		}
	}
}

func (t *viaTable) grow() {
	keys, idx := t.keys, t.idx
	n := max(64, 2*len(keys))
	t.keys, t.idx = make([]uint64, n), make([]int32, n)
	mask := uint64(n - 1)
	for j, k := range keys {
		if idx[j] == 0 {
			continue
		}
		i := hash64(k) & mask
		for t.idx[i] != 0 {
			i = (i + 1) & mask
		}
		t.keys[i], t.idx[i] = k, idx[j]
	}
}

// varFeed is what the feeding goroutine needs of a variable, apart from
// varInfo's many cache lines.
type varFeed struct {
	stamp uint64 // last sampling event that read it
	fn    int32  // defining function, -1 for globals
	mode  varMode
}

// growVars sizes vfeed to every known variable.
func (r *Run) growVars() {
	for i := len(r.vfeed); i < len(r.a.vars); i++ {
		r.vfeed = append(r.vfeed, varFeed{fn: r.a.vars[i].fn, mode: r.a.vars[i].mode})
	}
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
func (r *Run) frame(pid int32, s *model.Sample, i int, stamp uint64) *frameRes {
	fr := &r.frames[i]
	if r.fstamp[i] == stamp {
		return fr
	}
	r.fstamp[i] = stamp
	pc := s.Stack[i]
	if i > 0 && pc > 0 {
		pc--
	}
	// Samples revisit the same PCs (hot loops, call sites): a direct-mapped
	// cache in front of the mapping and function look-ups.
	h := (pc*0x9e3779b97f4a7c15 ^ uint64(uint32(pid))) >> (64 - pcCacheBits)
	e := &r.pcCache[h]
	if e.gen == r.gen && e.pc == pc && e.pid == pid {
		*fr = e.res
		return fr
	}
	*fr = frameRes{}
	if id, link, ok := r.space.Resolve(pid, pc); ok && int(id) < len(r.objs) && r.objs[id] != nil {
		oi := r.objs[id]
		fr.oi, fr.link, fr.fn, fr.phys = oi, link, oi.unknown, oi.unknown
		if c := oi.chainAt(link); c != nil {
			fr.chain = c
			fr.fn, fr.phys = c[0], c[len(c)-1]
			fr.prog = oi.program
		}
	}
	fr.cost = fr.fn
	if fr.prog && !r.a.funcs[fr.fn].program {
		// System-header code inlined or instantiated in the program (a
		// std::find, a std::map's lookup): its cost is the program
		// function's it runs for, via it, as a library callee's is.
		fr.prog = false
		for _, f := range fr.chain[1:] {
			if r.a.funcs[f].program {
				fr.cost, fr.prog = f, true
				break
			}
		}
	}
	if a := r.a; a.comps && len(fr.chain) > 1 && !a.funcInComponent(fr.fn) {
		// Code of another file inlined into the component's (a header's
		// std::find, a helper): its cost is the component function's, via
		// the inlined one, as a library callee's is.
		for _, f := range fr.chain[1:] {
			if a.funcInComponent(f) {
				fr.cost = f
				break
			}
		}
	}
	*e = pcEntry{gen: r.gen, pid: pid, pc: pc, res: *fr}
	return fr
}

const pcCacheBits = 11

// pcEntry is one entry of the PC cache; gen invalidates every entry at
// once when the address space changes.
type pcEntry struct {
	gen uint32
	pid int32
	pc  uint64
	res frameRes
}

func (r *Run) sample(pid int32, s *model.Sample) {
	a := r.a
	a.stamp++
	stamp := a.stamp
	w := float64(s.WeightNS) / 1e9
	if s.WeightNS <= 0 {
		w = r.interval
	}
	r.total += w
	r.samples++
	a.total[r.Kind]++

	nf := min(len(s.Stack), 255)
	if len(r.frames) < nf {
		r.frames = make([]frameRes, nf)
		r.fstamp = make([]uint64, nf)
	}
	r.wait = false
	if nf == 0 {
		r.self[0] += w
		r.unattributed += w
	} else {
		// Self time goes to the symbol, as gprof and perf count it.
		r.self[r.frame(pid, s, 0, stamp).phys] += w
		charged := false
		if r.wait = !r.flatOnly && (r.waiting(pid, s, nf, stamp) || r.waking(pid, s, nf, stamp)); r.wait { // contention.go, wake.go
			r.waited += w
			charged = true
		}
		for i := 0; i < nf && i < maxWalk && !r.wait; i++ {
			fr := r.frame(pid, s, i, stamp)
			if !fr.prog {
				continue
			}
			r.pc[fr.cost] += w
			if i > 0 {
				// The library function the program called carried the cost.
				r.addVia(fr.cost, r.frame(pid, s, i-1, stamp).fn, w)
			} else if fr.cost != fr.fn {
				r.addVia(fr.cost, fr.fn, w)
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
	if s.TailFrames != 0 {
		r.onTailFrames(pid, s, nf, w, stamp)
	}
	if nf > 0 && len(r.bts) > 0 && !r.wait {
		r.onStack(pid, s, nf, w, stamp, r.bts[len(r.bts)-1])
	}
	// Records are written in place, in room made for all the values.
	n := len(r.recs)
	recs := slices.Grow(r.recs, len(s.Values))[:n+len(s.Values)]
	for j := range s.Values {
		if r.value(pid, s, &s.Values[j], nf, w, stamp, &recs[n]) {
			n++
		}
	}
	r.values += int64(n - len(r.recs))
	r.recs = recs[:n]
}

// valRec is one value sample between the feeding and the variables'
// phases.
type valRec struct {
	gv      int32
	obj     int32 // object index of the PC it was read at; -1: unknown
	fn      int32 // globals: the program function there (innermost); -1 otherwise
	blk     uint8 // its block among the pending ones (Run.bts)
	hasPtee bool
	tick    uint64
	link    uint64
	val     uint64 // Value.Bits, or Value.Pointee for a pointer to a basic type
	addr    uint64 // Value.Bits of a pointer to a basic type (D158)
}

// value does what needs the sample (dedupe, the frame's PC, the
// variable-based cost) and writes the value's record for its variable to
// rec, or returns false when the value is not analysed.
func (r *Run) value(pid int32, s *model.Sample, v *model.Value, nf int, w float64, stamp uint64, rec *valRec) bool {
	a := r.a
	if int(v.Obj) >= len(r.objs) || r.objs[v.Obj] == nil {
		r.badValues++
		return false
	}
	oi := r.objs[v.Obj]
	if v.Var < 0 || int(v.Var) >= len(oi.varMap) {
		r.badValues++
		return false
	}
	gv := oi.varMap[v.Var]
	if gv < 0 {
		return false // outside Options.Components
	}
	if int(gv) >= len(r.vfeed) {
		r.growVars()
	}
	vf := &r.vfeed[gv]
	if vf.stamp == stamp {
		return false // read once per thread and tick: the first (shallowest) read is kept
	}
	vf.stamp = stamp
	*rec = valRec{gv: gv, obj: -1, fn: -1, blk: uint8(len(r.bts) - 1), tick: s.Tick, val: v.Bits, hasPtee: v.HasPointee}
	if vf.mode == modePtrBasic {
		rec.val, rec.addr = v.Pointee, v.Bits
	}
	if int(v.Frame) < nf {
		if fr := r.frame(pid, s, int(v.Frame), stamp); fr.oi != nil {
			if a.comps && oi.global[v.Var] && !a.funcInComponent(fr.fn) {
				// As record --component narrows a global to the readers in
				// the component (dwarfschema/globalrefs.go).
				return false
			}
			// The value was read in the logical frame of the function that
			// owns it: a local's defining function, which is on the inline
			// chain at that PC (an outer function's variables are readable
			// inside the bodies inlined into it, as at a call site of a
			// callee that is not inlined); a global's reader, the innermost
			// function there (the PCs of an inlined body belong to the
			// inlined function, method.md §2, and globals are located in
			// the code of the functions that read them).
			f := fr.fn
			if own := vf.fn; own >= 0 && slices.Contains(fr.chain, own) {
				f = own
			}
			if fr.prog && !a.funcs[f].program {
				// A system header's variable: the program function's.
				f = fr.cost
			}
			if !r.wait {
				a.vars[gv].readS[r.Kind] += w // D246
			}
			if a.funcStamp[f] != stamp && !r.wait {
				a.funcStamp[f] = stamp
				r.vc[f] += w
				r.vn[f]++
			}
			rec.obj, rec.link = fr.oi.idx, fr.link
			if fr.prog && oi.global[v.Var] {
				rec.fn = fr.fn
			}
		}
	}
	return true
}

// maxBatchBlocks bounds the blocks grouped at once (valRec.blk).
const maxBatchBlocks = 32

// beginBlock starts the values of a block of thread ts.
func (r *Run) beginBlock(ts *threadState) {
	r.bts = append(r.bts, ts)
}

// flushValues processes the queued values at once, grouped by variable.
func (r *Run) flushValues() {
	if len(r.recs) == 0 {
		r.bts = r.bts[:0]
		return
	}
	var b batch
	var sc scratch
	r.group(&b)
	for _, gs := range b.groups {
		for _, g := range gs {
			r.variable(b.ts, g.gv, b.sorted[g.start:g.end], &sc)
		}
	}
}

// group moves the queued values of the pending blocks into b, grouped by
// variable in file order (a stable counting sort), each worker's groups
// apart: each variable's state is then loaded once per batch of blocks
// rather than once per sample, which is what keeps the analysis fast when
// thousands of variables are sampled.
func (r *Run) group(b *batch) {
	a := r.a
	recs := r.recs
	for _, ts := range r.bts {
		a.growThread(ts, r.Kind == Buggy)
	}
	b.ts = append(b.ts[:0], r.bts...)
	r.bts = r.bts[:0]
	for len(a.grpCount) < len(a.vars) {
		a.grpCount = append(a.grpCount, 0)
	}
	touched := r.touched[:0]
	for i := range recs {
		gv := recs[i].gv
		if a.grpCount[gv] == 0 {
			touched = append(touched, gv)
		}
		a.grpCount[gv]++
	}
	// In the order of the variables: their states then lie in ascending
	// addresses, which the hardware prefetches.
	slices.Sort(touched)
	for len(b.groups) < a.workers {
		b.groups = append(b.groups, nil)
	}
	for w := range b.groups {
		b.groups[w] = b.groups[w][:0]
	}
	off := int32(0)
	for _, gv := range touched {
		n := a.grpCount[gv]
		w := a.worker(gv)
		b.groups[w] = append(b.groups[w], group{gv: gv, start: off, end: off + n})
		a.grpCount[gv] = off
		off += n
	}
	if cap(b.sorted) < len(recs) {
		b.sorted = make([]valRec, len(recs), len(recs)*5/4)
	}
	b.sorted = b.sorted[:len(recs)]
	for i := range recs {
		gv := recs[i].gv
		b.sorted[a.grpCount[gv]] = recs[i]
		a.grpCount[gv]++
	}
	for _, gv := range touched {
		a.grpCount[gv] = 0
	}
	r.touched = touched
	r.recs = recs[:0]
}

// growThread sizes a thread's per-variable state to every known variable,
// so that workers never grow it.
func (a *Analyzer) growThread(ts *threadState, buggy bool) {
	n := len(a.vars)
	if len(ts.vars) < n {
		ts.vars = append(ts.vars, make([]tvState, n-len(ts.vars))...)
	}
	if buggy && len(ts.pcs) < n {
		ts.pcs = append(ts.pcs, make([]runPCs, n-len(ts.pcs))...)
	}
}

// variable processes the values of variable gv read in a batch of blocks,
// in file order; ts are the blocks' threads.
func (r *Run) variable(ts []*threadState, gv int32, recs []valRec, sc *scratch) {
	a := r.a
	k := r.Kind
	vi := &a.vars[gv]
	vi.count[k] += float64(len(recs))
	if vi.fn < 0 {
		for i := range recs {
			if f := recs[i].fn; f >= 0 && f != vi.last {
				vi.funcs[f] = struct{}{}
				vi.last = f
			}
		}
	}
	var tv *tvState
	var rp *runPCs
	blk := -1
	// The observations of each dimension are gathered in order, then added
	// at once (sampleSet.addAll): a set's header stays in registers.
	var vs, ds *sampleSet
	if vi.mode != modeDurOnly {
		if !vi.natural {
			vs = a.set(gv, k, DimValue)
		}
		ds = a.set(gv, k, DimDelta)
	}
	xs, dxs, durs := sc.x[:0], sc.d[:0], sc.dur[:0]
	// A variable the normal runs never sampled is "present only when slow"
	// (method.md §5): every buggy sample is abnormal in the value
	// dimension of that verdict, whatever dimensions v has otherwise.
	onlySlow := k == Buggy && vi.count[Normal] == 0
	for i := range recs {
		rec := &recs[i]
		if int(rec.blk) != blk {
			blk = int(rec.blk)
			tv = &ts[blk].vars[gv]
			if k == Buggy {
				rp = &ts[blk].pcs[gv]
			}
		}
		if onlySlow && rec.obj >= 0 {
			a.countAbnormal(gv, DimValue, rec.obj, rec.link, 1)
		}
		var x float64
		var key uint64
		switch vi.mode {
		case modeBasic:
			x = toFloat(rec.val, vi.kind)
			key = canon(x)
		case modePtrBasic:
			if !rec.hasPtee {
				continue // no pointee (NULL or unreadable): nothing to analyse
			}
			x = toFloat(rec.val, vi.pkind)
			key = canon(x)
			if vi.tags&model.TagLoop != 0 {
				if tv.ahas && tv.addr == rec.addr && rec.tick >= tv.alast {
					tv.alast = rec.tick
				} else {
					if tv.ahas {
						vi.addAddrRun(k, tv)
					}
					tv.ahas, tv.addr, tv.afirst, tv.alast = true, rec.addr, rec.tick, rec.tick
				}
			}
		case modePtrNull:
			if rec.val != 0 {
				x = 1
			}
			key = rec.val
		default:
			key = rec.val
		}
		located := rp != nil && rec.obj >= 0
		if vs != nil {
			xs = append(xs, x)
			if located && !onlySlow && vi.abnormal(DimValue, x) {
				a.countAbnormal(gv, DimValue, rec.obj, rec.link, 1)
			}
		}
		if ds != nil && tv.has {
			d := x - tv.x
			dxs = append(dxs, d)
			if d < 0 {
				vi.down = true
			} else if d > 0 {
				vi.up = true
			}
			if located && vi.abnormal(DimDelta, d) {
				a.countAbnormal(gv, DimDelta, rec.obj, rec.link, 1)
			}
		}
		if tv.has && tv.key == key && rec.tick >= tv.last {
			tv.last = rec.tick
		} else {
			if tv.has {
				// The run of equal values ends (endRun, its sample added
				// below).
				d := float64(tv.last-tv.first) + 1
				durs = append(durs, d)
				if rp != nil {
					if vi.abnormal(DimDuration, d) {
						for i := 0; i < rp.n; i++ {
							a.countAbnormal(gv, DimDuration, rp.obj[i], rp.pc[i], rp.cnt[i])
						}
					}
					rp.n = 0
				}
				if tv.key != key {
					vi.changed[k] = true
				}
			} else {
				vi.streams[k]++
			}
			tv.first, tv.last, tv.key = rec.tick, rec.tick, key
		}
		if located {
			rp.add(rec.obj, rec.link)
		}
		tv.x, tv.has = x, true
	}
	if len(xs) > 0 {
		vs.addAll(xs)
		rs := r.vsets[gv]
		if rs == nil {
			rs = newSampleSet(runSetLimit, uint64(gv)<<8|0xf)
			r.vsets[gv] = rs
		}
		rs.addAll(xs)
	}
	if len(dxs) > 0 {
		ds.addAll(dxs)
	}
	if len(durs) > 0 {
		a.set(gv, k, DimDuration).addAll(durs)
	}
	sc.x, sc.d, sc.dur = xs, dxs, durs
}

// scratch is one goroutine's buffers for Run.variable.
type scratch struct {
	x, d, dur []float64
}

func (rp *runPCs) add(obj int32, pc uint64) {
	for i := 0; i < rp.n; i++ {
		if rp.pc[i] == pc && rp.obj[i] == obj {
			rp.cnt[i]++
			return
		}
	}
	if rp.n < len(rp.pc) {
		rp.pc[rp.n], rp.obj[rp.n], rp.cnt[rp.n] = pc, obj, 1
		rp.n++
	}
}

// addAddrRun adds the length in ticks of tv's ended run of one address
// to vi's set of them (D158).
func (vi *varInfo) addAddrRun(k Kind, tv *tvState) {
	if vi.addrDur[k] == nil {
		vi.addrDur[k] = newSampleSet(runSetLimit, uint64(k)<<4|0xe)
	}
	vi.addrDur[k].add(float64(tv.alast - tv.afirst + 1))
}

// endRun turns the current run of equal values of variable gv into one
// duration sample, in ticks; rp (buggy runs) locates it if abnormal.
func (r *Run) endRun(gv int32, tv *tvState, rp *runPCs) {
	a := r.a
	d := float64(tv.last-tv.first) + 1
	a.set(gv, r.Kind, DimDuration).add(d)
	if rp != nil {
		if a.vars[gv].abnormal(DimDuration, d) {
			for i := 0; i < rp.n; i++ {
				a.countAbnormal(gv, DimDuration, rp.obj[i], rp.pc[i], rp.cnt[i])
			}
		}
		rp.n = 0
	}
}

// flushThreads ends the runs of equal values of the threads that match,
// in the order of their keys: a reservoir's content depends on the order
// of its observations, which must not be the map's.
func (r *Run) flushThreads(match func(*threadState) bool) {
	var keys []uint64
	for k, ts := range r.threads {
		if match(ts) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		r.flushThread(r.threads[k])
		delete(r.threads, k)
	}
	r.lastTS = nil
}

func (r *Run) flushThread(ts *threadState) {
	for i := range ts.vars {
		if tv := &ts.vars[i]; tv.has {
			var rp *runPCs
			if i < len(ts.pcs) {
				rp = &ts.pcs[i]
			}
			r.endRun(int32(i), tv, rp)
			tv.has = false
		}
		if tv := &ts.vars[i]; tv.ahas {
			r.a.vars[i].addAddrRun(r.Kind, tv)
			tv.ahas = false
		}
	}
}

// toFloat interprets normalised value bits by kind (model.Value).
func toFloat(bits uint64, k model.Kind) float64 {
	switch k {
	case model.KindUint, model.KindBool, model.KindPointer, model.KindAggregate:
		return float64(bits)
	case model.KindFloat:
		return math.Float64frombits(bits)
	}
	return float64(int64(bits))
}
