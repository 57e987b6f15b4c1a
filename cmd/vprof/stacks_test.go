package main

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/vprof/vprof/testprogs"
)

// TestWholeStacksPastLargeFrames: vhost_lookup's config reader holds an
// 8 KiB line buffer whose tail is never touched; the perf sampler's stack
// copy stops at that page (the kernel cannot fault it in at the tick), and
// the frames above it (main, _start) were lost on 97% of the samples. They
// are read live now: nearly every stack reaches _start.
func TestWholeStacksPastLargeFrames(t *testing.T) {
	if testing.Short() {
		t.Skip("records a test program")
	}
	bin := vprofBinary(t)
	prog := testprogs.Path(t, "vhost_lookup")
	out := filepath.Join(t.TempDir(), "p.data")
	if b, err := exec.Command(bin, "record", "-q", "-o", out, "--", prog, "normal").CombinedOutput(); err != nil {
		t.Fatalf("record: %v\n%s", err, b)
	}
	info, _ := exec.Command(bin, "info", out).Output()
	if !strings.Contains(string(info), "sampler:      perf") {
		t.Skip("not recorded with the perf sampler")
	}
	b, err := exec.Command(bin, "export", "--format", "collapsed", out).Output()
	if err != nil {
		t.Fatal(err)
	}
	var total, whole float64
	for _, line := range strings.Split(string(b), "\n") {
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		n, _ := strconv.ParseFloat(line[i+1:], 64)
		total += n
		if strings.HasPrefix(line, "_start;") {
			whole += n
		}
	}
	if total == 0 || whole < 0.9*total {
		t.Errorf("%.0f of %.0f stacks reach _start, want 90%% or more", whole, total)
	}
}
