package trace

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// ReadChrome reads Chrome trace-event JSON, as written by
// `llvm-xray convert --output-format=trace_event`, Perfetto and Chrome:
// either a bare array of events or an object whose "traceEvents" holds
// them. Duration events (ph "B"/"E") and complete events (ph "X", with
// "dur") become calls; "M" thread_name metadata names threads; other
// phases are ignored. ts and dur are microseconds, as numbers or as
// strings of digits (llvm-xray quotes them); pid and tid are numbers or
// strings. Events need not be sorted: each thread's events are ordered by
// ts (file order among equal ones) before nesting.
//
// The JSON is scanned as a stream, so a trace larger than memory as text
// only costs its calls.
func ReadChrome(r io.Reader, name string) (*Trace, error) {
	s := &jscan{r: bufio.NewReaderSize(r, 256<<10), name: name, line: 1}
	c := &chromeReader{s: s, threads: map[[2]int64]*chromeThread{}}
	if err := c.top(); err != nil {
		return nil, err
	}
	return c.build(name), nil
}

type chromeEvent struct {
	ts  int64 // ns
	dur int64 // ns, X only
	fn  int32 // -1: E without a name
	ph  byte  // 'B', 'E', 'X'
	seq int32 // file order within the thread
}

type chromeThread struct {
	pid, tid int64
	name     string
	ev       []chromeEvent
}

type chromeReader struct {
	s        *jscan
	names    names
	threads  map[[2]int64]*chromeThread
	order    []*chromeThread
	strIDs   map[string]int64 // non-numeric pid/tid strings
	events   int
	key      []byte
	nameBuf  []byte
	phBuf    []byte
	argName  []byte
	valBuf   []byte
	tsBuf    []byte
	durBuf   []byte
	pidBuf   []byte
	tidBuf   []byte
	haveName bool
	haveTS   bool
	haveDur  bool
	fieldFn  func([]byte) error
}

func (c *chromeReader) top() error {
	s := c.s
	b, err := s.ws()
	if err != nil {
		return s.fail("empty input: want a JSON array of trace events or an object with traceEvents")
	}
	switch b {
	case '[':
		if err := c.events_(); err != nil {
			return err
		}
	case '{':
		found := false
		err := s.object(func(key []byte) error {
			if string(key) == "traceEvents" {
				v, err := s.ws()
				if err != nil {
					return err
				}
				if v != '[' {
					return s.fail("traceEvents is not an array")
				}
				found = true
				return c.events_()
			}
			return s.skipValue()
		})
		if err != nil {
			return err
		}
		if !found {
			return s.fail("no traceEvents array in the object")
		}
	default:
		return s.fail(fmt.Sprintf("want a JSON array or object, found %q", b))
	}
	// Anything after the top-level value but spaces is an error.
	if b, err := s.ws(); err == nil {
		return s.fail(fmt.Sprintf("unexpected %q after the trace", b))
	}
	return nil
}

// events_ reads the array of events; '[' is consumed.
func (c *chromeReader) events_() error {
	s := c.s
	return s.array(func() error {
		b, err := s.ws()
		if err != nil {
			return err
		}
		if b != '{' {
			return s.fail("trace event is not an object")
		}
		return c.event()
	})
}

