package timeline

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/vprof/vprof/analyze/internal/testprof"
	"github.com/vprof/vprof/analyze/regtime"
	"github.com/vprof/vprof/analyze/trace"
	"github.com/vprof/vprof/testprogs"
)

// The tests of this file check that the page reads at a glance: each run
// has its own axis, the report's words, few marks, labels that fit, rows
// no taller than their calls, and nothing too narrow to see.

// comparePage writes a --compare --report page of two synthetic profiled
// runs, the normal one half as long as the buggy one.
func comparePage(t testing.TB) string {
	dir := t.TempDir()
	normal, buggy, err := testprof.Runs(dir, 20, 40)
	if err != nil {
		t.Fatal(err)
	}
	vars := reportVars
	page := &Page{Title: "compare", Params: regtime.Later, Preset: "later", Marks: reportMarks}
	for _, in := range []struct{ label, path string }{{"normal", normal}, {"buggy", buggy}} {
		tr, tracks, err := ReadProfileWithTracks(in.path, vars)
		if err != nil {
			t.Fatal(err)
		}
		page.Runs = append(page.Runs, &Run{Label: in.label, Trace: tr, Summaries: regtime.All(tr, regtime.Later), Tracks: tracks})
	}
	path := filepath.Join(dir, "compare.html")
	writePageFile(t, path, page)
	return path
}

func writePageFile(t testing.TB, path string, page *Page) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(f, page); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// endX is, for each run, the x of its end on its rows' canvases and the
// canvas width, from the page's own axis.
const endX = `vprof.rows.filter(r => r.th.index === 0).map(r => {
	var u = (r.run.axis.toU(r.run.span) - vprof.state.v0) / (vprof.state.v1 - vprof.state.v0);
	return [u * r.cv.clientWidth, r.cv.clientWidth];
})`

// checkAxes: no run's ruler draws anything past the run's end (the old
// ruler repeated the end's label there), and its ticks are distinct
// times ending with the run's span.
func checkAxes(t *testing.T, p *page) {
	// Each ruler spans exactly its rows' canvases.
	if bad := eval[[]string](t, p, `vprof.rows.filter(r => r.th.shown).map(r => {
		var a = r.run.ruler.getBoundingClientRect(), b = r.cv.getBoundingClientRect();
		return Math.abs(a.left - b.left) > 0.5 || Math.abs(a.width - b.width) > 0.5 ? r.th.name + ': ruler ' + a.left + '+' + a.width + ', canvas ' + b.left + '+' + b.width : '';
	}).filter(s => s)`); len(bad) > 0 {
		t.Errorf("rulers not over their rows: %q", bad)
	}
	ends := eval[[][]float64](t, p, endX)
	for ri, e := range ends {
		if e[0] < e[1]-10 {
			ink := eval[int](t, p, fmt.Sprintf(`(function(){
				var cv = document.querySelectorAll('.ruler')[%d], dpr = window.devicePixelRatio || 1;
				// Past the end's tick and its label (which starts left of
				// the end, or at 0 when the run is narrower than it).
				var r = vprof.rows.find(r => r.run.index === %d).run, k = r.ticks && r.ticks[r.ticks.length - 1];
				var x0 = Math.ceil((Math.max(%f, k && k.end ? k.lx + k.w : 0) + 2) * dpr), d = cv.getContext('2d').getImageData(x0, 0, cv.width - x0, cv.height).data, n = 0;
				for (var i = 3; i < d.length; i += 4) if (d[i] > 0) n++;
				return n;
			})()`, ri, ri, e[0]))
			if ink > 0 {
				t.Errorf("run %d: %d pixels drawn on the ruler past the run's end (x %.0f of %.0f)", ri, ink, e[0], e[1])
			}
		}
		ticks := eval[[]string](t, p, fmt.Sprintf("vprof.rows.find(r => r.run.index === %d).run.ticks.map(k => k.label)", ri))
		seen := map[string]bool{}
		for _, l := range ticks {
			if seen[l] {
				t.Errorf("run %d: axis label %q twice in %q", ri, l, ticks)
			}
			seen[l] = true
		}
		span := eval[string](t, p, fmt.Sprintf("(function(){var r = vprof.rows.find(r => r.run.index === %d).run; return r.ticks[r.ticks.length-1].end ? String(r.span) : 'no end tick';})()", ri))
		if span == "no end tick" {
			t.Errorf("run %d: the axis does not end with the run's end (%q)", ri, ticks)
		}
	}
}

