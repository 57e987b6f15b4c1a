package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"
)

// errHelp is returned when --help was asked for and printed.
var errHelp = errors.New("help printed")

// helpers holds each FlagSet's help printer: flag.FlagSet calls Usage on
// every parse error too, and a mistyped flag must get one line on standard
// error, not the whole help on standard output (parseFlags prints the help
// only when it was asked for).
var helpers = map[*flag.FlagSet]func(){}

// newFlags makes a FlagSet whose --help prints the command's usage text
// (synopsis, description, examples) followed by its flags.
func newFlags(name, help string, stdout io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("vprof "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	helpers[fs] = func() {
		fmt.Fprint(stdout, strings.TrimLeft(help, "\n"))
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n == 0 {
			fmt.Fprintln(stdout, "\nFlags: none")
			return
		}
		fmt.Fprintln(stdout, "\nFlags:")
		printFlags(stdout, fs)
	}
	return fs
}

// printFlags lists fs's flags as the README and the examples spell them
// (--name, one-letter flags -x), each with its value's placeholder when it
// takes one (a switch has none), its usage, and its default once: not when
// it is the zero value or the usage already says what the default is.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	var fl []*flag.Flag
	fs.VisitAll(func(f *flag.Flag) { fl = append(fl, f) })
	sort.Slice(fl, func(i, j int) bool { return fl[i].Name < fl[j].Name })
	for _, f := range fl {
		arg, usage := flag.UnquoteUsage(f)
		dash := "--"
		if len(f.Name) == 1 {
			dash = "-"
		}
		line := "  " + dash + f.Name
		if !isSwitch(f) {
			if arg == "" {
				arg = "value"
			}
			line += " " + strings.ToUpper(arg)
		}
		if !strings.Contains(usage, "default") && !isZeroDefault(f) {
			if _, ok := f.Value.(interface{ Get() any }); ok && reflect.TypeOf(f.Value).Elem().Kind() == reflect.String {
				usage += fmt.Sprintf(" (default %q)", f.DefValue)
			} else {
				usage += fmt.Sprintf(" (default %s)", f.DefValue)
			}
		}
		fmt.Fprintf(w, "%s\n    \t%s\n", line, strings.ReplaceAll(usage, "\n", "\n    \t"))
	}
}

// isSwitch reports whether f is a boolean flag, given without a value.
func isSwitch(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// isZeroDefault reports whether f's default is its type's zero value (not
// worth printing).
func isZeroDefault(f *flag.Flag) bool {
	switch f.DefValue {
	case "", "0", "0s", "false", "[]":
		return true
	}
	return false
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
				if h := helpers[fs]; h != nil {
					h()
				}
				return errHelp
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
