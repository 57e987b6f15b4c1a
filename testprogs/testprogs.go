// Package testprogs gives other packages' tests the C and C++ programs of this
// directory: bug shapes from Table 3.1 of the vProf chapter, each with a normal
// and a buggy mode, their manifest (manifest.json), and binaries built on
// demand with `make -C testprogs`.
//
// A bug program is a directory NAME/ whose functions sit in source files named
// and grouped as in the application it reproduces (lru_scan/buf0lru.c,
// lru_scan/buf0buf.c, ... and the driver in main.c, which describes the
// program in its header comment). The manifest names the file that holds the
// root cause (Source) and the --component path of the thesis' evaluation
// protocol (Component: that file, "to limit the variables sampled").
// A support program (values, soak) is a single file in this directory.
//
// Typical use in a test:
//
//	bin := testprogs.Path(t, "lru_scan")        // builds everything once if needed
//	progs, err := testprogs.Manifest()
package testprogs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/symname"
)

// Pattern is a bug pattern of method.md §8.
type Pattern string

// The three bug patterns.
const (
	MissingConstraint Pattern = "missing constraint"
	WrongConstraint   Pattern = "wrong constraint"
	Scalability       Pattern = "scalability"
)

// Valid reports whether p is one of the three patterns.
func (p Pattern) Valid() bool {
	return p == MissingConstraint || p == WrongConstraint || p == Scalability
}

// Shapes are the hazards a program can show a root-cause ranking, each a way
// real programs mislead a value profiler:
//   - noise-values: locals whose values change from process to process in
//     scope of the hot code (uninitialised stack slots, address bits, hashes
//     of pointers);
//   - clock: timestamps and clocks (start, deadline, last_ms, microsecond
//     long longs) in scope of the hot code;
//   - heap-pointers: pointers to heap strings or structures in scope;
//   - driver-above: a driver, event loop or dispatcher above the root cause
//     whose input-size or configuration variables differ at every sample;
//   - cheap-caller: the root cause decides to call costly code (a flush, a
//     rebuild) and is cheap itself;
//   - costly-callee: the root cause is the costly callee, its caller innocent;
//   - fields: the anomaly is in a field of a struct global or behind a
//     this or struct-pointer parameter;
//   - input-driven: the slow run is the same code on a larger or different
//     input (no mode test in the hot code);
//   - after-return: the root cause returns a value or leaves a state (a short
//     read, a "not done" status) and the costly work runs after it returned,
//     in its caller or in a sibling the caller calls next, so that the root
//     cause is on few of the slow samples' stacks.
var Shapes = []string{"noise-values", "clock", "heap-pointers", "driver-above", "cheap-caller", "costly-callee", "fields", "input-driven", "after-return"}

// Global is the Function of a key variable that is a global or file static.
const Global = model.GlobalFunc

// KeyVariable is a variable that carries the anomaly of a buggy run.
type KeyVariable struct {
	// Name is the variable's name, or a field's as vprof names it
	// (slab_rebal.busy_items, q->pending): a field is declared by its
	// struct variable.
	Name string `json:"name"`
	// Function is the linkage name of the function the variable belongs to (for
	// a variable of an inlined function, that function's own name), or Global.
	Function string `json:"function"`
	// Linkage is the symbol name of a C++ global in a namespace, if any.
	Linkage string `json:"linkage,omitempty"`
	// File is the source file (in the program's directory) that declares the
	// variable: for a local, its function's file.
	File string `json:"file,omitempty"`
	// Note says, for a variable outside the program's Component, that the
	// thesis' protocol does not monitor it.
	Note string `json:"note,omitempty"`
}

