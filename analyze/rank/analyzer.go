package rank

import (
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/pcindex"
	"github.com/vprof/vprof/runtime/proffile"
	"github.com/vprof/vprof/runtime/symname"
)

// Kind says whether a run is a normal (baseline) or a buggy (slow) run.
type Kind uint8

const (
	Normal Kind = iota
	Buggy
)

func (k Kind) String() string {
	if k == Buggy {
		return "buggy"
	}
	return "normal"
}

// Dimension is one of the three dimensions of a variable (method.md §5).
type Dimension uint8

const (
	DimValue Dimension = iota
	DimDelta
	DimDuration
	numDims
)

var dimNames = [...]string{"value", "delta", "duration"}

func (d Dimension) String() string {
	if int(d) < len(dimNames) {
		return dimNames[d]
	}
	return ""
}

// Options are the method's parameters; DefaultOptions gives the method's
// defaults.
type Options struct {
	DefaultDiscount float64 // r when the distributions look the same (0.8)
	ValidDiscount   float64 // r below this becomes 0 (0.1)
	Alpha           float64 // significance level of the Anderson-Darling test (0.05)
	MinSamples      int     // fewer samples on a side: no verdict (3)
	HistWindow      int     // hist-discounter: |rank_n - rank_b| <= this counts (3)
	Slack           float64 // normal range widening for abnormal samples (0.05)
	PatternTop      int     // classify the bug pattern of this many top functions (10)
	Locations       int     // source locations kept per function (3)
	// MaxDistinct bounds the memory of one variable's samples in one
	// dimension and kind: up to this many distinct values are counted
	// exactly; beyond, a uniform reservoir of this many samples is kept.
	MaxDistinct int
	// Components keeps only variables declared in source files under
	// these paths, as `vprof record --component` does at recording time
	// (method.md §2): the others are ignored as if never sampled, and
	// functions left without variables go to the hist-discounter. A
	// recording of the whole program can so be narrowed to one component
	// after the fact, and several components tried without recording
	// again. Empty keeps all.
	Components []string
}

// DefaultOptions returns the method's defaults (method.md §5-8).
func DefaultOptions() Options {
	return Options{
		DefaultDiscount: 0.8,
		ValidDiscount:   0.1,
		Alpha:           0.05,
		MinSamples:      3,
		HistWindow:      3,
		Slack:           0.05,
		PatternTop:      10,
		Locations:       3,
		MaxDistinct:     4096,
	}
}

// funcInfo is one function known to the analysis, matched across runs by
// key (its linkage name; clone suffixes stripped).
type funcInfo struct {
	key     string
	display string
	program bool // in an object with a schema: may be ranked
	file    string
	line    int32
	locals  []int32 // variables defined in the function
	wait    bool    // a blocking call of the C library's threads (contention.go)
	wake    bool    // the C library's futex wake of a lock (wake.go)
	// inlineOnly: every occurrence of the function in a schema has no
	// out-of-line code (every call to it was inlined; D133).
	inlineOnly bool
	outOfLine  bool // some occurrence has out-of-line code or a symbol
}

// varMode is how a variable's samples are analysed.
type varMode uint8

const (
	modeBasic    varMode = iota // value, delta, duration of the value
	modePtrBasic                // pointer to a basic type: all three on the pointee
	modeDurOnly                 // hashed aggregates: duration only
	// modePtrNull: other pointers. An address differs between runs by
	// nature: value and delta are of null (0) / non-null (1); duration is
	// of the address (how long it stays the same). What the pointer
	// points to is analysed through its fields (model.Field).
	modePtrNull
)

