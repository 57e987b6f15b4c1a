package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// errHelp is returned when --help was asked for and printed.
var errHelp = errors.New("help printed")

// newFlags makes a FlagSet whose --help prints the command's usage text
// (synopsis, description, examples) followed by its flags.
func newFlags(name, help string, stdout io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("vprof "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fmt.Fprint(stdout, strings.TrimLeft(help, "\n"))
		fmt.Fprintln(stdout, "\nFlags:")
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	return fs
}

// parseFlags parses args, turning flag errors into usage errors and --help
// into errHelp (exit 0). Flags may follow positional arguments.
//
// Everything after a literal "--" is positional and never parsed, so
// `vprof record -- ./server -p 80` keeps the target's flags.
func parseFlags(fs *flag.FlagSet, args []string) error {
	var pos, tail []string
	for i, a := range args {
		if a == "--" {
			args, tail = args[:i], args[i+1:]
			break
		}
	}
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return errHelp // the FlagSet printed fs.Usage
			}
			return usageErr("%v", err)
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	// Re-parse with only positionals left so fs.Args() returns them.
	return fs.Parse(append(append([]string{"--"}, pos...), tail...))
}

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }
