// Package report prints the analysis of analyze/rank for people and tools:
// the ranked functions (`vprof report`), one function's variables and
// their tests (--explain) and the flat profile (`vprof flat`), as a table,
// Markdown, CSV or JSON (the stable shape, JSON); and the report's top
// functions and most anomalous variables as marks and value tracks for
// analyze/timeline and analyze/export.
//
// Use: res, err := rank.Analyze(normal, buggy, rank.DefaultOptions(), nil),
// then Write(w, res.Functions[:top], "table", res.Warnings), Explain,
// WriteFlat, Marks or Vars. WriteTable is vprof's one table printer (the
// schema listings and timeline --stats use it too); Short and ShortAll fit
// long C++ names in its cells.
package report