// hoverTip moves the mouse to (x, y) of row i's canvas and returns the
// tooltip's text, "" when hidden.
func hoverTip(t *testing.T, p *page, row int, x, y float64) string {
	xy := eval[[]float64](t, p, fmt.Sprintf("(function(){var rc = vprof.rows[%d].cv.getBoundingClientRect(); return [rc.left, rc.top];})()", row))
	if err := chromedp.Do(p.ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, xy[0]+x, xy[1]+y)); err != nil {
		t.Fatal(err)
	}
	return eval[string](t, p, "document.getElementById('tip').style.display === 'block' ? document.getElementById('tip').textContent : ''")
}

// noBareR: the discount is said in words, never as "r=" or "r = ".
var bareR = regexp.MustCompile(`\br ?= ?[0-9]`)

func checkWords(t *testing.T, p *page, want string) {
	names := eval[[]string](t, p, "[].concat.apply([], vprof.rows.map(r => r.th.tracks.map(k => k.name)))")
	notes := eval[[]string](t, p, "JSON.parse(document.getElementById('data').textContent).marks.map(m => m.note)")
	text := eval[string](t, p, "document.body.innerText")
	for _, s := range append(append(names, notes...), text) {
		if bareR.MatchString(s) {
			t.Errorf("%q says r = instead of words", s)
		}
	}
	if want != "" && !strings.Contains(strings.Join(names, "\n"), want) {
		t.Errorf("track names %q do not say %q", names, want)
	}
}

// checkMarks: report marks sit once per expression or plain call, and
// only on the report's functions.
func checkMarks(t *testing.T, p *page) int {
	bad := eval[[]string](t, p, `(function(){
		var out = [], marked = new Set(JSON.parse(document.getElementById("data").textContent).marks.map(m => m.f)), n = 0;
		vprof.rows.forEach(function (row) {
			if (!row.th.shown) return;
			var per = new Map();
			row.marks.forEach(function (m) { per.set(m.en, (per.get(m.en) || 0) + 1); n++; });
			per.forEach(function (k, en) { if (k > 1) out.push(row.th.name + ': ' + k + ' marks on one entry'); });
			row.hits.forEach(function (h) {
				if (!h.en || h.track) return;
				var has = h.box ? false : (!h.en.expr && marked.has(h.en.f));
				if (h.box) vprof.nodes(row, h.en).forEach(function (nd) { if (marked.has(nd.f)) has = true; });
				if (has !== per.has(h.en) && (h.box || !h.en.expr)) out.push(row.th.name + ': entry at ' + h.en.s + (has ? ' unmarked' : ' marked without a report function'));
			});
		});
		out.push('count ' + n);
		return out;
	})()`)
	var n int
	fmt.Sscanf(bad[len(bad)-1], "count %d", &n)
	for _, b := range bad[:len(bad)-1] {
		t.Error(b)
	}
	return n
}

