package cpu

import (
	"slices"
	"sync"

	"github.com/rotary-go/rotary/ops"
)

func init() {
	ops.MRoPE.Register(&ops.Impl[ops.MRoPEArgs]{Backend: Name, Priority: 10, Fn: func(a ops.MRoPEArgs) {
		j := (*mropeJob)(&a)
		if !worthThreads(a.Query.Tokens, &a.RoPE) || !parallel(j, a.Query.Tokens) {
			j.run(0, a.Query.Tokens)
		}
	}})
}

// mropeJob is an mrope call as the pool runs it, by token.
type mropeJob ops.MRoPEArgs

var mropeSlot mropeJob

func (*mropeJob) slot() *mropeJob { return &mropeSlot }

// mropePairs is the pair count the kernels that assemble a token's cos/sin in registers serve
// (rotateMRoPE64*): rotary dim 128, every Qwen-VL model's.
const mropePairs = 64

// mropeMaxRows bounds the position rows a layout draws from (rope.MRoPE's sections); the
// dispatcher's checks keep Positions.Rows within it.
const mropeMaxRows = 4

// mropeLayout is one MRoPE layout's pair-to-axis map and gather masks (mropeAxes, mropeMasks),
// kept across calls in a pool: every layer of a model calls mrope with the same layout, and
// building them took about 8% of a 16-token call in a CPU profile.
type mropeLayout struct {
	sections                             [8]int
	nsec, half                           int // nsec 0: no layout held
	interleaved, alternateHW, ggmlFourth bool
	axis                                 [256]uint8
	masks                                [2 * 256 / 16]uint64
	nmasks                               int
	// A block's tokens' axes' rows (first: the collector scans no further than the last pointer),
	// or their gathered rows.
	axes  [tokenBlock][mropeMaxRows]*float32
	block [mropeBlockFloats]float32
}

// mropeBlockFloats is the room for a block's gathered [cos | sin] rows: tokenBlock of them up
// to 128 pairs, fewer of longer ones (a stack array would be cleared on every call).
const mropeBlockFloats = tokenBlock * 2 * 128

var mropeLayouts = sync.Pool{New: func() any { return new(mropeLayout) }}

// layout returns a's axis map and masks for half pairs (at most len(l.axis)), from l when it
// holds them, else built into l.
func (l *mropeLayout) layout(a *ops.MRoPEArgs, half int) ([]uint8, []uint64) {
	if l.nsec == 0 || l.half != half || l.interleaved != a.Interleaved || l.alternateHW != a.AlternateHW ||
		l.ggmlFourth != a.GGMLFourth || !slices.Equal(l.sections[:l.nsec], a.Sections) {
		mropeAxes(a, l.axis[:half])
		l.nmasks = len(mropeMasks(l.axis[:half], l.masks[:min(len(l.masks), 2*half/16)]))
		l.nsec = copy(l.sections[:], a.Sections)
		l.half, l.interleaved, l.alternateHW, l.ggmlFourth = half, a.Interleaved, a.AlternateHW, a.GGMLFourth
	}
	return l.axis[:half:half], l.masks[:l.nmasks]
}

// mropePooled reports whether a's layout at half pairs fits a pooled mropeLayout.
func mropePooled(a *ops.MRoPEArgs, half int) bool {
	return half <= len(mropeLayout{}.axis) && len(a.Sections) <= len(mropeLayout{}.sections)
}

// mropeLayoutOf returns a's axis map and masks for half pairs: from a pooled mropeLayout where
// the layout fits one (returned too, for the caller to put back when done with them), else
// built afresh.
func mropeLayoutOf(a *ops.MRoPEArgs, half int) ([]uint8, []uint64, *mropeLayout) {
	if mropePooled(a, half) {
		l := mropeLayouts.Get().(*mropeLayout)
		axis, masks := l.layout(a, half)
		return axis, masks, l
	}
	axis := make([]uint8, half)
	mropeAxes(a, axis)
	return axis, mropeMasks(axis, make([]uint64, len(mropeLayout{}.masks))), nil // the first 512 floats; the Go loop gathers the rest
}

