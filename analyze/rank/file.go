package rank

import (
	"errors"
	"os"
	"slices"

	"github.com/vprof/vprof/runtime/proffile"
)

// Progress, when set, is called while a file streams in: name, bytes read
// so far and the file's size (0 when unknown), about every 64 MiB and at
// the end.
type Progress func(name string, done, total int64)

// AddFile streams the profile at path into the analysis as one run of kind
// k. A damaged or cut file is analysed up to its last complete record, with
// a warning; a file that is not a profile is an error.
func (a *Analyzer) AddFile(k Kind, path string, progress Progress) error {
	rd, err := proffile.Open(path)
	if err != nil {
		return err
	}
	rd.Schemas = &a.schemas
	defer rd.Close()
	var size int64
	if st, err := os.Stat(path); err == nil {
		size = st.Size()
	}
	return a.AddReader(k, path, rd, size, progress)
}

// AddReader is AddFile for an open reader; size is for progress only.
func (a *Analyzer) AddReader(k Kind, name string, rd *proffile.Reader, size int64, progress Progress) error {
	r, err := a.BeginRun(k, name, rd.Header())
	if err != nil {
		return err
	}
	return r.feed(rd, size, progress)
}

// Analyze runs the whole method on normal and buggy profile files.
func Analyze(normal, buggy []string, o Options, progress Progress) (*Result, error) {
	if len(normal) == 0 || len(buggy) == 0 {
		return nil, errors.New("analyze: need at least one normal and one buggy profile")
	}
	a := New(o)
	var kinds []Kind
	for range normal {
		kinds = append(kinds, Normal)
	}
	for range buggy {
		kinds = append(kinds, Buggy)
	}
	paths := append(slices.Clone(normal), buggy...)
	// A profile recorded with --count beside runs of its kind without
	// counts gives its counts only (counts.go, D220).
	countOnly, err := splitCounted(kinds, paths)
	if err != nil {
		return nil, err
	}
	var fedKinds []Kind
	var fed []string
	for i, p := range paths {
		if !countOnly[i] {
			fedKinds, fed = append(fedKinds, kinds[i]), append(fed, p)
			continue
		}
		t, err := readCounts(p)
		if err != nil {
			return nil, err
		}
		a.addCounts(kinds[i], p, t)
		a.warnf("%s: recorded with --count: its call counts are read, not its samples (each counted call cost a trap, which they hold; the %s runs without counts give the samples)", p, kindWord(kinds[i]))
	}
	if err := a.addFiles(fedKinds, fed, progress); err != nil {
		return nil, err
	}
	if err := a.checkComponents(); err != nil {
		return nil, err
	}
	res := a.Result()
	res.Warnings = append(res.Warnings, a.tailCallNotes(res)...)
	return res, nil
}

// FlatFile returns the flat profile of one profile file (value samples are
// not read).
func FlatFile(path string, progress Progress) (*Flat, error) {
	rd, err := proffile.Open(path)
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	var size int64
	if st, err := os.Stat(path); err == nil {
		size = st.Size()
	}
	a := New(DefaultOptions())
	r, err := a.BeginRun(Normal, path, rd.Header())
	if err != nil {
		return nil, err
	}
	r.flatOnly = true
	if err := r.feed(rd, size, progress); err != nil {
		return nil, err
	}
	return a.Flat(), nil
}