// checkLabels: every name drawn in a glyph or a track fits its room and
// ends with an ellipsis where it was cut; run titles stay on one line.
// Returns how many labels were cut.
func checkLabels(t *testing.T, p *page) int {
	got := eval[[]string](t, p, `(function(){
		var out = [], cut = 0, n = 0, ctx = document.createElement('canvas').getContext('2d');
		ctx.font = '10px system-ui, sans-serif';
		vprof.rows.forEach(function (row) {
			if (!row.th.shown) return;
			row.hits.forEach(function (h) {
				if (h.label === undefined) return;
				n++;
				var full = h.full !== undefined ? h.full : vprof.funcs[h.node ? h.node.f : h.en.f];
				var w = ctx.measureText(h.label).width;
				if (w > h.room + 0.5) out.push('"' + h.label + '" is ' + w.toFixed(1) + ' px in ' + h.room.toFixed(1));
				if (h.label !== full) {
					cut++;
					if (!h.label.endsWith('…') || !full.startsWith(h.label.slice(0, -1))) out.push('"' + h.label + '" cuts "' + full + '" without an ellipsis');
				}
			});
		});
		document.querySelectorAll('.run h2, .thread-row .label span').forEach(function (e) {
			var cs = getComputedStyle(e);
			if (e.scrollWidth > e.clientWidth + 1 && cs.textOverflow !== 'ellipsis') out.push('"' + e.textContent + '" cut without an ellipsis');
			if (e.getClientRects().length && e.getBoundingClientRect().height > 1.6 * parseFloat(cs.lineHeight || 16)) out.push('"' + e.textContent + '" wraps');
		});
		out.push('cut ' + cut + ' of ' + n);
		return out;
	})()`)
	var cut, n int
	fmt.Sscanf(got[len(got)-1], "cut %d of %d", &cut, &n)
	for _, b := range got[:len(got)-1] {
		t.Error(b)
	}
	if n == 0 {
		t.Error("no names drawn in the glyphs")
	}
	return cut
}

// checkPlurals: no "1 threads", "1 calls" and the like anywhere.
var onePlural = regexp.MustCompile(`\b1 (threads|calls|entries|functions|other functions|merged callstacks)\b`)

func checkPlurals(t *testing.T, p *page) {
	if m := onePlural.FindString(eval[string](t, p, "document.body.innerText + '\\n' + document.getElementById('threads').innerText")); m != "" {
		t.Errorf("page says %q", m)
	}
}

// checkRows: a row is as tall as its call depth (a level of BAR px each)
// plus its value tracks, nothing more, and every level has a call.
func checkRows(t *testing.T, p *page) {
	bad := eval[[]string](t, p, `(function(){
		var out = [];
		// The page's sizes (before they were exported: 13, 3, 38, 48).
		var BAR = vprof.BAR || 13, PAD = vprof.PAD === undefined ? 3 : vprof.PAD, TRACKH = vprof.TRACKH || 38, MAXDEPTH = vprof.MAXDEPTH || 48;
		vprof.rows.forEach(function (row) {
			if (!row.th.shown) return;
			var depth = Math.min(row.th.maxDepth, MAXDEPTH - 1) + 1;
			var want = depth * BAR + 2 * PAD + row.th.tracks.length * TRACKH;
			var h = row.div.getBoundingClientRect().height, ch = row.cv.getBoundingClientRect().height;
			if (ch !== want) out.push(row.th.name + ': canvas ' + ch + ' px for ' + depth + ' levels, want ' + want);
			if (h > want + 2) out.push(row.th.name + ': row ' + h + ' px for a ' + want + ' px canvas');
			var levels = new Set();
			row.hits.forEach(function (x) { if (!x.box && !x.track) levels.add(Math.round((x.y - PAD) / BAR)); });
			if (levels.size !== depth) out.push(row.th.name + ': ' + levels.size + ' of ' + depth + ' levels drawn');
		});
		return out;
	})()`)
	for _, b := range bad {
		t.Error(b)
	}
}

// checkMinWidth: every plain call, expression and expression node is at
// least 4 px wide, and the legend says so.
func checkMinWidth(t *testing.T, p *page) {
	bad := eval[[]string](t, p, `(function(){
		var out = [];
		vprof.rows.forEach(function (row) {
			if (!row.th.shown) return;
			row.hits.forEach(function (h) {
				if (h.track || h.w >= 4 - 1e-9) return;
				out.push(row.th.name + ': ' + (h.box ? 'expression' : h.node ? 'node ' + vprof.funcs[h.node.f] : vprof.funcs[h.en.f]) + ' ' + h.w.toFixed(2) + ' px wide');
			});
		});
		return out.slice(0, 10);
	})()`)
	for _, b := range bad {
		t.Error(b)
	}
	if txt := eval[string](t, p, "document.getElementById('params').textContent"); !strings.Contains(txt, "at least 4 px wide") {
		t.Errorf("legend %q does not say that glyphs are at least 4 px wide", txt)
	}
}

