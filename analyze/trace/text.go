package trace

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
)

// SyntaxError is a malformed line of an input trace.
type SyntaxError struct {
	File string
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// maxLine bounds one line of a text trace (a C++ name can be long, but not
// this long).
const maxLine = 1 << 20

// lines calls fn for each line of r without its end of line, with 1-based
// line numbers. The slice is only valid during the call.
func lines(r io.Reader, name string, fn func(n int, line []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 256<<10), maxLine)
	n := 0
	for sc.Scan() {
		n++
		if err := fn(n, sc.Bytes()); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if err == bufio.ErrTooLong {
			return &SyntaxError{name, n + 1, fmt.Sprintf("line longer than %d bytes", maxLine)}
		}
		return fmt.Errorf("%s:%d: %w", name, n+1, err)
	}
	return nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }

// firstField splits off the first space-separated field of s.
func firstField(s []byte) (field, rest []byte) {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	j := i
	for j < len(s) && !isSpace(s[j]) {
		j++
	}
	return s[i:j], s[j:]
}

// lastField splits off the last space-separated field of s.
func lastField(s []byte) (rest, field []byte) {
	j := len(s)
	for j > 0 && isSpace(s[j-1]) {
		j--
	}
	i := j
	for i > 0 && !isSpace(s[i-1]) {
		i--
	}
	return s[:i], s[i:j]
}

func trimSpace(s []byte) []byte {
	for len(s) > 0 && isSpace(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && isSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

// parseInt parses a decimal int64 without allocating.
func parseInt(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	neg := false
	if b[0] == '-' || b[0] == '+' {
		neg = b[0] == '-'
		b = b[1:]
		if len(b) == 0 {
			return 0, false
		}
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		if v > (1<<63-1)/10 {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
		if v > 1<<63-1 {
			return 0, false
		}
	}
	if neg {
		return -int64(v), true
	}
	return int64(v), true
}

// parseDir reads an event direction: 0 enter, 1 exit.
func parseDir(b []byte) (exit bool, ok bool) {
	if len(b) == 1 && (b[0] == '0' || b[0] == '1') {
		return b[0] == '1', true
	}
	return false, false
}

func skippable(line []byte) bool {
	line = trimSpace(line)
	return len(line) == 0 || line[0] == '#'
}

// ReadDINAMITE reads a DINAMITE text trace: one event a line,
// `tid func dir time` separated by spaces or tabs, dir 0 for enter and 1
// for exit, time in ns. The function name may contain spaces (C++
// signatures): it is everything between the first and the last two fields.
// A `tid func dir time` header line, blank lines and lines starting with #
// are skipped. name is used in error messages.
func ReadDINAMITE(r io.Reader, name string) (*Trace, error) {
	return readDINAMITE(r, name, nil)
}

func readDINAMITE(r io.Reader, name string, sinks func(pid, tid int64) Sink) (*Trace, error) {
	b := builder{sinks: sinks}
	err := lines(r, name, func(n int, line []byte) error {
		if skippable(line) {
			return nil
		}
		tidf, rest := firstField(line)
		rest, timef := lastField(rest)
		rest, dirf := lastField(rest)
		fn := trimSpace(rest)
		tid, ok := parseInt(tidf)
		if !ok {
			if bytes.Equal(tidf, []byte("tid")) && bytes.Equal(timef, []byte("time")) {
				return nil // the header
			}
			return &SyntaxError{name, n, fmt.Sprintf("thread id %q is not an integer (want `tid func dir time`)", clip(tidf))}
		}
		if len(fn) == 0 {
			return &SyntaxError{name, n, "want 4 fields `tid func dir time`"}
		}
		exit, ok := parseDir(dirf)
		if !ok {
			return &SyntaxError{name, n, fmt.Sprintf("direction %q is not 0 (enter) or 1 (exit)", clip(dirf))}
		}
		t, ok := parseInt(timef)
		if !ok {
			return &SyntaxError{name, n, fmt.Sprintf("time %q is not an integer", clip(timef))}
		}
		ts := b.thread(0, tid)
		id := b.id(fn)
		if exit {
			ts.exit(id, t)
		} else {
			ts.enter(id, t)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return b.finish("dinamite", name, true), nil
}

func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}

// ReadNonSequitur reads a NonSequitur trace folder: one file per thread,
// threads in file-name order, lines `DIR FUNC TIMESTAMP_NS` with DIR 0 for
// enter and 1 for exit. Hidden files and subfolders are skipped.
func ReadNonSequitur(dir string) (*Trace, error) {
	return readNonSequitur(dir, nil)
}

func readNonSequitur(dir string, sinks func(pid, tid int64) Sink) (*Trace, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range ents {
		if e.IsDir() || len(e.Name()) == 0 || e.Name()[0] == '.' {
			continue
		}
		files = append(files, e.Name())
	}
	sort.Strings(files)
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no trace files in the folder", dir)
	}
	b := builder{sinks: sinks}
	for i, name := range files {
		path := filepath.Join(dir, name)
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		ts := b.thread(0, int64(i+1))
		ts.th.Name = name
		err = readNonSequiturFile(&b, ts, f, path)
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	return b.finish("nonsequitur", dir, false), nil
}

// ReadNonSequiturFile reads one thread file of a NonSequitur folder.
func ReadNonSequiturFile(r io.Reader, name string) (*Trace, error) {
	return readNonSequiturOne(r, name, nil)
}

func readNonSequiturOne(r io.Reader, name string, sinks func(pid, tid int64) Sink) (*Trace, error) {
	b := builder{sinks: sinks}
	ts := b.thread(0, 1)
	ts.th.Name = filepath.Base(name)
	if err := readNonSequiturFile(&b, ts, r, name); err != nil {
		return nil, err
	}
	return b.finish("nonsequitur", name, false), nil
}

func readNonSequiturFile(b *builder, ts *tstate, r io.Reader, name string) error {
	return lines(r, name, func(n int, line []byte) error {
		if skippable(line) {
			return nil
		}
		dirf, rest := firstField(line)
		rest, timef := lastField(rest)
		fn := trimSpace(rest)
		exit, ok := parseDir(dirf)
		if !ok {
			return &SyntaxError{name, n, fmt.Sprintf("direction %q is not 0 (enter) or 1 (exit) (want `DIR FUNC TIMESTAMP_NS`)", clip(dirf))}
		}
		if len(fn) == 0 {
			return &SyntaxError{name, n, "want 3 fields `DIR FUNC TIMESTAMP_NS`"}
		}
		t, ok := parseInt(timef)
		if !ok {
			return &SyntaxError{name, n, fmt.Sprintf("time %q is not an integer", clip(timef))}
		}
		id := b.id(fn)
		if exit {
			ts.exit(id, t)
		} else {
			ts.enter(id, t)
		}
		return nil
	})
}
