package proffile

import (
	"bufio"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/bits"
	"os"
	"slices"
	"sync"

	"github.com/vprof/vprof/runtime/model"
)

// maxRecord bounds one record's payload, so a corrupt length cannot make
// the reader allocate without limit. Objects (schemas) are the largest.
const maxRecord = 1 << 30

// ErrNotProfile is returned for a file that is not a vprof profile.
var ErrNotProfile = errors.New("not a vprof profile")

// Causes of a DecodeError that stops reading at damage: the file ends
// inside a record (a recorder killed while writing), or a record's framing
// is wrong (its checksum, an implausible length).
var (
	ErrTruncated = errors.New("truncated")
	ErrDamaged   = errors.New("damaged file")
)

// DecodeError is a part of a profile file that cannot be decoded: What
// (the magic, the header, record N), at byte Offset of file Name (where
// that part starts), and why (Err: ErrNotProfile, ErrTruncated,
// ErrDamaged, or the decoding error of the record's payload, which says
// which field). As debug/dwarf's DecodeError, with the cause kept for
// errors.Is and errors.As.
type DecodeError struct {
	Name   string
	Offset int64
	What   string
	Err    error
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("%s: %s", e.Name, e.where())
}

// where is the error without the file name, as Recovery.Reason says it.
func (e *DecodeError) where() string {
	return fmt.Sprintf("%s at byte %d: %v", e.What, e.Offset, e.Err)
}

func (e *DecodeError) Unwrap() error { return e.Err }

// Recovery says how much of a damaged or incomplete file was read.
type Recovery struct {
	Complete bool   // the trailer was read
	Bytes    int64  // bytes of complete, valid records (including the magic)
	Records  int64  // complete records read
	Blocks   int64  // sample blocks read
	Reason   string // why reading stopped early, if it did
	// Err is the *DecodeError that stopped reading early, nil when the
	// file ended between records (a cut without a trailer) or is complete.
	Err error
}

func (r Recovery) String() string {
	if r.Complete {
		return fmt.Sprintf("complete: %d records", r.Records)
	}
	return fmt.Sprintf("incomplete profile: recovered %d records (%d sample blocks, %d bytes): %s",
		r.Records, r.Blocks, r.Bytes, r.Reason)
}

// Reader streams the records of a profile.
type Reader struct {
	name   string
	br     *bufio.Reader
	closer io.Closer
	hdr    model.Header
	rec    Recovery
	buf    []byte
	done   bool
	// size is the file's size when known (a regular file), else -1: a
	// record that fits in it is read at once into a buffer of its size.
	size int64

	// Schemas, when set, decodes each distinct schema once across the
	// readers that share it (see SchemaCache).
	Schemas *SchemaCache

	// RawStacks, when set before the first record is read, returns the
	// stacks as recorded. By default the frames that tail calls removed
	// are restored where the objects' call-site records say which
	// (runtime/tailcall, TailCallSource) and marked in
	// Sample.TailFrames, so that every reader of profiles sees the same
	// stacks.
	RawStacks bool
	tails     *tailFrames

	own BlockBuffer // Next's blocks
}

// BlockBuffer is storage that sample blocks decode into (see NextInto).
type BlockBuffer struct {
	model.Block
	pcs    []uint64
	vals   []model.Value
	starts [][2]int
	ext    []uint64 // stacks with restored tail-call frames
}

// Open opens a profile file and reads its header.
func Open(path string) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r, err := NewReader(f, path)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = f
	return r, nil
}

// NewReader reads a profile from rd; name is used in errors.
func NewReader(rd io.Reader, name string) (*Reader, error) {
	r := &Reader{name: name, br: bufio.NewReaderSize(rd, 1<<20), size: -1}
	switch f := rd.(type) {
	case interface{ Stat() (os.FileInfo, error) }:
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			r.size = fi.Size()
		}
	case interface{ Size() int64 }:
		r.size = f.Size()
	}
	var m [8]byte
	if _, err := io.ReadFull(r.br, m[:]); err != nil {
		return nil, &DecodeError{Name: name, Offset: 0, What: "magic", Err: fmt.Errorf("%w (file too short: %v)", ErrNotProfile, err)}
	}
	if [6]byte(m[:6]) != magic {
		return nil, &DecodeError{Name: name, Offset: 0, What: "magic", Err: fmt.Errorf("%w (bad magic %q)", ErrNotProfile, m[:6])}
	}
	if v := binary.LittleEndian.Uint16(m[6:]); v < 1 || v > Version {
		return nil, &DecodeError{Name: name, Offset: 6, What: "version", Err: fmt.Errorf("profile format version %d, this vprof reads versions 1 to %d", v, Version)}
	}
	r.rec.Bytes = 8
	header := func(err error) error { return &DecodeError{Name: name, Offset: 8, What: "header", Err: err} }
	kind, payload, err := r.readRecord()
	switch {
	case err == io.EOF:
		return nil, header(fmt.Errorf("%w: no header", ErrTruncated))
	case err != nil:
		return nil, header(err.(*DecodeError).Err)
	case kind != recHeader:
		return nil, header(fmt.Errorf("first record is kind %d, not a header", kind))
	}
	if err := json.Unmarshal(payload, &r.hdr); err != nil {
		return nil, header(err)
	}
	return r, nil
}

