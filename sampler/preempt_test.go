package sampler

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// sigBlocked reports whether the SigBlk line of a /proc status file
// holds sig.
func sigBlocked(t *testing.T, status string, sig unix.Signal) bool {
	t.Helper()
	for _, l := range strings.Split(status, "\n") {
		if v, ok := strings.CutPrefix(l, "SigBlk:"); ok {
			mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if err != nil {
				t.Fatalf("SigBlk %q: %v", v, err)
			}
			return mask&(1<<(uint(sig)-1)) != 0
		}
	}
	t.Fatalf("no SigBlk in %q", status)
	return false
}

// TestPreemptSignalBlocked: during a recording the tracer thread blocks
// SIGURG (blockPreemptSignal), and no thread does after it but the main
// one (see below); the program recorded starts with its signal mask as
// vprof's own was, SIGURG not blocked.
func TestPreemptSignalBlocked(t *testing.T) {
	dir := t.TempDir()
	// The program prints its own mask (no shell between: a shell blocks
	// every signal around its forks).
	mask := filepath.Join(dir, "mask")
	out, err := os.Create(mask)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	record(t, Config{Args: []string{"grep", "SigBlk", "/proc/self/status"}, Stdout: out})
	b, err := os.ReadFile(mask)
	if err != nil {
		t.Fatal(err)
	}
	if sigBlocked(t, string(b), unix.SIGURG) {
		t.Errorf("the program recorded starts with SIGURG blocked: %s", b)
	}
	// While a program spins, the tracer blocks it.
	blockers := func() (tids []string) {
		tasks, _ := os.ReadDir("/proc/self/task")
		for _, task := range tasks {
			if b, err := os.ReadFile("/proc/self/task/" + task.Name() + "/status"); err == nil && sigBlocked(t, string(b), unix.SIGURG) {
				tids = append(tids, task.Name())
			}
		}
		return tids
	}
	main := strconv.Itoa(os.Getpid())
	before := map[string]bool{} // a main thread parked by an earlier recording
	for _, tid := range blockers() {
		before[tid] = true
	}
	done := make(chan struct{})
	seen := make(chan bool, 1)
	go func() {
		defer close(done)
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			for _, tid := range blockers() {
				if !before[tid] {
					seen <- true
					return
				}
			}
		}
		seen <- false
	}()
	record(t, Config{Args: []string{"sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done"}})
	<-done
	if !<-seen {
		t.Errorf("no thread of the recorder blocked SIGURG while recording")
	}
	// The tracer thread exits with the recording (its goroutine ends
	// locked), but for the main thread when the tracer ran there: the
	// runtime parks it for good instead (it runs no Go code again).
	for wait := 0; ; wait++ {
		left := ""
		for _, tid := range blockers() {
			if tid != main {
				left = tid
			}
		}
		if left == "" {
			break
		}
		if wait == 200 {
			t.Errorf("thread %s still blocks SIGURG a second after the recording", left)
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
}
