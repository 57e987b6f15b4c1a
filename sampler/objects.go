package sampler

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vprof/vprof/dwarfschema"
	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/pcindex"
	"github.com/vprof/vprof/runtime/proffile"
	"github.com/vprof/vprof/runtime/tailcall"
	"github.com/vprof/vprof/sampler/unwind"
)

// object is one ELF object mapped by a traced process: its CFI, and for a
// program object its schema, PC index and the read plan of its globals.
type object struct {
	id      uint16
	path    string
	schema  *model.Schema
	index   *pcindex.Index // program objects with DWARF only
	table   *unwind.Table  // nil: no CFI
	program bool
	progs   []elf.ProgHeader // PT_LOAD headers, for the load bias

	seen    []uint32 // per Var: the sample stamp at which it was last read
	needFP  []bool   // per Loc: needs the SSE registers
	fbIsCFA []bool   // per Func: frame base is DW_OP_call_frame_cfa (or absent)
	globals []globalRead
	// globalBytes is the size of the cluster buffer of one process.
	globalBytes int
	clusters    []cluster
	clSlot      []int // per cluster: batch slot and arena offset of the current read
	clOff       []int
	// fieldStart[v]..fieldStart[v+1] index the fields read behind pointer
	// variable v (model.Field.Deref); nil when there are none.
	fieldStart []int32
	fields     []derefField
	// tails indexes the tail calls (runtime/tailcall): always, so that
	// no function takes entry values from a call-site record that names
	// another (values.go); restore says the frames they removed are put
	// back while recording (Config.TailFrames, tailframes.go).
	tails   *tailcall.Index
	restore bool
	// naming is a library's schema being read on a goroutine of its own
	// (nil: schema is complete). Until the tracer takes it (named),
	// schema is a placeholder with the path only. enc is the schema
	// encoded for the record by that goroutine (nil: encoded when
	// written).
	naming *naming
	enc    *proffile.EncodedSchema
}

// naming is the reading of a library's symbols (dwarfschema.LoadSymbols),
// which only the object's record needs: sampling needs the CFI and the
// load segments, read first (openLibrary). Reading and demangling the
// C++ library's 4,000 symbols takes 150 ms of CPU (500 ms to 1.5 s on a
// loaded machine), during which every sample queued behind the first
// one in the library waited, its globals and heap read that much later.
type naming struct {
	done   chan struct{}
	schema *model.Schema
	enc    *proffile.EncodedSchema // the schema as the record holds it
	err    error
}

// named reports whether o's schema is complete, taking it from its
// naming goroutine once done; with wait it waits for it. A library whose
// symbols cannot be read keeps its placeholder (its functions unnamed),
// and err says why.
func (o *object) named(wait bool) (ok bool, err error) {
	n := o.naming
	if n == nil {
		return true, nil
	}
	if wait {
		<-n.done
	} else {
		select {
		case <-n.done:
		default:
			return false, nil
		}
	}
	o.naming = nil
	if n.err != nil {
		return true, n.err
	}
	o.schema, o.enc = n.schema, n.enc
	return true, nil
}

// derefField is a field read behind its pointer: Size bytes at the
// pointer's value + off.
type derefField struct {
	v    model.VarID
	off  int64
	size int32
	kind model.Kind
	elem int64 // a vector's length (model.Field.Elem): size is the 16 bytes of its begin and end
}

// globalRead is one global variable read at every tick.
type globalRead struct {
	loc  int32
	v    model.VarID
	kind model.LocKind
	addr uint64 // link-time (LocAddr)
	size int
	off  int // offset of its bytes in the cluster buffer
	cl   int // cluster index
}

// cluster is a run of nearby globals read with one iovec.
type cluster struct {
	lo, hi uint64 // link-time [lo, hi)
	off    int    // in the cluster buffer
}

// Clusters merge globals closer than this (one larger copy is cheaper than
// another iovec), up to maxCluster bytes.
const (
	clusterGap = 256
	maxCluster = 64 << 10
	aggBytes   = 64 // aggregates: FNV-1a of the first 64 bytes
)

func readProgs(f *elf.File) []elf.ProgHeader {
	var out []elf.ProgHeader
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			out = append(out, p.ProgHeader)
		}
	}
	return out
}

// bias is the load bias of o mapped at start from file offset off.
func (o *object) bias(start, off uint64) (uint64, bool) {
	f := &elf.File{}
	for i := range o.progs {
		f.Progs = append(f.Progs, &elf.Prog{ProgHeader: o.progs[i]})
	}
	return unwind.Bias(f, start, off)
}

