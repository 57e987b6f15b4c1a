package timeline

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/vprof/vprof/analyze/regtime"
	"github.com/vprof/vprof/analyze/trace"
)

// TestXRay draws a real outside trace: testdata/xray/demo.c under clang's
// XRay, its log converted by `llvm-xray convert --output-format=trace_event`
// (the same steps as `make xray-demo`).
func TestXRay(t *testing.T) {
	for _, tool := range []string{"clang", "llvm-xray"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not installed: `make test` installs it with `make xray-tools`", tool)
			}
			t.Skipf("%s is not installed (run `make xray-tools`); skipping the XRay test", tool)
		}
	}
	chromiumPath(t)
	dir := t.TempDir()
	script, _ := filepath.Abs("testdata/xray/xray-demo.sh")
	vprof := filepath.Join(dir, "vprof")
	if out, err := exec.Command("go", "build", "-o", vprof, "github.com/vprof/vprof/cmd/vprof").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if out, err := exec.Command(script, vprof, dir).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	tr, err := trace.Open(filepath.Join(dir, "demo.json"), "")
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Check(); err != nil {
		t.Fatal(err)
	}
	// main and three workers, each of which looked up 3000 keys.
	if tr.Format != "chrome" || len(tr.Threads) != 4 {
		t.Fatalf("%s trace with %d threads, want chrome with 4", tr.Format, len(tr.Threads))
	}
	ss := regtime.All(tr, regtime.Later)
	for _, s := range ss[1:] {
		if s.Before < 6000 || !s.Compressed || s.Ratio() < 10 {
			t.Errorf("thread %s: %d calls, ratio %d", s.Thread.Name, s.Before, s.Ratio())
		}
	}
	// The page the script wrote loads and draws a row per thread.
	p := openPage(t, filepath.Join(dir, "xray-timeline.html"))
	if errs := p.errors(); len(errs) > 0 {
		t.Fatalf("console errors: %v", errs)
	}
	if n := eval[int](t, p, "document.querySelectorAll('.thread-row:not(.hidden)').length"); n != 4 {
		t.Fatalf("%d thread rows, want 4", n)
	}
	if xy := eval[map[string]float64](t, p, "vprof.locate('compact', true)"); xy == nil {
		t.Fatal("the 20 ms compact() call is not drawn as a plain call")
	}
	screenshot(t, p, "xray.png")
}
