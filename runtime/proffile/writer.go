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
	"os"
	"sort"

	"github.com/vprof/vprof/runtime/model"
)

// Record kinds.
const (
	recHeader  = 1
	recObject  = 2
	recMapping = 3
	recProc    = 4
	recThread  = 5
	recBlock   = 6
	recTrailer = 7
	// recObjectZ, from version 2: uvarint length of the object's JSON
	// without its schema, that JSON, uvarint length of the schema's JSON,
	// that JSON deflated (the length lets a reader inflate it into one
	// buffer of its size).
	// recObject (version 1) is the object's JSON, schema included.
	recObjectZ = 8
)

var magic = [6]byte{'V', 'P', 'R', 'O', 'F', 0}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// blockBytes is the encoded size at which a thread's pending samples are
// written out as one block: large enough to amortise the record framing,
// small enough that a killed recorder loses little.
const blockBytes = 64 << 10

// PartialSuffix names the file a Writer writes to until Close renames it:
// a recorder that is killed leaves FILE.partial, whose complete records are
// readable.
const PartialSuffix = ".partial"

// Writer streams a profile to a file. It is not safe for concurrent use.
type Writer struct {
	path    string // final name
	tmp     string // name written to until Close
	f       *os.File
	bw      *bufio.Writer
	threads map[uint64]*threadBuf
	scratch []byte
	zbuf    bytes.Buffer  // an object record being built
	zw      *flate.Writer // deflates schemas into zbuf
	err     error         // first write error: sticky
	closed  bool
	// held are the places reserved for objects not given yet (Reserve),
	// oldest first; while there is one, what is written is kept in
	// memory behind the newest, and into, when set, takes the bytes of
	// the record being filled in.
	held []*Place
	into *[]byte
}

// Place is where Reserve kept room for an object record.
type Place struct {
	rec    []byte // the object's record, once Fill gave it
	filled bool
	after  []byte // the records written after the place, held until then
}

// threadBuf holds one thread's encoded samples not yet written as a block,
// with the delta-encoding state (reset at each block so blocks decode alone).
type threadBuf struct {
	pid, tid int32
	n        int
	buf      []byte
	lastTick uint64
	lastTime int64
	lastPCs  []uint64
}

// Create starts a profile at path. It writes to path+PartialSuffix and
// renames on Close; an existing file at path is moved to path+".old" then,
// never overwritten silently.
func Create(path string, h model.Header) (*Writer, error) {
	tmp := path + PartialSuffix
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create profile: %w", err)
	}
	w := &Writer{path: path, tmp: tmp, f: f, bw: bufio.NewWriterSize(f, 256<<10), threads: map[uint64]*threadBuf{}}
	var m [8]byte
	copy(m[:], magic[:])
	binary.LittleEndian.PutUint16(m[6:], Version)
	w.write(m[:])
	h.Version = Version
	w.jsonRecord(recHeader, &h)
	if w.err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, w.err
	}
	return w, nil
}

// PartialPath is the name the profile has until Close.
func (w *Writer) PartialPath() string { return w.tmp }

func (w *Writer) write(b []byte) {
	if w.err != nil {
		return
	}
	if w.into != nil {
		*w.into = append(*w.into, b...)
		return
	}
	if n := len(w.held); n > 0 {
		h := w.held[n-1]
		h.after = append(h.after, b...)
		return
	}
	w.put(b)
}

// put writes b to the file.
func (w *Writer) put(b []byte) {
	if w.err != nil {
		return
	}
	if _, err := w.bw.Write(b); err != nil {
		w.err = fileErr(w.tmp, err)
	}
}

// record frames payload as one record.
func (w *Writer) record(kind byte, payload []byte) {
	var hdr [1 + binary.MaxVarintLen64]byte
	hdr[0] = kind
	n := binary.PutUvarint(hdr[1:], uint64(len(payload)))
	crc := crc32.Update(0, castagnoli, hdr[:1])
	crc = crc32.Update(crc, castagnoli, payload)
	w.write(hdr[:1+n])
	w.write(payload)
	var c [4]byte
	binary.LittleEndian.PutUint32(c[:], crc)
	w.write(c[:])
}