// loadOptions selects which variables of a program object are sampled.
type loadOptions struct {
	schema dwarfschema.Options
	cache  *dwarfschema.Cache // nil: no cache
	warn   func(string)
	tails  bool // Config.TailFrames: restore tail-call frames while recording
}

// loadProgram loads a program object: schema (dwarfschema.Load, through
// the schema cache, with the call sites that DW_OP_entry_value needs), PC
// index and CFI. A binary without DWARF gives a PC-only object with a
// warning.
func loadProgram(path, display string, opt loadOptions) (*object, error) {
	o := &object{path: display, program: true}
	ef, err := elf.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", display, err)
	}
	o.progs = readProgs(ef)
	ef.Close()
	s, _, err := opt.cache.Load(path, opt.schema)
	switch {
	case errors.Is(err, dwarfschema.ErrNoDWARF) && s != nil:
		opt.warn(fmt.Sprintf("%s has no DWARF debugging information: recording PCs and stacks only, no values (build with -g)", display))
	case err != nil:
		return nil, err
	}
	s.Path = display
	o.schema = s
	if s.HasDWARF {
		o.index = pcindex.New(s)
		o.prepare()
		o.tails = tailIndex(o, path, opt.cache)
		o.restore = opt.tails
	}
	if t, err := unwind.Load(path); err == nil {
		o.table = t
	} else {
		opt.warn(fmt.Sprintf("%s: no call frame information (%v): stacks use frame pointers", display, err))
	}
	return o, nil
}

// nameDelay is added to the reading of a library's symbols (tests: a
// library whose symbols take long to read).
var nameDelay time.Duration

// openLibrary loads a non-program object (shared library, loader): its
// load segments and CFI at once, its symbols on a goroutine of its own
// (o.naming: dwarfschema.LoadSymbols, no DWARF work, whatever the
// library carries).
func openLibrary(path, display string) (*object, error) {
	ef, err := elf.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", display, err)
	}
	defer ef.Close()
	o := &object{path: display, progs: readProgs(ef), schema: &model.Schema{Path: display, Type: "dyn"}}
	if t, err := unwind.New(ef); err == nil {
		t.Path = display
		o.table = t
	}
	n := &naming{done: make(chan struct{})}
	o.naming = n
	go func() {
		defer close(n.done)
		time.Sleep(nameDelay)
		s, err := dwarfschema.LoadSymbols(path)
		if err == nil {
			s.Path = display
			n.enc, _ = proffile.EncodeSchema(s) // nil: encoded when written, and failing then
		}
		n.schema, n.err = s, err
	}()
	return o, nil
}

// loadImage loads an object from its bytes (the vDSO, read from the
// process).
func loadImage(name string, image []byte) (*object, error) {
	s, err := dwarfschema.LoadSymbolsImage(name, image)
	if err != nil {
		return nil, err
	}
	ef, err := elf.NewFile(bytes.NewReader(image))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	o := &object{path: name, progs: readProgs(ef), schema: s}
	if t, err := unwind.LoadBytes(name, image); err == nil {
		o.table = t
	}
	return o, nil
}

// prepare precomputes what the sampling path needs per Loc, Func and Var.
func (o *object) prepare() {
	s := o.schema
	o.seen = make([]uint32, len(s.Vars))
	o.needFP = make([]bool, len(s.Locs))
	for i := range s.Locs {
		l := &s.Locs[i]
		switch l.Kind {
		case model.LocReg:
			o.needFP[i] = l.Reg >= unwind.XMM0 && l.Reg < unwind.XMM0+16
		case model.LocExpr:
			o.needFP[i] = exprUsesSSE(l.Expr)
		}
	}
	o.prepareFields()
	o.fbIsCFA = make([]bool, len(s.Funcs))
	for i := range s.Funcs {
		fb := s.Funcs[i].FrameBase
		o.fbIsCFA[i] = len(fb) == 0 || (len(fb) == 1 && fb[0] == 0x9c)
	}
	// Globals: one plan for every process mapping this object.
	var gs []globalRead
	for _, li := range o.index.Globals() {
		l := &s.Locs[li]
		v := &s.Vars[l.Var]
		g := globalRead{loc: li, v: l.Var, kind: l.Kind, size: int(v.Size)}
		if v.Kind == model.KindAggregate && g.size > aggBytes {
			g.size = aggBytes
		}
		if g.size <= 0 || g.size > aggBytes {
			continue
		}
		if l.Kind == model.LocAddr {
			g.addr = l.Addr
		}
		gs = append(gs, g)
	}
	sort.SliceStable(gs, func(i, j int) bool { return gs[i].addr < gs[j].addr })
	off := 0
	for i := range gs {
		g := &gs[i]
		if g.kind != model.LocAddr {
			g.cl = -1
			continue
		}
		n := len(o.clusters)
		if n > 0 {
			c := &o.clusters[n-1]
			if g.addr <= c.hi+clusterGap && g.addr+uint64(g.size)-c.lo <= maxCluster {
				if end := g.addr + uint64(g.size); end > c.hi {
					off += int(end - c.hi)
					c.hi = end
				}
				g.cl, g.off = n-1, c.off+int(g.addr-c.lo)
				continue
			}
		}
		o.clusters = append(o.clusters, cluster{lo: g.addr, hi: g.addr + uint64(g.size), off: off})
		g.cl, g.off = n, off
		off += g.size
	}
	o.globals = gs
	o.globalBytes = off
}

