package sampler

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// TestPreloadNeeded: the C library that a dynamically linked program
// names, and its dynamic loader, are loading ahead under the paths the
// maps will show, and get takes them from there.
func TestPreloadNeeded(t *testing.T) {
	exe, err := exec.LookPath("true")
	if err != nil {
		t.Skip("no true command")
	}
	libc, err := filepath.EvalSymlinks("/lib/x86_64-linux-gnu/libc.so.6")
	if err != nil {
		t.Skip("no /lib/x86_64-linux-gnu/libc.so.6")
	}
	oc := objectCache{byKey: map[string]*object{}, out: &profWriter{}}
	oc.preloadNeeded(exe, []string{"LD_LIBRARY_PATH=/nonexistent"})
	la := oc.ahead[libc]
	if la == nil {
		t.Fatalf("%s not loading ahead (ahead: %v)", libc, oc.ahead)
	}
	<-la.done
	if la.err != nil || la.o == nil || la.o.table == nil {
		t.Fatalf("%s loaded ahead: %v, %+v", libc, la.err, la.o)
	}
	o, err := oc.get(libc, libc, false)
	if err != nil || o != la.o {
		t.Errorf("get(%s) = %p, %v; want the object loaded ahead %p", libc, o, err, la.o)
	}
	if oc.ahead[libc] != nil {
		t.Errorf("%s still loading ahead after get", libc)
	}
	// The dynamic loader too, under its real path (as the maps name it).
	if ld, err := filepath.EvalSymlinks("/lib64/ld-linux-x86-64.so.2"); err == nil {
		la := oc.ahead[ld]
		if la == nil {
			t.Fatalf("the dynamic loader %s is not loading ahead (ahead: %v)", ld, oc.ahead)
		}
		<-la.done
		if la.err != nil || la.o == nil || la.o.table == nil {
			t.Errorf("%s loaded ahead: %v, %+v", ld, la.err, la.o)
		}
	}
}
