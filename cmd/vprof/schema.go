package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/vprof/vprof/analyze/report"
	"github.com/vprof/vprof/dwarfschema"
	"github.com/vprof/vprof/runtime/dwarfexpr"
	"github.com/vprof/vprof/runtime/model"
)

const schemaHelp = `
Usage: vprof schema [--component PATH]... [--func REGEX] [--metadata] [--all] [--format table|json] BINARY

Prints what vprof will sample in BINARY (an x86-64 executable or shared
object built with -g; its debug file is found by build-id or
.gnu_debuglink under /usr/lib/debug): every global and file-scope
static that the program can write (not a const one, nor the fields of
one), and every local or parameter that steers performance, with its
tags:

  loop   an induction variable (updated in a loop, used in its exit test),
         or, in a loop whose exit tests read no variable it updates (its
         bound is in memory), an integer local it steps by a constant and
         a condition reads (its counter: consumed++)
  cond   read by a conditional branch, select or switch
  args   passed to a call

Columns: file function line variable type tags (function #global for
globals and file statics). Locals and parameters without a tag are not
sampled and not listed (--all lists them too). A variable named
<walk@LINE> is no source variable: the cursor of a loop over a linked
structure (a list, a chain, a tree) that the compiler keeps in a
register no variable of the function names, sampled in that register
over the loop (docs/method.md D118). A struct global, a struct local
and a pointer to a struct give up to 16 of their scalar fields
(pool.n_free, this->pending): those the function's code reads or writes
first, then the others in declaration order (D130; --no-fields: none).
A struct local or a struct parameter passed by value gives them where
it lies in memory and, held in registers, where one register or piece
holds the whole field (match.match_length; D325): never a guessed place.
A C++ standard container among them (vector, string, list, map, set,
the unordered kinds) is one field, its length: this->m_queries.size()
(D266; a vector's only behind a pointer, as this->v.size()).

--metadata prints instead where each variable lives over each range of
code: pc_start pc_end variable location offset size basic_type_ptr.
location is reg:REG (in a register), fbreg (at frame base + offset),
addr:ADDR (at a fixed address), breg:REG (at register + offset), const
(the value is offset), expr:... (a DWARF expression evaluated at
sampling time), or deref:PTR (a field behind pointer PTR, read at PTR's
value + offset wherever PTR is read). basic_type_ptr says the pointee of
a pointer is read too. Addresses are link-time; a variable is not sampled at a PC outside
its ranges. A global's ranges are the code of the functions that use it
(* * would be the whole object).

--format json prints both, with the expressions in hex.

Components (--component PATH, the same rule for schema, record and
report): PATH is a source file or a directory, compared whole path
element by whole path element. An absolute PATH matches that file and
every file under that directory; a relative one ("buf0lru.c",
"storage/innobase/buf/") matches wherever it starts at a directory
boundary of a file's path and ends at one: "lib" matches /src/lib/a.c,
not /src/library.c; "usy.c" does not match busy.c. Variables declared in
the files matched are kept; functions are all kept. A PATH that matches
none of the program's source files is an error that lists the
directories it could name.

A one-line summary goes to standard error. A binary without DWARF is an
error (exit 2) that says how to get it; its functions are still listed
from the symbol table.

Examples:
  vprof schema testprogs/bin/recovery_budget
  vprof schema --func 'lookup|#global' --metadata ./server
  vprof schema --component src/ --format json ./server > schema.json
`

func init() {
	register(&command{name: "schema", order: 10, summary: "print the variables vprof samples in a binary, their tags and locations", run: runSchema})
}

