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

func itoa(i int) string { return strconv.Itoa(i) }