// varInfo is one monitored variable, matched across runs by key. The
// fields read for every value sample come first, to share cache lines.
type varInfo struct {
	mode    varMode
	natural bool // differs between runs by nature: no value dimension
	param   bool // a parameter of its function, or a field behind one
	// entry: over some PC range its location is an entry value (DWARF
	// DW_OP_entry_value): readable there only where a caller's call-site
	// record gives the value (method.md §5, decision D335).
	entry   bool
	kind    model.Kind    //
	pkind   model.Kind    // pointee kind of a pointer to a basic type
	has     [numDims]bool // the normal runs have samples in that dimension
	fn      int32         // defining function, -1 for globals
	last    int32         // cache of the last function added to funcs
	count   [2]float64    // value samples per kind
	readS   [2]float64    // seconds of the samples that read it, waits left out (D246)
	changed [2]bool       // per kind: the value changed on some thread
	streams [2]int32      // per kind: (run, thread) pairs that read it
	down    bool          // some thread of some run saw the value decrease
	up      bool          // ... or increase
	sets    [2][numDims]*sampleSet
	addrDur [2]*sampleSet    // per kind: lengths in ticks of runs of one address, loop variables compared by their pointee (D158)
	lo      [numDims]float64 // normal range with slack (buggy runs)
	hi      [numDims]float64 //

	key   string
	name  string // for people: the source name, "#N" added for the Nth of a name in one function
	tags  model.Tags
	typ   string
	funcs map[int32]struct{} // globals: functions with a PC where it was sampled

	// outlives: its storage outlives a call of its function (a global,
	// a function-scope static, a field behind a pointer): the state a
	// call finds and leaves (decision D31).
	outlives bool
	// derefOf: for a field behind a pointer (model.Field.Deref), the
	// pointer's variable + 1; 0 otherwise (decision D80).
	derefOf int32
	// given: for a pointer parameter or a field behind one, what it is
	// whatever its function or name: the parameter's type, then the
	// offset of each field on the way ("T *->8"); "" for any other
	// variable (handon.go, decision D135).
	given string

	abLast    [numDims]abKey // cache of the last abnormal counter used
	abLastIdx [numDims]int32 // its index + 1
}

// objInfo is one object (ELF file) of one or more runs with its schema.
type objInfo struct {
	idx     int32 // in Analyzer.objs
	path    string
	buildID string
	program bool
	schema  *model.Schema
	funcMap []int32 // schema FuncID (or len(Funcs)+symbol index) -> global function
	varMap  []int32 // schema VarID -> global variable, -1 if not monitored
	global  []bool  // schema VarID -> a global variable
	ix      *pcindex.Index
	// chains: per inline chain ID of ix, the chain in global function
	// indices; symChains: per symbol, a one-function chain (objects
	// without functions in their schema).
	chains    [][]int32
	symChains [][]int32
	unknown   int32 // global function for PCs of this object outside every function
	// inlinesOf: schema FuncID -> indices of its Schema.Inlines, built on
	// first use (callLine).
	inlinesOf map[int32][]int32
}

// abKey identifies a counter of abnormal samples: variable, dimension and
// the link-time PC in one object where they were read.
type abKey struct {
	v   int32
	dim Dimension
	obj int32
	pc  uint64
}

// Analyzer accumulates normal runs, then buggy runs, and ranks functions.
// Memory grows with the number of distinct functions, variables, threads
// and abnormal (variable, PC) pairs, not with the number of samples.
type Analyzer struct {
	opt Options
	// schemas decodes a schema shared by several profiles (the runs of
	// one build) once; loadObject keeps one objInfo per build anyway.
	schemas proffile.SchemaCache
	// comps: Options.Components is set; funcComp caches per function
	// whether it is in a component (0 unknown, 1 yes, -1 no).
	comps    bool
	funcComp []int8
	// compPaths: Options.Components; compFiles, without them, the source
	// files the recordings' schemas were narrowed to (record --component).
	compPaths []string
	compFiles map[string]bool

	funcs   []funcInfo
	funcIdx map[string]int32 // key ("\x00lib" suffix for library functions) -> index
	vars    []varInfo
	varIdx  map[string]int32
	objs    []*objInfo
	objKey  map[string]*objInfo // build-id + path -> loaded object

	runs   []*Run
	frozen bool // normal runs are over: normal ranges computed

	stamp     uint64     // sampling event counter
	funcStamp []uint64   // per function: last event that counted it
	passer    []bool     // per function: a caller that can only pass control (passing.go)
	loopWrong []bool     // per function: a loop variable with a verdict below DefaultDiscount (passing.go)
	stk       stackCover // buggy runs
	stkNormal stackCover // normal runs
	// countRuns are the call counts of the profiles recorded with
	// --count (counts.go, D220); countsTaken: those of the runs fed whole
	// are in.
	countRuns   []countRun
	countsTaken bool
	grpCount    []int32 // per variable: scratch of Run.flushValues, zero between blocks

	// Per function (handon.go, D135): the given paths of its variables
	// that went wrong, and whether every variable of it that went wrong
	// has one (a struct pointer parameter or a field behind one).
	handed     [][]string
	handedOnly []bool

	// Per function (echo.go, D43): its only anomalies are durations and
	// deltas of values found normal; no parameter of it went wrong.
	echo, givenNormal []bool
	// normalScale multiplies the normal runs' costs and stack times before
	// the slow runs' are compared with them (scale.go, D56); Result sets it.
	normalScale float64

	// Per function (presence.go, D60): every variable verdict of it is
	// of presence, whatever its tags.
	presenceOnly []bool
	// Per function (runvalues.go, D70): every variable of it that went
	// wrong kept one value through each run of both kinds (runOnly), or
	// is one a frame above varied work has throughout (heldOnly).
	runOnly, heldOnly []bool
	// Per function (setting.go, D160): its strongest evidence is values
	// kept through each run (setting); a loop variable of its own went
	// further in value (further).
	setting, further []bool
	// Per function (drivers.go, D209): every variable of it that went
	// wrong is a global (or a field behind one).
	globalsOnly []bool
	// Per function (driverown.go, D313): a driver frame whose loop does
	// not spin, with most of its slow-run stack time in the work below it.
	aboveWork []bool

	libNames libNames // library code named from debug files (wake.go, D44)

	// Abnormal-sample counters, one table per worker: a variable's samples
	// are processed by worker v % workers only (see pipeline.go).
	workers int
	ab      []abTable

	total [2]float64 // samples per kind, over the runs

	warnings []string
}

