package sampler

import (
	"encoding/binary"
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/vprof/vprof/sampler/unwind"
)

// The perf_event ring-buffer records the perf backend reads
// (include/uapi/linux/perf_event.h). Every event vprof opens has the same
// sample_type, so a sample has one layout, parsed here without allocating.

const (
	perfRecordLost        = 2
	perfRecordThrottle    = 5
	perfRecordUnthrottle  = 6
	perfRecordSample      = 9
	perfRecordLostSamples = 13
)

// perfSampleType is the sample_type of every event vprof opens:
//
//	u64 id (IDENTIFIER); u64 ip; u32 pid, tid; u64 time; u64 period;
//	u64 value (READ: the task clock, ns on a CPU); u64 abi, regs[17]
//	(REGS_USER); u64 size, data[size], dyn_size (STACK_USER).
const perfSampleType = unix.PERF_SAMPLE_IDENTIFIER | unix.PERF_SAMPLE_IP | unix.PERF_SAMPLE_TID |
	unix.PERF_SAMPLE_TIME | unix.PERF_SAMPLE_PERIOD | unix.PERF_SAMPLE_READ |
	unix.PERF_SAMPLE_REGS_USER | unix.PERF_SAMPLE_STACK_USER

// perfRegsMask is sample_regs_user: the general registers, the IP and the
// SP in the numbering of arch/x86/include/uapi/asm/perf_regs.h (AX=0 BX CX
// DX SI DI BP SP IP=8, FLAGS and the segment registers 9..15 left out,
// R8=16..R15=23). The kernel writes them in ascending bit order.
const perfRegsMask = 1<<9 - 1 | 0xff<<16

// perfNumRegs is the number of registers in a sample (bits in perfRegsMask).
const perfNumRegs = 17

// perfRegDWARF maps the sample's register order to DWARF numbers.
var perfRegDWARF = [perfNumRegs]int{
	unwind.RAX, unwind.RBX, unwind.RCX, unwind.RDX, unwind.RSI, unwind.RDI, unwind.RBP, unwind.RSP, unwind.RIP,
	unwind.R8, unwind.R9, unwind.R10, unwind.R11, unwind.R12, unwind.R13, unwind.R14, unwind.R15,
}

// PERF_SAMPLE_REGS_ABI_*: which register set a sample holds.
const (
	perfRegsABINone = 0 // no user registers (a kernel thread)
	perfRegsABI64   = 2
)

// perfSampleIDSize is the sample_id trailer of non-sample records
// (sample_id_all): u32 pid, tid; u64 time; u64 id.
const perfSampleIDSize = 24

// perfRecord is one parsed record. Stack aliases the record's bytes.
type perfRecord struct {
	typ      uint32
	id       uint64 // the event's id (PERF_EVENT_IOC_ID)
	pid, tid uint32
	time     uint64 // CLOCK_MONOTONIC ns (use_clockid)
	// samples
	ip     uint64
	period uint64
	count  uint64 // the event's task clock when it fired
	abi    uint64
	regs   [perfNumRegs]uint64 // in perfRegsMask order
	stack  []byte              // the copied stack from the SP up, valid bytes only
	asked  uint64              // stack bytes the record holds room for (the window)
	// PERF_RECORD_LOST, PERF_RECORD_LOST_SAMPLES
	lost uint64
}

// perfRecordError is a record that does not parse: the ring is out of
// step, or the kernel wrote a layout vprof did not ask for.
type perfRecordError struct {
	typ    uint32
	off    int // where in the record
	size   int
	reason string
}

func (e *perfRecordError) Error() string {
	return fmt.Sprintf("perf record type %d (%d bytes): %s at byte %d", e.typ, e.size, e.reason, e.off)
}

