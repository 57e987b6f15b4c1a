package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeColumnGuide: every column of the report table, and every key
// of its JSON, is explained in the README's "Reading the report" guide, so
// a new column cannot go out undocumented.
func TestReadmeColumnGuide(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(moduleRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, guide, ok := strings.Cut(string(readme), "\n## Reading the report\n")
	if !ok {
		t.Fatal("README has no 'Reading the report' section")
	}
	guide, _, _ = strings.Cut(guide, "\n## ")
	rows := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\| ([^|]+?) \|`).FindAllStringSubmatch(guide, -1) {
		rows[m[1]] = true
	}

	dir := t.TempDir()
	n, b := filepath.Join(dir, "n"), filepath.Join(dir, "b")
	writeRun(t, n, false, 0, "aa")
	writeRun(t, b, true, 0, "aa")
	r := execVprof(t, dir, nil, "report", n, b)
	if r.code != 0 {
		t.Fatalf("report: %s", r.stderr)
	}
	header := strings.Split(r.stdout, "\n")[1] // under the top border
	for _, col := range strings.Split(strings.Trim(header, "│ "), "│") {
		if col = strings.TrimSpace(col); col != "" && !rows[col] {
			t.Errorf("report column %q has no row in the README's guide (rows: %v)", col, rows)
		}
	}
	r = execVprof(t, dir, nil, "report", "--format", "json", n, b)
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	var fns []map[string]any
	json.Unmarshal(doc["functions"], &fns)
	keys := []string{}
	for k := range doc {
		keys = append(keys, k)
	}
	for k := range fns[0] {
		keys = append(keys, k)
	}
	for _, k := range keys {
		if !strings.Contains(guide, "`"+k+"`") {
			t.Errorf("JSON key %q is not in the README's guide", k)
		}
	}
}