// New returns an Analyzer with options o.
func New(o Options) *Analyzer {
	if o.MaxDistinct < 16 {
		o.MaxDistinct = 16
	}
	a := &Analyzer{
		opt:       o,
		comps:     len(o.Components) > 0,
		compPaths: o.Components,
		funcIdx:   map[string]int32{},
		varIdx:    map[string]int32{},
		objKey:    map[string]*objInfo{},

		normalScale: 1,
	}
	// The feeding goroutine needs a core of its own (pipeline.go).
	a.workers = max(1, min(runtime.GOMAXPROCS(0)-1, maxWorkers))
	a.ab = make([]abTable, a.workers)
	for i := range a.ab {
		a.ab[i].idx = map[abKey]int32{}
	}
	a.internFunc("<unknown>", "<unknown>", false, "", 0)
	return a
}

// Warnings returns what the analysis noticed but could work around.
func (a *Analyzer) Warnings() []string { return a.warnings }

func (a *Analyzer) warnf(format string, args ...any) {
	a.warnings = append(a.warnings, fmt.Sprintf(format, args...))
}

func (a *Analyzer) internFunc(key, display string, program bool, file string, line int32) int32 {
	k := key
	if !program {
		k += "\x00lib"
	}
	if i, ok := a.funcIdx[k]; ok {
		return i
	}
	i := int32(len(a.funcs))
	a.funcs = append(a.funcs, funcInfo{key: key, display: display, program: program, file: file, line: line,
		wait: !program && waitName(display), wake: !program && wakeName(display)})
	a.funcIdx[k] = i
	a.funcStamp = append(a.funcStamp, 0)
	return i
}

// systemFile reports whether a source file is a system or compiler header
// (the C++ standard library's templates, libc's inline functions): code
// from it that is inlined into or instantiated in the program is library
// code compiled into the program (method.md §4), not a root cause.
func systemFile(f string) bool {
	for _, p := range []string{"/usr/include/", "/usr/local/include/", "/usr/lib/gcc/", "/usr/lib/llvm"} {
		if strings.HasPrefix(f, p) {
			return true
		}
	}
	return strings.Contains(f, "/include/c++/")
}

// headerHelper reports whether a program function is a helper of the
// program's own headers inlined at every call (method.md §4, decision
// D17): it has no out-of-line code, so no frame and no symbol of its own,
// and it is defined in a header, where code goes to be inlined into its
// callers as a macro's would. Its cost is the cost of the functions it is
// inlined into, as the flat profile, perf and gprof charge it, so that
// report and flat agree on whose time it is.
func headerHelper(f *model.Func, file string) bool {
	if len(f.Ranges) > 0 {
		return false
	}
	switch filepath.Ext(file) {
	case ".h", ".hh", ".hpp", ".hxx", ".h++", ".inl", ".ipp", ".tcc", ".ic":
		return true
	}
	return false
}

// Words whose presence in a variable's name marks it as differing from
// run to run by nature (method.md §5).
var naturalWords = map[string]bool{
	"pid": true, "tid": true, "proc": true, "thread": true, "time": true,
	"clock": true, "now": true, "ts": true, "timestamp": true,
}

var naturalTypes = map[string]bool{
	"pid_t": true, "pthread_t": true, "time_t": true, "clock_t": true,
	"struct timespec": true, "struct timeval": true,
}

