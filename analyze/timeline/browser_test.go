package timeline

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/vprof/vprof/analyze/regtime"
	"github.com/vprof/vprof/analyze/trace"
)

// chromiumPath finds Debian's chromium (installed by `make chromium`). A
// machine without it skips the browser tests, except in CI, where
// `make test` installs it and its absence is a failure.
func chromiumPath(t testing.TB) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed: `make test` installs it with `make chromium`")
	}
	t.Skip("chromium is not installed (run `make chromium`); skipping the browser tests")
	return ""
}

// page is a loaded page in headless Chromium with its console messages.
type page struct {
	ctx  context.Context
	mu   sync.Mutex
	msgs []chromedp.ConsoleMessage
	load time.Duration
}

func (p *page) errors() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, m := range p.msgs {
		if m.Type == chromedp.ConsoleError || m.IsException() {
			out = append(out, m.String())
		}
	}
	return out
}

// openPage starts a headless Chromium, loads the HTML file at path and
// waits until the page says it is ready.
func openPage(t testing.TB, path string) *page {
	exe := chromiumPath(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.Headless,
		chromedp.Flag("disable-gpu", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1400, 900))
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); acancel() })
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	p := &page{ctx: ctx}
	mctx, mcancel := context.WithCancel(ctx)
	t.Cleanup(mcancel)
	msgs := chromedp.Console(mctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			p.mu.Lock()
			p.msgs = append(p.msgs, m)
			p.mu.Unlock()
		}
	}()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	tctx, tcancel := context.WithTimeout(ctx, 60*time.Second)
	defer tcancel()
	start := time.Now()
	err = chromedp.Do(tctx, chromedp.Navigate("file://"+abs))
	// The page's execution context can be replaced right after the
	// navigation returns, so poll with fresh evaluations.
	for err == nil {
		ready, e := chromedp.Run(tctx, chromedp.Evaluate[bool]("!!(window.vprof && window.vprof.ready)"))
		if e == nil && ready {
			break
		}
		if tctx.Err() != nil {
			err = fmt.Errorf("page not ready: %v (last: %v)", tctx.Err(), e)
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("loading %s: %v; console: %v", path, err, p.errors())
	}
	p.load = time.Since(start)
	return p
}