func runSchema(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("schema", schemaHelp, stdout)
	var components multiFlag
	fs.Var(&components, "component", "keep only variables declared in source files under `PATH`, a file or directory (repeatable; see Components above)")
	funcRE := fs.String("func", "", "keep locals and parameters of functions matching this `regex` (add |#global to keep globals)")
	metadata := fs.Bool("metadata", false, "print where each variable lives over each PC range instead of the schema")
	all := fs.Bool("all", false, "also list locals and parameters without a tag")
	noFields := fs.Bool("no-fields", false, "no struct fields, as vprof record --no-fields samples")
	strLens := fs.Bool("strlen", false, "with the string length variables vprof record --strlen samples")
	format := fs.String("format", "table", "output `format`: table or json")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErr("want exactly one binary, got %d arguments", fs.NArg())
	}
	if *format != "table" && *format != "json" {
		return usageErr("unknown --format %q (want table or json)", *format)
	}
	opt := dwarfschema.Options{Components: components, All: *all, NoFields: *noFields, StrLens: *strLens}
	if *funcRE != "" {
		re, err := regexp.Compile(*funcRE)
		if err != nil {
			return usageErr("bad --func regex: %v", err)
		}
		opt.FuncRegex = re
	}
	stopProfiles, err := startProfiles(os.Getenv(cpuProfileEnv), os.Getenv(memProfileEnv))
	if err != nil {
		return err
	}
	start := time.Now()
	s, err := dwarfschema.Load(fs.Arg(0), opt)
	elapsed := time.Since(start)
	if perr := stopProfiles(); perr != nil {
		fmt.Fprintf(stderr, "vprof schema: warning: %v\n", perr)
	}
	if err != nil && !errors.Is(err, dwarfschema.ErrNoDWARF) {
		return err
	}
	if err == nil {
		// A component that names nothing is a mistake, as for record and report.
		if cerr := model.CheckComponents(components, fs.Arg(0), s.Files); cerr != nil {
			return cerr
		}
	}
	w := bufio.NewWriterSize(stdout, 1<<16)
	if err != nil {
		// No DWARF: list what the symbol table says, then fail.
		fmt.Fprintf(stderr, "vprof schema: warning: %s has no DWARF; listing the %d functions of its symbol table\n", fs.Arg(0), len(s.Funcs))
		if werr := writeFuncs(w, s, *format); werr != nil {
			return werr
		}
		if werr := w.Flush(); werr != nil {
			return werr
		}
		return err
	}
	sv := newSchemaView(s)
	switch {
	case *format == "json":
		err = sv.writeJSON(w)
	case *metadata:
		err = sv.writeMetadata(w)
	default:
		err = sv.writeSchema(w)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		return err
	}
	globals, tagged := 0, 0
	for _, v := range s.Vars {
		if v.Func == model.NoFunc {
			globals++
		} else if v.Tags != 0 {
			tagged++
		}
	}
	debug := ""
	if s.DebugFile != "" {
		debug = ", debug file " + s.DebugFile
	}
	fmt.Fprintf(stderr, "vprof schema: %s: %d functions, %d variables monitored (%d globals and statics, %d tagged locals and parameters), %d locations, DWARF %d%s, %.2fs\n",
		fs.Arg(0), len(s.Funcs), len(s.Vars), globals, tagged, len(s.Locs), s.DWARFVersion, debug, elapsed.Seconds())
	return nil
}

// schemaView formats a Schema for people.
type schemaView struct {
	s     *model.Schema
	cwd   string
	files []string // file's answers by index, "" until asked (filepath.Rel per variable was a tenth of printing)
}

func newSchemaView(s *model.Schema) *schemaView {
	cwd, _ := os.Getwd()
	return &schemaView{s: s, cwd: cwd, files: make([]string, len(s.Files))}
}

// file shows a source path relative to the current directory when it is
// under it.
func (sv *schemaView) file(i int32) string {
	if i < 0 || int(i) >= len(sv.s.Files) {
		return "?"
	}
	if f := sv.files[i]; f != "" {
		return f
	}
	p := sv.s.Files[i]
	if sv.cwd != "" {
		if r, err := filepath.Rel(sv.cwd, p); err == nil && !strings.HasPrefix(r, "..") {
			p = r
		}
	}
	sv.files[i] = p
	return p
}

func (sv *schemaView) function(v *model.Var) string {
	if v.Func == model.NoFunc {
		return model.GlobalFunc
	}
	return sv.s.Funcs[v.Func].Display
}

// varName qualifies a local with its function, as gdb does (fn::var).
func (sv *schemaView) varName(v *model.Var) string {
	if v.Func == model.NoFunc {
		return v.Name
	}
	return sv.s.Funcs[v.Func].Display + "::" + v.Name
}

// shortName is varName shortened (report.Short), but for a walk's
// variable only its function's name: <walk@LINE> would read <...>.
func (sv *schemaView) shortName(v *model.Var) string {
	if v.Func == model.NoFunc || !model.IsWalk(v.Name) {
		return report.Short(sv.varName(v))
	}
	return report.Short(sv.s.Funcs[v.Func].Display) + "::" + v.Name
}

func tagsOrDash(t model.Tags) string {
	if t == 0 {
		return "-"
	}
	return t.String()
}