// Program is one manifest entry.
type Program struct {
	Name string `json:"name"`
	// Source is the file that holds the root-cause function (and the ROOT
	// CAUSE marker), relative to the program's directory NAME/; for a
	// single-file program, its file in the testprogs directory.
	Source string `json:"source"`
	// Sources are every file of a program directory (its source files and
	// headers), relative to that directory; empty for a single-file program.
	Sources []string `json:"sources,omitempty"`
	// Component is the `vprof record --component` path, relative to the
	// testprogs directory, of the thesis' evaluation protocol: the source
	// file that contains the root-cause function ("User identifies file that
	// contains root cause function to limit number of variables sampled to
	// that file", Table 3.2 of the vProf chapter).
	Component   string `json:"component,omitempty"`
	Language    string `json:"language"` // "c" or "c++"
	Issue       string `json:"issue"`    // e.g. "MDEV-21826"
	Application string `json:"application"`
	// RootCauseFunction is the linkage name of the root-cause function (the
	// DWARF name for C). gcc may emit it as a clone ("NAME.constprop.0") or
	// with a "NAME.cold" part; see MatchesSymbol.
	RootCauseFunction string `json:"root_cause_function"`
	RootCauseDisplay  string `json:"root_cause_display"` // demangled, for people
	RootCauseLine     int    `json:"root_cause_line"`
	// RootCauseInlined says the root cause is header code that the compiler
	// inlined at every call (a template's erase): the binary has no symbol
	// for it, only the DWARF's inlined instances in its host functions.
	RootCauseInlined bool `json:"root_cause_inlined,omitempty"`
	// RootCauseHost is the linkage name of the out-of-line function that
	// holds the inlined root cause's instance (set with RootCauseInlined).
	// vprof reports inlined code under its host (its rows are out-of-line
	// functions; the host's locations name the inlined call's line), so the
	// scoreboard ranks the host, as real-software.md does for such fix sites.
	RootCauseHost string  `json:"root_cause_host,omitempty"`
	Pattern       Pattern `json:"pattern"`
	// ThesisRank is the rank vProf gave the root cause in Table 3.3 of the
	// vProf chapter (the bug's row), to read the scoreboard against.
	ThesisRank   int           `json:"thesis_rank"`
	KeyVariables []KeyVariable `json:"key_variables"`
	Threads      bool          `json:"threads"`
	Forks        bool          `json:"forks"`
	// Measure is "cpu" when the buggy mode is slower in CPU time (user+system,
	// children included) and "wall" when its extra cost is time spent blocked.
	Measure  string   `json:"measure"`
	Normal   string   `json:"normal"` // what the normal mode sets
	Buggy    string   `json:"buggy"`  // what the buggy mode sets
	Features []string `json:"features"`
	// Shapes name the diagnosis hazards the program shows (see Shapes), so
	// that tests can pick the programs that exercise one.
	Shapes  []string `json:"shapes,omitempty"`
	Purpose string   `json:"purpose,omitempty"` // support programs only
}

// SourcePath returns the path of the file that holds the root cause.
func (p Program) SourcePath() string {
	if len(p.Sources) > 0 {
		return filepath.Join(Dir(), p.Name, p.Source)
	}
	return filepath.Join(Dir(), p.Source)
}

// SourcePaths returns the paths of every file of the program.
func (p Program) SourcePaths() []string {
	if len(p.Sources) == 0 {
		return []string{filepath.Join(Dir(), p.Source)}
	}
	out := make([]string, len(p.Sources))
	for i, f := range p.Sources {
		out[i] = filepath.Join(Dir(), p.Name, f)
	}
	return out
}

// ComponentPath returns the absolute --component path of the thesis'
// protocol, or "" if the program names none.
func (p Program) ComponentPath() string {
	if p.Component == "" {
		return ""
	}
	return filepath.Join(Dir(), p.Component)
}

// InComponent reports whether the key variable v is declared in a file under
// the program's Component, and so is monitored under the thesis' protocol.
func (p Program) InComponent(v KeyVariable) bool {
	if p.Component == "" {
		return true
	}
	return strings.HasPrefix(filepath.Join(p.Name, v.File), p.Component)
}

// MatchesSymbol reports whether the ELF symbol sym is the root-cause function
// or one of gcc's clones or parts of it (NAME.constprop.0, NAME.isra.0,
// NAME.part.0, NAME.cold: symname.StripClone).
func (p Program) MatchesSymbol(sym string) bool {
	return symname.StripClone(sym) == p.RootCauseFunction
}

type manifestFile struct {
	Comment  string    `json:"comment"`
	Version  int       `json:"version"`
	Programs []Program `json:"programs"`
	Support  []Program `json:"support"`
}

