package cpu

import (
	"sync"

	"github.com/rotary-go/rotary/backend/native"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// qk_rmsnorm_rope: each token's heads are normalized in place, in the activations' dtype, and
// then rotated by the same kernels as rotary_embedding. The normalized values are exactly the
// reference's intermediate y (already rounded to the dtype), so the rotation reads them back
// without loss and the result matches backend/native bit for bit.

func init() {
	ops.QKRMSNormRoPE.Register(&ops.Impl[ops.QKRMSNormRoPEArgs]{Backend: Name, Priority: 10, Fn: func(a ops.QKRMSNormRoPEArgs) {
		j := (*qkRMSNormRoPEJob)(&a)
		if !worthThreads(a.Query.Tokens, &a.RoPE) || !parallel(j, a.Query.Tokens) {
			j.run(0, a.Query.Tokens)
		}
	}})
}

// qkRMSNormRoPEJob is a qk_rmsnorm_rope call as the pool runs it, by token.
type qkRMSNormRoPEJob ops.QKRMSNormRoPEArgs

var qkRMSNormRoPESlot qkRMSNormRoPEJob

func (*qkRMSNormRoPEJob) slot() *qkRMSNormRoPEJob { return &qkRMSNormRoPESlot }

// qkStack is the head size up to which the widened weights and heads live on the stack.
const qkStack = 512

// qkScales is the fused kernels' scratch in f32 and bf16: a block of 16 heads' scales.
const qkScales = 16

// qkScratch is the f16 fused kernel's: the scales, then the block's heads widened to float32.
// It comes from a pool: on the stack, 8 KiB would be cleared on every call, whatever the dtype.
type qkScratch [qkScales + 16*128]float32

var qkScratches = sync.Pool{New: func() any { return new(qkScratch) }}

// qkFusedWeights are the query's and key's weights in the fused bf16 kernel's layout.
type qkFusedWeights [2][128]float32

func (j *qkRMSNormRoPEJob) run(lo, hi int) {
	a := (*ops.QKRMSNormRoPEArgs)(j)
	k := active
	n := a.Query.HeadSize
	var qStack, kStack, hStack [qkStack]float32
	var scales [qkScales]float32
	scratch := scales[:]
	if a.Query.DType == tensor.F16 {
		wide := qkScratches.Get().(*qkScratch)
		defer qkScratches.Put(wide)
		scratch = wide[:]
	}
	var fused qkFusedWeights
	qw, kw, head := qStack[:0], kStack[:0], hStack[:0]
	if n > qkStack {
		qw, kw, head = make([]float32, 0, n), make([]float32, 0, n), make([]float32, 0, n)
	}
	qw, head = qkWiden(qw[:n], a.QWeight), head[:n]
	qf := qkFusedWeight(k.isa, a.Query.DType, &fused[0], qw)
	var kf *[128]float32
	if a.Key.Present() {
		kw = qkWiden(kw[:n], a.KWeight)
		kf = qkFusedWeight(k.isa, a.Key.DType, &fused[1], kw)
	}
	for t := lo; t < hi; t++ {
		cos, sin := a.CosSin(t)
		qkNormRotateHeads(k, &a.Query, t, qw, qf, a.Epsilon, cos, sin, a.GPTJ, head, scratch)
		if a.Key.Present() {
			qkNormRotateHeads(k, &a.Key, t, kw, kf, a.Epsilon, cos, sin, a.GPTJ, head, scratch)
		}
	}
}

// qkNormRotateHeads normalizes and rotates every head of token t of h: in one kernel where the
// implementation has one for the shape, else the norm and then rotary_embedding's rotation. fw
// is w in the fused bf16 kernel's layout (nil when that kernel does not apply).
func qkNormRotateHeads(k *kernels, h *ops.Heads, t int, w []float32, fw *[128]float32, eps float32, cos, sin []float32, gptj bool, head []float32, scratch []float32) {
	if h.NumHeads == 0 {
		return
	}
	base := h.Off + t*h.TokenStride
	if h.HeadSize == 2*len(cos) {
		stride := h.HeadStride * h.DType.Size()
		fusedFrom := func(i int) (int, bool) {
			return qkNormRoPEAsm(k.isa, h.DType, gptj, headPtr(h, base+i*h.HeadStride), h.NumHeads-i, stride, w, fw, cos, sin, eps, scratch)
		}
		if done, ok := fusedFrom(0); ok {
			for done < h.NumHeads {
				// The kernel left head `done` to the exact path.
				one := *h
				one.Off, one.NumHeads = h.Off+done*h.HeadStride, 1
				qkNormHeads(k, &one, t, w, eps, head)
				rotateHeads(k, &one, t, cos, sin, gptj)
				if done++; done < h.NumHeads {
					n, _ := fusedFrom(done)
					done += n
				}
			}
			return
		}
	}
	qkNormHeads(k, h, t, w, eps, head)
	rotateHeads(k, h, t, cos, sin, gptj)
}

// qkWiden converts the contiguous 1-D float tensor w into dst (len(dst) elements).
func qkWiden(dst []float32, w tensor.Tensor) []float32 {
	if w.DType == tensor.F32 {
		copy(dst, w.F32[w.Offset:w.Offset+len(dst)])
		return dst
	}
	src := w.Bits[w.Offset : w.Offset+len(dst)]
	for j, b := range src {
		dst[j] = tensor.ToFloat32(w.DType, b)
	}
	return dst
}

// qkNormHeads replaces every head of token t of h by its RMS norm times w, with the reference's
// roundings (ops.QKRMSNormRoPEArgs); head is scratch of HeadSize.
func qkNormHeads(k *kernels, h *ops.Heads, t int, w []float32, eps float32, head []float32) {
	n := h.HeadSize
	base := h.Off + t*h.TokenStride
	if qkNormAsm(k.isa, h.DType, headPtr(h, base), h.NumHeads, h.HeadStride*h.DType.Size(), w, n, eps) {
		return
	}
	for hd := range h.NumHeads {
		off := base + hd*h.HeadStride
		switch h.DType {
		case tensor.F32:
			qkNormF32(h.F32[off:off+n:off+n], w, eps)
		default:
			qkNormBits(k, h.DType, h.Bits[off:off+n:off+n], w, eps, head)
		}
	}
}

func qkNormF32(x, w []float32, eps float32) {
	w = w[:len(x)]
	r := native.RMSNormScale(native.SumSquares(x), len(x), eps)
	for j, v := range x {
		x[j] = w[j] * float32(v*r)
	}
}

// qkNormBits normalizes one bf16/f16 head as HF does: x·r rounded to the activations' dtype,
// then times the weight, rounded again. Conversions run in bulk through the assembly.
func qkNormBits(k *kernels, d tensor.DType, x []uint16, w []float32, eps float32, head []float32) {
	head, w = head[:len(x)], w[:len(x)]
	widenBits(k, d, head, x)
	r := native.RMSNormScale(native.SumSquares(head), len(x), eps)
	for j, v := range head {
		head[j] = v * r
	}
	narrowBits(k, d, x, head)
	widenBits(k, d, head, x)
	for j, v := range head {
		head[j] = w[j] * v
	}
	narrowBits(k, d, x, head)
}
