package trace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// Formats are the input formats Open reads by name.
var Formats = []string{"dinamite", "nonsequitur", "chrome"}

// Detect names the format of the trace at path: "nonsequitur" for a
// folder, "vprof" for a vprof profile, "chrome" for JSON, "dinamite" for
// lines of four or more fields, "nonsequitur" for a single thread file of
// three.
func Detect(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if st.IsDir() {
		return "nonsequitur", nil
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	head := make([]byte, 64<<10)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return "", err
	}
	return detectBytes(head[:n], path)
}

func detectBytes(head []byte, path string) (string, error) {
	if bytes.HasPrefix(head, []byte("VPROF\x00")) {
		return "vprof", nil
	}
	t := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(t) > 0 && (t[0] == '[' || t[0] == '{') {
		return "chrome", nil
	}
	sc := bufio.NewScanner(bytes.NewReader(head))
	sc.Buffer(nil, len(head)+1)
	for sc.Scan() {
		line := sc.Bytes()
		if skippable(line) {
			continue
		}
		first, rest := firstField(line)
		rest, last := lastField(rest)
		_, mid := lastField(rest)
		if _, ok := parseInt(last); !ok {
			if string(first) == "tid" {
				return "dinamite", nil // the header
			}
			break
		}
		if _, ok := parseDir(mid); ok {
			if _, ok := parseInt(first); ok {
				return "dinamite", nil
			}
		}
		if _, ok := parseDir(first); ok {
			return "nonsequitur", nil
		}
		break
	}
	return "", fmt.Errorf("%s: unknown trace format (want a vprof profile, DINAMITE text, a NonSequitur folder or Chrome trace-event JSON; or name it with --input-format)", path)
}

// Open reads the trace at path in format ("" to detect it). vprof
// profiles are read by ReadProfile, not here.
func Open(path, format string) (*Trace, error) {
	if format == "" {
		var err error
		if format, err = Detect(path); err != nil {
			return nil, err
		}
	}
	switch format {
	case "nonsequitur":
		if st, err := os.Stat(path); err == nil && !st.IsDir() {
			f, err := os.Open(path)
			if err != nil {
				return nil, err
			}
			defer f.Close()
			return ReadNonSequiturFile(f, path)
		}
		return ReadNonSequitur(path)
	case "dinamite", "chrome":
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if format == "chrome" {
			return ReadChrome(f, path)
		}
		return ReadDINAMITE(f, path)
	case "vprof":
		return nil, fmt.Errorf("%s: a vprof profile: read it with ReadProfile", path)
	}
	return nil, fmt.Errorf("unknown input format %q (want dinamite, nonsequitur, chrome or vprof)", format)
}

// ErrNoStream is Stream's answer for a format it cannot stream.
var ErrNoStream = errors.New("format not streamed")

// Streams tells whether Stream reads format: the enter/exit text traces
// (dinamite, nonsequitur). Chrome traces are sorted whole and vprof
// profiles read with ReadProfile.
func Streams(format string) bool { return format == "dinamite" || format == "nonsequitur" }

// Stream reads the trace at path as Open does, but keeps no calls: each
// thread's events go to the Sink that sinks returns for it, on its first
// event, so memory does not grow with the calls. The Trace it returns
// has the functions and the threads (names, spans, repairs) without their
// calls, in Open's order. A format that Streams rejects gives ErrNoStream.
func Stream(path, format string, sinks func(pid, tid int64) Sink) (*Trace, error) {
	switch format {
	case "nonsequitur":
		if st, err := os.Stat(path); err == nil && !st.IsDir() {
			f, err := os.Open(path)
			if err != nil {
				return nil, err
			}
			defer f.Close()
			return readNonSequiturOne(f, path, sinks)
		}
		return readNonSequitur(path, sinks)
	case "dinamite":
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return readDINAMITE(f, path, sinks)
	}
	return nil, fmt.Errorf("%s: %s: %w", path, format, ErrNoStream)
}
