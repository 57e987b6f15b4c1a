package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// command is one subcommand. run gets the arguments after the subcommand
// name and returns an error; errors wrapped with usageErr exit 1, others 2.
type command struct {
	name    string
	summary string // one line, for `vprof --help`
	run     func(args []string, stdout, stderr io.Writer) error
	order   int // position in `vprof --help`
}

var commands = map[string]*command{}

func register(c *command) { commands[c.name] = c }

// usageError is a mistake in how vprof was called (exit status 1).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErr(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

// exitError carries an exit status chosen by the subcommand (e.g. the
// target's status passed through by `vprof record`).
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

const intro = `vprof finds the root cause of performance problems in C and C++ programs.

It records not only where a program spends time but what values its
variables hold while it does, then compares a normal run with a slow run
to rank the functions whose values went wrong.

Usage:
  vprof <command> [flags] [arguments]

Commands:
`

const outro = `
Example:
  make testprogs
  vprof schema testprogs/bin/recovery_budget

Run 'vprof <command> --help' for a command's flags and examples.
Exit status: 0 success, 1 usage error, 2 bad input or failure.
`

// sortedCommands lists the commands in `vprof --help` order.
func sortedCommands() []*command {
	cs := make([]*command, 0, len(commands))
	for _, c := range commands {
		cs = append(cs, c)
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].order != cs[j].order {
			return cs[i].order < cs[j].order
		}
		return cs[i].name < cs[j].name
	})
	return cs
}

func commandNames() []string {
	var out []string
	for _, c := range sortedCommands() {
		out = append(out, c.name)
	}
	return out
}

func usage(w io.Writer) {
	fmt.Fprint(w, intro)
	for _, c := range sortedCommands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, outro)
}

func main() { os.Exit(mainStatus(os.Args[1:], os.Stdout, os.Stderr)) }

func mainStatus(args []string, stdout, stderr io.Writer) (code int) {
	if len(args) == 0 {
		fmt.Fprintf(stderr, "vprof: no command given (%s)\nrun 'vprof --help' for usage\n", strings.Join(commandNames(), ", "))
		return 1
	}
	switch args[0] {
	case "-version", "--version", "-V":
		args[0] = "version"
	case "-h", "--help", "-help", "help":
		if len(args) > 1 && commands[args[1]] != nil {
			return mainStatus([]string{args[1], "--help"}, stdout, stderr)
		}
		usage(stdout)
		return 0
	}
	c := commands[args[0]]
	if c == nil {
		what := "command"
		if strings.HasPrefix(args[0], "-") {
			what = "flag"
		}
		fmt.Fprintf(stderr, "vprof: unknown %s %q (commands: %s)\nrun 'vprof --help' for usage\n", what, args[0], strings.Join(commandNames(), ", "))
		return 1
	}
	// No panic reaches a user: it becomes a one-line error (and the
	// recorder's own deferred detach has already run by then).
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "vprof %s: internal error: %v\n", c.name, r)
			code = 2
		}
	}()
	err := c.run(args[1:], stdout, stderr)
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	if errors.Is(err, errHelp) {
		return 0
	}
	msg := strings.TrimSpace(err.Error())
	fmt.Fprintf(stderr, "vprof %s: %s\n", c.name, msg)
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "run 'vprof %s --help' for usage\n", c.name)
		return 1
	}
	return 2
}
