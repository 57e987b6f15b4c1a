package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// TestPlainTable checks that Plain tables keep the layout of tablewriter's
// borderless rendition, which the schema listings used before Plain was
// written to render hundreds of thousands of rows fast.
func TestPlainTable(t *testing.T) {
	header := []string{"file", "function", "line", "variable", "type", "tags"}
	var rows [][]string
	for i := 0; i < 40; i++ {
		rows = append(rows, []string{"src/a.c", fmt.Sprintf("fn%d", i*37), fmt.Sprint(i * 13), "acc", "unsigned long", "loop,cond"[:i%9]})
	}
	var want, got bytes.Buffer
	tab := tablewriter.NewTable(&want,
		tablewriter.WithRendition(tw.Rendition{
			Borders:  tw.BorderNone,
			Symbols:  tw.NewSymbols(tw.StyleASCII),
			Settings: tw.Settings{Separators: tw.Separators{BetweenColumns: tw.Off}, Lines: tw.Lines{ShowHeaderLine: tw.On}},
		}),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithTrimSpace(tw.Off),
	)
	hs := make([]any, len(header))
	for i, h := range header {
		hs[i] = h
	}
	tab.Header(hs...)
	if err := tab.Bulk(rows); err != nil {
		t.Fatal(err)
	}
	if err := tab.Render(); err != nil {
		t.Fatal(err)
	}
	if err := WriteTable(&got, Plain, header, rows, nil); err != nil {
		t.Fatal(err)
	}
	if want.String() != got.String() {
		t.Errorf("layouts differ:\ntablewriter:\n%s\nPlain:\n%s", want.String(), got.String())
	}
}

// TestTableStyles: the header and the alignment of each style.
func TestTableStyles(t *testing.T) {
	header := []string{"n", "name"}
	rows := [][]string{{"1", "main"}, {"12", "f"}}
	tests := []struct {
		style Style
		want  string
	}{
		{Boxed, "│  1 │ main │\n│ 12 │ f    │\n"},
		{Markdown, "|  n | name |\n|---:|:-----|\n|  1 | main |\n| 12 | f    |\n"},
		{Plain, " n   name \n----------\n 1   main \n 12  f    \n"},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		if err := WriteTable(&b, tt.style, header, rows, []Align{Right}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), tt.want) {
			t.Errorf("style %d:\n%s\nwant it to hold\n%s", tt.style, b.String(), tt.want)
		}
	}
}
