// Command vprof is a value-assisted cost profiler for C and C++ programs:
// it records where a program spends time and the values its variables
// hold meanwhile, then ranks the functions whose values went wrong in a
// slow run against a normal one.
//
//	vprof record -o normal.data -- ./prog normal-args
//	vprof record -o slow.data -- ./prog slow-args
//	vprof report normal.data slow.data
//
// Other commands: schema, info, flat, timeline, export, version; `vprof
// <command> --help` gives each one's flags, README.md the whole workflow.
// Each command lives in its own file and registers itself in init.
package main
