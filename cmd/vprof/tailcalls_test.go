package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vprof/vprof/testprogs"
)

// TestTailCallFrames records stats_recalc, whose root cause
// dict_table_t::update_statistics_if_needed() ends in a jump to
// dict_stats_update: its frame is restored between its caller and
// dict_stats_update in the exported stacks, and the report says that it
// was on the slow run's stacks through a tail call. Recorded with
// --tail-frames, its this->stat_n_rows is read there (where the frame is
// within --depth): the root cause gets a row, on that field's values.
func TestTailCallFrames(t *testing.T) {
	if testing.Short() {
		t.Skip("records a test program")
	}
	bin := vprofBinary(t)
	prog := testprogs.Path(t, "stats_recalc")
	dir := t.TempDir()
	files := recordModes(t, bin, prog, dir, "")
	collapsed, err := exec.Command(bin, "export", "--format", "collapsed", files[1]).Output()
	if err != nil {
		t.Fatal(err)
	}
	const chain = "row_update_for_mysql(dict_table_t*, unsigned long, int);dict_table_t::update_statistics_if_needed();dict_stats_update(dict_table_t*, dict_stats_upd_option_t)"
	if !bytes.Contains(collapsed, []byte(chain)) {
		t.Errorf("no exported stack passes through %s", chain)
	}
	cmd := exec.Command(bin, "report", "--top", "5", files[0], files[1])
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("report: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "dict_table_t::update_statistics_if_needed() was on") || !strings.Contains(stderr.String(), "through a tail call") {
		t.Errorf("report says nothing of the tail call:\n%s", stderr.String())
	}

	// --tail-frames: the root cause's variables are read in its restored
	// frame.
	tf := recordModes(t, bin, prog, dir, "-tf", "--tail-frames")
	js, err := exec.Command(bin, "report", "-q", "--format", "json", tf[0], tf[1]).Output()
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Functions []struct {
			Rank      int    `json:"rank"`
			Function  string `json:"function"`
			Variable  string `json:"variable"`
			Dimension string `json:"dimension"`
		} `json:"functions"`
	}
	if err := json.Unmarshal(js, &rep); err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Functions {
		if f.Function != "dict_table_t::update_statistics_if_needed()" {
			continue
		}
		if !strings.HasPrefix(f.Variable, "this->stat_") || f.Dimension != "value" {
			t.Errorf("with --tail-frames: the root cause ranks %d on %s (%s), want a this->stat_ field's values", f.Rank, f.Variable, f.Dimension)
		}
		return
	}
	t.Errorf("with --tail-frames: the root cause has no row")
}

// recordModes records one normal and one buggy run of prog into dir
// (normal<suffix>.data, buggy<suffix>.data) with the given record flags.
func recordModes(t *testing.T, bin, prog, dir, suffix string, flags ...string) []string {
	t.Helper()
	var files []string
	for _, mode := range []string{"normal", "buggy"} {
		out := filepath.Join(dir, mode+suffix+".data")
		args := append(append([]string{"record", "-q"}, flags...), "-o", out, "--", prog, mode)
		if b, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
			t.Fatalf("record %v %s: %v\n%s", flags, mode, err, b)
		}
		files = append(files, out)
	}
	return files
}

// TestTailCallEntryValuesCLI records ssl_flush_sessions without values in
// restored frames (--tail-frames=false, the default before D36), whose
// root cause SSL_CTX_flush_sessions is reached only through
// ssl_update_cache's tail call: its parameter s is never read from
// ngx_ssl_handshake's record of the call to ssl_update_cache (an SSL *, not
// the SSL_CTX *), and the root cause's evidence is its own struct local
// tp's fields (method.md D27, D28).
func TestTailCallEntryValuesCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("records a test program")
	}
	bin := vprofBinary(t)
	prog := testprogs.Path(t, "ssl_flush_sessions")
	dir := t.TempDir()
	// Without values in restored frames (with them, the restored
	// ssl_update_cache's record of its tail call names
	// SSL_CTX_flush_sessions, and its s is read from there).
	files := recordModes(t, bin, prog, dir, "", "--tail-frames=false")
	out, err := exec.Command(bin, "report", "-q", "--explain", "SSL_CTX_flush_sessions", files[0], files[1]).Output()
	if err != nil {
		t.Fatalf("report --explain: %v\n%s", err, out)
	}
	var vars []string
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(strings.Trim(line, "│ "))
		if len(f) > 0 && strings.Contains(line, "│") {
			vars = append(vars, f[0])
		}
	}
	sawTP := false
	for _, v := range vars {
		if v == "s" || strings.HasPrefix(v, "s->") {
			t.Errorf("SSL_CTX_flush_sessions' %s was read (an entry value from the record of a call to ssl_update_cache):\n%s", v, out)
		}
		sawTP = sawTP || strings.HasPrefix(v, "tp.")
	}
	if !sawTP {
		t.Errorf("no field of SSL_CTX_flush_sessions' struct local tp in its evidence:\n%s", out)
	}
}

// TestTailCallerDecidesNothing records ssl_flush_sessions as a user would
// (the defaults read values in frames restored from tail calls, D36):
// ssl_update_cache, restored above SSL_CTX_flush_sessions because it ends
// in a jump to it, is on the stack only while the flush runs, and its
// SSL *s lasts longer when a handshake ends in a long flush; it does not
// take the place of the root cause, which decided to walk the whole cache
// (method.md D35, D10).
func TestTailCallerDecidesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("records a test program")
	}
	bin := vprofBinary(t)
	prog := testprogs.Path(t, "ssl_flush_sessions")
	files := recordModes(t, bin, prog, t.TempDir(), "")
	js, err := exec.Command(bin, "report", "-q", "--format", "json", files[0], files[1]).Output()
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Functions []struct {
			Rank     int    `json:"rank"`
			Function string `json:"function"`
			Placed   string `json:"placed"`
		} `json:"functions"`
	}
	if err := json.Unmarshal(js, &rep); err != nil {
		t.Fatal(err)
	}
	rank := map[string]int{}
	for _, f := range rep.Functions {
		rank[f.Function] = f.Rank
		if f.Function == "ssl_update_cache" && strings.Contains(f.Placed, "D10") {
			t.Errorf("ssl_update_cache placed: %s", f.Placed)
		}
	}
	if r := rank["SSL_CTX_flush_sessions"]; r != 1 {
		t.Errorf("SSL_CTX_flush_sessions ranks %d (ssl_update_cache %d), want 1", r, rank["ssl_update_cache"])
	}
}