// nameWords splits a name into words at '_', digits and lower-to-upper
// case changes.
func nameWords(name string) []string {
	var words []string
	start := -1
	flush := func(i int) {
		if start >= 0 && i > start {
			words = append(words, name[start:i])
		}
		start = -1
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_' || (c >= '0' && c <= '9'):
			flush(i)
		case c >= 'A' && c <= 'Z' && i > 0 && name[i-1] >= 'a' && name[i-1] <= 'z':
			flush(i)
			start = i
		default:
			if start < 0 {
				start = i
			}
		}
	}
	flush(len(name))
	return words
}

// naturallyVarying reports whether a variable's values differ between runs
// by nature (process ids, times, clocks), by name or type.
func naturallyVarying(name, typ string) bool {
	for _, w := range nameWords(name) {
		if naturalWords[strings.ToLower(w)] {
			return true
		}
	}
	t := typ
	for _, q := range []string{"const ", "volatile ", "restrict "} {
		t = strings.ReplaceAll(t, q, "")
	}
	t = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(t), "*"))
	t = strings.Join(strings.Fields(t), " ")
	return naturalTypes[t]
}

// loadObject interns an object's functions and variables. Objects with the
// same build-id and path are loaded once across runs, but only when they
// were recorded alike: a program started through a shell's exec can be
// listed first as a library without a schema and then as the program with
// one, and the run that shows it first must not hide the schema from the
// others.
func (a *Analyzer) loadObject(o *model.Object) *objInfo {
	key := ""
	if o.BuildID != "" {
		key = fmt.Sprintf("%s\x00%s\x00%t\x00%t", o.BuildID, o.Path, o.Program, o.Schema != nil)
		if oi := a.objKey[key]; oi != nil {
			return oi
		}
	}
	s := o.Schema
	if s == nil {
		s = &model.Schema{Path: o.Path}
	}
	if len(a.opt.Components) == 0 && len(s.Components) > 0 {
		if a.compFiles == nil {
			a.compFiles = map[string]bool{}
		}
		for _, f := range s.ComponentFiles {
			if !a.compFiles[f] {
				a.compFiles[f] = true
				clear(a.funcComp)
			}
		}
		a.comps = true
	}
	oi := &objInfo{path: o.Path, buildID: o.BuildID, program: o.Program, schema: s}
	oi.ix = pcindex.New(s)

	// Functions: static functions of one name in several files are told
	// apart by file.
	nameCount := map[string]int{}
	for _, f := range s.Funcs {
		nameCount[symname.StripClone(f.Name)]++
	}
	file := func(i int32) string {
		if i >= 0 && int(i) < len(s.Files) {
			return s.Files[i]
		}
		return ""
	}
	oi.funcMap = make([]int32, len(s.Funcs)+len(s.Symbols))
	for i, f := range s.Funcs {
		name := symname.StripClone(f.Name)
		k, disp := name, displayName(f.Name, f.Display)
		if nameCount[name] > 1 && file(f.File) != "" {
			k += "@" + filepath.Base(file(f.File))
			disp += " (" + filepath.Base(file(f.File)) + ")"
		}
		// A PLT stub (memcpy@plt) is code the linker made to reach a
		// library: it is not ranked, as the program's unnamed code was
		// not before stubs had names (method.md §4, D290).
		program := o.Program && !systemFile(file(f.File)) && !headerHelper(&s.Funcs[i], file(f.File)) && !symname.IsPLT(f.Name)
		oi.funcMap[i] = a.internFunc(k, symname.StripClone(disp), program, file(f.File), f.Line)
		fi := &a.funcs[oi.funcMap[i]]
		fi.outOfLine = fi.outOfLine || len(f.Ranges) > 0
		fi.inlineOnly = !fi.outOfLine
	}
	if len(s.Funcs) == 0 {
		for i, sym := range s.Symbols {
			name := symname.StripClone(sym.Name)
			oi.funcMap[len(s.Funcs)+i] = a.internFunc(name, symname.StripClone(displayName(sym.Name, "")), o.Program, "", 0)
			fi := &a.funcs[oi.funcMap[len(s.Funcs)+i]]
			fi.outOfLine, fi.inlineOnly = true, false
		}
	}
	oi.unknown = a.internFunc("["+filepath.Base(o.Path)+"]", "["+filepath.Base(o.Path)+"]", false, "", 0)
	// Inline chains in global function indices.
	oi.chains = make([][]int32, oi.ix.NumChains())
	for id := range oi.chains {
		c := oi.ix.ChainByID(int32(id))
		g := make([]int32, len(c))
		for i, f := range c {
			if f >= 0 && int(f) < len(s.Funcs) {
				g[i] = oi.funcMap[f]
			} else {
				g[i] = oi.unknown
			}
		}
		oi.chains[id] = g
	}
	if len(s.Funcs) == 0 {
		oi.symChains = make([][]int32, len(s.Symbols))
		for i := range s.Symbols {
			oi.symChains[i] = oi.funcMap[len(s.Funcs)+i : len(s.Funcs)+i+1 : len(s.Funcs)+i+1]
		}
	}

	// Variables: keyed by defining function and name; the Nth variable of
	// one name in one function (by declaration line) gets "#N".
	type vk struct {
		fn   int32
		name string
	}
	order := make([]int, len(s.Vars))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int {
		vx, vy := &s.Vars[x], &s.Vars[y]
		if vx.File != vy.File {
			return int(vx.File - vy.File)
		}
		return int(vx.Line - vy.Line)
	})
	seen := map[vk]int{}
	oi.varMap = make([]int32, len(s.Vars))
	oi.global = make([]bool, len(s.Vars))
	for _, i := range order {
		v := &s.Vars[i]
		fn := int32(-1)
		fkey := model.GlobalFunc
		if v.Func >= 0 && int(v.Func) < len(s.Funcs) {
			fn = oi.funcMap[v.Func]
			fkey = a.funcs[fn].key
		}
		seen[vk{fn, v.Name}]++
		name := v.Name
		if n := seen[vk{fn, v.Name}]; n > 1 {
			name = fmt.Sprintf("%s#%d", v.Name, n)
		}
		oi.global[i] = fn < 0
		if !a.inComponent(s, v) {
			oi.varMap[i] = -1
			continue
		}
		oi.varMap[i] = a.internVar(fkey+"\x00"+name, name, fn, v)
		if isParam(s, v) {
			a.vars[oi.varMap[i]].param = true
		}
	}
	for i := range s.Locs {
		l := &s.Locs[i]
		if l.Kind != model.LocExpr || l.Var < 0 || int(l.Var) >= len(oi.varMap) {
			continue
		}
		if f := oi.varMap[l.Var]; f >= 0 && !a.vars[f].entry && hasEntryValue(l.Expr) {
			a.vars[f].entry = true
		}
	}
	for i := range s.Vars {
		v := &s.Vars[i]
		if v.Field == nil || !v.Field.Deref || v.Field.Of < 0 || int(v.Field.Of) >= len(s.Vars) {
			continue
		}
		if f, p := oi.varMap[i], oi.varMap[v.Field.Of]; f >= 0 && p >= 0 {
			a.vars[f].derefOf = p + 1
		}
	}
	for i := range s.Vars {
		if f := oi.varMap[i]; f >= 0 && a.vars[f].given == "" {
			a.vars[f].given = givenPath(s, &s.Vars[i])
		}
	}
	if key != "" {
		a.objKey[key] = oi
	}
	oi.idx = int32(len(a.objs))
	a.objs = append(a.objs, oi)
	return oi
}