// Root returns the repository root: the directory above this package's
// source directory, found from the location of this file.
func Root() string {
	if _, file, _, ok := runtime.Caller(0); ok {
		if _, err := os.Stat(file); err == nil {
			return filepath.Dir(filepath.Dir(file))
		}
	}
	// Built without source paths (-trimpath): walk up from the working
	// directory to go.mod.
	dir, err := os.Getwd()
	if err != nil {
		return "."
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

// Dir returns the testprogs directory.
func Dir() string { return filepath.Join(Root(), "testprogs") }

// Manifest returns the bug programs of manifest.json, in file order.
func Manifest() ([]Program, error) {
	m, err := readManifest()
	if err != nil {
		return nil, err
	}
	return m.Programs, nil
}

// Support returns the support programs of manifest.json (such as values),
// which have no normal and buggy modes.
func Support() ([]Program, error) {
	m, err := readManifest()
	if err != nil {
		return nil, err
	}
	return m.Support, nil
}

// Lookup returns the manifest entry of the bug program name.
func Lookup(name string) (Program, error) {
	progs, err := Manifest()
	if err != nil {
		return Program{}, err
	}
	for _, p := range progs {
		if p.Name == name {
			return p, nil
		}
	}
	return Program{}, fmt.Errorf("testprogs: no program %q in %s", name, filepath.Join(Dir(), "manifest.json"))
}

func readManifest() (*manifestFile, error) {
	path := filepath.Join(Dir(), "manifest.json")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("testprogs: %w", err)
	}
	m, err := parseManifest(data)
	if err != nil {
		return nil, fmt.Errorf("testprogs: %s: %w", path, err)
	}
	return m, nil
}

// parseManifest decodes and checks a manifest: unknown fields, missing names,
// duplicate names, bad patterns, languages and measures are errors.
func parseManifest(data []byte) (*manifestFile, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var m manifestFile
	if err := dec.Decode(&m); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := lineCol(data, se.Offset)
			return nil, fmt.Errorf("line %d, column %d: %w", line, col, err)
		}
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("data after the manifest object")
	}
	if m.Version != 1 {
		return nil, fmt.Errorf("version %d, want 1", m.Version)
	}
	seen := map[string]bool{}
	for i, p := range m.Programs {
		if err := checkProgram(p, true); err != nil {
			return nil, fmt.Errorf("programs[%d] (%q): %w", i, p.Name, err)
		}
		if seen[p.Name] {
			return nil, fmt.Errorf("programs[%d]: duplicate name %q", i, p.Name)
		}
		seen[p.Name] = true
	}
	for i, p := range m.Support {
		if err := checkProgram(p, false); err != nil {
			return nil, fmt.Errorf("support[%d] (%q): %w", i, p.Name, err)
		}
		if seen[p.Name] {
			return nil, fmt.Errorf("support[%d]: duplicate name %q", i, p.Name)
		}
		seen[p.Name] = true
	}
	return &m, nil
}

func checkProgram(p Program, bug bool) error {
	if p.Name == "" || strings.ContainsAny(p.Name, "/. \t") {
		return fmt.Errorf("bad name %q", p.Name)
	}
	want := map[string]string{"c": ".c", "c++": ".cpp"}[p.Language]
	if want == "" {
		return fmt.Errorf("language %q, want c or c++", p.Language)
	}
	switch {
	case bug && len(p.Sources) == 0:
		return errors.New("a bug program is a directory: sources and component are required")
	case !bug && len(p.Sources) > 0:
		return errors.New("a support program is a single file: no sources")
	}
	if err := checkSources(p, want); err != nil {
		return err
	}
	if !bug {
		return nil
	}
	if p.Issue == "" || p.RootCauseFunction == "" {
		return errors.New("issue and root_cause_function are required")
	}
	if p.RootCauseLine <= 0 {
		return fmt.Errorf("root_cause_line %d", p.RootCauseLine)
	}
	if !p.Pattern.Valid() {
		return fmt.Errorf("pattern %q, want %q, %q or %q", p.Pattern, MissingConstraint, WrongConstraint, Scalability)
	}
	for _, sh := range p.Shapes {
		if !slices.Contains(Shapes, sh) {
			return fmt.Errorf("shape %q, want one of %s", sh, strings.Join(Shapes, ", "))
		}
	}
	if p.Measure != "cpu" && p.Measure != "wall" {
		return fmt.Errorf("measure %q, want cpu or wall", p.Measure)
	}
	if len(p.KeyVariables) == 0 {
		return errors.New("no key_variables")
	}
	for _, v := range p.KeyVariables {
		if v.Name == "" || v.Function == "" {
			return fmt.Errorf("key variable %+v: name and function are required", v)
		}
		if len(p.Sources) > 0 && !slices.Contains(p.Sources, v.File) {
			return fmt.Errorf("key variable %s of %s: file %q is not one of the sources", v.Name, v.Function, v.File)
		}
	}
	return nil
}

// checkSources checks the files of a program: a single file NAME.c or
// NAME.cpp, or a directory whose sources are plain names with the language's
// extension (or .h), the root cause's file among them, and the component
// under the directory.
func checkSources(p Program, ext string) error {
	if len(p.Sources) == 0 {
		if p.Component != "" {
			return fmt.Errorf("component %q without sources", p.Component)
		}
		if p.Source != p.Name+ext {
			return fmt.Errorf("source %q, want %q", p.Source, p.Name+ext)
		}
		return nil
	}
	seen := map[string]bool{}
	for _, f := range p.Sources {
		if f == "" || strings.ContainsAny(f, "/\\ \t") || strings.HasPrefix(f, ".") {
			return fmt.Errorf("bad source file name %q", f)
		}
		if e := filepath.Ext(f); e != ext && e != ".h" {
			return fmt.Errorf("source %q: a %s program has %s and .h files", f, p.Language, ext)
		}
		if seen[f] {
			return fmt.Errorf("source %q listed twice", f)
		}
		seen[f] = true
	}
	// Header code inlined at every call has its source in the header.
	if srcExt := filepath.Ext(p.Source); !seen[p.Source] || srcExt != ext && !(p.RootCauseInlined && srcExt == ".h") {
		return fmt.Errorf("source %q is not one of the %s sources", p.Source, ext)
	}
	if p.RootCauseInlined != (p.RootCauseHost != "") {
		return fmt.Errorf("root_cause_host %q with root_cause_inlined %v: an inlined root cause names its host, and only it", p.RootCauseHost, p.RootCauseInlined)
	}
	if p.Component == "" {
		return errors.New("a program directory needs a component")
	}
	if c := filepath.Clean(p.Component); c != p.Component || !strings.HasPrefix(c, p.Name+"/") {
		return fmt.Errorf("component %q is not a clean path under %s/", p.Component, p.Name)
	}
	return nil
}

