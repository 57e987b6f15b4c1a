package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestHelpOnce: every command's --help (and -h, and `vprof help CMD`)
// prints its usage once, with its examples and flags, and exits 0.
func TestHelpOnce(t *testing.T) {
	for name := range commands {
		for _, args := range [][]string{{name, "--help"}, {name, "-h"}, {"help", name}} {
			var so, se bytes.Buffer
			code := mainStatus(args, &so, &se)
			out := so.String()
			if code != 0 || strings.Count(out, "Usage: vprof "+name) != 1 || !strings.Contains(out, "Flags:") {
				t.Errorf("vprof %s: exit %d, %d usages, stdout:\n%s\nstderr: %s", strings.Join(args, " "), code,
					strings.Count(out, "Usage: vprof "+name), out, se.String())
			}
		}
	}
}