// Header is the recording's header.
func (r *Reader) Header() model.Header { return r.hdr }

// Recovery says how much was read so far and, once Next has returned
// io.EOF, whether the file was complete.
func (r *Reader) Recovery() Recovery { return r.rec }

// Close closes the underlying file, if Open opened it.
func (r *Reader) Close() error {
	if r.closer != nil {
		return r.closer.Close()
	}
	return nil
}

// Next returns the next record: *Object, *Mapping, *ProcEvent,
// *ThreadEvent, *Block or *Trailer. The *Block (and its slices) is reused
// by the following call; copy what must outlive it. At the end of the
// records, including the end of the readable prefix of a damaged file, it
// returns io.EOF; Recovery then says whether the file was complete.
func (r *Reader) Next() (any, error) { return r.NextInto(&r.own) }

// NextInto is Next, except that a block is decoded into buf, reusing its
// storage, and the *Block returned is &buf.Block: a caller that hands
// blocks to other goroutines keeps several buffers instead of copying.
func (r *Reader) NextInto(buf *BlockBuffer) (any, error) {
	if r.done {
		return nil, io.EOF
	}
	kind, payload, err := r.readRecord()
	if err != nil {
		r.done = true
		if de, ok := err.(*DecodeError); ok {
			r.rec.Reason, r.rec.Err = de.where(), de
		} else {
			r.rec.Reason = "no trailer: the recording was cut short"
		}
		return nil, io.EOF
	}
	at := r.rec.Bytes - int64(1+uvarintLen(uint64(len(payload)))+len(payload)+4) // the record's first byte
	if r.tails == nil && !r.RawStacks {
		r.tails = newTailFrames()
	}
	var out any
	switch kind {
	case recObject:
		var o *model.Object
		o, err = decodeWhole(payload) // version 1
		out = o
	case recObjectZ:
		var o *model.Object
		o, err = r.decodeObjectZ(payload)
		out = o
	case recMapping:
		m := new(model.Mapping)
		err = decodeMapping(payload, m)
		out = m
	case recProc:
		e := new(model.ProcEvent)
		err = json.Unmarshal(payload, e)
		out = e
	case recThread:
		e := new(model.ThreadEvent)
		err = json.Unmarshal(payload, e)
		out = e
	case recBlock:
		err = decodeBlock(payload, buf)
		out = &buf.Block
		if err == nil {
			r.rec.Blocks++
		}
	case recTrailer:
		t := new(model.Trailer)
		err = json.Unmarshal(payload, t)
		if err == nil {
			err = checkCounts(t.Counts)
		}
		out = t
		if err == nil {
			r.rec.Complete = true
			r.done = true
		}
	default:
		err = fmt.Errorf("unknown record kind %d", kind)
	}
	if err == nil && r.tails != nil {
		switch x := out.(type) {
		case *model.Object:
			r.tails.object(x)
		case *model.Mapping, *model.ProcEvent:
			r.tails.space.Observe(x)
		case *model.Block:
			r.tails.block(buf)
		}
	}
	if err != nil {
		// The CRC matched, so this is a writer/reader mismatch, not damage.
		r.done = true
		de := &DecodeError{Name: r.name, Offset: at, What: fmt.Sprintf("record %d", r.rec.Records), Err: err}
		r.rec.Reason, r.rec.Err = de.where(), de
		return nil, de
	}
	r.rec.Records++
	return out, nil
}

// checkCounts checks a trailer's call counts (model.Trailer.Counts): each
// names a symbol, once; the report pairs them with its functions by it.
func checkCounts(cs []model.CallCount) error {
	seen := make(map[string]bool, len(cs))
	for i, c := range cs {
		if c.Symbol == "" {
			return fmt.Errorf("trailer: count %d (%q) names no symbol", i, c.Function)
		}
		if seen[c.Symbol] {
			return fmt.Errorf("trailer: symbol %q counted twice", c.Symbol)
		}
		seen[c.Symbol] = true
	}
	return nil
}

// readRecord reads and checks one framed record. It returns io.EOF only at
// a clean end between records, else a *DecodeError.
func (r *Reader) readRecord() (byte, []byte, error) {
	kind, err := r.br.ReadByte()
	if err != nil {
		return 0, nil, io.EOF
	}
	bad := func(err error) error {
		return &DecodeError{Name: r.name, Offset: r.rec.Bytes, What: fmt.Sprintf("record %d", r.rec.Records), Err: err}
	}
	n, err := binary.ReadUvarint(r.br)
	if err != nil {
		return 0, nil, bad(fmt.Errorf("%w length", ErrTruncated))
	}
	if n > maxRecord {
		return 0, nil, bad(fmt.Errorf("length %d is implausible (%w)", n, ErrDamaged))
	}
	// A record that fits the buffer is decoded where it lies (the payload
	// is used up before the next read); a larger one, or a cut one, is
	// read into r.buf.
	var buf []byte
	if int(n)+4 <= r.br.Size() {
		if b, err := r.br.Peek(int(n) + 4); err == nil {
			buf = b
			r.br.Discard(len(b))
		}
	}
	if need := int(n) + 4; buf == nil && r.size >= 0 && r.rec.Bytes+int64(1+uvarintLen(n)+need) <= r.size {
		// The file holds it: one buffer of its size, one read. (Growing a
		// 20 MiB schema record 1 MiB at a time took most of the time of
		// reading a profile of binutils' objdump.)
		if cap(r.buf) < need {
			r.buf = make([]byte, need)
		}
		r.buf = r.buf[:need]
		if _, err := io.ReadFull(r.br, r.buf); err != nil {
			return 0, nil, bad(fmt.Errorf("%w: %v", ErrTruncated, err)) // not io.EOF: that is a clean end
		}
		buf = r.buf
	}
	if buf == nil {
		// The buffer grows as the bytes arrive: a damaged length must not
		// allocate more than the file holds.
		need := int(n) + 4
		r.buf = r.buf[:0]
		for len(r.buf) < need {
			chunk := min(need-len(r.buf), 1<<20)
			r.buf = slices.Grow(r.buf, chunk)
			m, err := io.ReadFull(r.br, r.buf[len(r.buf):len(r.buf)+chunk])
			r.buf = r.buf[:len(r.buf)+m]
			if err != nil {
				return 0, nil, bad(fmt.Errorf("%w (%d of %d bytes present)", ErrTruncated, len(r.buf), n+4))
			}
		}
		buf = r.buf
	}
	payload := buf[:n]
	crc := crc32.Update(0, castagnoli, []byte{kind})
	crc = crc32.Update(crc, castagnoli, payload)
	if binary.LittleEndian.Uint32(buf[n:]) != crc {
		return 0, nil, bad(fmt.Errorf("checksum mismatch (%w)", ErrDamaged))
	}
	r.rec.Bytes += int64(1 + uvarintLen(n) + int(n) + 4)
	return kind, payload, nil
}

func uvarintLen(x uint64) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}

// dec is a bounds-checked varint decoder over one record's payload.
type dec struct {
	b   []byte
	i   int // next byte of b
	err error
}

// left is the number of bytes not yet decoded.
func (d *dec) left() int { return len(d.b) - d.i }

// fail records the first error; nothing is left to decode after it, so
// every later call returns 0.
func (d *dec) fail(msg string) {
	if d.err == nil {
		d.err = errors.New(msg)
	}
	d.i = len(d.b)
}

// uvarint decodes one uvarint: one byte (counts, ids, small deltas) with
// one test, up to eight (addresses, large values) without a loop, from the
// eight bytes at once; longer or cut ones as binary.Uvarint.
func (d *dec) uvarint() uint64 {
	b := d.b[d.i:]
	if len(b) > 0 && b[0] < 0x80 {
		d.i++
		return uint64(b[0])
	}
	if len(b) >= 8 {
		x := binary.LittleEndian.Uint64(b)
		if m := ^x & 0x8080808080808080; m != 0 {
			n := bits.TrailingZeros64(m)>>3 + 1 // bytes, the last without the continuation bit
			x &= 1<<(8*n) - 1                   // n == 8: all (a shift by 64 gives 0)
			d.i += n
			return x&0x7f | x>>1&(0x7f<<7) | x>>2&(0x7f<<14) | x>>3&(0x7f<<21) |
				x>>4&(0x7f<<28) | x>>5&(0x7f<<35) | x>>6&(0x7f<<42) | x>>7&(0x7f<<49)
		}
	}
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(b)
	if n <= 0 {
		d.fail("truncated or overlong varint")
		return 0
	}
	d.i += n
	return v
}

