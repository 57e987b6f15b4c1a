// Package model is vprof's data model: the plain types that every stage
// shares, with no reader behind them. dwarfschema fills a Schema from an
// ELF object and its DWARF; the sampler writes Headers, Objects, Mappings,
// events and Samples; runtime/proffile encodes and decodes them; the
// analyzer and its outputs read them. It imports only the standard library,
// so a reader of profiles links no DWARF decoder or disassembler.
//
// The schema (method.md §2) is which variables shape performance (globals,
// loop induction variables, variables read by conditions, call arguments),
// their tags, and where each one lives over every PC range. Addresses are
// link-time (unrelocated) virtual addresses; the sampler adds the load bias
// of each mapping. Each type states its invariants; CheckValid checks them.
package model

import "strings"

// Schema is everything vprof knows about one object file.
//
// Invariants (CheckValid checks them): Funcs, Vars and Locs index each
// other by position (FuncID, VarID), and Funcs, Inlines, Vars and Lines
// index Files (-1: unknown); every PC range is non-empty, and a list of
// them sorted and disjoint; Locs is sorted by PCStart, each of the size of
// its variable; Lines is sorted by PC, one row per PC; Symbols is sorted by
// Value; CallSites is sorted by ReturnPC, one entry per return address,
// each with at least one parameter; TailCalls is sorted by ReturnPC, one
// entry per return address. A
// Schema loaded from a binary without DWARF (or by LoadSymbols) has
// HasDWARF false, Symbols filled and Funcs built from the symbol table (no
// Vars, no Locs, no CallSites).
type Schema struct {
	Path         string `json:"path"`
	BuildID      string `json:"build_id,omitempty"` // hex of NT_GNU_BUILD_ID
	Type         string `json:"type"`               // "exec" (ET_EXEC) or "dyn" (ET_DYN: PIE or shared object)
	HasDWARF     bool   `json:"has_dwarf"`
	DebugFile    string `json:"debug_file,omitempty"` // separate debug file used, if any
	DWARFVersion int    `json:"dwarf_version,omitempty"`
	Producer     string `json:"producer,omitempty"`

	Funcs   []Func    `json:"funcs"`
	Inlines []Inline  `json:"inlines,omitempty"`
	Vars    []Var     `json:"vars"`
	Locs    []Loc     `json:"locs"`
	Files   []string  `json:"files"` // file table shared by Lines and Funcs/Vars (index)
	Lines   []LineRow `json:"lines"`
	Symbols []Symbol  `json:"symbols"`
	// CallSites are the DWARF call-site parameter records: what the
	// sampler needs to evaluate DW_OP_entry_value in a callee from its
	// caller's frame (method.md §3). The analyzer does not use them.
	CallSites []CallSite `json:"call_sites,omitempty"`
	// TailCalls are the direct calls that recover the frames that tail
	// calls removed from the stack (method.md §3, "Tail calls"): every
	// tail call, and every other call to a function that makes one.
	// TailCallsRead says they were read: a schema made before vprof read
	// them (or from symbols alone) has none and says nothing about its
	// tail calls.
	TailCalls     []CallEdge `json:"tail_calls,omitempty"`
	TailCallsRead bool       `json:"tail_calls_read,omitempty"`
	// Components are the --component paths the schema was narrowed to
	// (Options.Components, as given), and ComponentFiles the entries of
	// Files they matched: the analysis of a recording knows exactly which
	// functions are the component's, wherever it runs.
	Components     []string `json:"components,omitempty"`
	ComponentFiles []string `json:"component_files,omitempty"`
}

// FuncID indexes Schema.Funcs. VarID indexes Schema.Vars.
type (
	FuncID = int32
	VarID  = int32
)

// NoFunc marks a global variable's Func.
const NoFunc FuncID = -1

// GlobalFunc is the name that stands for the function of a global or
// file-scope static where one is named: the function column of vprof
// schema, the --func regular expression, the analyzer's variable keys.
const GlobalFunc = "#global"

// WalkPrefix starts the name of a walk's synthetic variable, `<walk@LINE>`
// (`<walk@0xADDR>` where the line table has none): the cursor of a loop
// over a linked structure that gcc keeps in a register no variable of
// the function names (method.md §2, D118). The angle brackets keep it
// apart from every C and C++ identifier.
const WalkPrefix = "<walk@"

// IsWalk reports whether name is a walk's synthetic variable's.
func IsWalk(name string) bool { return strings.HasPrefix(name, WalkPrefix) }

// PCRange is the half-open range [Lo, Hi).
type PCRange struct {
	Lo uint64 `json:"lo"`
	Hi uint64 `json:"hi"`
}

// Func is a source function. All its out-of-line code belongs to it: the main
// body, `.cold` parts and compiler clones (`.constprop.N`, `.isra.N`,
// `.part.N`) are ranges of the one source function.
type Func struct {
	Name    string    `json:"name"`    // linkage name: the key (mangled for C++)
	Display string    `json:"display"` // demangled, for people
	File    int32     `json:"file"`    // index into Schema.Files, -1 unknown
	Line    int32     `json:"line"`
	Ranges  []PCRange `json:"ranges"`           // out-of-line code, sorted
	Blocks  []uint64  `json:"blocks,omitempty"` // basic-block start addresses, sorted (from the CFG)
	// FrameBase is the DW_AT_frame_base expression (usually DW_OP_call_frame_cfa).
	FrameBase []byte `json:"frame_base,omitempty"`
}