// event reads one event object; '{' is consumed.
func (c *chromeReader) event() error {
	s := c.s
	line := s.line
	c.nameBuf, c.phBuf, c.argName = c.nameBuf[:0], c.phBuf[:0], c.argName[:0]
	c.tsBuf, c.durBuf, c.pidBuf, c.tidBuf = c.tsBuf[:0], c.durBuf[:0], c.pidBuf[:0], c.tidBuf[:0]
	c.haveName, c.haveTS, c.haveDur = false, false, false
	if c.fieldFn == nil {
		c.fieldFn = c.field // one method value, not one closure per event
	}
	if err := s.object(c.fieldFn); err != nil {
		return err
	}
	if len(c.phBuf) != 1 {
		return nil // not a phase we draw
	}
	ph := c.phBuf[0]
	switch ph {
	case 'B', 'E', 'X', 'M':
	default:
		return nil
	}
	at := func(msg string) error { return &SyntaxError{s.name, line, msg} }
	pid, err := c.id(c.pidBuf)
	if err != nil {
		return at("pid: " + err.Error())
	}
	tid, err := c.id(c.tidBuf)
	if err != nil {
		return at("tid: " + err.Error())
	}
	th := c.thread(pid, tid)
	if ph == 'M' {
		if string(c.nameBuf) == "thread_name" && len(c.argName) > 0 {
			th.name = string(c.argName)
		}
		return nil
	}
	if !c.haveTS {
		return at(fmt.Sprintf("%q event without ts", string(ph)))
	}
	ts, ok := micros(c.tsBuf)
	if !ok {
		return at(fmt.Sprintf("ts %q is not a number of microseconds", clip(c.tsBuf)))
	}
	e := chromeEvent{ts: ts, ph: ph, fn: -1, seq: int32(len(th.ev))}
	if c.haveName {
		e.fn = c.names.id(c.nameBuf)
	} else if ph != 'E' {
		return at(fmt.Sprintf("%q event without name", string(ph)))
	}
	if ph == 'X' {
		if !c.haveDur {
			return at("X event without dur")
		}
		d, ok := micros(c.durBuf)
		if !ok || d < 0 {
			return at(fmt.Sprintf("dur %q is not a non-negative number of microseconds", clip(c.durBuf)))
		}
		e.dur = d
	}
	if len(th.ev) == 1<<31-1 {
		return at("too many events in one thread")
	}
	th.ev = append(th.ev, e)
	c.events++
	return nil
}

// field reads the value of one key of an event.
func (c *chromeReader) field(key []byte) error {
	s := c.s
	var err error
	switch string(key) {
	case "name":
		c.nameBuf, err = s.stringValue(c.nameBuf)
		c.haveName = true
	case "ph":
		c.phBuf, err = s.stringValue(c.phBuf)
	case "ts":
		c.tsBuf, err = s.numberValue(c.tsBuf)
		c.haveTS = true
	case "dur":
		c.durBuf, err = s.numberValue(c.durBuf)
		c.haveDur = true
	case "pid":
		c.pidBuf, err = s.numberValue(c.pidBuf)
	case "tid":
		c.tidBuf, err = s.numberValue(c.tidBuf)
	case "args":
		err = c.args()
	default:
		err = s.skipValue()
	}
	return err
}

// args reads an "args" value, keeping args.name (thread_name metadata).
func (c *chromeReader) args() error {
	s := c.s
	b, err := s.ws()
	if err != nil {
		return err
	}
	if b != '{' {
		s.unread()
		return s.skipValue()
	}
	return s.object(func(key []byte) error {
		if string(key) == "name" {
			b, err := s.ws()
			if err != nil {
				return err
			}
			s.unread()
			if b == '"' {
				c.argName, err = s.stringValue(c.argName[:0])
				return err
			}
		}
		return s.skipValue()
	})
}

func (c *chromeReader) id(b []byte) (int64, error) {
	if len(b) == 0 {
		return 0, nil
	}
	if v, ok := parseInt(b); ok {
		return v, nil
	}
	if c.strIDs == nil {
		c.strIDs = map[string]int64{}
	}
	if v, ok := c.strIDs[string(b)]; ok {
		return v, nil
	}
	if len(b) > 200 {
		return 0, errors.New("too long")
	}
	// Non-numeric ids get negative numbers, unlike any real pid or tid.
	v := -1 - int64(len(c.strIDs))
	c.strIDs[string(b)] = v
	return v, nil
}

func (c *chromeReader) thread(pid, tid int64) *chromeThread {
	k := [2]int64{pid, tid}
	th := c.threads[k]
	if th == nil {
		th = &chromeThread{pid: pid, tid: tid}
		c.threads[k] = th
		c.order = append(c.order, th)
	}
	return th
}