// varint decodes one zigzag varint, as binary.Varint.
func (d *dec) varint() int64 {
	ux := d.uvarint()
	x := int64(ux >> 1)
	if ux&1 != 0 {
		x = ^x
	}
	return x
}

func (d *dec) byte() byte {
	if d.i < len(d.b) {
		d.i++
		return d.b[d.i-1]
	}
	if d.err == nil {
		d.fail("truncated record")
	}
	return 0
}

func decodeMapping(p []byte, m *model.Mapping) error {
	d := dec{b: p}
	m.PID = int32(d.varint())
	m.Start = d.uvarint()
	m.End = d.uvarint()
	m.Bias = d.uvarint()
	m.Obj = uint16(d.uvarint())
	m.Reset = d.byte() == 1
	if d.err == nil && m.End < m.Start {
		d.err = fmt.Errorf("mapping end %#x below start %#x", m.End, m.Start)
	}
	return d.err
}

// maxStack bounds frames per sample when decoding (the sampler caps at 128).
const maxStack = 1024

func decodeBlock(p []byte, r *BlockBuffer) error {
	d := dec{b: p}
	b := &r.Block
	b.PID = int32(d.varint())
	b.TID = int32(d.varint())
	n := d.uvarint()
	if d.err != nil {
		return d.err
	}
	// Each sample takes at least 6 bytes: a bound on n from the payload.
	if n > uint64(d.left()) {
		return fmt.Errorf("block claims %d samples in %d bytes", n, d.left())
	}
	if cap(b.Samples) < int(n) {
		b.Samples = make([]model.Sample, n)
	}
	b.Samples = b.Samples[:n]
	pcs, vals := r.pcs[:0], r.vals[:0]
	var prevStart, prevLen int
	var tick uint64
	var t int64
	// Offsets into pcs and vals; slices are cut after the loop because
	// appending may move the backing arrays.
	if cap(r.starts) < int(n) {
		r.starts = make([][2]int, n)
	}
	starts := r.starts[:n]
	for i := range b.Samples {
		s := &b.Samples[i]
		tick += d.uvarint()
		t += d.varint()
		s.Tick, s.TimeNS = tick, t
		s.WeightNS = int64(d.uvarint())
		s.State = model.ThreadState(d.byte())
		s.Syscall = -1
		s.TailFrames = 0
		if s.State != model.Running {
			s.Syscall = int32(d.varint())
		}
		ns := d.uvarint()
		if ns > maxStack {
			return fmt.Errorf("sample %d: %d frames", i, ns)
		}
		start := len(pcs)
		for j := 0; j < int(ns); j++ {
			var prev uint64
			if j < prevLen {
				prev = pcs[prevStart+j]
			}
			pcs = append(pcs, prev+uint64(d.varint()))
		}
		prevStart, prevLen = start, int(ns)
		nv := d.uvarint()
		if nv > uint64(d.left()) {
			return fmt.Errorf("sample %d: %d values in %d bytes", i, nv, d.left())
		}
		vstart := len(vals)
		for j := 0; j < int(nv); j++ {
			var v model.Value
			v.Frame = d.byte()
			flags := d.byte()
			v.Obj = uint16(d.uvarint())
			v.Var = int32(uint32(d.uvarint()))
			v.Bits = uint64(d.varint())
			if flags&1 != 0 {
				v.HasPointee = true
				v.Pointee = uint64(d.varint())
			}
			vals = append(vals, v)
		}
		if d.err != nil {
			return fmt.Errorf("sample %d: %w", i, d.err)
		}
		starts[i] = [2]int{start, vstart}
	}
	if d.left() != 0 {
		return fmt.Errorf("%d stray bytes after %d samples", d.left(), n)
	}
	for i := range b.Samples {
		s := &b.Samples[i]
		pe, ve := len(pcs), len(vals)
		if i+1 < len(b.Samples) {
			pe, ve = starts[i+1][0], starts[i+1][1]
		}
		s.Stack = pcs[starts[i][0]:pe:pe]
		s.Values = vals[starts[i][1]:ve:ve]
		if len(s.Values) == 0 {
			s.Values = nil
		}
	}
	r.pcs, r.vals = pcs, vals
	return nil
}