func (sv *schemaView) writeSchema(w io.Writer) error {
	rows := make([][]string, 0, len(sv.s.Vars))
	for i := range sv.s.Vars {
		v := &sv.s.Vars[i]
		rows = append(rows, []string{sv.file(v.File), report.Short(sv.function(v)), strconv.Itoa(int(v.Line)), v.Name, report.Short(v.Type), tagsOrDash(v.Tags)})
	}
	return report.WriteTable(w, report.Plain, []string{"file", "function", "line", "variable", "type", "tags"}, rows, nil)
}

// location spells a Loc's place: reg:rdi, fbreg, addr:0x4028, breg:rsp,
// const, expr:DW_OP_...
func location(l *model.Loc) string {
	switch l.Kind {
	case model.LocReg:
		return "reg:" + regName(uint64(l.Reg))
	case model.LocFrame:
		return "fbreg"
	case model.LocAddr:
		return "addr:0x" + strconv.FormatUint(l.Addr, 16)
	case model.LocRegOff:
		return "breg:" + regName(uint64(l.Reg))
	case model.LocConst:
		return "const"
	}
	return "expr:" + dwarfexpr.Format(l.Expr)
}

func regName(n uint64) string { return dwarfexpr.RegName(n) }

func offset(l *model.Loc) string {
	switch l.Kind {
	case model.LocFrame, model.LocRegOff, model.LocConst:
		return strconv.FormatInt(l.Offset, 10)
	}
	return "-"
}

func pcRange(l *model.Loc) (string, string) {
	if l.PCStart == 0 && l.PCEnd == ^uint64(0) {
		return "*", "*"
	}
	return "0x" + strconv.FormatUint(l.PCStart, 16), "0x" + strconv.FormatUint(l.PCEnd, 16)
}

func (sv *schemaView) writeMetadata(w io.Writer) error {
	rows := make([][]string, 0, len(sv.s.Locs))
	behind := derefFields(sv.s)
	for i := range sv.s.Locs {
		l := &sv.s.Locs[i]
		lo, hi := pcRange(l)
		rows = append(rows, []string{lo, hi, sv.shortName(&sv.s.Vars[l.Var]), location(l), offset(l),
			strconv.Itoa(int(l.Size)), strconv.FormatBool(l.BasicTypePtr)})
		for _, f := range behind[l.Var] {
			fv := &sv.s.Vars[f]
			rows = append(rows, []string{lo, hi, report.Short(sv.varName(fv)), "deref:" + sv.s.Vars[l.Var].Name,
				strconv.FormatInt(fv.Field.Offset, 10), strconv.Itoa(int(fv.Size)), "false"})
		}
	}
	return report.WriteTable(w, report.Plain, []string{"pc_start", "pc_end", "variable", "location", "offset", "size", "basic_type_ptr"}, rows, nil)
}

// derefFields lists the fields read behind each pointer variable: they
// have no locations of their own, and are read wherever the pointer is
// (location deref:POINTER, offset from the pointer's value).
func derefFields(s *model.Schema) map[model.VarID][]model.VarID {
	m := map[model.VarID][]model.VarID{}
	for i := range s.Vars {
		if f := s.Vars[i].Field; f != nil && f.Deref && f.Of >= 0 {
			m[f.Of] = append(m[f.Of], model.VarID(i))
		}
	}
	return m
}

type jsonSchemaRow struct {
	File     string   `json:"file"`
	Function string   `json:"function"`
	Line     int32    `json:"line"`
	Variable string   `json:"variable"`
	Type     string   `json:"type"`
	Tags     []string `json:"tags"`
	Kind     string   `json:"kind"`
	Size     int32    `json:"size"`
	Param    bool     `json:"param,omitempty"`
	Static   bool     `json:"static,omitempty"`
}

type jsonMetaRow struct {
	PCStart      string `json:"pc_start"`
	PCEnd        string `json:"pc_end"`
	Variable     string `json:"variable"`
	Index        int32  `json:"var"` // index into schema
	Location     string `json:"location"`
	Offset       *int64 `json:"offset,omitempty"`
	Size         int32  `json:"size"`
	BasicTypePtr bool   `json:"basic_type_ptr"`
	Expr         string `json:"expr"`
}

