//go:build !linux

package dwarfschema

// populate does nothing where MADV_POPULATE_WRITE does not exist: the
// pages fault in as they are written.
func populate[T any](s []T) {}