func (w *Writer) jsonRecord(kind byte, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		if w.err == nil {
			w.err = fmt.Errorf("encode record %d: %w", kind, err)
		}
		return
	}
	w.record(kind, b)
}

// AddObject records an object and its schema (the layout log).
func (w *Writer) AddObject(o *model.Object) error {
	return w.AddEncoded(o, nil)
}

// AddEncoded is AddObject with o's schema encoded ahead (EncodeSchema;
// nil: encoded now from o.Schema).
func (w *Writer) AddEncoded(o *model.Object, es *EncodedSchema) error {
	if w.encodeObject(o, es) != nil {
		return w.err
	}
	w.record(recObjectZ, w.zbuf.Bytes())
	w.trimZ()
	return w.err
}

// EncodedSchema is a schema encoded for its object's record, ahead of it
// and on any goroutine: encoding the C++ library's symbols takes 30 to
// 190 ms on a loaded machine, which a recorder need not spend between
// two drains of its samples.
type EncodedSchema struct {
	raw int    // the JSON's length
	z   []byte // the JSON deflated
}

// EncodeSchema encodes s for an object record (AddEncoded, Fill).
func EncodeSchema(s *model.Schema) (*EncodedSchema, error) {
	sb, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encode schema of %s: %w", s.Path, err)
	}
	var buf bytes.Buffer
	zw, _ := flate.NewWriter(&buf, flate.BestSpeed) // BestSpeed is a valid level
	if _, err := zw.Write(sb); err == nil {
		err = zw.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("deflate schema of %s: %w", s.Path, err)
	}
	return &EncodedSchema{raw: len(sb), z: buf.Bytes()}, nil
}

// Reserve keeps the place of an object record whose schema is not ready
// yet (a library whose symbols are still being read, while its CFI is
// already used to unwind): the records written after it are held in
// memory, in order, until Fill gives the object, so that the file reads
// as if the object had been added now, and every sample that maps to it
// follows its record. Close fails while a place is not filled.
func (w *Writer) Reserve() *Place {
	p := &Place{}
	w.held = append(w.held, p)
	return p
}

// Fill writes the object of place p (its schema encoded ahead, or nil),
// then what was held behind it up to the next place not filled.
func (w *Writer) Fill(p *Place, o *model.Object, es *EncodedSchema) error {
	if p.filled {
		return fmt.Errorf("object %s: its place is filled already", o.Path)
	}
	if w.encodeObject(o, es) == nil {
		w.into = &p.rec
		w.record(recObjectZ, w.zbuf.Bytes())
		w.into = nil
		w.trimZ()
	}
	p.filled = true
	for len(w.held) > 0 && w.held[0].filled {
		h := w.held[0]
		w.held[0] = nil
		w.held = w.held[1:]
		w.put(h.rec)
		w.put(h.after)
	}
	return w.err
}

// Held reports whether records are held behind a place not filled.
func (w *Writer) Held() bool { return len(w.held) > 0 }

// trimZ lets one huge schema's buffer go: it need not be held to the end.
func (w *Writer) trimZ() {
	if w.zbuf.Cap() > 64<<20 {
		w.zbuf = bytes.Buffer{}
	}
}

// encodeObject encodes o's record payload into zbuf, with its schema
// encoded ahead (es) or from o.Schema.
func (w *Writer) encodeObject(o *model.Object, es *EncodedSchema) error {
	if w.err != nil {
		return w.err
	}
	fail := func(err error) error { // sticky, as write errors are
		w.err = err
		return err
	}
	if o.Schema == nil && es == nil {
		return fail(fmt.Errorf("add object %s: no schema", o.Path))
	}
	head := *o
	head.Schema = nil
	hb, err := json.Marshal(&head)
	if err != nil {
		return fail(fmt.Errorf("encode object %s: %w", o.Path, err))
	}
	w.zbuf.Reset()
	w.zbuf.Write(binary.AppendUvarint(w.scratch[:0], uint64(len(hb))))
	w.zbuf.Write(hb)
	if es != nil {
		w.zbuf.Write(binary.AppendUvarint(w.scratch[:0], uint64(es.raw)))
		w.zbuf.Write(es.z)
		return nil
	}
	sb, err := json.Marshal(o.Schema)
	if err != nil {
		return fail(fmt.Errorf("encode schema of %s: %w", o.Path, err))
	}
	w.zbuf.Write(binary.AppendUvarint(w.scratch[:0], uint64(len(sb))))
	if w.zw == nil {
		w.zw, _ = flate.NewWriter(&w.zbuf, flate.BestSpeed) // BestSpeed is a valid level
	} else {
		w.zw.Reset(&w.zbuf)
	}
	if _, err := w.zw.Write(sb); err != nil {
		return fail(fmt.Errorf("deflate schema of %s: %w", o.Path, err))
	}
	if err := w.zw.Close(); err != nil {
		return fail(fmt.Errorf("deflate schema of %s: %w", o.Path, err))
	}
	return nil
}

