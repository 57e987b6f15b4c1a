//go:build !linux

package dwarfschema

import "debug/elf"

// populate does nothing where MADV_POPULATE_WRITE does not exist: the
// pages fault in as they are written.
func populate[T any](s []T) {}

// sectionData is sec.Data().
func sectionData(sec *elf.Section) ([]byte, error) { return sec.Data() }