// Inline is one inlined instance of Func inside another function's code.
// Depth 1 is inlined directly into an out-of-line function, 2 into an
// inlined instance, and so on; the innermost instance covering a PC is the
// function executing there. It has code (Ranges), and Depth is at least 1.
type Inline struct {
	Func     FuncID    `json:"func"`
	Ranges   []PCRange `json:"ranges"`
	Depth    int32     `json:"depth"`
	CallFile int32     `json:"call_file"`
	CallLine int32     `json:"call_line"`
}

// Tags is a set of the method's variable tags.
type Tags uint8

const (
	TagLoop Tags = 1 << iota // induction variable: updated in a loop and used in its exit test
	TagCond                  // read by a conditional branch, select or switch
	TagArgs                  // passed to a call
)

func (t Tags) String() string {
	s := ""
	for _, x := range []struct {
		b Tags
		n string
	}{{TagLoop, "loop"}, {TagCond, "cond"}, {TagArgs, "args"}} {
		if t&x.b != 0 {
			if s != "" {
				s += ","
			}
			s += x.n
		}
	}
	return s
}

// Kind is how a value's bytes are interpreted.
type Kind uint8

const (
	KindInt       Kind = iota + 1 // signed integer (also char, when signed)
	KindUint                      // unsigned integer (also unsigned char)
	KindBool                      //
	KindEnum                      // enums as their integer value
	KindFloat                     // float, double (sampled as float64)
	KindPointer                   // address
	KindAggregate                 // struct, union, array, class: sampled as FNV-1a of the first 64 bytes (globals; locals and parameters of at most 16 bytes)
)

var kindNames = [...]string{"?", "int", "uint", "bool", "enum", "float", "pointer", "aggregate"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "?"
}

// Var is one monitored variable (method.md §2): every global or file-scope
// static, and every local or parameter with at least one tag. A variable the
// compiler removed has no Locs and is listed but never sampled. It has a
// name and a Kind; PointeeKind only for a KindPointer.
type Var struct {
	Name  string `json:"name"`
	Func  FuncID `json:"func"` // defining function (abstract origin for inlined code); NoFunc for globals
	File  int32  `json:"file"`
	Line  int32  `json:"line"`
	Type  string `json:"type"` // C/C++ spelling, e.g. "unsigned long", "struct conn *"
	Kind  Kind   `json:"kind"`
	Size  int32  `json:"size"` // bytes of the value (of the pointer for pointers)
	Param bool   `json:"param,omitempty"`
	// Static: a function-scope static (fixed address, valid over the
	// function's code). Kept like a global even without a tag.
	Static bool `json:"static,omitempty"`
	Tags   Tags `json:"tags"`
	// For KindPointer: the pointee when it is a basic type (basic_type_ptr),
	// else PointeeKind is 0.
	PointeeKind Kind  `json:"pointee_kind,omitempty"`
	PointeeSize int32 `json:"pointee_size,omitempty"`
	// Field, when set, makes this variable a scalar field of a struct,
	// class or union variable (method.md §2): `pool.n_free` of a global
	// pool, `this->pending` behind a pointer.
	Field *Field `json:"field,omitempty"`
}

// Field says where a field variable lives relative to the variable it is a
// field of.
//
// A field of a global or static struct (Deref false) has Locs of its own:
// the struct's address + Offset, over the struct's PC ranges. A field
// behind a pointer (Deref true) has none: wherever its pointer Of is read,
// the sampler reads Size bytes at the pointer's value + Offset, so the
// pointer's location (register, frame slot, list, entry value) is
// evaluated once for all its fields. Of is the pointer's VarID (Deref), or
// the struct's, -1 once the struct itself is not monitored.
//
// Elem, when positive, makes the field a std::vector's element count
// (method.md §2, D266), a field behind a pointer only: the sampler reads
// the two pointers at Offset and Offset+8 (the vector's begin and end,
// one read of 16 bytes, one field of the budget) and the value is
// (end - begin) / Elem, Elem being the element's size in bytes.
type Field struct {
	Of     VarID `json:"of"`
	Offset int64 `json:"offset"`
	Deref  bool  `json:"deref,omitempty"`
	Elem   int64 `json:"elem,omitempty"`
}

// ContainerSize ends the name of a C++ container's length field
// (method.md §2, D266): `this->m_queries.size()`.
const ContainerSize = ".size()"

// LocKind says where a variable lives over one PC range.
type LocKind uint8

const (
	LocReg    LocKind = iota + 1 // in DWARF register Reg
	LocFrame                     // in memory at frame base + Offset
	LocAddr                      // in memory at absolute (link-time) address Addr
	LocExpr                      // anything else: evaluate Expr (pieces, stack values, entry values...)
	LocRegOff                    // in memory at register Reg + Offset (DW_OP_bregN)
	LocConst                     // the value is the constant Offset (DW_OP_lit/constu + stack_value)
)