// writeJSON prints the schema and the metadata; PCs are hex strings
// (64-bit values do not survive JSON numbers in every reader). Rows are
// encoded one at a time as they are written, in the layout that
// json.Encoder with an indent of one space gives the whole: a large C++
// program has hundreds of thousands of location rows, hundreds of
// megabytes of JSON that need not be held at once (building it whole
// took gold's schema 26 s and 2.4 GB).
func (sv *schemaView) writeJSON(w io.Writer) error {
	s := sv.s
	bw := bufio.NewWriterSize(w, 256<<10)
	head, err := json.MarshalIndent(struct {
		Path         string `json:"path"`
		BuildID      string `json:"build_id,omitempty"`
		DebugFile    string `json:"debug_file,omitempty"`
		DWARFVersion int    `json:"dwarf_version"`
		Functions    int    `json:"functions"`
	}{Path: s.Path, BuildID: s.BuildID, DebugFile: s.DebugFile, DWARFVersion: s.DWARFVersion, Functions: len(s.Funcs)}, "", " ")
	if err != nil {
		return err
	}
	bw.Write(head[:len(head)-2]) // without "\n}"
	// array writes `"name": [rows]` with each row indented as an element
	// at depth 2.
	array := func(name string, n int, row func(i int) any) error {
		fmt.Fprintf(bw, ",\n \"%s\": [", name)
		if n == 0 {
			bw.WriteString("]")
			return nil
		}
		for i := range n {
			b, err := json.MarshalIndent(row(i), "  ", " ")
			if err != nil {
				return err
			}
			if i > 0 {
				bw.WriteString(",")
			}
			bw.WriteString("\n  ")
			bw.Write(b)
		}
		bw.WriteString("\n ]")
		return nil
	}
	err = array("schema", len(s.Vars), func(i int) any {
		v := &s.Vars[i]
		tags := []string{}
		if v.Tags != 0 {
			tags = strings.Split(v.Tags.String(), ",")
		}
		return jsonSchemaRow{File: sv.file(v.File), Function: sv.function(v), Line: v.Line,
			Variable: v.Name, Type: v.Type, Tags: tags, Kind: v.Kind.String(), Size: v.Size, Param: v.Param, Static: v.Static}
	})
	if err != nil {
		return err
	}
	// The fields behind a pointer follow each of its locations.
	behind := derefFields(s)
	type metaRow struct {
		loc   int
		field model.VarID // -1: the Loc itself
	}
	var meta []metaRow
	for i := range s.Locs {
		meta = append(meta, metaRow{i, -1})
		for _, f := range behind[s.Locs[i].Var] {
			meta = append(meta, metaRow{i, f})
		}
	}
	err = array("metadata", len(meta), func(i int) any {
		l := &s.Locs[meta[i].loc]
		lo, hi := pcRange(l)
		if f := meta[i].field; f >= 0 {
			fv := &s.Vars[f]
			o := fv.Field.Offset
			return jsonMetaRow{PCStart: lo, PCEnd: hi, Variable: sv.varName(fv), Index: f, Location: "deref:" + s.Vars[l.Var].Name,
				Offset: &o, Size: fv.Size, Expr: ""}
		}
		r := jsonMetaRow{PCStart: lo, PCEnd: hi, Variable: sv.varName(&s.Vars[l.Var]), Index: l.Var, Location: location(l),
			Size: l.Size, BasicTypePtr: l.BasicTypePtr, Expr: fmt.Sprintf("%x", l.Expr)}
		if offset(l) != "-" {
			o := l.Offset
			r.Offset = &o
		}
		return r
	})
	if err != nil {
		return err
	}
	bw.WriteString("\n}\n")
	return bw.Flush()
}

// writeFuncs lists the functions of a binary without DWARF.
func writeFuncs(w io.Writer, s *model.Schema, format string) error {
	type fn struct {
		Name  string `json:"function"`
		Start string `json:"start"`
		End   string `json:"end"`
	}
	var fns []fn
	for _, f := range s.Funcs {
		for _, r := range f.Ranges {
			fns = append(fns, fn{f.Display, "0x" + strconv.FormatUint(r.Lo, 16), "0x" + strconv.FormatUint(r.Hi, 16)})
		}
	}
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", " ")
		return enc.Encode(struct {
			Path      string `json:"path"`
			HasDWARF  bool   `json:"has_dwarf"`
			Functions []fn   `json:"functions"`
		}{s.Path, false, fns})
	}
	if len(fns) == 0 {
		return nil
	}
	rows := make([][]string, len(fns))
	for i, f := range fns {
		rows[i] = []string{report.Short(f.Name), f.Start, f.End}
	}
	return report.WriteTable(w, report.Plain, []string{"function", "pc_start", "pc_end"}, rows, nil)
}