func (j *mropeJob) run(lo, hi int) {
	a := (*ops.MRoPEArgs)(j)
	k := active
	half := a.Cache.Half
	if half == 0 {
		return
	}
	per := max(1, min(tokenBlock, mropeBlockFloats/(2*half)))
	// A block with image tokens goes to the kernel that assembles their rows in registers where
	// there is one, with each token's axes' rows; else their rows are gathered into the layout's
	// block first. Text tokens take their one cache row as it is.
	inRegs := half == mropePairs && mropePooled(a, half) && mropeTokensOK(k.isa, &a.RoPE)
	var rowsOf [tokenBlock]*float32 // each token's row: the cache's (text) or one in buf
	var buf []float32               // a block's gathered rows, taken with the layout
	var axis []uint8
	var masks []uint64   // with axis, taken at the first token whose axes differ: text needs neither
	var lay *mropeLayout // where they come from, put back after the loop (a defer in it allocates)
	rows := min(a.Positions.Rows, mropeMaxRows)
	var row [mropeMaxRows][]float32 // the cache row of each axis's position
	for t0 := lo; t0 < hi; t0 += per {
		t1 := min(hi, t0+per)
		var text uint32 // bit i: token t0+i is a text token
		for t := t0; t < t1; t++ {
			p0 := a.Positions.At(0, t)
			same := true
			for r := 1; r < rows; r++ {
				same = same && a.Positions.At(r, t) == p0
			}
			if same {
				// A text token: every axis at one position, so the pairs take that row as it is.
				c, _ := a.Cache.Row(p0)
				rowsOf[t-t0] = &c[0]
				text |= 1 << (t - t0)
				continue
			}
			if axis == nil {
				axis, masks, lay = mropeLayoutOf(a, half)
				if lay != nil {
					buf = lay.block[:]
				} else {
					buf = make([]float32, per*2*half)
				}
			}
			for r := range row {
				p := int(a.Positions.At(min(r, rows-1), t)) // rows past the layout's are never selected
				row[r] = a.Cache.Data[p*2*half : (p+1)*2*half : (p+1)*2*half]
				if inRegs {
					lay.axes[t-t0][r] = &row[r][0]
				}
			}
			if !inRegs {
				b := buf[(t-t0)*2*half : (t-t0+1)*2*half : (t-t0+1)*2*half]
				mropeGather(k.isa, b, &row, axis, masks)
				rowsOf[t-t0] = &b[0]
			}
		}
		if n := t1 - t0; inRegs && text != 1<<n-1 {
			for i := range n {
				if text&(1<<i) != 0 {
					c := rowsOf[i]
					lay.axes[i] = [mropeMaxRows]*float32{c, c, c, c}
				}
			}
			mropeTokensAsm(k.isa, &a.RoPE, t0, &lay.axes, n, masks, rows)
			continue
		}
		rotateTokens(k, &a.RoPE, t0, rowsOf[:t1-t0], half)
	}
	if lay != nil {
		lay.axes = [tokenBlock][mropeMaxRows]*float32{} // the pool keeps no pointer to the cache
		mropeLayouts.Put(lay)
	}
}

// mropeGather assembles a token's [cos | sin] row in buf (2·len(axis) floats) from the cache
// rows of its axes' positions, laid out the same way: float j takes the row of its pair's axis,
// axis[j mod half]. masks are mropeMasks(axis, ...).
func mropeGather(i isa, buf []float32, row *[mropeMaxRows][]float32, axis []uint8, masks []uint64) {
	half := len(axis)
	for j := mropeGatherAsm(i, buf, row, masks); j < len(buf); j++ {
		p := j
		if p >= half {
			p -= half
		}
		buf[j] = row[axis[p]&(mropeMaxRows-1)][j]
	}
}

// mropeMasks fills masks (one per 16 floats of a token's [cos | sin] row, as many as fit) for
// mropeGatherAsm: in masks[c], bit 16(a−1)+l is set where float 16c+l takes axis a ≥ 1's row.
func mropeMasks(axis []uint8, masks []uint64) []uint64 {
	i := 0 // the pair of float 16c+l
	for c := range masks {
		var m uint64
		for l := range 16 {
			if a := axis[i] & (mropeMaxRows - 1); a > 0 {
				m |= 1 << (16*uint(a-1) + uint(l))
			}
			if i++; i == len(axis) {
				i = 0
			}
		}
		masks[c] = m
	}
	return masks
}

// mropeAxes fills axis[i] with the position row pair i takes its cos/sin from, as
// ops.MRoPEArgs.Axis (rope.MRoPE.Axis) gives it, without its division per pair.
func mropeAxes(a *ops.MRoPEArgs, axis []uint8) {
	s := a.Sections
	switch {
	case len(s) < 2 || a.Interleaved && len(s) < 3, // layouts the spec rejects: Axis itself
		a.Interleaved && a.GGMLFourth && !a.AlternateHW: // once per token range: Axis's divisions cost nothing a loop of its own would save
		for i := range axis {
			axis[i] = uint8(a.Axis(i))
		}
	case a.AlternateHW:
		hw := s[0] + s[1]
		for i := range axis {
			axis[i] = 0
			if i < hw {
				axis[i] = 1 + uint8(i&1)
			}
		}
	case a.Interleaved:
		r := 0 // i mod 3
		for i := range axis {
			var ax uint8
			if r == 1 && i < 3*s[1] {
				ax = 1
			} else if r == 2 && i < 3*s[2] {
				ax = 2
			}
			axis[i] = ax
			if r++; r == 3 {
				r = 0
			}
		}
	default:
		i := 0
		for ax, n := range s {
			if ax == len(s)-1 {
				n = len(axis) - i // the last section takes the rest
			}
			for ; n > 0 && i < len(axis); n-- {
				axis[i] = uint8(ax)
				i++
			}
		}
	}
}
