package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/vprof/vprof/testprogs"
)

// TestExportRealProfile records a test program with vprof record and
// exports it in every format, reading each back as its tool would.
func TestExportRealProfile(t *testing.T) {
	bin := testprogs.Path(t, "recovery_budget")
	dir := t.TempDir()
	data := filepath.Join(dir, "run.data")
	var so, se bytes.Buffer
	if code := mainStatus([]string{"record", "-o", data, "--", bin, "normal"}, &so, &se); code != 0 {
		t.Fatalf("record: exit %d\n%s", code, se.String())
	}

	pb := filepath.Join(dir, "cpu.pb.gz")
	if code := mainStatus([]string{"export", "--format", "pprof", "-o", pb, data}, &so, &se); code != 0 {
		t.Fatalf("export pprof: exit %d\n%s", code, se.String())
	}
	f, err := os.Open(pb)
	if err != nil {
		t.Fatal(err)
	}
	p, err := profile.Parse(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Sample) < 100 {
		t.Fatalf("pprof: %d samples", len(p.Sample))
	}
	// The hot function of this program, with its source file.
	found := false
	for _, fn := range p.Function {
		if fn.Name == "ut_crc32_sw" && strings.HasSuffix(fn.Filename, "recovery_budget/ut0crc32.c") {
			found = true
		}
	}
	if !found {
		t.Errorf("pprof: no ut_crc32_sw with its file among %d functions", len(p.Function))
	}
	if gobin, err := exec.LookPath("go"); err == nil {
		out, err := exec.Command(gobin, "tool", "pprof", "-top", pb).CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("ut_crc32_sw")) {
			t.Errorf("go tool pprof -top: %v\n%s", err, out)
		}
	}

	so.Reset()
	if code := mainStatus([]string{"export", "--format", "collapsed", data}, &so, &se); code != 0 {
		t.Fatalf("export collapsed: exit %d\n%s", code, se.String())
	}
	lines := strings.Split(strings.TrimSpace(so.String()), "\n")
	if len(lines) < 2 || !strings.Contains(so.String(), "main;recv_group_scan_log_recs;") {
		t.Errorf("collapsed: %d lines, no main;recv_group_scan_log_recs; stack:\n%s", len(lines), so.String())
	}
	for _, l := range lines {
		if i := strings.LastIndexByte(l, ' '); i < 0 || strings.Trim(l[i+1:], "0123456789") != "" {
			t.Fatalf("collapsed line without a count: %q", l)
		}
	}

	for _, format := range []string{"speedscope", "chrome"} {
		so.Reset()
		if code := mainStatus([]string{"export", "--format", format, data}, &so, &se); code != 0 {
			t.Fatalf("export %s: exit %d\n%s", format, code, se.String())
		}
		var v map[string]any
		if err := json.Unmarshal(so.Bytes(), &v); err != nil {
			t.Fatalf("%s: not JSON: %v", format, err)
		}
	}

	// With a normal run to compare with, the most anomalous variables
	// become counter tracks.
	slow := filepath.Join(dir, "slow.data")
	if code := mainStatus([]string{"record", "-o", slow, "--", bin, "buggy"}, &so, &se); code != 0 {
		t.Fatalf("record buggy: exit %d\n%s", code, se.String())
	}
	so.Reset()
	if code := mainStatus([]string{"export", "--format", "chrome", "--report", data, slow}, &so, &se); code != 0 {
		t.Fatalf("export chrome --report: exit %d\n%s", code, se.String())
	}
	var tr struct {
		TraceEvents []struct {
			Ph   string         `json:"ph"`
			Name string         `json:"name"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(so.Bytes(), &tr); err != nil {
		t.Fatalf("chrome --report: not JSON: %v", err)
	}
	counters := map[string]int{}
	for _, e := range tr.TraceEvents {
		if e.Ph == "C" {
			if _, ok := e.Args["value"].(float64); !ok {
				t.Fatalf("counter event without a value: %+v", e)
			}
			counters[e.Name]++
		}
	}
	if len(counters) == 0 {
		t.Error("chrome --report: no counter tracks")
	}
	t.Logf("counter tracks: %v", counters)

	// Bad input: one line, exit 2; bad usage: exit 1.
	se.Reset()
	if code := mainStatus([]string{"export", "--format", "pprof", "-o", pb, "/etc/hostname"}, &so, &se); code != 2 ||
		strings.Count(strings.TrimSpace(se.String()), "\n") != 0 {
		t.Errorf("foreign file: exit %d, stderr %q", code, se.String())
	}
	if code := mainStatus([]string{"export", "--format", "svg", data}, &so, &se); code != 1 {
		t.Errorf("unknown format: exit %d", code)
	}
}
