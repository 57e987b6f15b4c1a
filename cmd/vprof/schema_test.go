package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const schemaTestC = `#include <stdio.h>
int g_count = 3;
static long g_total;
__attribute__((noinline)) static long work(const int *a, int n, int limit) {
	long sum = 0;
	for (int i = 0; i < n; i++) {
		if (a[i] > limit) sum += a[i];
		else sum -= 1;
	}
	g_total += sum;
	return sum;
}
int main(int argc, char **argv) {
	int a[32];
	for (int k = 0; k < 32; k++) a[k] = k * argc;
	long r = work(a, 32, argc + 10);
	printf("%ld %d %ld\n", r, g_count, g_total);
	return 0;
}
`

// buildSchemaTestProg compiles schemaTestC with gcc -g -O2 in dir.
func buildSchemaTestProg(t *testing.T, dir string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "prog.c"), []byte(schemaTestC), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("gcc", "-g", "-O2", "-o", "prog", "prog.c")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	return filepath.Join(dir, "prog")
}

func TestSchemaCommand(t *testing.T) {
	dir := t.TempDir()
	bin := buildSchemaTestProg(t, dir)
	stripped := filepath.Join(dir, "prog.stripped")
	if out, err := exec.Command("strip", "--strip-debug", "-o", stripped, bin).CombinedOutput(); err != nil {
		t.Fatalf("strip: %v\n%s", err, out)
	}
	text := filepath.Join(dir, "prog.c")

	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string // each must appear
		absent []string // none may appear
		stderr string
	}{
		{"schema", []string{"schema", bin}, 0,
			[]string{" file ", " function ", " line ", " variable ", " type ", " tags", "#global", "g_count", "g_total", "work ", "long int"},
			[]string{"pc_start"}, "variables monitored"},
		{"metadata", []string{"schema", "--metadata", bin}, 0,
			[]string{"pc_start", "pc_end", "location", "offset", "basic_type_ptr", "addr:0x", "work::"},
			[]string{" tags"}, "locations"},
		{"func filter", []string{"schema", "--func", "^work$", "--all", bin}, 0,
			[]string{"work", "sum", "limit"}, []string{"#global", "main "}, ""},
		{"func filter with globals", []string{"schema", "--func", "^work$|#global", bin}, 0,
			[]string{"work", "#global"}, []string{"main "}, ""},
		{"component elsewhere", []string{"schema", "--component", "/nonexistent/", bin}, 2,
			nil, []string{"g_count", "#global"}, "--component /nonexistent/ matches no source file of " + bin + "; it could match files " + dir + "/prog.c"},
		{"component here", []string{"schema", "--component", dir, bin}, 0,
			[]string{"g_count"}, nil, ""},
		{"all", []string{"schema", "--all", bin}, 0, []string{"argv"}, nil, ""},
		{"help", []string{"schema", "--help"}, 0, []string{"Usage: vprof schema", "Examples:", "--metadata", "loop", "cond", "args"}, nil, ""},
		{"stripped", []string{"schema", stripped}, 2, []string{"main", "work", "pc_start"}, nil, "build it with -g"},
		{"stripped json", []string{"schema", "--format", "json", stripped}, 2, []string{`"has_dwarf": false`, `"function": "main"`}, nil, "no DWARF"},
		{"missing", []string{"schema", filepath.Join(dir, "nope")}, 2, nil, nil, "no such file"},
		{"not elf", []string{"schema", text}, 2, nil, nil, "not an ELF file"},
		{"no binary", []string{"schema"}, 1, nil, nil, "want exactly one binary"},
		{"two binaries", []string{"schema", bin, bin}, 1, nil, nil, "want exactly one binary"},
		{"bad regex", []string{"schema", "--func", "(", bin}, 1, nil, nil, "bad --func regex"},
		{"bad format", []string{"schema", "--format", "xml", bin}, 1, nil, nil, "unknown --format"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var so, se bytes.Buffer
			code := mainStatus(tt.args, &so, &se)
			fail := code != tt.code || !strings.Contains(se.String(), tt.stderr)
			for _, s := range tt.stdout {
				fail = fail || !strings.Contains(so.String(), s)
			}
			for _, s := range tt.absent {
				fail = fail || strings.Contains(so.String(), s)
			}
			if fail {
				t.Fatalf("exit %d (want %d)\nstdout:\n%s\nstderr:\n%s", code, tt.code, so.String(), se.String())
			}
			// Errors and the summary are one line each.
			if n := strings.Count(strings.TrimSpace(se.String()), "\n"); tt.code == 0 && n != 0 || tt.code == 2 && n > 1 {
				t.Errorf("stderr has %d lines:\n%s", n+1, se.String())
			}
		})
	}
}

func TestSchemaCommandJSON(t *testing.T) {
	bin := buildSchemaTestProg(t, t.TempDir())
	var so, se bytes.Buffer
	if code := mainStatus([]string{"schema", "--format", "json", bin}, &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	var out struct {
		Path     string `json:"path"`
		Schema   []jsonSchemaRow
		Metadata []jsonMetaRow
	}
	if err := json.Unmarshal(so.Bytes(), &out); err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, so.String())
	}
	if out.Path != bin || len(out.Schema) == 0 || len(out.Metadata) == 0 {
		t.Fatalf("path %q, %d schema rows, %d metadata rows", out.Path, len(out.Schema), len(out.Metadata))
	}
	globals := map[string]bool{}
	for _, r := range out.Schema {
		if r.Function == "#global" {
			globals[r.Variable] = true
		} else if len(r.Tags) == 0 && !r.Static {
			t.Errorf("untagged local listed: %+v", r)
		}
	}
	if !globals["g_count"] || !globals["g_total"] {
		t.Errorf("globals %v", globals)
	}
	for _, m := range out.Metadata {
		if m.Index < 0 || int(m.Index) >= len(out.Schema) || m.Expr == "" || !strings.HasPrefix(m.PCStart, "0x") && m.PCStart != "*" {
			t.Errorf("bad metadata row %+v", m)
		}
		if want := out.Schema[m.Index].Variable; !strings.HasSuffix(m.Variable, want) {
			t.Errorf("metadata row %+v names %s", m, want)
		}
	}
}
