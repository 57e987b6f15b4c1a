// vprof timeline: draws RegTime summaries (NonSequitur style) from the
// JSON data block. Names only ever reach the DOM as text (textContent,
// canvas fillText), never as markup.
(function () {
  'use strict';
  var T0 = performance.now(), timing = {};
  var D = JSON.parse(document.getElementById('data').textContent);
  timing.parse = performance.now() - T0;
  var funcs = D.funcs;
  // BAR: one call-depth level. MINW: the narrowest a call, an expression
  // or an expression's node is drawn (NonSequitur's MIN_CALLSTACK_PX_WIDTH),
  // so none disappears when zoomed out.
  var BAR = 13, MAXDEPTH = 48, TRACKH = 30, MINW = 4, PAD = 1;
  var PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948',
    '#b07aa1', '#ff9da7', '#9c755f', '#17becf', '#bcbd22', '#8c6bb1'];
  var GREY = '#c8c8c8';
  var state = { linear: false, v0: 0, v1: 1, legend: -1, search: '', hover: null, redraws: 0 };
  var $ = function (id) { return document.getElementById(id); };

  function fmtDur(ns) {
    var a = Math.abs(ns);
    if (a < 1e3) return Math.round(ns) + ' ns';
    if (a < 1e6) return (ns / 1e3).toPrecision(4).replace(/\.?0+$/, '') + ' µs';
    if (a < 1e9) return (ns / 1e6).toPrecision(4).replace(/\.?0+$/, '') + ' ms';
    return (ns / 1e9).toPrecision(4).replace(/\.?0+$/, '') + ' s';
  }
  function pct(x) { return (x * 100).toPrecision(3).replace(/\.?0+$/, '') + '%'; }
  // plural(3, 'thread') is "3 threads", plural(1, 'entry', 'entries') "1 entry".
  function plural(n, one, many) { return n + ' ' + (n === 1 ? one : (many || one + 's')); }

  // fitText cuts s to at most w pixels in ctx's font, ending it with an
  // ellipsis when cut; '' when not even the ellipsis fits.
  var widths = new Map();
  function textW(ctx, s) {
    var k = ctx.font + '\u0000' + s, v = widths.get(k);
    if (v === undefined) { v = ctx.measureText(s).width; if (widths.size < 50000) widths.set(k, v); }
    return v;
  }
  function fitText(ctx, s, w) {
    if (textW(ctx, s) <= w) return s;
    var lo = 0, hi = s.length - 1;
    while (lo < hi) {
      var m = (lo + hi + 1) >> 1;
      if (textW(ctx, s.slice(0, m) + '…') <= w) lo = m; else hi = m - 1;
    }
    if (lo === 0) return textW(ctx, '…') <= w ? '…' : '';
    return s.slice(0, lo) + '…';
  }

  // Decode the flat entries: start, end, depth, func, n, then n nodes.
  // Expression nodes stay in the flat array until an expression is drawn
  // wide enough to show them (nodesOf), so a large page loads quickly.
  var appear = new Array(funcs.length).fill(0), nthreads = new Array(funcs.length).fill(0);
  function decode(th) {
    var e = th.e, out = [], i = 0, maxd = 0, fs = new Set();
    while (i + 5 <= e.length) {
      var en = { s: e[i], e: e[i + 1], d: e[i + 2], f: e[i + 3], expr: false, nodes: null, maxd: 0 };
      var n = e[i + 4];
      i += 5;
      if (n > 0) {
        en.expr = true;
        en.e0 = i;
        en.nn = Math.min(n, Math.floor((e.length - i) / 3));
        // Leaves of the trie: with every node at least MINW wide and
        // children within their parent, the expression needs wide * MINW px.
        en.wide = 0;
        for (var k = 0; k < en.nn; k++, i += 3) {
          if (e[i + 1] > en.maxd) en.maxd = e[i + 1];
          if (k === en.nn - 1 || e[i + 4] <= e[i + 1]) en.wide++;
          fs.add(e[i]);
          appear[e[i]]++;
        }
      } else {
        fs.add(en.f);
        appear[en.f]++;
      }
      maxd = Math.max(maxd, en.d + en.maxd);
      out.push(en);
    }
    th.entries = out;
    th.maxDepth = maxd;
    th.funcSet = fs;
    th.tracks = th.tracks || [];
    fs.forEach(function (f) { nthreads[f]++; });
  }

  function nodesOf(th, en) {
    if (!en.nodes) {
      var e = th.e;
      en.nodes = [];
      for (var k = 0, i = en.e0; k < en.nn; k++, i += 3) en.nodes.push({ f: e[i], d: e[i + 1], dur: e[i + 2] });
    }
    return en.nodes;
  }

  // place lays an expression's nodes out in pixels for a box of gw px at
  // x0, with room px before the next entry: every node at least MINW
  // wide and at least as wide as its children need (as NonSequitur draws
  // them); siblings share their parent's width by cumulative duration,
  // those held at their minimum taking their share from the others.
  // Children start at their parent's left edge. Nodes that do not fit
  // get px = -1 (drawn when zoomed in). Returns the box's width.
  function place(en, x0, gw, room) {
    var ns = en.nodes, n = ns.length, k, d;
    var kids = [], st = [], root = [], need = new Float64Array(n);
    for (k = 0; k < n; k++) {
      d = ns[k].d;
      ns[k].px = -1;
      st.length = d;
      var p = d === 0 ? -1 : st[d - 1];
      if (p === undefined) continue; // a node without its parent
      (p < 0 ? root : (kids[p] || (kids[p] = []))).push(k);
      st[d] = k;
    }
    for (k = n - 1; k >= 0; k--) {
      var sn = 0;
      (kids[k] || []).forEach(function (c) { sn += need[c]; });
      need[k] = Math.max(MINW, sn);
    }
    var top = 0, topNeed = 0;
    root.forEach(function (c) { top += ns[c].dur; topNeed += need[c]; });
    var A = Math.max(gw, Math.min(room, topNeed));
    group(root, function (c) { return top > 0 ? ns[c].dur / top * gw : gw / root.length; }, A, x0);
    return A;

    // group gives the sibling nodes list the width A from x on.
    function group(list, natural, A, x) {
      var m = list.length, nat = list.map(natural), fixed = new Array(m).fill(false), scale = 1, changed = true;
      while (changed) {
        changed = false;
        var rest = A, sum = 0;
        for (var i = 0; i < m; i++) if (fixed[i]) rest -= need[list[i]]; else sum += nat[i];
        scale = sum > 0 ? Math.min(1, Math.max(rest, 0) / sum) : 0;
        for (i = 0; i < m; i++) {
          if (!fixed[i] && nat[i] * scale < need[list[i]]) { fixed[i] = true; changed = true; }
        }
      }
      var end = x + A;
      for (var i = 0; i < m; i++) {
        var nd = ns[list[i]], w = fixed[i] ? need[list[i]] : nat[i] * scale;
        if (x + MINW > end + 1e-6) return; // the rest does not fit
        w = Math.max(Math.min(w, end - x), MINW); // its own children may not all fit
        nd.px = x; nd.pw = w;
        if (kids[list[i]]) group(kids[list[i]], function (c) { return nd.dur > 0 ? w * ns[c].dur / nd.dur : 0; }, w, x);
        x += w;
      }
    }
  }

  var runs = D.runs;
  var maxSpan = 1;
  runs.forEach(function (r, ri) {
    r.index = ri;
    maxSpan = Math.max(maxSpan, r.span);
    r.threads.forEach(function (t, ti) { t.run = r; t.index = ti; decode(t); });
  });

  // Legend prominence: appearances in the summaries x threads calling.
  var order = [];
  for (var f = 0; f < funcs.length; f++) if (appear[f] > 0) order.push(f);
  order.sort(function (a, b) { return appear[b] * nthreads[b] - appear[a] * nthreads[a] || a - b; });
  var colour = new Array(funcs.length).fill(GREY);
  order.slice(0, PALETTE.length).forEach(function (f, i) { colour[f] = PALETTE[i]; });
  // One value scale per variable across threads and runs, so tracks
  // compare.
  var trackRange = {};
  runs.forEach(function (r) {
    r.threads.forEach(function (t) {
      t.tracks.forEach(function (tk) {
        var g = trackRange[tk.name] || (trackRange[tk.name] = { lo: Infinity, hi: -Infinity });
        tk.v.forEach(function (v) { g.lo = Math.min(g.lo, v); g.hi = Math.max(g.hi, v); });
      });
    });
  });
  var marks = new Map();
  (D.marks || []).forEach(function (m) { marks.set(m.f, m); });

  // The axis maps time to u in [0, 1] of the full width. Nonlinear: every
  // interval between two glyph boundaries of the shown threads gets at
  // least MINW pixels, and an interval where an expression starts the
  // pixels its nodes need. Runs share the scale of the longest one, so a
  // shorter run ends at u = r.endU; past it fromU gives NaN (no time).
  function buildAxis(r, plotW) {
    var scale = r.span / maxSpan;
    r.endU = scale;
    if (state.linear) {
      r.axis = {
        toU: function (t) { return t / maxSpan; },
        fromU: function (u) { return u > scale * (1 + 1e-12) || u < 0 ? NaN : u * maxSpan; }
      };
      return;
    }
    var np = 2;
    r.threads.forEach(function (t) { if (t.shown) np += 2 * t.entries.length; });
    var pts = new Float64Array(np), k = 0;
    pts[k++] = 0; pts[k++] = r.span;
    r.threads.forEach(function (t) {
      if (!t.shown) return;
      t.entries.forEach(function (en) { pts[k++] = en.s; pts[k++] = en.e; });
    });
    pts.sort(); // typed arrays sort numerically
    var b = [pts[0]];
    for (var i = 1; i < pts.length; i++) if (pts[i] !== b[b.length - 1]) b.push(pts[i]);
    if (b.length < 2) b.push(b[0] + 1);
    var minFrac = MINW / Math.max(plotW, 100);
    var need = new Map(); // interval start -> pixels (in MINW units) an expression there needs
    r.threads.forEach(function (t) {
      if (!t.shown) return;
      // (at most 32 MINW: a bigger expression spreads when zoomed in)
      t.entries.forEach(function (en) { if (en.expr && en.wide > 1) need.set(en.s, Math.max(need.get(en.s) || 0, Math.min(en.wide, 32))); });
    });
    var cum = new Float64Array(b.length);
    for (i = 1; i < b.length; i++) cum[i] = cum[i - 1] + Math.max(minFrac * (need.get(b[i - 1]) || 1), (b[i] - b[i - 1]) / r.span);
    var total = cum[b.length - 1];
    function seg(t) {
      var lo = 0, hi = b.length - 1;
      while (hi - lo > 1) { var m = (lo + hi) >> 1; if (b[m] <= t) lo = m; else hi = m; }
      return lo;
    }
    r.axis = {
      toU: function (t) {
        if (t <= b[0]) return 0;
        if (t >= b[b.length - 1]) return scale;
        var i = seg(t);
        return (cum[i] + (t - b[i]) / (b[i + 1] - b[i]) * (cum[i + 1] - cum[i])) / total * scale;
      },
      fromU: function (u) {
        if (u > scale * (1 + 1e-12) || u < 0) return NaN;
        var c = u / scale * total;
        if (c <= 0) return b[0];
        if (c >= total) return b[b.length - 1];
        var lo = 0, hi = b.length - 1;
        while (hi - lo > 1) { var m = (lo + hi) >> 1; if (cum[m] <= c) lo = m; else hi = m; }
        return b[lo] + (c - cum[lo]) / (cum[lo + 1] - cum[lo]) * (b[lo + 1] - b[lo]);
      }
    };
  }

  // DOM.
  $('title').textContent = D.title;
  var rows = [];
  var main = $('main');
  runs.forEach(function (r) {
    var col = document.createElement('div');
    col.className = 'run';
    var h = document.createElement('h2');
    var what = ' (' + r.format + ', ' + fmtDur(r.span) + ', ' + plural(r.threads.length, 'thread') + ')';
    h.textContent = r.label + ' — ' + String(r.path).split('/').pop() + what;
    h.title = r.label + ' — ' + r.path + what;
    col.appendChild(h);
    // The ruler sits over the rows' canvases, beside the labels' column.
    var rr = document.createElement('div');
    rr.className = 'ruler-row';
    var sp = document.createElement('div');
    sp.className = 'label';
    rr.appendChild(sp);
    r.ruler = document.createElement('canvas');
    r.ruler.className = 'ruler';
    rr.appendChild(r.ruler);
    col.appendChild(rr);
    r.threads.forEach(function (t) {
      var div = document.createElement('div');
      div.className = 'thread-row';
      div.dataset.run = r.index;
      div.dataset.thread = t.index;
      // The label is a column beside the canvas, as tall as the row: the
      // name, then (where the row has room) the sizes.
      var lab = document.createElement('div');
      lab.className = 'label';
      var nm = document.createElement('span');
      nm.className = 'nm';
      nm.textContent = t.name;
      lab.appendChild(nm);
      var st = document.createElement('span');
      st.className = 'stat';
      st.textContent = plural(t.before, 'call') + ' → ' + plural(t.after, 'entry', 'entries') + (t.compressed ? ' (ratio ' + t.ratio + ')' : ' (uncompressed)') +
        (t.repairs ? '; ' + t.repairs : '');
      lab.appendChild(st);
      lab.title = t.name + '\n' + st.textContent;
      div.appendChild(lab);
      var cv = document.createElement('canvas');
      div.appendChild(cv);
      col.appendChild(div);
      // The height follows the call depth: one BAR per level, nothing else.
      var depthRows = Math.min(t.maxDepth, MAXDEPTH - 1) + 1;
      var row = { div: div, cv: cv, lab: lab, th: t, run: r, depthRows: depthRows, hits: [], marks: [],
        callH: depthRows * BAR + 2 * PAD, height: depthRows * BAR + 2 * PAD + t.tracks.length * TRACKH };
      lab.style.height = row.height + 'px';
      if (row.height < 26) st.style.display = 'none'; // room for the name only: the sizes are in its title
      t.row = row;
      t.user = true;
      rows.push(row);
      attach(row);
    });
    main.appendChild(col);
  });

  // Thread list.
  var tl = $('threads');
  rows.forEach(function (row) {
    var l = document.createElement('label');
    var cb = document.createElement('input');
    cb.type = 'checkbox';
    cb.checked = true;
    cb.addEventListener('change', function () { row.th.user = cb.checked; refresh(); });
    row.checkbox = cb;
    l.appendChild(cb);
    l.appendChild(document.createTextNode(' ' + (runs.length > 1 ? row.run.label + ': ' : '') + row.th.name));
    tl.appendChild(l);
  });
  function setAll(v) { rows.forEach(function (row) { row.checkbox.checked = v; row.th.user = v; }); refresh(); }
  $('all').addEventListener('click', function () { setAll(true); });
  $('none').addEventListener('click', function () { setAll(false); });

  // Legend: the coloured functions, marked ones, then a grey line.
  var lg = $('legend');
  var legendFuncs = order.slice(0, PALETTE.length);
  marks.forEach(function (m, f) { if (legendFuncs.indexOf(f) < 0 && appear[f] > 0) legendFuncs.push(f); });
  legendFuncs.forEach(function (f) {
    var it = document.createElement('div');
    it.className = 'legend-item';
    it.dataset.func = funcs[f];
    it.title = funcs[f];
    var sw = document.createElement('span');
    sw.className = 'sw';
    sw.style.background = colour[f];
    it.appendChild(sw);
    if (marks.has(f)) {
      var mk = document.createElement('span');
      mk.className = 'mk';
      mk.textContent = '#' + marks.get(f).rank;
      it.appendChild(mk);
    }
    var nm = document.createElement('span');
    nm.className = 'nm';
    nm.textContent = funcs[f];
    it.appendChild(nm);
    it.addEventListener('click', function () {
      state.legend = state.legend === f ? -1 : f;
      Array.prototype.forEach.call(lg.children, function (c) { c.classList.toggle('active', c === it && state.legend === f); });
      drawAll();
    });
    lg.appendChild(it);
  });
  var rest = order.length - Math.min(order.length, PALETTE.length);
  if (rest > 0) {
    var g = document.createElement('div');
    g.className = 'legend-item grey';
    var sw2 = document.createElement('span');
    sw2.className = 'sw';
    sw2.style.background = GREY;
    g.appendChild(sw2);
    var t2 = document.createElement('span');
    t2.textContent = plural(rest, 'other function');
    g.appendChild(t2);
    lg.appendChild(g);
  }
  var P = D.params;
  $('params').textContent = 'RegTime' + (P.preset ? ' (' + P.preset + ')' : '') + ': CDT ' + pct(P.cdt) + ', CGT ' + pct(P.cgt) +
    ', TTFT ' + pct(P.ttft) + ' of each thread\'s span' + (P.filter > 0 ? ', functions ≤ ' + pct(P.filter) + ' dropped' : P.filter === 0 ? ', functions that never took time dropped' : '') +
    '. Black boxes are RegTime expressions: merged callstacks, widths by cumulative duration. ' +
    'Every call and every node of an expression is drawn at least ' + MINW + ' px wide (as NonSequitur draws them), ' +
    'so none disappears; below that, widths are not to scale.' +
    (marks.size ? ' A red corner marks a function of vprof report\'s top (#rank in this legend), once per expression.' : '') +
    (Object.keys(trackRange).length ? ' Purple lines are the sampled values of the most anomalous variables; their discount is 1 minus ' +
      'the distance between their values in the two runs (0: nothing alike; 0.8 and up: no difference found).' : '');

  // Which functions are highlighted: the legend's choice, else search hits.
  function highlighted() {
    if (state.legend >= 0) return new Set([state.legend]);
    if (state.search) return state.matches;
    return null;
  }

  function refresh() {
    var q = state.search, shown = 0;
    state.matches = null;
    if (q) {
      state.matches = new Set();
      for (var f = 0; f < funcs.length; f++) if (funcs[f].toLowerCase().indexOf(q) >= 0) state.matches.add(f);
    }
    rows.forEach(function (row) {
      var t = row.th, hit = true;
      if (state.matches) {
        hit = false;
        t.funcSet.forEach(function (f) { if (state.matches.has(f)) hit = true; });
      }
      t.shown = t.user && hit;
      row.div.classList.toggle('hidden', !t.shown);
      if (t.shown) shown++;
    });
    $('info').textContent = shown + ' of ' + plural(rows.length, 'thread') + ' shown' + (q ? ' (calling a function matching “' + q + '”)' : '');
    relayout();
  }

  function relayout() {
    var t0 = performance.now();
    var w = 0;
    rows.forEach(function (row) { if (row.th.shown) w = Math.max(w, row.cv.clientWidth); });
    if (!w) w = main.clientWidth / runs.length;
    runs.forEach(function (r) { buildAxis(r, w); });
    timing.axis = performance.now() - t0;
    drawAll();
    timing.draw = performance.now() - t0 - timing.axis;
  }

  function sizeCanvas(cv, h) {
    var dpr = window.devicePixelRatio || 1, w = cv.clientWidth || 300;
    cv.style.height = h + 'px';
    if (cv.width !== Math.round(w * dpr) || cv.height !== Math.round(h * dpr)) {
      cv.width = Math.round(w * dpr);
      cv.height = Math.round(h * dpr);
    }
    var ctx = cv.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    return { ctx: ctx, w: w };
  }

  function X(r, t, w) { return (r.axis.toU(t) - state.v0) / (state.v1 - state.v0) * w; }

  // drawRuler labels the run's own times: evenly spaced ticks up to the
  // run's end, then the end itself; nothing past it. r.ticks keeps what
  // was drawn.
  function drawRuler(r) {
    var s = sizeCanvas(r.ruler, 22), ctx = s.ctx, w = s.w;
    ctx.clearRect(0, 0, w, 22);
    ctx.fillStyle = '#555';
    ctx.strokeStyle = '#999';
    ctx.font = '10px system-ui, sans-serif';
    ctx.textBaseline = 'top';
    var ticks = r.ticks = [];
    var xEnd = X(r, r.span, w), endShown = xEnd >= 0 && xEnd <= w + 0.5;
    var endLabel = fmtDur(r.span), endW = textW(ctx, endLabel);
    var n = Math.max(2, Math.floor(w / 110));
    for (var i = 0; i <= n; i++) {
      var x = i / n * w, t = r.axis.fromU(state.v0 + (state.v1 - state.v0) * i / n);
      if (isNaN(t)) break; // past the run's end
      var label = fmtDur(t), lw = textW(ctx, label);
      var lx = Math.min(Math.max(x - lw / 2, 0), w - lw); // the label's left edge, inside the canvas
      if (endShown && lx + lw > Math.min(xEnd, w) - endW - 8) break; // leaves room for the end's label
      ticks.push({ x: x, t: t, label: label, lx: lx, w: lw });
    }
    if (endShown) ticks.push({ x: xEnd, t: r.span, label: endLabel, lx: Math.max(Math.min(xEnd, w) - endW, 0), w: endW, end: true });
    ctx.textAlign = 'left';
    ticks.forEach(function (k) {
      ctx.beginPath(); ctx.moveTo(Math.min(k.x, w - 0.5) + 0.5, 14); ctx.lineTo(Math.min(k.x, w - 0.5) + 0.5, 22); ctx.stroke();
      ctx.fillText(k.label, k.lx, 2);
    });
  }

  function drawAll() {
    runs.forEach(function (r) { if (r.axis) drawRuler(r); });
    rows.forEach(function (row) { if (row.th.shown) drawRow(row); });
  }

  function drawRow(row) {
    var r = row.run, t = row.th;
    var s = sizeCanvas(row.cv, row.height), ctx = s.ctx, w = s.w;
    state.redraws++;
    ctx.clearRect(0, 0, w, row.height);
    var hl = highlighted();
    var hits = row.hits = [], marked = row.marks = [];
    var yOf = function (d) { return PAD + (row.depthRows - 1 - d) * BAR; };
    // Thread lifetime.
    var lx0 = X(r, t.start, w), lx1 = X(r, t.end, w);
    ctx.fillStyle = '#f3f3f3';
    ctx.fillRect(lx0, 0, Math.max(lx1 - lx0, 1), row.callH);
    // Linked highlighting: the hovered interval on every thread of the run.
    if (state.hover && state.hover.run === r) {
      var hx0 = X(r, state.hover.s, w), hx1 = X(r, state.hover.e, w);
      ctx.fillStyle = 'rgba(60, 200, 80, 0.28)';
      ctx.fillRect(hx0, 0, Math.max(hx1 - hx0, 2), row.height);
    }
    ctx.font = '10px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    function glyph(f, x, y, gw, hit) {
      var dim = hl && !hl.has(f);
      ctx.globalAlpha = dim ? 0.18 : 1;
      ctx.fillStyle = colour[f] || GREY;
      ctx.fillRect(x, y, gw, BAR - 1);
      if (hl && !dim) {
        ctx.strokeStyle = '#000';
        ctx.lineWidth = 2;
        ctx.strokeRect(x + 1, y + 1, Math.max(gw - 2, 1), BAR - 3);
      }
      if (gw >= 24) {
        // The name, cut to the glyph with an ellipsis.
        var name = funcs[f] || '?', label = fitText(ctx, name, gw - 4);
        if (label.length < Math.min(name.length, 4)) label = ''; // a mere "x…" says nothing
        if (label) {
          ctx.fillStyle = '#000';
          ctx.fillText(label, x + 2, y + BAR / 2);
          hit.label = label;
          hit.room = gw - 4;
        }
      }
      ctx.globalAlpha = 1;
      hits.push(hit);
    }
    // mark draws the red corner of a report function, once per plain call
    // or expression.
    function mark(x, y, m, en) {
      ctx.fillStyle = '#d00';
      ctx.beginPath(); ctx.moveTo(x, y); ctx.lineTo(x + 7, y); ctx.lineTo(x, y + 7); ctx.fill();
      marked.push({ x: x, y: y, rank: m.rank, en: en });
    }
    // last[d]: the right edge and depth reach of the last entry drawn at
    // depth d. An entry narrower than a pixel that starts well inside it,
    // reaching no deeper, would only be painted over its pixels: skipped,
    // so a page of 100,000 entries draws as fast as one of 1,000.
    var last = [];
    t.entries.forEach(function (en, k) {
      var x0 = X(r, en.s, w), x1 = X(r, en.e, w);
      if (x1 < -2 || x0 > w + 2 || en.d >= row.depthRows) return;
      var gw = Math.max(x1 - x0, MINW), reach = en.d + en.maxd, lt = last[en.d];
      if (x1 - x0 < 1 && lt && x0 < lt.right - 1 && reach <= lt.reach) return;
      if (!en.expr) {
        glyph(en.f, x0, yOf(en.d), gw, { x: x0, y: yOf(en.d), w: gw, h: BAR, en: en });
        if (marks.has(en.f)) mark(x0, yOf(en.d), marks.get(en.f), en);
        last[en.d] = { right: x0 + gw, reach: reach };
        return;
      }
      var top = Math.min(en.d + en.maxd, row.depthRows - 1);
      var by = yOf(top), bh = (top - en.d + 1) * BAR;
      // The nodes may take more than the expression's time (MINW each),
      // up to where the next entry starts; those that do not fit there
      // wait for a closer zoom.
      var next = t.entries[k + 1], room = Math.max(gw, (next ? X(r, next.s, w) : lx1) - x0);
      var ns = nodesOf(t, en), bw = place(en, x0, gw, room), best = null, hidden = 0;
      var box = { x: x0, y: by, w: bw, h: bh, en: en, box: true };
      last[en.d] = { right: x0 + bw, reach: reach };
      hits.push(box);
      ns.forEach(function (n) {
        var d = en.d + n.d;
        var m = marks.get(n.f);
        if (m && (!best || m.rank < best.rank)) best = m; // marked even where not drawn
        if (d >= row.depthRows) return;
        if (n.px < 0) { hidden++; return; }
        glyph(n.f, n.px, yOf(d), n.pw, { x: n.px, y: yOf(d), w: n.pw, h: BAR, en: en, node: n });
      });
      ctx.strokeStyle = '#000';
      ctx.lineWidth = 1.5;
      ctx.strokeRect(x0 + 0.75, by + 0.25, Math.max(bw - 1.5, 0.5), bh - 1);
      if (best) mark(x0, by, best, en);
      box.hidden = hidden;
    });
    // Value tracks under the calls, up to the thread's last sample.
    t.tracks.forEach(function (tk, k) {
      var y0 = row.callH + k * TRACKH, h = TRACKH - 4;
      ctx.fillStyle = '#fbfbff';
      ctx.fillRect(0, y0, w, TRACKH - 2);
      var lo = trackRange[tk.name].lo, hi = trackRange[tk.name].hi;
      if (!(hi >= lo)) return;
      var yv = function (v) { return y0 + 12 + (hi > lo ? (1 - (v - lo) / (hi - lo)) * (h - 12) : (h - 12) / 2); };
      ctx.strokeStyle = '#6a3d9a';
      ctx.lineWidth = 1.25;
      ctx.beginPath();
      for (var i = 0; i < tk.t.length; i++) {
        var x = X(r, tk.t[i], w), y = yv(tk.v[i]);
        if (i === 0) ctx.moveTo(x, y); else { ctx.lineTo(x, yv(tk.v[i - 1])); ctx.lineTo(x, y); }
      }
      ctx.stroke();
      ctx.fillStyle = '#6a3d9a';
      ctx.textBaseline = 'top';
      var full = tk.name + '  [' + fmtNum(lo) + ' … ' + fmtNum(hi) + ']';
      var label = fitText(ctx, full, w - 6);
      ctx.fillText(label, 3, y0 + 1);
      ctx.textBaseline = 'middle';
      var tx1 = tk.t.length ? X(r, Math.min(tk.t[tk.t.length - 1], t.end), w) : 0;
      hits.push({ x: 0, y: y0, w: Math.max(tx1, 0), h: TRACKH, track: tk, label: label, full: full, room: w - 6 });
    });
  }

  function fmtNum(v) {
    if (Math.abs(v) >= 1e6 || (Math.abs(v) < 1e-3 && v !== 0)) return v.toExponential(3);
    return String(Math.round(v * 1000) / 1000);
  }

  function hitAt(row, x, y) {
    for (var i = row.hits.length - 1; i >= 0; i--) {
      var h = row.hits[i];
      if (x >= h.x && x <= h.x + h.w && y >= h.y && y <= h.y + h.h) return h;
    }
    return null;
  }

  function tipText(row, h, x) {
    if (h.track) {
      var tk = h.track, r = row.run, w = row.cv.clientWidth;
      var t = r.axis.fromU(state.v0 + x / w * (state.v1 - state.v0));
      var lo = 0, hi = tk.t.length - 1;
      // Past the run's end, before the first sample or after the last,
      // there is no value to show.
      if (hi < 0 || isNaN(t) || t < tk.t[0] || t > tk.t[hi]) return null;
      while (lo < hi) { var m = (lo + hi + 1) >> 1; if (tk.t[m] <= t) lo = m; else hi = m - 1; }
      return tk.name + ' = ' + fmtNum(tk.v[lo]) + '\nsampled at ' + fmtDur(tk.t[lo]);
    }
    var en = h.en, s;
    if (h.node) {
      s = funcs[h.node.f] + '\ncumulative duration ' + fmtDur(h.node.dur) + ' in this RegTime expression\n' +
        'expression ' + fmtDur(en.s) + ' → ' + fmtDur(en.e) + ' (' + plural(en.nn, 'merged callstack') + ')';
      if (marks.has(h.node.f)) s += '\nreport #' + marks.get(h.node.f).rank + ': ' + marks.get(h.node.f).note;
      return s;
    }
    if (h.box) {
      s = 'RegTime expression\n' + fmtDur(en.s) + ' → ' + fmtDur(en.e) + ' (' + fmtDur(en.e - en.s) + ', ' + plural(en.nn, 'merged callstack') + ')';
      if (h.hidden) s += '\n' + plural(h.hidden, 'callstack') + ' too narrow to draw here: zoom in';
      var seen = new Set();
      nodesOf(row.th, en).forEach(function (n) {
        var m = marks.get(n.f);
        if (m && !seen.has(n.f)) { seen.add(n.f); s += '\nreport #' + m.rank + ' ' + funcs[n.f] + ': ' + m.note; }
      });
      return s;
    }
    s = funcs[en.f] + '\nduration ' + fmtDur(en.e - en.s) + '\n' + fmtDur(en.s) + ' → ' + fmtDur(en.e);
    if (marks.has(en.f)) s += '\nreport #' + marks.get(en.f).rank + ': ' + marks.get(en.f).note;
    return s;
  }

  var tip = $('tip');
  var drag = null;
  function attach(row) {
    var cv = row.cv;
    cv.addEventListener('mousemove', function (ev) {
      var rc = cv.getBoundingClientRect(), x = ev.clientX - rc.left, y = ev.clientY - rc.top;
      if (drag) {
        var du = (drag.x - ev.clientX) / rc.width * (state.v1 - state.v0);
        pan(du + drag.v0 - state.v0);
        return;
      }
      var h = hitAt(row, x, y);
      var hov = null, text = h && tipText(row, h, x);
      if (text) {
        tip.textContent = text;
        tip.style.display = 'block';
        var tx = Math.min(ev.clientX + 14, window.innerWidth - tip.offsetWidth - 4);
        var ty = ev.clientY + 16 + tip.offsetHeight > window.innerHeight ? ev.clientY - tip.offsetHeight - 8 : ev.clientY + 16;
        tip.style.left = Math.max(tx, 0) + 'px';
        tip.style.top = ty + 'px';
        if (h.en) hov = { run: row.run, s: h.en.s, e: h.en.e };
      } else {
        tip.style.display = 'none';
      }
      setHover(hov);
    });
    cv.addEventListener('mouseleave', function () { tip.style.display = 'none'; setHover(null); });
    cv.addEventListener('mousedown', function (ev) { drag = { x: ev.clientX, v0: state.v0 }; ev.preventDefault(); });
    cv.addEventListener('wheel', function (ev) {
      ev.preventDefault();
      var rc = cv.getBoundingClientRect();
      zoom(ev.deltaY < 0 ? 1 / 1.25 : 1.25, (ev.clientX - rc.left) / rc.width);
    }, { passive: false });
    cv.addEventListener('dblclick', function () { state.v0 = 0; state.v1 = 1; drawAll(); });
  }
  window.addEventListener('mouseup', function () { drag = null; });

  function setHover(h) {
    var o = state.hover;
    if (o === h || (o && h && o.run === h.run && o.s === h.s && o.e === h.e)) return;
    state.hover = h;
    drawAll();
  }
  function zoom(f, at) {
    var range = state.v1 - state.v0, u = state.v0 + at * range;
    var nr = Math.min(1, Math.max(1e-9, range * f));
    state.v0 = u - at * nr;
    state.v1 = state.v0 + nr;
    pan(0);
  }
  function pan(du) {
    var range = state.v1 - state.v0;
    state.v0 = Math.min(Math.max(0, state.v0 + du), 1 - range);
    state.v1 = state.v0 + range;
    drawAll();
  }
  $('zoomin').addEventListener('click', function () { zoom(1 / 1.5, 0.5); });
  $('zoomout').addEventListener('click', function () { zoom(1.5, 0.5); });
  $('reset').addEventListener('click', function () { state.v0 = 0; state.v1 = 1; drawAll(); });
  $('linear').addEventListener('change', function (ev) { state.linear = ev.target.checked; relayout(); });
  $('search').addEventListener('input', function (ev) { state.search = ev.target.value.trim().toLowerCase(); refresh(); });
  var rt = 0;
  window.addEventListener('resize', function () { clearTimeout(rt); rt = setTimeout(relayout, 80); });

  timing.decode = performance.now() - T0 - timing.parse;
  refresh();
  timing.total = performance.now() - T0;

  // A small API for tests and for the curious, from the console.
  window.vprof = {
    state: state,
    timing: timing,
    rows: rows,
    funcs: funcs,
    marks: D.marks || [],
    BAR: BAR, PAD: PAD, TRACKH: TRACKH, MAXDEPTH: MAXDEPTH, MINW: MINW,
    // nodes returns an expression's merged callstacks as drawn.
    nodes: function (row, en) { return nodesOf(row.th, en); },
    visibleRows: function () { return rows.filter(function (r) { return r.th.shown; }).length; },
    // locate returns page coordinates of the centre of a drawn glyph of
    // the named function (plain calls first), or null.
    locate: function (name, plainOnly) {
      for (var pass = 0; pass < 2; pass++) {
        for (var i = 0; i < rows.length; i++) {
          var row = rows[i];
          if (!row.th.shown) continue;
          for (var k = 0; k < row.hits.length; k++) {
            var h = row.hits[k], f = h.node ? h.node.f : (h.en && !h.box ? h.en.f : -1);
            if (f < 0 || funcs[f] !== name || (pass === 0) !== !h.node || h.w < 2) continue;
            row.cv.scrollIntoView({ block: 'center' });
            var rc = row.cv.getBoundingClientRect();
            return { x: rc.left + h.x + h.w / 2, y: rc.top + h.y + h.h / 2 };
          }
        }
        if (plainOnly) break;
      }
      return null;
    },
    ready: true
  };
})();