func lineCol(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line = 1 + bytes.Count(data[:off], []byte("\n"))
	col = int(off) - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}

// Path returns the path of the built program name (testprogs/bin/NAME). If the
// binary is missing or older than one of its source files, it first runs `make
// -C testprogs` (once per test binary, under a lock shared with other test
// processes) and fails the test with make's output if that fails.
func Path(t testing.TB, name string) string {
	t.Helper()
	return built(t, name, filepath.Join(Dir(), "bin", name), "all")
}

// PathPG returns the path of the program built with -pg for gprof
// (testprogs/bin/pg/NAME), building it with `make -C testprogs pg` if needed.
func PathPG(t testing.TB, name string) string {
	t.Helper()
	return built(t, name, filepath.Join(Dir(), "bin", "pg", name), "pg")
}

func built(t testing.TB, name, bin, target string) string {
	t.Helper()
	srcs, err := sourcesOf(name)
	if err != nil {
		t.Fatal(err)
	}
	if fresh(bin, srcs) {
		return bin
	}
	if err := build.run(target); err != nil {
		t.Fatal(err)
	}
	if !fresh(bin, srcs) {
		t.Fatalf("testprogs: make -C %s %s did not build %s from %s", Dir(), target, bin, strings.Join(srcs, " "))
	}
	return bin
}

// Synth returns the path of the generated large program (testprogs/bin/synth,
// at least 20,000 functions, for the schema speed test), building it with
// `make -C testprogs synth` if it is missing. The build takes minutes.
func Synth(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(Dir(), "bin", "synth")
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	if err := build.run("synth"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("testprogs: make -C %s synth did not build %s", Dir(), bin)
	}
	return bin
}

// sourcesOf returns the files program name is built from: every file of its
// directory testprogs/NAME/, or its single file NAME.c or NAME.cpp.
func sourcesOf(name string) ([]string, error) {
	if name == "" || strings.ContainsAny(name, "/.") {
		return nil, fmt.Errorf("testprogs: bad program name %q", name)
	}
	dir := filepath.Join(Dir(), name)
	if ents, err := os.ReadDir(dir); err == nil {
		var out []string
		for _, e := range ents {
			if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") {
				out = append(out, filepath.Join(dir, e.Name()))
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("testprogs: no source files in %s", dir)
		}
		return out, nil
	}
	for _, ext := range []string{".c", ".cpp"} {
		src := filepath.Join(Dir(), name+ext)
		if _, err := os.Stat(src); err == nil {
			return []string{src}, nil
		}
	}
	return nil, fmt.Errorf("testprogs: no directory %s/ and no source %s.c or %s.cpp in %s", name, name, name, Dir())
}

// fresh reports whether bin exists and is not older than any of srcs.
func fresh(bin string, srcs []string) bool {
	b, err := os.Stat(bin)
	if err != nil {
		return false
	}
	for _, src := range srcs {
		s, err := os.Stat(src)
		if err != nil || b.ModTime().Before(s.ModTime()) {
			return false
		}
	}
	return true
}

// builder runs each make target at most once per test binary.
type builder struct {
	mu   sync.Mutex
	done map[string]error
}

var build = &builder{done: map[string]error{}}

func (b *builder) run(target string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err, ok := b.done[target]; ok {
		return err
	}
	err := makeLocked(target)
	b.done[target] = err
	return err
}

// makeLocked runs make under an exclusive file lock, so that test binaries of
// several packages running at once do not build the same files together.
func makeLocked(target string) error {
	dir := Dir()
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		return fmt.Errorf("testprogs: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, "bin", ".build.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return fmt.Errorf("testprogs: %w", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("testprogs: locking %s: %w", lock.Name(), err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)

	args := []string{"-C", dir}
	if target != "all" {
		args = append(args, target)
	}
	jobs := runtime.NumCPU()
	args = append(args, fmt.Sprintf("-j%d", jobs))
	cmd := exec.Command("make", args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("testprogs: make %s failed: %w\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}
