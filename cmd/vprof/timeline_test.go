package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestTimelineCommand(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "t.txt")
	var b strings.Builder
	b.WriteString("1 main 0 0\n")
	for i := 0; i < 400; i++ {
		b.WriteString("1 step 0 " + itoa(10+i*10) + "\n1 step 1 " + itoa(15+i*10) + "\n")
	}
	b.WriteString("1 main 1 100000\n2 other 0 5\n2 other 1 9\n")
	os.WriteFile(in, []byte(b.String()), 0o644)
	out := filepath.Join(dir, "t.html")

	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"stats", []string{"timeline", "--stats", in}, 0, "t.txt  tid 1   401           402      2        2           200", ""},
		{"stats later preset", []string{"timeline", "--stats", "--preset", "later", "--ttft", "50", in}, 0, "tid 2   1             1        1        1           1 (uncompressed)", ""},
		{"page", []string{"timeline", "-o", out, in, "--compare", in}, 0, "", "wrote " + out},
		{"help", []string{"timeline", "--help"}, 0, "Examples:", ""},
		{"no input", []string{"timeline"}, 1, "", "want exactly one INPUT"},
		{"bad preset", []string{"timeline", "--preset", "x", in}, 1, "", "unknown RegTime preset"},
		{"bad percent", []string{"timeline", "--cdt", "200", in}, 1, "", "percentage"},
		{"report needs compare", []string{"timeline", "--report", in}, 1, "", "--compare NORMAL"},
		{"report needs profiles", []string{"timeline", "--report", "--compare", in, in}, 1, "", "needs vprof profiles"},
		{"missing file", []string{"timeline", filepath.Join(dir, "nope")}, 2, "", "no such file"},
		{"unknown format", []string{"timeline", "--input-format", "dinamite", filepath.Join(dir, "t.html")}, 2, "", "t.html:1:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var so, se bytes.Buffer
			code := mainStatus(tt.args, &so, &se)
			if code != tt.code || !strings.Contains(so.String(), tt.stdout) || !strings.Contains(se.String(), tt.stderr) {
				t.Fatalf("exit %d (want %d)\nstdout: %s\nstderr: %s", code, tt.code, so.String(), se.String())
			}
		})
	}
	page, err := os.ReadFile(out)
	if err != nil || !bytes.Contains(page, []byte(`"label":"normal"`)) || !bytes.Contains(page, []byte(`"label":"buggy"`)) {
		t.Fatalf("page: %v", err)
	}
}

// The authors' rules (method.md §9) from the command line, on a NonSequitur
// folder: a thread of 150 calls p, each with one child c and alone between
// idle gaps, is 300 calls but 450 records, so it is compressed (more than
// 325 records); each lone short p keeps its child in a one-call expression
// (150 entries of 2 trie nodes each), where the method doc made it a plain
// call (150 entries, size 150) and left the thread uncompressed (300).
func TestTimelineAuthorsRules(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ns")
	os.Mkdir(dir, 0o755)
	var b strings.Builder
	for i := 0; i < 150; i++ {
		at := int64(100 * i)
		for _, ev := range []struct {
			dir, fn string
			at      int64
		}{{"0", "p", at}, {"0", "c", at + 1}, {"1", "c", at + 5}, {"1", "p", at + 10}} {
			b.WriteString(ev.dir + " " + ev.fn + " " + strconv.FormatInt(ev.at, 10) + "\n")
		}
	}
	os.WriteFile(filepath.Join(dir, "t1"), []byte(b.String()), 0o644)
	var so, se bytes.Buffer
	if code := mainStatus([]string{"timeline", "--stats", "--preset", "later", dir}, &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	lines := strings.Split(strings.TrimSpace(so.String()), "\n")
	if got := strings.Fields(lines[len(lines)-1]); strings.Join(got[1:], " ") != "t1 300 450 150 300 1" {
		t.Fatalf("stats %q, want calls 300, records 450, entries 150, size 300, ratio 1", got)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
