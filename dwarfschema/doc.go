// Package dwarfschema reads an ELF executable or shared object with its
// DWARF debugging information and fills the value-profiling schema of
// docs/method.md §2 (a model.Schema): which variables shape performance
// (globals, loop induction variables, variables read by conditions, call
// arguments), their tags, and where each one lives over every PC range.
//
//	s, err := dwarfschema.Load("/usr/bin/prog", dwarfschema.Options{})
//
// Load returns an error wrapping ErrNoDWARF, with the symbol table's
// functions, for a binary without DWARF; LoadSymbols reads symbols only
// (libraries, the vDSO). The schema is plain data (runtime/model): what
// `vprof schema` prints and what a profile stores as its layout log, so
// the analyzer never needs the binary.
package dwarfschema
