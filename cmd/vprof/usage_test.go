package main

import (
	"os/exec"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
)

// TestUsageErrorsShort: a mistake in a command line gets what is wrong and
// where to look, on standard error, exit 1; never the whole help.
func TestUsageErrorsShort(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"--bogus"},
		{"frobnicate"},
		{"record", "--bogus"},
		{"record", "--depth"},
		{"record", "--interval", "soon", "--", "true"},
		{"report", "--top", "x", "a", "b"},
		{"report", "a"},
		{"flat", "--nope", "x"},
		{"export", "--format", "svg", "x"},
		{"schema", "--format"},
		{"timeline", "--cdt", "200", "x"},
		{"info", "-z"},
		{"version", "extra"},
	} {
		r := execVprof(t, "", nil, args...)
		lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
		name := "vprof " + strings.Join(args, " ")
		if r.code != 1 || r.stdout != "" || len(lines) < 1 || len(lines) > 2 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 1, nothing on stdout, 1 or 2 lines on stderr", name, r.code, r.stdout, r.stderr)
			continue
		}
		if !strings.HasPrefix(lines[len(lines)-1], "run 'vprof ") || !strings.HasSuffix(lines[len(lines)-1], "--help' for usage") {
			t.Errorf("%s: last line %q, want run 'vprof ... --help' for usage", name, lines[len(lines)-1])
		}
	}
}

// TestFlagHelp: every flag is listed once, as it is typed (--name, -x);
// one that takes a value shows a placeholder, a switch shows none; a
// default is said once.
func TestFlagHelp(t *testing.T) {
	flagLine := regexp.MustCompile(`^  (--?[a-z][a-z-]*)( [A-Z][A-Z_]*)?$`)
	for name := range commands {
		r := execVprof(t, "", nil, name, "--help")
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("vprof %s --help: exit %d, stderr %q", name, r.code, r.stderr)
		}
		if strings.HasSuffix(r.stdout, "\nFlags: none\n") {
			continue
		}
		_, flags, ok := strings.Cut(r.stdout, "\nFlags:\n")
		if !ok {
			t.Fatalf("vprof %s --help: no Flags section", name)
		}
		kinds := map[string]bool{} // name -> takes a value
		var got []string
		for _, l := range strings.Split(strings.TrimRight(flags, "\n"), "\n") {
			if strings.HasPrefix(l, "    \t") {
				if c := strings.Count(l, "(default"); c > 1 {
					t.Errorf("vprof %s --help: default given %d times: %q", name, c, l)
				}
				continue
			}
			m := flagLine.FindStringSubmatch(l)
			if m == nil {
				t.Errorf("vprof %s --help: flag line %q is not '  --name [VALUE]'", name, l)
				continue
			}
			kinds[strings.TrimLeft(m[1], "-")] = m[2] != ""
			got = append(got, m[1])
		}
		for flag, takesValue := range kinds {
			// A switch given a value is an error; a flag with a value
			// given none is one too: the placeholder tells which.
			r := execVprof(t, "", nil, name, "--"+flag)
			missing := strings.Contains(r.stderr, "flag needs an argument")
			if takesValue != missing {
				t.Errorf("vprof %s --help shows --%s with value %v, but without one it says %q", name, flag, takesValue, r.stderr)
			}
		}
		if len(got) == 0 {
			t.Errorf("vprof %s --help: no flags listed", name)
		}
	}
}

// TestVersion: 'vprof --version' and 'vprof version' print one line with
// the module version, the source revision (when built in a git clone) and
// the Go version.
func TestVersion(t *testing.T) {
	a := execVprof(t, "", nil, "--version")
	b := execVprof(t, "", nil, "version")
	if a.code != 0 || b.code != 0 || a.stdout != b.stdout || strings.Count(a.stdout, "\n") != 1 || !strings.HasPrefix(a.stdout, "vprof ") {
		t.Fatalf("--version: %d %q %q; version: %d %q %q", a.code, a.stdout, a.stderr, b.code, b.stdout, b.stderr)
	}
	bi, ok := debug.ReadBuildInfo()
	if ok && !strings.Contains(a.stdout, " "+bi.GoVersion+" ") {
		t.Errorf("version %q does not name %s", a.stdout, bi.GoVersion)
	}
	out, err := exec.Command("go", "version", "-m", vprofBinary(t)).Output()
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`vcs.revision=([0-9a-f]{12})`).FindSubmatch(out); m != nil {
		if !strings.Contains(a.stdout, "revision "+string(m[1])) {
			t.Errorf("binary built at %s, version says %q", m[1], a.stdout)
		}
	} else {
		t.Logf("built outside a git clone (no vcs.revision): %q", a.stdout)
	}
}

func TestFormatVersion(t *testing.T) {
	for _, c := range []struct {
		bi   *debug.BuildInfo
		want string
	}{
		{nil, "vprof (unknown) (no VCS revision recorded) "},
		{&debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "vprof v1.2.3 (no VCS revision recorded) "},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "965f78d2aafa5ae05e942907a2658284d8996774"},
			{Key: "vcs.time", Value: "2026-11-26T08:41:47Z"}, {Key: "vcs.modified", Value: "true"}}},
			"vprof (devel) (revision 965f78d2aafa, 2026-11-26T08:41:47Z, modified) "},
	} {
		if got := formatVersion(c.bi); !strings.HasPrefix(got, c.want) {
			t.Errorf("formatVersion: %q, want prefix %q", got, c.want)
		}
	}
}

// TestMakeInstall: the README's 'make install PREFIX=...' puts a working
// vprof in PREFIX/bin.
func TestMakeInstall(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	prefix := t.TempDir()
	cmd := exec.Command("make", "-s", "install", "PREFIX="+prefix)
	cmd.Dir = moduleRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make install: %v\n%s", err, out)
	}
	out, err := exec.Command(prefix+"/bin/vprof", "version").Output()
	if err != nil || !strings.HasPrefix(string(out), "vprof ") {
		t.Fatalf("installed vprof version: %v %q", err, out)
	}
}
