package report

import (
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Style is the look of a table.
type Style uint8

const (
	// Boxed draws the cells in a box of line-drawing characters (the
	// report and flat tables).
	Boxed Style = iota
	// Markdown writes a GitHub-flavoured Markdown table.
	Markdown
	// Plain pads each cell by a space on either side to its column's
	// width and underlines the header with dashes: no borders, for
	// listings that grep and awk read (schema, timeline --stats).
	Plain
)

// Align is a column's alignment.
type Align uint8

const (
	Left Align = iota
	Right
)

// Table is vprof's one table printer. Boxed and Markdown tables are
// rendered by tablewriter (line drawing, alignment, display widths);
// Plain ones by WriteTable itself, as tablewriter renders about 40,000
// rows a second and a large program's schema has hundreds of thousands.
//
// Use: WriteTable(w, Boxed, header, rows, []Align{Right, Left}); a column
// without an alignment in align is left-aligned.
func WriteTable(w io.Writer, style Style, header []string, rows [][]string, align []Align) error {
	if style == Plain {
		return plainTable(w, header, rows)
	}
	al := make(tw.Alignment, len(header))
	for i := range al {
		al[i] = tw.AlignLeft
		if i < len(align) && align[i] == Right {
			al[i] = tw.AlignRight
		}
	}
	opts := []tablewriter.Option{tablewriter.WithAlignment(al), tablewriter.WithHeaderAlignment(tw.AlignCenter),
		tablewriter.WithHeaderAutoFormat(tw.Off)}
	if style == Markdown {
		opts = append(opts, tablewriter.WithRenderer(renderer.NewMarkdown()))
	}
	t := tablewriter.NewTable(w, opts...)
	hs := make([]any, len(header))
	for i, h := range header {
		hs[i] = h
	}
	t.Header(hs...)
	if err := t.Bulk(rows); err != nil {
		return err
	}
	return t.Render()
}

// StyleOf is the table style of a --format value: "markdown" is
// Markdown, any other Boxed.
func StyleOf(format string) Style {
	if format == "markdown" {
		return Markdown
	}
	return Boxed
}

// plainTable writes a Plain table.
func plainTable(w io.Writer, header []string, rows [][]string) error {
	width := make([]int, len(header))
	for i, h := range header {
		width[i] = len(h)
	}
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len(c))
		}
	}
	total := 0
	for _, n := range width {
		total += n + 2
	}
	line := make([]byte, 0, total+1)
	put := func(cells []string) error {
		line = line[:0]
		for i, c := range cells {
			line = append(line, ' ')
			line = append(line, c...)
			for k := len(c); k < width[i]+1; k++ {
				line = append(line, ' ')
			}
		}
		line = append(line, '\n')
		_, err := w.Write(line)
		return err
	}
	if err := put(header); err != nil {
		return err
	}
	if _, err := io.WriteString(w, strings.Repeat("-", total)+"\n"); err != nil {
		return err
	}
	for _, r := range rows {
		if err := put(r); err != nil {
			return err
		}
	}
	return nil
}