// AddMapping records where an object is mapped in a process.
func (w *Writer) AddMapping(m model.Mapping) error {
	b := w.scratch[:0]
	b = binary.AppendVarint(b, int64(m.PID))
	b = binary.AppendUvarint(b, m.Start)
	b = binary.AppendUvarint(b, m.End)
	b = binary.AppendUvarint(b, m.Bias)
	b = binary.AppendUvarint(b, uint64(m.Obj))
	if m.Reset {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	w.scratch = b
	w.record(recMapping, b)
	return w.err
}

// AddProc records a process event. Pending samples of an exiting or
// exec-ing process are written first, so every sample precedes the event
// that ends its image.
func (w *Writer) AddProc(e model.ProcEvent) error {
	if e.Kind == model.ProcExit || e.Kind == model.ProcExec || e.Kind == model.ProcDetach {
		w.flushProcess(e.PID)
	}
	w.jsonRecord(recProc, &e)
	return w.err
}

// AddThread records a thread's start or exit.
func (w *Writer) AddThread(e model.ThreadEvent) error {
	if e.Exit {
		if tb := w.threads[key(e.PID, e.TID)]; tb != nil {
			w.flushThread(tb)
			delete(w.threads, key(e.PID, e.TID))
		}
	}
	w.jsonRecord(recThread, &e)
	return w.err
}

func key(pid, tid int32) uint64 { return uint64(uint32(pid))<<32 | uint64(uint32(tid)) }

// AddSample appends one sample of thread tid of process pid. The sample is
// encoded at once (s may be reused by the caller); samples of one thread
// must come in tick order. It does not allocate in the steady state.
func (w *Writer) AddSample(pid, tid int32, s *model.Sample) error {
	k := key(pid, tid)
	tb := w.threads[k]
	if tb == nil {
		tb = &threadBuf{pid: pid, tid: tid, buf: make([]byte, 0, blockBytes+4096)}
		w.threads[k] = tb
	}
	b := tb.buf
	b = binary.AppendUvarint(b, s.Tick-tb.lastTick)
	b = binary.AppendVarint(b, s.TimeNS-tb.lastTime)
	b = binary.AppendUvarint(b, uint64(s.WeightNS))
	b = append(b, byte(s.State))
	if s.State != model.Running {
		b = binary.AppendVarint(b, int64(s.Syscall))
	}
	b = binary.AppendUvarint(b, uint64(len(s.Stack)))
	for i, pc := range s.Stack {
		var prev uint64
		if i < len(tb.lastPCs) {
			prev = tb.lastPCs[i]
		}
		b = binary.AppendVarint(b, int64(pc-prev))
	}
	b = binary.AppendUvarint(b, uint64(len(s.Values)))
	for i := range s.Values {
		v := &s.Values[i]
		flags := byte(0)
		if v.HasPointee {
			flags = 1
		}
		b = append(b, v.Frame, flags)
		b = binary.AppendUvarint(b, uint64(v.Obj))
		b = binary.AppendUvarint(b, uint64(uint32(v.Var)))
		b = binary.AppendVarint(b, int64(v.Bits))
		if v.HasPointee {
			b = binary.AppendVarint(b, int64(v.Pointee))
		}
	}
	tb.buf = b
	tb.n++
	tb.lastTick, tb.lastTime = s.Tick, s.TimeNS
	tb.lastPCs = append(tb.lastPCs[:0], s.Stack...)
	if len(tb.buf) >= blockBytes {
		w.flushThread(tb)
	}
	return w.err
}

func (w *Writer) flushThread(tb *threadBuf) {
	if tb.n == 0 {
		return
	}
	hdr := w.scratch[:0]
	hdr = binary.AppendVarint(hdr, int64(tb.pid))
	hdr = binary.AppendVarint(hdr, int64(tb.tid))
	hdr = binary.AppendUvarint(hdr, uint64(tb.n))
	w.scratch = hdr
	// Frame the record by hand: header and samples are two slices.
	var lenb [1 + binary.MaxVarintLen64]byte
	lenb[0] = recBlock
	n := binary.PutUvarint(lenb[1:], uint64(len(hdr)+len(tb.buf)))
	crc := crc32.Update(0, castagnoli, lenb[:1])
	crc = crc32.Update(crc, castagnoli, hdr)
	crc = crc32.Update(crc, castagnoli, tb.buf)
	w.write(lenb[:1+n])
	w.write(hdr)
	w.write(tb.buf)
	var c [4]byte
	binary.LittleEndian.PutUint32(c[:], crc)
	w.write(c[:])
	tb.buf = tb.buf[:0]
	tb.n = 0
	tb.lastTick, tb.lastTime = 0, 0
	tb.lastPCs = tb.lastPCs[:0]
}

func (w *Writer) flushProcess(pid int32) {
	for _, tb := range w.sortedThreads() {
		if tb.pid == pid {
			w.flushThread(tb)
		}
	}
}

func (w *Writer) sortedThreads() []*threadBuf {
	ts := make([]*threadBuf, 0, len(w.threads))
	for _, tb := range w.threads {
		ts = append(ts, tb)
	}
	sort.Slice(ts, func(i, j int) bool { return key(ts[i].pid, ts[i].tid) < key(ts[j].pid, ts[j].tid) })
	return ts
}

// Flush writes every pending sample block and pushes the bytes to the
// file, so a recorder killed afterwards loses nothing recorded so far.
func (w *Writer) Flush() error {
	for _, tb := range w.sortedThreads() {
		w.flushThread(tb)
	}
	if w.err == nil {
		if err := w.bw.Flush(); err != nil {
			w.err = fileErr(w.tmp, err)
		}
	}
	return w.err
}

// Close writes the pending blocks and the trailer, then renames the file
// to its final name (moving an existing file there to .old). On a write
// error the partial file is kept and named in the error.
func (w *Writer) Close(t model.Trailer) error {
	if w.closed {
		return errors.New("profile writer already closed")
	}
	w.closed = true
	if len(w.held) > 0 && w.err == nil {
		w.err = fmt.Errorf("write %s: %d object records reserved and never given (the records after them were not written)", w.tmp, len(w.held))
	}
	w.Flush()
	w.jsonRecord(recTrailer, &t)
	if w.err == nil {
		if err := w.bw.Flush(); err != nil {
			w.err = fmt.Errorf("write %s: %w", w.tmp, err)
		}
	}
	if err := w.f.Close(); err != nil && w.err == nil {
		w.err = fmt.Errorf("close %s: %w", w.tmp, err)
	}
	if w.err != nil {
		return w.err
	}
	if _, err := os.Lstat(w.path); err == nil {
		if err := os.Rename(w.path, w.path+".old"); err != nil {
			return fmt.Errorf("move existing %s to .old: %w (new profile left at %s)", w.path, err, w.tmp)
		}
	}
	if err := os.Rename(w.tmp, w.path); err != nil {
		return fmt.Errorf("rename %s to %s: %w", w.tmp, w.path, err)
	}
	return nil
}

// Abort closes the file without a trailer, leaving the partial profile in
// place for recovery (used when recording fails half-way).
func (w *Writer) Abort() error {
	if w.closed {
		return nil
	}
	w.closed = true
	w.Flush()
	return w.f.Close()
}

// fileErr says that writing the profile failed, naming the file once (an
// *os.PathError names it already).
func fileErr(name string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%w (the records written so far stay readable)", err)
	}
	return fmt.Errorf("write %s: %w (the records written so far stay readable)", name, err)
}