// micros converts a decimal number of microseconds to nanoseconds, exactly
// for plain decimals (float64 would lose nanoseconds at today's epoch
// timestamps).
func micros(b []byte) (int64, bool) {
	neg := false
	p := b
	if len(p) > 0 && (p[0] == '-' || p[0] == '+') {
		neg = p[0] == '-'
		p = p[1:]
	}
	var ip, fp []byte
	i := 0
	for i < len(p) && p[i] >= '0' && p[i] <= '9' {
		i++
	}
	ip = p[:i]
	rest := p[i:]
	if len(rest) > 0 && rest[0] == '.' {
		j := 1
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		fp = rest[1:j]
		rest = rest[j:]
	}
	if len(rest) != 0 || (len(ip) == 0 && len(fp) == 0) {
		// Exponents and the like: float64 is precise enough for them.
		f, err := strconv.ParseFloat(string(b), 64)
		if err != nil || f != f || f > 9e15 || f < -9e15 {
			return 0, false
		}
		return int64(f*1000 + 0.5), true
	}
	var v int64
	if len(ip) > 0 {
		var ok bool
		if v, ok = parseInt(ip); !ok || v > (1<<63-1)/1000-1 {
			return 0, false
		}
	}
	v *= 1000
	scale := int64(100)
	for k := 0; k < len(fp) && k < 3; k++ {
		v += int64(fp[k]-'0') * scale
		scale /= 10
	}
	if len(fp) > 3 && fp[3] >= '5' {
		v++
	}
	if neg {
		v = -v
	}
	return v, true
}

type interval struct {
	start, end int64
	fn         int32
	seq        int32
}

func (c *chromeReader) build(name string) *Trace {
	tr := &Trace{Format: "chrome", Path: name, Funcs: c.names.funcs}
	if tr.Funcs == nil {
		tr.Funcs = []string{}
	}
	var ivs []interval
	var open []int
	for _, ct := range c.order {
		if len(ct.ev) == 0 {
			continue
		}
		th := &Thread{PID: ct.pid, TID: ct.tid, Name: ct.name}
		if th.Name == "" {
			th.Name = fmt.Sprintf("tid %d", ct.tid)
			for s, v := range c.strIDs {
				if v == ct.tid {
					th.Name = s
				}
			}
		}
		ev := ct.ev
		sort.SliceStable(ev, func(i, j int) bool { return ev[i].ts < ev[j].ts })
		th.Start, th.End = ev[0].ts, ev[0].ts
		ivs, open = ivs[:0], open[:0]
		for i := range ev {
			e := &ev[i]
			switch e.ph {
			case 'X':
				ivs = append(ivs, interval{e.ts, e.ts + e.dur, e.fn, e.seq})
				th.End = max(th.End, e.ts+e.dur)
			case 'B':
				open = append(open, len(ivs))
				ivs = append(ivs, interval{e.ts, e.ts, e.fn, e.seq})
			case 'E':
				p := len(open) - 1
				if e.fn >= 0 {
					for p >= 0 && ivs[open[p]].fn != e.fn {
						p--
					}
				}
				if p < 0 {
					th.Unmatched++
					continue
				}
				th.Unclosed += len(open) - 1 - p
				for q := p; q < len(open); q++ {
					ivs[open[q]].end = e.ts
				}
				open = open[:p]
			}
			th.End = max(th.End, e.ts)
		}
		th.Unclosed += len(open)
		for _, q := range open {
			ivs[q].end = th.End
		}
		nest(th, ivs)
		tr.Threads = append(tr.Threads, th)
	}
	sort.SliceStable(tr.Threads, func(i, j int) bool {
		a, b := tr.Threads[i], tr.Threads[j]
		if a.PID != b.PID {
			return a.PID < b.PID
		}
		return a.TID < b.TID
	})
	return tr
}