var locNames = [...]string{"?", "reg", "frame", "addr", "expr", "regoff", "const"}

func (k LocKind) String() string {
	if int(k) < len(locNames) {
		return locNames[k]
	}
	return "?"
}

// Loc is one entry of the variable metadata: over [PCStart, PCEnd) variable
// Var lives at the given location. A PC not covered by any Loc of a variable
// means the variable is not accessible there. Size is its variable's.
//
// Conventions of Load: the DWARF pass gives a global or file static a Loc
// over the whole object, [0, ^uint64(0)); narrowGlobals (globalrefs.go)
// then restricts it to the code of the functions whose instructions
// reference its storage. A function-scope static's LocAddr spans its
// function's code (out-of-line and inlined). gcc starts entries after a
// call at the return address - 1, inside the call instruction, so that a
// caller frame looked up at return address - 1 (method.md §3) finds the
// location that holds after the call. DW_AT_const_value gives LocConst (or
// a LocExpr with DW_OP_implicit_value for a block). Expr is the expression
// as the compiler wrote it, so DWARF 4 code has DW_OP_GNU_entry_value
// (0xf3) where DWARF 5 has DW_OP_entry_value (0xa3).
type Loc struct {
	Var     VarID   `json:"var"`
	PCStart uint64  `json:"pc_start"`
	PCEnd   uint64  `json:"pc_end"`
	Kind    LocKind `json:"kind"`
	Reg     int16   `json:"reg,omitempty"` // DWARF register number (LocReg, LocRegOff)
	Offset  int64   `json:"offset,omitempty"`
	Addr    uint64  `json:"addr,omitempty"`
	Expr    []byte  `json:"expr,omitempty"` // the DWARF expression (LocExpr; kept for all kinds for checking)
	Size    int32   `json:"size"`
	// BasicTypePtr: the value is a pointer to a basic type, whose pointee is read too.
	BasicTypePtr bool `json:"basic_type_ptr,omitempty"`
	// StrLen: the location holds a pointer to char, and the variable's
	// value is the length of the string it points at, up to StrLenBound
	// (a string length variable, method.md §2, decision D140).
	StrLen bool `json:"strlen,omitempty"`
}

// StrLenBound is the most bytes a string length variable reads (method.md
// §2, D140): a string of StrLenBound bytes or more reads as StrLenBound.
const StrLenBound = 16 << 10

// StrLenPrefix starts the name of a string length variable: `strlen(buf)`.
const StrLenPrefix = "strlen("

// LineRow is one row of the line table: code at PC and above (up to the next
// row) comes from File:Line. A row with File -1 ends a sequence: no source
// line from its PC on (up to the next row).
type LineRow struct {
	PC   uint64 `json:"pc"`
	File int32  `json:"file"`
	Line int32  `json:"line"`
}

// Symbol is an ELF symbol-table function (STT_FUNC or STT_GNU_IFUNC).
type Symbol struct {
	Name  string `json:"name"`
	Value uint64 `json:"value"`
	Size  uint64 `json:"size"`
}

// CallSite is a call (DW_TAG_call_site, DWARF 4's DW_TAG_GNU_call_site)
// with the argument values its DWARF records: Params are what the
// argument registers held when the call was made, each as an expression
// in the caller's frame. Only calls with at least one such parameter are
// kept. ReturnPC is the link-time return address (DW_AT_call_return_pc,
// DW_AT_low_pc for the GNU tag): a caller frame's PC as unwound.
type CallSite struct {
	ReturnPC uint64      `json:"return_pc"`
	Params   []CallParam `json:"params"`
}

// CallEdge is a direct call whose callee DWARF names (a call site's
// DW_AT_call_origin): the call returning to ReturnPC entered the function
// whose entry address is Callee. Tail marks a tail call
// (DW_AT_call_tail_call, DWARF 4's DW_AT_GNU_tail_call): a jump that
// reused the caller's frame, so the function making it is on no stack
// while Callee runs; its ReturnPC is the address after the jump (clang's
// DW_AT_call_pc, the jump's own address, plus one), looked up like a
// caller frame's at ReturnPC - 1. Both are link-time addresses.
type CallEdge struct {
	ReturnPC uint64 `json:"return_pc"`
	Callee   uint64 `json:"callee"`
	Tail     bool   `json:"tail,omitempty"`
}

// CallParam is one DW_TAG_call_site_parameter passed in a register: Reg
// (a DWARF register number, from DW_AT_location DW_OP_regN or DW_OP_regx)
// held the value of Value at the call (DW_AT_call_value, DWARF 4's
// DW_AT_GNU_call_site_value), a DWARF expression evaluated in the
// caller's frame: it uses only what the call preserves (callee-saved
// registers, the caller's frame, memory), or further entry values of the
// caller.
type CallParam struct {
	Reg   int16  `json:"reg"`
	Value []byte `json:"value"`
}
