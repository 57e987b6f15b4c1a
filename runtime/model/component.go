package model

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// MatchComponent reports whether the source file lies in one of the
// components (--component of record, schema and report: one rule for all).
// A component is a source file or a directory, compared whole path element
// by whole path element:
//   - an absolute one matches that file and every file under that
//     directory;
//   - a relative one ("buf0lru.c", "storage/innobase/buf/") matches where
//     it starts at any directory boundary of the file's path and ends at
//     one (so "lib" matches /src/lib/a.c, not /src/library.c, and "usy.c"
//     does not match busy.c); one that climbs ("../x") is first made
//     absolute from the current directory.
//
// "." matches everything.
func MatchComponent(file string, comps []string) bool {
	if file == "" {
		return false
	}
	file = filepath.Clean(file)
	for _, c := range comps {
		if c == "" {
			continue
		}
		c = filepath.Clean(c)
		if c == "." {
			return true
		}
		if strings.HasPrefix(c, "../") || c == ".." {
			if abs, err := filepath.Abs(c); err == nil {
				c = abs
			}
		}
		if filepath.IsAbs(c) {
			if file == c || strings.HasPrefix(file, strings.TrimSuffix(c, "/")+"/") {
				return true
			}
			continue
		}
		for rest := "/" + file; ; {
			i := strings.Index(rest, "/"+c)
			if i < 0 {
				break
			}
			after := rest[i+1+len(c):]
			if after == "" || after[0] == '/' {
				return true
			}
			rest = rest[i+1:]
		}
	}
	return false
}

// ComponentError is a --component that matches none of the source files of
// the programs it was applied to: almost always a typo or a path of another
// checkout, which would otherwise sample (or analyse) no variable at all.
type ComponentError struct {
	Component string   // as given
	Object    string   // the program(s) whose files were searched
	Files     []string // every source file those programs have
}

func (e *ComponentError) Error() string {
	msg := fmt.Sprintf("--component %s matches no source file of %s", e.Component, e.Object)
	if len(e.Files) == 0 {
		return msg + " (it has no DWARF source files: build it with -g)"
	}
	return msg + "; it could match " + componentHint(e.Files) +
		" (a file or directory, absolute or from any directory boundary: see 'vprof schema --help')"
}

// componentHint lists what a component could name: the files when they are
// few, else their directories (the most populated first), cut at 8.
func componentHint(files []string) string {
	const most = 8
	list := files
	what := "files"
	if len(files) > most {
		count := map[string]int{}
		for _, f := range files {
			count[filepath.Dir(f)+"/"]++
		}
		list = list[:0:0]
		for d := range count {
			list = append(list, d)
		}
		sort.Slice(list, func(i, j int) bool {
			if count[list[i]] != count[list[j]] {
				return count[list[i]] > count[list[j]]
			}
			return list[i] < list[j]
		})
		what = fmt.Sprintf("%d files in directories", len(files))
	} else {
		list = append([]string(nil), list...)
		sort.Strings(list)
	}
	more := ""
	if len(list) > most {
		more = fmt.Sprintf(", ... (%d more)", len(list)-most)
		list = list[:most]
	}
	return what + " " + strings.Join(list, ", ") + more
}

// CheckComponents returns a *ComponentError for the first of comps that
// matches none of files (the source files of object), nil when each
// matches one.
func CheckComponents(comps []string, object string, files []string) error {
	for _, c := range comps {
		if c == "" {
			continue
		}
		found := false
		for _, f := range files {
			if MatchComponent(f, []string{c}) {
				found = true
				break
			}
		}
		if !found {
			return &ComponentError{Component: c, Object: object, Files: files}
		}
	}
	return nil
}