// nest orders intervals into the pre-order call tree of th: by start, the
// longer first among equal starts (it is the caller). An interval that
// starts inside another but outlives it is clamped to end with it.
func nest(th *Thread, ivs []interval) {
	sort.Slice(ivs, func(i, j int) bool {
		a, b := &ivs[i], &ivs[j]
		if a.start != b.start {
			return a.start < b.start
		}
		if a.end != b.end {
			return a.end > b.end
		}
		return a.seq < b.seq
	})
	th.Calls = make([]Call, 0, len(ivs))
	var stack []int32
	for _, iv := range ivs {
		for len(stack) > 0 {
			top := &th.Calls[stack[len(stack)-1]]
			// Identical intervals nest (the earlier event is the caller).
			if iv.start < top.End || (iv.start == top.Start && iv.end == top.End) {
				break
			}
			top.Next = int32(len(th.Calls))
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 {
			top := &th.Calls[stack[len(stack)-1]]
			if iv.end > top.End {
				iv.end = top.End
				th.Overlaps++
			}
		}
		stack = append(stack, int32(len(th.Calls)))
		th.Calls = append(th.Calls, Call{Start: iv.start, End: iv.end, Func: iv.fn, Depth: int32(len(stack) - 1)})
	}
	for _, i := range stack {
		th.Calls[i].Next = int32(len(th.Calls))
	}
}

// jscan is a minimal streaming JSON scanner: enough to walk trace-event
// files without building them in memory.
type jscan struct {
	r    *bufio.Reader
	name string
	line int
	last byte
	key  []byte
}

func (s *jscan) fail(msg string) error { return &SyntaxError{s.name, s.line, msg} }

func (s *jscan) read() (byte, error) {
	b, err := s.r.ReadByte()
	if err != nil {
		if err == io.EOF {
			return 0, s.fail("unexpected end of input")
		}
		return 0, fmt.Errorf("%s:%d: %w", s.name, s.line, err)
	}
	if b == '\n' {
		s.line++
	}
	s.last = b
	return b, nil
}

func (s *jscan) unread() {
	if s.last == '\n' {
		s.line--
	}
	s.r.UnreadByte()
}

// ws returns the next byte that is not white space.
func (s *jscan) ws() (byte, error) {
	for {
		b, err := s.read()
		if err != nil {
			return 0, err
		}
		switch b {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return b, nil
	}
}

// object calls fn for each key of an object whose '{' is consumed; fn must
// consume the value.
func (s *jscan) object(fn func(key []byte) error) error {
	b, err := s.ws()
	if err != nil {
		return err
	}
	if b == '}' {
		return nil
	}
	for {
		if b != '"' {
			return s.fail(fmt.Sprintf("want an object key, found %q", b))
		}
		s.key, err = s.str(s.key[:0])
		if err != nil {
			return err
		}
		if b, err = s.ws(); err != nil {
			return err
		}
		if b != ':' {
			return s.fail(fmt.Sprintf("want ':' after an object key, found %q", b))
		}
		if err := fn(s.key); err != nil {
			return err
		}
		if b, err = s.ws(); err != nil {
			return err
		}
		if b == '}' {
			return nil
		}
		if b != ',' {
			return s.fail(fmt.Sprintf("want ',' or '}' in an object, found %q", b))
		}
		if b, err = s.ws(); err != nil {
			return err
		}
	}
}

// array calls fn for each element of an array whose '[' is consumed; fn
// must consume the element.
func (s *jscan) array(fn func() error) error {
	b, err := s.ws()
	if err != nil {
		return err
	}
	if b == ']' {
		return nil
	}
	s.unread()
	for {
		if err := fn(); err != nil {
			return err
		}
		if b, err = s.ws(); err != nil {
			return err
		}
		if b == ']' {
			return nil
		}
		if b != ',' {
			return s.fail(fmt.Sprintf("want ',' or ']' in an array, found %q", b))
		}
	}
}

// str appends the unescaped string whose opening quote is consumed.
func (s *jscan) str(dst []byte) ([]byte, error) {
	for {
		b, err := s.read()
		if err != nil {
			return dst, err
		}
		switch {
		case b == '"':
			return dst, nil
		case b == '\\':
			e, err := s.read()
			if err != nil {
				return dst, err
			}
			switch e {
			case '"', '\\', '/':
				dst = append(dst, e)
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				r, err := s.hex4()
				if err != nil {
					return dst, err
				}
				if utf16.IsSurrogate(r) {
					r2 := rune(-1)
					if b, _ := s.r.Peek(2); len(b) == 2 && b[0] == '\\' && b[1] == 'u' {
						s.r.Discard(2)
						if r2, err = s.hex4(); err != nil {
							return dst, err
						}
					}
					r = utf16.DecodeRune(r, r2)
				}
				dst = utf8.AppendRune(dst, r)
			default:
				return dst, s.fail(fmt.Sprintf("bad escape \\%c in a string", e))
			}
		case b < 0x20:
			return dst, s.fail("control character in a string")
		default:
			dst = append(dst, b)
		}
		if len(dst) > maxLine {
			return dst, s.fail(fmt.Sprintf("string longer than %d bytes", maxLine))
		}
	}
}

func (s *jscan) hex4() (rune, error) {
	var r rune
	for i := 0; i < 4; i++ {
		b, err := s.read()
		if err != nil {
			return 0, err
		}
		switch {
		case b >= '0' && b <= '9':
			r = r<<4 | rune(b-'0')
		case b >= 'a' && b <= 'f':
			r = r<<4 | rune(b-'a'+10)
		case b >= 'A' && b <= 'F':
			r = r<<4 | rune(b-'A'+10)
		default:
			return 0, s.fail("bad \\u escape in a string")
		}
	}
	return r, nil
}

// stringValue reads a value that must be a string.
func (s *jscan) stringValue(dst []byte) ([]byte, error) {
	b, err := s.ws()
	if err != nil {
		return dst, err
	}
	if b != '"' {
		s.unread()
		return dst, s.skipValue() // a name that is not a string is not a name
	}
	return s.str(dst[:0])
}

// numberValue reads a number, or a string holding one, as its text.
func (s *jscan) numberValue(dst []byte) ([]byte, error) {
	dst = dst[:0]
	b, err := s.ws()
	if err != nil {
		return dst, err
	}
	if b == '"' {
		dst, err = s.str(dst)
		if len(dst) > 64 {
			return dst[:0], s.fail("number string too long")
		}
		return dst, err
	}
	if b == '{' || b == '[' {
		s.unread()
		return dst, s.skipValue()
	}
	return s.scalar(b, dst)
}

// scalar reads a bare number or literal starting with first.
func (s *jscan) scalar(first byte, dst []byte) ([]byte, error) {
	dst = append(dst, first)
	for {
		b, err := s.r.ReadByte()
		if err != nil {
			return dst, nil // the caller reports a missing delimiter
		}
		if b == ',' || b == '}' || b == ']' || b == ' ' || b == '\n' || b == '\t' || b == '\r' || b == ':' || b == '"' {
			s.last = b
			s.r.UnreadByte()
			break
		}
		dst = append(dst, b)
		if len(dst) > 64 {
			return dst, s.fail("number or literal too long")
		}
	}
	switch string(dst) {
	case "true", "false", "null":
		return dst, nil
	}
	if _, err := strconv.ParseFloat(string(dst), 64); err != nil {
		if ne := (*strconv.NumError)(nil); errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return dst, nil
		}
		return dst, s.fail(fmt.Sprintf("bad JSON value %q", clip(dst)))
	}
	return dst, nil
}

// skipValue skips one value of any kind.
func (s *jscan) skipValue() error { return s.skip(0) }

func (s *jscan) skip(depth int) error {
	if depth > 512 {
		return s.fail("JSON nested too deep")
	}
	b, err := s.ws()
	if err != nil {
		return err
	}
	switch b {
	case '"':
		_, err := s.str(s.key[:0])
		return err
	case '{':
		return s.object(func([]byte) error { return s.skip(depth + 1) })
	case '[':
		return s.array(func() error { return s.skip(depth + 1) })
	default:
		_, err := s.scalar(b, nil)
		return err
	}
}