func TestCompareAxes(t *testing.T) {
	p := openPage(t, comparePage(t))
	spans := eval[[]float64](t, p, "vprof.rows.map(r => r.run.span)")
	if len(spans) != 2 || spans[0] >= spans[1] {
		t.Fatalf("spans %v: want a shorter normal run", spans)
	}
	checkAxes(t, p)
	// Hovering the normal run's value track: a value inside the run,
	// nothing past its end.
	ends := eval[[][]float64](t, p, endX)
	y := eval[float64](t, p, "vprof.rows[0].callH + 15")
	if tip := hoverTip(t, p, 0, ends[0][0]/2, y); !strings.Contains(tip, "budget") {
		t.Errorf("hover inside the normal run's track: %q", tip)
	}
	if tip := hoverTip(t, p, 0, ends[0][0]+20, y); tip != "" {
		t.Errorf("hover past the normal run's end shows %q", tip)
	}
	// Both axes stay right on the linear axis too.
	chromedp.Do(p.ctx, chromedp.Click(ID("linear")))
	checkAxes(t, p)
	screenshot(t, p, "compare.png")
	if errs := p.errors(); len(errs) > 0 {
		t.Fatalf("console errors: %v", errs)
	}
}

func TestReportWords(t *testing.T) {
	p := openPage(t, comparePage(t))
	checkWords(t, p, "values unlike the normal run: discount 0.00")
	// The marked function's tooltip says the same in words.
	xy := eval[map[string]float64](t, p, "vprof.locate('recover_loop')")
	chromedp.Do(p.ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, xy["x"], xy["y"]))
	if tip := eval[string](t, p, "document.getElementById('tip').textContent"); !strings.Contains(tip, "report #") || !strings.Contains(tip, "unlike the normal run: discount 0.00") || bareR.MatchString(tip) {
		t.Errorf("tooltip of a marked function %q", tip)
	}
}

func TestReportMarksOncePerExpression(t *testing.T) {
	tr := demoTrace()
	path := writeDemoPage(t, t.TempDir(), tr, []Mark{{Func: "btree_search", Rank: 1, Note: "x"}, {Func: "compare_keys", Rank: 2, Note: "y"}})
	p := openPage(t, path)
	// btree_search and compare_keys are in every expression of tid 1:
	// one mark per expression, none elsewhere.
	exprs := eval[int](t, p, "vprof.rows[0].hits.filter(h => h.box).length")
	if n := checkMarks(t, p); n != exprs || n == 0 {
		t.Errorf("%d marks for %d expressions holding the marked functions", n, exprs)
	}
}

func TestLabelsAndPlurals(t *testing.T) {
	tr := demoTrace()
	p := openPage(t, writeDemoPage(t, t.TempDir(), tr, nil))
	if cut := checkLabels(t, p); cut == 0 {
		t.Error("no label was cut: the test lost its long names")
	}
	// A run of one thread, one call.
	one := &trace.Trace{Format: "dinamite", Path: "one.txt", Funcs: []string{"main"},
		Threads: []*trace.Thread{{Name: "tid 1", Start: 0, End: 10, Calls: []trace.Call{{Start: 0, End: 10, Next: 1}}}}}
	path := filepath.Join(t.TempDir(), "one.html")
	writePageFile(t, path, &Page{Title: "one", Runs: []*Run{{Label: "run", Trace: one, Summaries: regtime.All(one, regtime.Later)}}, Params: regtime.Later})
	p1 := openPage(t, path)
	checkPlurals(t, p1)
	if txt := eval[string](t, p1, "document.body.innerText + '\\n' + document.querySelector('.thread-row .stat').textContent"); !strings.Contains(txt, "1 thread)") || !strings.Contains(txt, "1 call → 1 entry") || onePlural.MatchString(txt) {
		t.Errorf("page of one thread and one call says %q", txt)
	}
}

func TestRowHeights(t *testing.T) {
	tr := demoTrace()
	p := openPage(t, writeDemoPage(t, t.TempDir(), tr, nil))
	checkRows(t, p)
}