// prepareFields indexes the fields behind pointers by pointer variable.
func (o *object) prepareFields() {
	s := o.schema
	count := make([]int32, len(s.Vars)+1)
	n := 0
	for i := range s.Vars {
		v := &s.Vars[i]
		if f := v.Field; f != nil && f.Deref && f.Of >= 0 && int(f.Of) < len(s.Vars) && v.Size > 0 && v.Size <= maxScalar && v.Kind != model.KindAggregate {
			count[f.Of+1]++
			n++
		}
	}
	if n == 0 {
		return
	}
	for i := 1; i < len(count); i++ {
		count[i] += count[i-1]
	}
	o.fieldStart = count
	o.fields = make([]derefField, n)
	fill := append([]int32(nil), count[:len(s.Vars)]...)
	for i := range s.Vars {
		v := &s.Vars[i]
		if f := v.Field; f != nil && f.Deref && f.Of >= 0 && int(f.Of) < len(s.Vars) && v.Size > 0 && v.Size <= maxScalar && v.Kind != model.KindAggregate {
			d := derefField{v: model.VarID(i), off: f.Offset, size: v.Size, kind: v.Kind}
			if f.Elem > 0 && v.Size == 8 {
				d.size, d.elem = 16, f.Elem
			}
			o.fields[fill[f.Of]] = d
			fill[f.Of]++
		}
	}
}

// exprUsesSSE reports whether a location expression names an SSE register
// (DW_OP_reg17..31, DW_OP_regx >= 17): reading it needs PTRACE_GETFPREGS.
func exprUsesSSE(e []byte) bool {
	for i := 0; i < len(e); i++ {
		c := e[i]
		if c >= 0x50+unwind.XMM0 && c <= 0x6f {
			return true
		}
		if c == 0x90 && i+1 < len(e) && e[i+1] >= unwind.XMM0 && e[i+1] < 0x80 {
			return true
		}
	}
	return false
}

// record is the profile's description of o.
func (o *object) record() *model.Object {
	return &model.Object{ID: o.id, Path: o.path, BuildID: o.schema.BuildID, Program: o.program, Schema: o.schema}
}

// objectCache holds the objects loaded for a recording (programs,
// libraries, the vDSO), each loaded once and numbered in load order: the
// profile's object ids, list[id]. Each is written to the profile as it
// is loaded, or when the profile is created (profWriter.create).
type objectCache struct {
	byKey map[string]*object
	list  []*object
	opt   loadOptions
	out   *profWriter
	ahead map[string]*loadAhead // libraries being loaded ahead, by path (preloadNeeded)
}

// loadAhead is a library loading on another goroutine.
type loadAhead struct {
	done chan struct{}
	o    *object
	err  error
}

// get returns the object at display path, loading it on first use from
// file (which may be a /proc path).
func (oc *objectCache) get(file, display string, program bool) (*object, error) {
	key := display
	if program {
		key = "prog:" + display
	}
	if o := oc.byKey[key]; o != nil {
		return o, nil
	}
	var o *object
	var err error
	if la := oc.ahead[display]; la != nil && !program {
		delete(oc.ahead, display)
		<-la.done // its CFI: its symbols may still be read (o.naming)
		o, err = la.o, la.err
	}
	switch {
	case o != nil:
	case program:
		o, err = loadProgram(file, display, oc.opt)
	default:
		o, err = openLibrary(file, display)
	}
	if err != nil {
		return nil, err
	}
	oc.add(key, o)
	return o, nil
}