func eval[T any](t testing.TB, p *page, js string) T {
	t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// demoTrace is four threads of a small server: a worker whose tight loop
// RegTime compresses and that waits on a lock once, a flusher, a thread
// that alone calls rare_checkpoint, and one with hostile names.
func demoTrace() *trace.Trace {
	var b strings.Builder
	t := int64(0)
	ev := func(tid int, fn string, dir int, at int64) { fmt.Fprintf(&b, "%d %s %d %d\n", tid, fn, dir, at) }
	ev(1, "worker_main", 0, 0)
	ev(2, "flusher_main", 0, 0)
	ev(3, "checkpoint_main", 0, 0)
	ev(4, "odd_main", 0, 0)
	for i := 0; i < 3000; i++ {
		if i == 1500 {
			ev(1, "wait_for_lock", 0, t)
			t += 2_000_000
			ev(1, "wait_for_lock", 1, t)
		}
		ev(1, "handle_request", 0, t)
		ev(1, "parse_key", 0, t+10)
		ev(1, "parse_key", 1, t+200)
		ev(1, "btree_search", 0, t+210)
		ev(1, "compare_keys", 0, t+220)
		ev(1, "compare_keys", 1, t+300)
		ev(1, "btree_search", 1, t+600)
		ev(1, "handle_request", 1, t+700)
		if i%10 == 0 {
			ev(2, "flush_page", 0, t)
			ev(2, "write_block", 0, t+100)
			ev(2, "write_block", 1, t+5000)
			ev(2, "flush_page", 1, t+5200)
		}
		if i%1000 == 999 {
			ev(3, "rare_checkpoint", 0, t)
			ev(3, "rare_checkpoint", 1, t+300_000)
		}
		if i%500 == 0 {
			ev(4, "</script><script>document.title='pwned'</script>", 0, t)
			ev(4, "</script><script>document.title='pwned'</script>", 1, t+50_000)
			ev(4, "std::map<int, std::string>::find(int const&) & co", 0, t+60_000)
			ev(4, "std::map<int, std::string>::find(int const&) & co", 1, t+90_000)
		}
		t += 1000
	}
	t += 1_000_000
	for _, x := range []struct {
		tid int
		fn  string
	}{{1, "worker_main"}, {2, "flusher_main"}, {3, "checkpoint_main"}, {4, "odd_main"}} {
		ev(x.tid, x.fn, 1, t)
	}
	tr, err := trace.ReadDINAMITE(strings.NewReader(b.String()), "demo.txt")
	if err != nil {
		panic(err)
	}
	return tr
}

func writeDemoPage(t testing.TB, dir string, tr *trace.Trace, marks []Mark) string {
	path := filepath.Join(dir, "timeline.html")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := &Page{Title: "demo <timeline>", Runs: []*Run{{Label: "buggy", Trace: tr, Summaries: regtime.All(tr, regtime.Later)}},
		Params: regtime.Later, Preset: "later", Marks: marks}
	if err := Write(f, p); err != nil {
		t.Fatal(err)
	}
	return path
}

func screenshotPath(t testing.TB, name string) string {
	if p := os.Getenv("VPROF_SCREENSHOT"); p != "" {
		if name == "timeline.png" {
			return p
		}
		return strings.TrimSuffix(p, ".png") + "-" + name
	}
	return filepath.Join(t.TempDir(), name)
}

func screenshot(t testing.TB, p *page, name string) {
	png, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	path := screenshotPath(t, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

func TestBrowser(t *testing.T) {
	tr := demoTrace()
	path := writeDemoPage(t, t.TempDir(), tr, []Mark{{Func: "btree_search", Rank: 1, Note: "score 0.93"}})
	p := openPage(t, path)

	if errs := p.errors(); len(errs) > 0 {
		t.Fatalf("console errors while loading: %v", errs)
	}
	if title := eval[string](t, p, "document.title"); title != "demo <timeline>" {
		t.Fatalf("document title %q: a name ran as code or the title was mangled", title)
	}
	if n := eval[int](t, p, "document.querySelectorAll('.thread-row').length"); n != len(tr.Threads) {
		t.Fatalf("%d thread rows, want %d", n, len(tr.Threads))
	}
	if n := eval[int](t, p, "document.querySelectorAll('.thread-row:not(.hidden)').length"); n != 4 {
		t.Fatalf("%d rows shown, want 4", n)
	}
	// The hostile name is drawn as text: the label of thread 4's legend
	// entry or data holds it verbatim.
	if ok := eval[bool](t, p, "vprof.funcs.indexOf(\"</script><script>document.title='pwned'</script>\") >= 0"); !ok {
		t.Fatal("hostile function name lost")
	}

	t.Run("hover shows tooltip", func(t *testing.T) {
		xy := eval[map[string]float64](t, p, "vprof.locate('wait_for_lock', true)")
		if err := chromedp.Do(p.ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, xy["x"], xy["y"])); err != nil {
			t.Fatal(err)
		}
		tip := eval[string](t, p, "document.getElementById('tip').style.display + '|' + document.getElementById('tip').textContent")
		if !strings.HasPrefix(tip, "block|wait_for_lock\nduration 2 ms") {
			t.Fatalf("tooltip %q", tip)
		}
		// Linked highlighting: the hovered interval is the call's.
		if h := eval[[]float64](t, p, "[vprof.state.hover.s, vprof.state.hover.e]"); len(h) != 2 || h[1]-h[0] != 2_000_000 {
			t.Fatalf("hover interval %v", h)
		}
		// Inside an expression the tooltip gives the cumulative duration.
		xy = eval[map[string]float64](t, p, "vprof.locate('compare_keys')")
		chromedp.Do(p.ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, xy["x"], xy["y"]))
		if tip := eval[string](t, p, "document.getElementById('tip').textContent"); !strings.Contains(tip, "compare_keys\ncumulative duration") {
			t.Fatalf("tooltip in expression %q", tip)
		}
		chromedp.Do(p.ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, 2, 2))
	})

	t.Run("legend click highlights", func(t *testing.T) {
		before := eval[int](t, p, "vprof.state.redraws")
		xy := eval[map[string]float64](t, p, `(function(){var e=document.querySelector('.legend-item[data-func="parse_key"]');var r=e.getBoundingClientRect();return {x:r.left+r.width/2,y:r.top+r.height/2};})()`)
		if err := chromedp.Do(p.ctx, chromedp.MouseClickXY(xy["x"], xy["y"])); err != nil {
			t.Fatal(err)
		}
		got := eval[string](t, p, `vprof.funcs[vprof.state.legend] + '|' + document.querySelector('.legend-item.active').dataset.func`)
		if got != "parse_key|parse_key" {
			t.Fatalf("after legend click: %q", got)
		}
		if eval[int](t, p, "vprof.state.redraws") <= before {
			t.Fatal("legend click did not redraw")
		}
		screenshot(t, p, "timeline-highlight.png")
		chromedp.Do(p.ctx, chromedp.MouseClickXY(xy["x"], xy["y"]))
		if eval[int](t, p, "vprof.state.legend") != -1 {
			t.Fatal("second click did not clear the highlight")
		}
	})

	t.Run("search hides threads", func(t *testing.T) {
		if err := chromedp.Do(p.ctx, chromedp.Focus(ID("search")), chromedp.SendKeys(ID("search"), "rare_check")); err != nil {
			t.Fatal(err)
		}
		shown := eval[[]string](t, p, "Array.from(document.querySelectorAll('.thread-row:not(.hidden) .label')).map(e => e.firstChild.textContent.trim())")
		if len(shown) != 1 || shown[0] != "tid 3" {
			t.Fatalf("search shows %q, want only tid 3", shown)
		}
		eval[bool](t, p, `(function(){var s=document.getElementById('search');s.value='';s.dispatchEvent(new Event('input'));return true;})()`)
		if n := eval[int](t, p, "vprof.visibleRows()"); n != 4 {
			t.Fatalf("%d rows after clearing the search", n)
		}
	})

	t.Run("zoom, axis toggle, hide", func(t *testing.T) {
		chromedp.Do(p.ctx, chromedp.Click(ID("zoomin")), chromedp.Click(ID("linear")))
		v := eval[[]float64](t, p, "[vprof.state.v0, vprof.state.v1, vprof.state.linear ? 1 : 0]")
		if v[1]-v[0] > 0.7 || v[2] != 1 {
			t.Fatalf("zoom/linear state %v", v)
		}
		chromedp.Do(p.ctx, chromedp.Click(ID("reset")), chromedp.Click(ID("linear")))
		eval[bool](t, p, "(function(){var c=document.querySelector('#threads input');c.click();return true;})()")
		if n := eval[int](t, p, "vprof.visibleRows()"); n != 3 {
			t.Fatalf("%d rows after hiding one", n)
		}
		eval[bool](t, p, "(function(){var c=document.querySelector('#threads input');c.click();return true;})()")
	})

	screenshot(t, p, "timeline.png")
	if errs := p.errors(); len(errs) > 0 {
		t.Fatalf("console errors: %v", errs)
	}
}

// ID shortens chromedp.ID in the tests.
type ID = chromedp.ID