func TestMinWidth(t *testing.T) {
	// A 10 ms thread with a burst of three 10 ns calls: on the linear axis
	// its expression is a thousandth of a pixel wide.
	var b strings.Builder
	b.WriteString("1 main 0 0\n1 wait 0 0\n1 wait 1 5000000\n")
	for i := 0; i < 3; i++ {
		fmt.Fprintf(&b, "1 tiny 0 %d\n1 leaf 0 %d\n1 leaf 1 %d\n1 tiny 1 %d\n", 5000000+20*i, 5000000+20*i+1, 5000000+20*i+5, 5000000+20*i+10)
	}
	b.WriteString("1 wait 0 5001000\n1 wait 1 10000000\n1 main 1 10000000\n")
	tr, err := trace.ReadDINAMITE(strings.NewReader(b.String()), "tiny.txt")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tiny.html")
	p0 := regtime.Later
	p0.MinRecords = 0
	writePageFile(t, path, &Page{Title: "tiny", Runs: []*Run{{Label: "run", Trace: tr, Summaries: regtime.All(tr, p0)}}, Params: p0})
	p := openPage(t, path)
	chromedp.Do(p.ctx, chromedp.Click(ID("linear")))
	if n := eval[int](t, p, "vprof.rows[0].hits.filter(h => h.box).length"); n != 1 {
		t.Fatalf("%d expressions drawn, want the burst's", n)
	}
	if n := eval[int](t, p, "vprof.rows[0].hits.filter(h => h.node).length"); n != 2 {
		t.Errorf("%d expression nodes drawn, want tiny and leaf", n)
	}
	checkMinWidth(t, p)
	chromedp.Do(p.ctx, chromedp.Click(ID("linear")))
	checkMinWidth(t, p)
}

// TestTestprogPage records a bundled test program's normal and slow runs
// with the vprof binary, writes their --compare --report page as a user
// would and checks it reads at a glance. With VPROF_README_SHOT=1 it
// writes the README's screenshot, docs/timeline.png; without, it checks
// that the committed one is there and small.
func TestTestprogPage(t *testing.T) {
	chromiumPath(t)
	if testing.Short() {
		t.Skip("records a test program")
	}
	dir := t.TempDir()
	page := recordTestprogPage(t, dir, "recovery_budget")
	p := openPage(t, page)
	if errs := p.errors(); len(errs) > 0 {
		t.Fatalf("console errors: %v", errs)
	}
	checkAxes(t, p)
	checkWords(t, p, "values unlike the normal run: discount")
	if n := checkMarks(t, p); n == 0 {
		t.Error("no report marks on the page")
	}
	checkLabels(t, p)
	checkPlurals(t, p)
	checkRows(t, p)
	checkMinWidth(t, p)
	shot := filepath.Join("..", "..", "docs", "timeline.png")
	png, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("VPROF_README_SHOT") == "1" {
		if err := os.WriteFile(shot, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s (%d bytes)", shot, len(png))
	}
	if fi, err := os.Stat(shot); err != nil {
		t.Errorf("README screenshot: %v (VPROF_README_SHOT=1 writes it)", err)
	} else if fi.Size() > 300<<10 {
		t.Errorf("README screenshot %s is %d bytes, want < 300 KB", shot, fi.Size())
	}
}

// recordTestprogPage builds vprof, records prog's normal and buggy runs
// (sampling the variables of its manifest's component) and writes their
// timeline page, as scripts/demo.sh does.
func recordTestprogPage(t *testing.T, dir, prog string) string {
	p, err := testprogs.Lookup(prog)
	if err != nil {
		t.Fatal(err)
	}
	bin := testprogs.Path(t, prog)
	vprof := filepath.Join(dir, "vprof")
	run := func(args ...string) {
		t.Helper()
		out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	run("go", "build", "-o", vprof, "github.com/vprof/vprof/cmd/vprof")
	for _, mode := range []string{"normal", "buggy"} {
		run(vprof, "record", "--component", p.ComponentPath(), "-o", filepath.Join(dir, mode+".data"), "--", bin, mode)
	}
	page := filepath.Join(dir, "timeline.html")
	run(vprof, "timeline", "--compare", filepath.Join(dir, "normal.data"), "--report", "-o", page, filepath.Join(dir, "buggy.data"))
	return page
}
