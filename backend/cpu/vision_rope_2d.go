package cpu

import (
	"math"
	"slices"
	"sync"

	"github.com/rotary-go/rotary/backend/native"
	"github.com/rotary-go/rotary/ops"
)

func init() {
	ops.VisionRoPE2D.Register(&ops.Impl[ops.VisionRoPE2DArgs]{Backend: Name, Priority: 10, Fn: func(a ops.VisionRoPE2DArgs) {
		s := visionScratchPool.Get().(*visionScratch)
		defer visionScratchPool.Put(s)
		half := a.RotaryDim / 2
		inv := s.inv[:]
		if half > len(inv) {
			inv = make([]float64, half)
		}
		inv = inv[:half]
		native.VisionFreqs(&a, inv)
		if worthThreads(a.Query.Tokens, &a.RoPE) {
			j := visionRoPE2DJob{a: a, inv: inv}
			if parallel(&j, a.Query.Tokens) {
				return
			}
		}
		visionRoPE2D(&a, inv, s, 0, a.Query.Tokens)
	}})
}

// A vision tower's patches repeat their coordinates: a row-major image's column coordinates
// come round again every row, and every layer of the tower rotates the same patches. Each
// half's cos/sin is kept by coordinate in a small direct-mapped table that outlives the call
// while the pair frequencies stay the same, so an image narrower than visionSlots patches
// evaluates each column's sines once instead of once per patch and layer (the float64 sines
// cost several times the rotation of a patch's heads).
const (
	visionSlots    = 64 // a power of two
	visionMaxPairs = 32 // the pairs a half may have to be kept: rotary dims up to 128
)

// visionScratch is one goroutine's working memory for visionRoPE2D: the pair frequencies of the
// call (filled by the caller, shared by its chunks) and each half's table, valid for the
// frequencies in key.
type visionScratch struct {
	inv  [256]float64
	key  [2 * visionMaxPairs]float64 // the first nkey: the frequencies the table holds
	nkey int
	tag  [2][visionSlots]int64 // the coordinate a slot holds, −1 for none
	ent  [2][visionSlots][2 * visionMaxPairs]float32
}

// keep leaves s's table as it is when it holds cos/sin for the frequencies inv, and else
// empties it and keys it by inv.
func (s *visionScratch) keep(inv []float64) {
	key := s.key[:s.nkey]
	if s.nkey > 0 && slices.EqualFunc(key, inv, func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }) {
		return
	}
	for c := range s.tag {
		for i := range s.tag[c] {
			s.tag[c][i] = -1
		}
	}
	s.nkey = copy(s.key[:], inv)
}

var visionScratchPool = sync.Pool{New: func() any { return new(visionScratch) }}

// visionRoPE2DJob is a vision_rope_2d call as the pool runs it, by token: each chunk with a
// table of its own, all with the call's pair frequencies.
type visionRoPE2DJob struct {
	a   ops.VisionRoPE2DArgs
	inv []float64
}

var visionRoPE2DSlot visionRoPE2DJob

func (*visionRoPE2DJob) slot() *visionRoPE2DJob { return &visionRoPE2DSlot }

func (j *visionRoPE2DJob) run(lo, hi int) {
	s := visionScratchPool.Get().(*visionScratch)
	visionRoPE2D(&j.a, j.inv, s, lo, hi)
	visionScratchPool.Put(s)
}

// visionRoPE2D rotates tokens [lo, hi), each with its cos/sin from native's float64 evaluation
// at the pair frequencies inv (bit for bit the reference's), by the active kernel set. A half
// whose coordinate equals the previous token's keeps its cos/sin; others come from s's table
// or are evaluated into it.
func visionRoPE2D(a *ops.VisionRoPE2DArgs, inv []float64, s *visionScratch, lo, hi int) {
	k := active
	half := len(inv)
	var csStack [512]float32
	buf := csStack[:]
	if half > len(buf)/2 {
		buf = make([]float32, 2*half)
	}
	cos, sin := buf[:half:half], buf[half:2*half:2*half]
	q := half / 2
	table := half-q <= visionMaxPairs
	if table {
		s.keep(inv)
	}
	var last [2]int64
	for t := lo; t < hi; t++ {
		for c, r := range [2][2]int{{0, q}, {q, half}} {
			p := a.Positions.At(c, t)
			if t != lo && p == last[c] {
				continue
			}
			last[c] = p
			cs, sn := cos[r[0]:r[1]], sin[r[0]:r[1]]
			if !table || p < 0 {
				native.VisionHalfCosSin(p, inv[r[0]:r[1]], cs, sn)
				continue
			}
			n, slot := r[1]-r[0], p&(visionSlots-1)
			e := s.ent[c][slot][: 2*n : 2*n]
			if s.tag[c][slot] != p {
				native.VisionHalfCosSin(p, inv[r[0]:r[1]], e[:n], e[n:])
				s.tag[c][slot] = p
			}
			copy(cs, e[:n])
			copy(sn, e[n:])
		}
		rotateQK(k, &a.RoPE, t, cos, sin)
	}
}
