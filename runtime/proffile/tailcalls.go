package proffile

import (
	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/tailcall"
)

// TailCallSource, when set, gives the tail-call records of an object
// whose schema was recorded without them (Schema.TailCallsRead false), or
// nil: vprof reads them from the object's file when its build ID is the
// recorded one, so that recordings made before vprof read tail calls
// gain their frames too. It is called once per object and reader, from
// the readers' goroutines at once.
var TailCallSource func(o *model.Object) []model.CallEdge

// IndirectSource, when set, gives what restores the tail-call frames under
// an indirect call in object o (tailcall.Indirect, method.md §3, D85), or
// nil: vprof reads it from the object's file when its build ID is the
// recorded one. Called as TailCallSource is.
var IndirectSource func(o *model.Object) *tailcall.Indirect

// maxTailStack bounds the frames of a stack with its restored tail-call
// frames: a Value's Frame is a byte.
const maxTailStack = 250

// tailFrames restores, in the stacks of the blocks read, the frames that
// tail calls removed (runtime/tailcall), following the objects and
// mappings of the file as it is read.
type tailFrames struct {
	space *AddrSpace
	idx   map[uint16]*tailcall.Index
	stack []uint64 // the stack being rebuilt
	at    []int    // new index of each recorded frame
	ins   []uint64
}

func newTailFrames() *tailFrames {
	return &tailFrames{space: NewAddrSpace(), idx: map[uint16]*tailcall.Index{}}
}

// object indexes o's tail calls.
func (t *tailFrames) object(o *model.Object) {
	delete(t.idx, o.ID)
	s := o.Schema
	if s == nil {
		return
	}
	edges := s.TailCalls
	if !s.TailCallsRead && TailCallSource != nil {
		edges = TailCallSource(o)
	}
	if x := tailcall.New(s, edges); x != nil {
		if IndirectSource != nil {
			x.AddIndirect(IndirectSource(o))
		}
		t.idx[o.ID] = x
	}
}

// block rewrites the samples of buf whose stacks lack tail-call frames:
// each gets a new Stack (in buf's storage) with the frames restored and
// marked in TailFrames, and its values' Frame renumbered. Frames that the
// recorder restored (at a tail call's return address) are marked too.
func (t *tailFrames) block(buf *BlockBuffer) {
	if len(t.idx) == 0 {
		return
	}
	b := &buf.Block
	ext := buf.ext[:0]
	type cut struct{ sample, start, end int }
	var cuts []cut
	for si := range b.Samples {
		s := &b.Samples[si]
		mask, ok := t.expand(b.PID, s.Stack)
		if !ok {
			s.TailFrames = mask
			continue
		}
		for j := range s.Values {
			if f := int(s.Values[j].Frame); f < len(t.at) {
				s.Values[j].Frame = uint8(t.at[f])
			}
		}
		s.TailFrames = mask
		start := len(ext)
		ext = append(ext, t.stack...)
		cuts = append(cuts, cut{si, start, len(ext)})
	}
	for _, c := range cuts {
		b.Samples[c.sample].Stack = ext[c.start:c.end:c.end]
	}
	buf.ext = ext
}

// expand rebuilds stack (of process pid) into t.stack with the tail-call
// frames restored, t.at the new index of each frame, and returns which
// frames are restored ones (below 64, the recorder's included) and
// whether it restored any.
func (t *tailFrames) expand(pid int32, stack []uint64) (uint64, bool) {
	if len(stack) < 2 {
		return 0, false
	}
	t.stack, t.at = t.stack[:0], t.at[:0]
	var mask uint64
	restored := false
	for i, pc := range stack {
		t.at = append(t.at, len(t.stack))
		t.stack = append(t.stack, pc)
		if i+1 == len(stack) || pc == 0 || stack[i+1] == 0 {
			continue
		}
		// A caller frame's PC is a return address: its object is the
		// call's, one byte before.
		q := pc
		if i > 0 {
			q--
		}
		obj, link, ok := t.space.Resolve(pid, q)
		if !ok {
			continue
		}
		x := t.idx[obj]
		if x == nil {
			continue
		}
		if i > 0 && x.IsTail(link+1) {
			if n := len(t.stack) - 1; n < 64 {
				mask |= 1 << n // restored by the recorder
			}
		}
		cobj, clink, ok := t.space.Resolve(pid, stack[i+1]-1)
		if !ok || cobj != obj {
			continue
		}
		if i > 0 {
			link++
		}
		bias := stack[i+1] - 1 - clink
		t.ins = x.Between(t.ins[:0], link, i == 0, clink+1)
		if len(t.ins) == 0 || len(stack)+len(t.stack)-i+len(t.ins) > maxTailStack {
			continue
		}
		for _, r := range t.ins {
			if n := len(t.stack); n < 64 {
				mask |= 1 << n
			}
			t.stack = append(t.stack, r+bias)
		}
		restored = true
	}
	return mask, restored
}