// inComponent reports whether v is declared in a source file under one of
// Options.Components. A local without a file of its own takes its
// function's. An absolute component is a path prefix; a relative one
// ("buf0lru.c", "storage/innobase/buf/") matches from any directory
// boundary of the file's path, as the compilation directory the recorder
// matched against is not in the profile.
func (a *Analyzer) inComponent(s *model.Schema, v *model.Var) bool {
	if len(a.opt.Components) == 0 {
		return true
	}
	f := v.File
	if f < 0 && v.Func >= 0 && int(v.Func) < len(s.Funcs) {
		f = s.Funcs[v.Func].File
	}
	if f < 0 || int(f) >= len(s.Files) {
		return false
	}
	return matchComponent(s.Files[f], a.opt.Components)
}

// funcInComponent reports whether global function f is declared in a file
// of Options.Components, cached per function.
func (a *Analyzer) funcInComponent(f int32) bool {
	for int(f) >= len(a.funcComp) {
		a.funcComp = append(a.funcComp, 0)
	}
	if a.funcComp[f] == 0 {
		a.funcComp[f] = -1
		if file := a.funcs[f].file; file != "" && (a.compFiles[file] || matchComponent(file, a.compPaths)) {
			a.funcComp[f] = 1
		}
	}
	return a.funcComp[f] > 0
}