// perfRecordHeader returns the type and size of the record at the start
// of b (struct perf_event_header: u32 type, u16 misc, u16 size).
func perfRecordHeader(b []byte) (typ uint32, size int, ok bool) {
	if len(b) < 8 {
		return 0, 0, false
	}
	return binary.LittleEndian.Uint32(b), int(binary.LittleEndian.Uint16(b[6:])), true
}

// parsePerfRecord parses the record b (exactly one record, header
// included). Records of types vprof does not use parse to their type
// only.
func parsePerfRecord(b []byte, r *perfRecord) error {
	typ, size, ok := perfRecordHeader(b)
	if !ok {
		return &perfRecordError{size: len(b), reason: "shorter than its header"}
	}
	if size < 8 || size != len(b) || size%8 != 0 {
		return &perfRecordError{typ: typ, size: len(b), reason: fmt.Sprintf("header says %d bytes", size)}
	}
	r.typ = typ
	p := perfParser{b: b, off: 8, typ: typ}
	switch typ {
	case perfRecordSample:
		r.id = p.u64()
		r.ip = p.u64()
		r.pid, r.tid = p.u32(), p.u32()
		r.time = p.u64()
		r.period = p.u64()
		r.count = p.u64()
		r.abi = p.u64()
		switch r.abi {
		case perfRegsABINone:
			r.regs = [perfNumRegs]uint64{}
		case perfRegsABI64:
			for i := range r.regs {
				r.regs[i] = p.u64()
			}
		default:
			if p.err == nil {
				return p.fail("register ABI %d (not x86-64)", r.abi)
			}
		}
		r.asked = p.u64()
		r.stack = nil
		if r.asked > 0 && p.err == nil {
			if r.asked > uint64(len(b)-p.off) {
				return p.fail("stack of %d bytes", r.asked)
			}
			data := b[p.off : p.off+int(r.asked)]
			p.off += int(r.asked)
			dyn := p.u64()
			if p.err == nil && dyn > r.asked {
				return p.fail("stack dump of %d valid bytes in %d", dyn, r.asked)
			}
			r.stack = data[:dyn]
		}
	case perfRecordLost:
		r.id = p.u64()
		r.lost = p.u64()
		p.sampleID(r)
	case perfRecordLostSamples:
		r.lost = p.u64()
		p.sampleID(r)
	case perfRecordThrottle, perfRecordUnthrottle:
		r.time = p.u64()
		r.id = p.u64()
		p.u64() // stream id
		p.sampleID(r)
	default:
		return nil
	}
	if p.err != nil {
		return p.err
	}
	if p.off != len(b) {
		return p.fail("%d bytes left over", len(b)-p.off)
	}
	return nil
}

// perfParser reads a record's fields in order; the first overrun sets err.
type perfParser struct {
	b   []byte
	off int
	typ uint32
	err error
}

func (p *perfParser) fail(format string, args ...any) error {
	if p.err == nil {
		p.err = &perfRecordError{typ: p.typ, off: p.off, size: len(p.b), reason: fmt.Sprintf(format, args...)}
	}
	return p.err
}

func (p *perfParser) u64() uint64 {
	if p.err != nil || len(p.b)-p.off < 8 {
		p.fail("truncated")
		return 0
	}
	v := binary.LittleEndian.Uint64(p.b[p.off:])
	p.off += 8
	return v
}

func (p *perfParser) u32() uint32 {
	if p.err != nil || len(p.b)-p.off < 4 {
		p.fail("truncated")
		return 0
	}
	v := binary.LittleEndian.Uint32(p.b[p.off:])
	p.off += 4
	return v
}

// sampleID reads the sample_id trailer (sample_id_all) of a non-sample
// record: pid, tid, time and the id of the event that wrote it.
func (p *perfParser) sampleID(r *perfRecord) {
	r.pid, r.tid = p.u32(), p.u32()
	t := p.u64()
	if r.typ != perfRecordThrottle && r.typ != perfRecordUnthrottle {
		r.time = t
	}
	r.id = p.u64()
}