// decodeWhole decodes a version 1 object record: plain JSON, schema
// included. (Only profiles of format version 1 have them; they are read
// as before, without the SchemaCache.)
func decodeWhole(payload []byte) (*model.Object, error) {
	o := new(model.Object)
	err := json.Unmarshal(payload, o)
	if err == nil && o.Schema == nil {
		err = errors.New("object without schema")
	}
	return o, err
}

// SchemaCache decodes each distinct schema once for the readers that share
// it: the normal and buggy runs of one build carry the same schema, tens of
// megabytes of JSON for a large program, and decoding it was most of the
// time of reading such a profile. Schemas are told apart by build-id, path
// and a checksum of their deflated bytes; the objects of those readers then share
// one *model.Schema, which their users must not modify. Safe for
// concurrent use.
type SchemaCache struct {
	mu sync.Mutex
	m  map[schemaKey]*schemaEntry
}

type schemaKey struct {
	buildID, path string
	n             int
	crc           uint32
}

type schemaEntry struct {
	once sync.Once
	s    *model.Schema
	err  error
}

// decode returns the schema of a version 2 object record's tail (see
// inflateSchema), decoding it only the first time.
func (c *SchemaCache) decode(buildID, path string, raw []byte) (*model.Schema, error) {
	k := schemaKey{buildID, path, len(raw), crc32.Checksum(raw, castagnoli)}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[schemaKey]*schemaEntry{}
	}
	e := c.m[k]
	if e == nil {
		e = new(schemaEntry)
		c.m[k] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.s, e.err = inflateSchema(raw) })
	return e.s, e.err
}

// decodeObjectZ decodes a version 2 object record: the object's JSON
// without its schema, then the schema (see inflateSchema).
func (r *Reader) decodeObjectZ(payload []byte) (*model.Object, error) {
	o := new(model.Object)
	n, k := binary.Uvarint(payload)
	if k <= 0 || n > uint64(len(payload)-k) {
		return o, errors.New("object record: bad length of its head")
	}
	if err := json.Unmarshal(payload[k:k+int(n)], o); err != nil {
		return o, fmt.Errorf("object record: %w", err)
	}
	z := payload[k+int(n):]
	var err error
	if r.Schemas != nil {
		o.Schema, err = r.Schemas.decode(o.BuildID, o.Path, z)
	} else {
		o.Schema, err = inflateSchema(z)
	}
	return o, err
}

// maxInflate bounds a schema's inflated JSON: a record of version 1 could
// not be larger. (A variable so that tests can lower it.)
var maxInflate int64 = maxRecord

// maxDeflateRatio is the most that DEFLATE can expand (258-byte matches
// coded in about 2 bits): a schema that claims more than this many times
// its deflated size is damaged, and is refused before any allocation.
const maxDeflateRatio = 1032

// inflateSchema decodes a deflated schema: the uvarint length of its JSON,
// then that JSON deflated. It is inflated into one buffer of that length,
// which must not exceed maxInflate nor what the deflated bytes can give, so
// a small damaged or hostile record cannot make the reader allocate without
// bound.
func inflateSchema(raw []byte) (*model.Schema, error) {
	n, k := binary.Uvarint(raw)
	if k <= 0 {
		return nil, errors.New("schema: bad length")
	}
	z := raw[k:]
	if n > uint64(maxInflate) || n > maxDeflateRatio*uint64(len(z))+64 {
		return nil, fmt.Errorf("schema: claims %d bytes inflated from %d (at most %d, and %d times)", n, len(z), maxInflate, maxDeflateRatio)
	}
	zr := flate.NewReader(bytes.NewReader(z))
	defer zr.Close()
	js := make([]byte, n)
	if _, err := io.ReadFull(zr, js); err != nil {
		return nil, fmt.Errorf("schema: inflating %d bytes: %w", n, err)
	}
	if m, err := zr.Read(make([]byte, 1)); m > 0 || err != io.EOF {
		return nil, fmt.Errorf("schema: inflates to more than the %d bytes it claims", n)
	}
	s := new(model.Schema)
	if err := json.Unmarshal(js, s); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	return s, nil
}