// isParam reports whether v is a parameter of its function or a field of
// one (pool->n_free of a parameter pool).
func isParam(s *model.Schema, v *model.Var) bool {
	for range len(s.Vars) { // a field of a field: bounded by the schema
		if v.Param {
			return true
		}
		if v.Field == nil || v.Field.Of < 0 || int(v.Field.Of) >= len(s.Vars) {
			return false
		}
		v = &s.Vars[v.Field.Of]
	}
	return false
}

// matchComponent is the rule of record and schema (model.MatchComponent).
func matchComponent(file string, comps []string) bool { return model.MatchComponent(file, comps) }

func (a *Analyzer) internVar(key, name string, fn int32, v *model.Var) int32 {
	if i, ok := a.varIdx[key]; ok {
		a.vars[i].tags |= v.Tags
		return i
	}
	i := int32(len(a.vars))
	vi := varInfo{key: key, name: name, fn: fn, tags: v.Tags, kind: v.Kind, pkind: v.PointeeKind, typ: v.Type, last: -1}
	switch {
	case v.Kind == model.KindPointer && v.PointeeKind != 0 && v.PointeeKind != model.KindPointer && v.PointeeKind != model.KindAggregate:
		vi.mode = modePtrBasic
	case v.Kind == model.KindPointer:
		vi.mode = modePtrNull
	case v.Kind == model.KindAggregate:
		vi.mode = modeDurOnly
	}
	vi.natural = naturallyVarying(v.Name, v.Type)
	vi.outlives = fn < 0 || v.Static || v.Field != nil && v.Field.Deref
	if fn < 0 {
		vi.funcs = map[int32]struct{}{}
	} else {
		a.funcs[fn].locals = append(a.funcs[fn].locals, i)
	}
	a.vars = append(a.vars, vi)
	a.varIdx[key] = i
	return i
}

// set returns the sample set of variable v for kind k and dimension d. The
// three dimensions of one variable and kind are allocated together, so
// that one sample's updates touch neighbouring memory.
func (a *Analyzer) set(v int32, k Kind, d Dimension) *sampleSet {
	vi := &a.vars[v]
	s := vi.sets[k][d]
	if s == nil {
		all := new([numDims]sampleSet)
		for j := range all {
			all[j].init(a.opt.MaxDistinct, uint64(v)<<8|uint64(k)<<4|uint64(j))
			vi.sets[k][j] = &all[j]
		}
		s = vi.sets[k][d]
	}
	return s
}

// freeze ends the normal runs: it computes each variable's normal range per
// dimension, with slack, for the abnormal samples of the buggy runs.
func (a *Analyzer) freeze() {
	if a.frozen {
		return
	}
	a.frozen = true
	for i := range a.vars {
		vi := &a.vars[i]
		for d := range numDims {
			s := vi.sets[Normal][d]
			if s == nil || s.n == 0 || s.min > s.max {
				continue
			}
			vi.has[d] = true
			vi.lo[d] = s.min - a.opt.Slack*abs(s.min)
			vi.hi[d] = s.max + a.opt.Slack*abs(s.max)
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// abnormal reports whether a buggy observation x of variable vi in dimension
// d lies outside the normal range (always, when the normal runs have none).
func (vi *varInfo) abnormal(d Dimension, x float64) bool {
	return !vi.has[d] || x > vi.hi[d] || x < vi.lo[d]
}

// abTable holds abnormal-sample counters.
type abTable struct {
	idx   map[abKey]int32
	count []float64
}

// worker is the worker that processes variable v's samples.
func (a *Analyzer) worker(v int32) int { return int(v) % a.workers }

// countAbnormal adds n abnormal samples of v in d read at pc of object obj.
// Only v's worker calls it for v.
func (a *Analyzer) countAbnormal(v int32, d Dimension, obj int32, pc uint64, n float64) {
	vi := &a.vars[v]
	t := &a.ab[a.worker(v)]
	k := abKey{v, d, obj, pc}
	if vi.abLastIdx[d] > 0 && vi.abLast[d] == k {
		t.count[vi.abLastIdx[d]-1] += n
		return
	}
	i, ok := t.idx[k]
	if !ok {
		i = int32(len(t.count))
		t.count = append(t.count, 0)
		t.idx[k] = i
	}
	t.count[i] += n
	vi.abLast[d], vi.abLastIdx[d] = k, i+1
}

// kindCounts returns how many slow (buggy) and normal runs were added.
func (a *Analyzer) kindCounts() (nb, nn float64) {
	for _, r := range a.runs {
		if r.Kind == Buggy {
			nb++
		} else {
			nn++
		}
	}
	return nb, nn
}