// preloadNeeded starts loading the program's dynamic loader (PT_INTERP) and
// the shared libraries that the program at path names (DT_NEEDED), each on
// a goroutine of its own, the libraries found where the
// dynamic loader looks by default (LD_LIBRARY_PATH from env, the
// program's RUNPATH or RPATH but for $ORIGIN, the system directories).
// Loaded when their first sample is drained, a library's CFI held up the
// tracer for 8-14 ms (libc, on the 16-CPU device) while the program
// waited, stopped at its next thread creation; the tracer now takes what
// the goroutine loaded. A library found elsewhere, or under another name
// in the maps, is loaded as before; one never mapped costs the load only.
func (oc *objectCache) preloadNeeded(path string, env []string) {
	ef, err := elf.Open(path)
	if err != nil {
		return
	}
	needed, _ := ef.DynString(elf.DT_NEEDED)
	// The dynamic loader (PT_INTERP) is mapped with the program, and
	// loaded when the program is first read, before it runs: on the
	// program's critical path unless loaded here.
	for _, pr := range ef.Progs {
		if pr.Type != elf.PT_INTERP {
			continue
		}
		b := make([]byte, min(pr.Filesz, 4096))
		if n, err := pr.ReadAt(b, 0); err == nil || n == len(b) {
			if interp := strings.TrimRight(string(b[:n]), "\x00"); filepath.IsAbs(interp) {
				oc.loadAhead(interp)
			}
		}
	}
	var dirs []string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "LD_LIBRARY_PATH="); ok {
			dirs = append(dirs, filepath.SplitList(v)...)
		}
	}
	for _, tag := range []elf.DynTag{elf.DT_RUNPATH, elf.DT_RPATH} {
		if rp, err := ef.DynString(tag); err == nil {
			for _, r := range rp {
				for _, d := range filepath.SplitList(r) {
					if !strings.Contains(d, "$") {
						dirs = append(dirs, d)
					}
				}
			}
		}
	}
	ef.Close()
	dirs = append(dirs, "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib")
	for _, name := range needed {
		if strings.Contains(name, "/") {
			continue
		}
		for _, d := range dirs {
			if d == "" {
				continue
			}
			if oc.loadAhead(filepath.Join(d, name)) {
				break
			}
		}
	}
}

// loadAhead starts loading the library at path, under the path the maps
// will show, on a goroutine of its own, unless it is loaded or loading.
// It reports whether path exists.
func (oc *objectCache) loadAhead(path string) bool {
	real, err := filepath.EvalSymlinks(path) // as the maps name it
	if err != nil {
		return false
	}
	if oc.byKey[real] != nil || oc.ahead[real] != nil {
		return true
	}
	if oc.ahead == nil {
		oc.ahead = map[string]*loadAhead{}
	}
	la := &loadAhead{done: make(chan struct{})}
	oc.ahead[real] = la
	go func() {
		defer close(la.done)
		la.o, la.err = openLibrary(real, real)
	}()
	return true
}

func (oc *objectCache) add(key string, o *object) {
	o.id = uint16(len(oc.list))
	oc.byKey[key] = o
	oc.list = append(oc.list, o)
	oc.out.object(o)
}

// loadMain loads the program object of p's current image.
func (oc *objectCache) loadMain(p *process) error {
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", p.pid))
	if errors.Is(err, fs.ErrPermission) {
		// The process exists (attach saw /proc/PID) but is not ours to read.
		return &PermissionError{PID: p.pid, Err: err}
	}
	if err != nil {
		return fmt.Errorf("process %d: %w", p.pid, ErrNoProcess)
	}
	p.exe = trimDeleted(exe)
	o, err := oc.get(fmt.Sprintf("/proc/%d/exe", p.pid), p.exe, true)
	if err != nil {
		return err
	}
	p.main = o
	return nil
}

func trimDeleted(s string) string {
	const d = " (deleted)"
	if len(s) > len(d) && s[len(s)-len(d):] == d {
		return s[:len(s)-len(d)]
	}
	return s
}

// vdso returns the vDSO object, read from p's memory once (every process
// of one kernel maps the same image).
func (oc *objectCache) vdso(p *process, e *mapEntry) *object {
	if o := oc.byKey["[vdso]"]; o != nil {
		return o
	}
	size := int(e.End - e.Start)
	if size <= 0 || size > 1<<20 {
		return nil
	}
	img := make([]byte, size)
	local := []unix.Iovec{{Base: &img[0]}}
	local[0].SetLen(size)
	remote := []unix.RemoteIovec{{Base: uintptr(e.Start), Len: size}}
	if n, err := readv(p.pid, local, remote); err != nil || n != size {
		return nil
	}
	o, err := loadImage("[vdso]", img)
	if err != nil {
		return nil
	}
	oc.add("[vdso]", o)
	return o
}
