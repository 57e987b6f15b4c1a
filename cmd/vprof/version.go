package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

const versionHelp = `
Usage: vprof version
       vprof --version

Prints vprof's module version and the revision of the source it was built
from (from the build information the go command records: a binary built
by 'go install' or 'go build' in a git checkout carries its commit), then
the Go version and platform. Give the line when you report a problem.

Examples:
  vprof version
`

func init() {
	register(&command{name: "version", order: 90, summary: "print vprof's version and source revision", run: runVersion})
}

func runVersion(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("version", versionHelp, stdout)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usageErr("takes no arguments")
	}
	fmt.Fprintln(stdout, versionLine())
	return nil
}

// versionLine is e.g. "vprof v0.0.0-20261126084335-965f78d0b1c2+dirty
// (revision 965f78d0b1c2, 2026-11-26T08:43:35Z, modified) go1.26.8
// linux/amd64". Without build information (a test binary) the version is
// "(unknown)".
func versionLine() string {
	bi, _ := debug.ReadBuildInfo()
	return formatVersion(bi)
}

// formatVersion is versionLine for the build information bi (nil: none).
func formatVersion(bi *debug.BuildInfo) string {
	version, rev, when, modified := "(unknown)", "", "", false
	if bi != nil {
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	var detail []string
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		detail = append(detail, "revision "+rev)
	} else {
		detail = append(detail, "no VCS revision recorded")
	}
	if when != "" {
		detail = append(detail, when)
	}
	if modified {
		detail = append(detail, "modified")
	}
	return fmt.Sprintf("vprof %s (%s) %s %s/%s", version, strings.Join(detail, ", "), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
