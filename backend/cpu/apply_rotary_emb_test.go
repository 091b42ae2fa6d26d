package cpu_test

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"

	"math/rand/v2"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/backend/cpu"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// BenchmarkApplyRotaryEmb times the forward and backward passes on the bench's Llama-3-8B
// query shape at 4096 tokens (x [1,T,32,128] bf16, cos and sin [1,T,1,128]).
func BenchmarkApplyRotaryEmb(b *testing.B) {
	T := 4096
	if v := os.Getenv("T"); v != "" {
		T, _ = strconv.Atoi(v)
	}
	r := rand.New(rand.NewPCG(1, 2))
	d := tensor.BF16
	x, dy := randomTensor(r, d, normalValues, 1, T, 32, 128), randomTensor(r, d, normalValues, 1, T, 32, 128)
	cos, sin := randomTensor(r, d, normalValues, 1, T, 1, 128), randomTensor(r, d, normalValues, 1, T, 1, 128)
	out := tensor.Zeros(d, 1, T, 32, 128)
	dcos, dsin := tensor.Zeros(d, 1, T, 1, 128), tensor.Zeros(d, 1, T, 1, 128)
	disp, _ := ops.NewDispatcher("all", cpu.Name)
	b.Run("forward", func(b *testing.B) {
		b.SetBytes(int64(2 * x.Len() * 2))
		for b.Loop() {
			if err := rotary.ApplyRotaryEmb(disp, rotary.ApplyRotaryEmbParams{Layout: ops.BSND, X: x, Cos: cos, Sin: sin, Out: out, Style: rotary.NeoX}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("backward", func(b *testing.B) {
		b.SetBytes(int64(3 * x.Len() * 2))
		for b.Loop() {
			if err := rotary.ApplyRotaryEmbBackward(disp, rotary.ApplyRotaryEmbBackwardParams{Layout: ops.BSND, DY: dy, X: x, Cos: cos, Sin: sin, DX: out, DCos: dcos, DSin: dsin, Style: rotary.NeoX}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestApplyRotaryEmbThreads runs forward and backward passes large enough to split across the
// pool (the conformance sweep's are not): cos rows shared by heads (the kernels' groups), by an
// outer batch dimension, by both, and one cos row for all, with special values among the
// inputs, in place and not, with either sum, none, both into cos and sin themselves, or both
// in another dtype than x's: out, dx, dcos and dsin bit for bit against native, whose sums add
// each element's terms in row order (the cancelling inputs make the bits depend on that
// order). The cases with a multiple of 32 as rotary dim (either style) take the fused kernels
// where a cos row's groups of rows lie along one dimension (heads and batch in BSND, heads in
// BNSD); the kernels walk runs of cos rows and the groups themselves: with every operand a view
// with gaps (gapped), a run that stepped past the end of a dimension, or a group step that
// missed the batch stride, reads or writes a gap.
func TestApplyRotaryEmbThreads(t *testing.T) {
	defer cpu.SetImplementation(cpu.Implementations()[0])
	cases := []struct {
		layout ops.Layout
		x, cos []int
		gap    bool // every operand a view with a gap after each outermost index (gapped)
	}{
		{ops.BSND, []int{1, 200, 8, 128}, []int{1, 200, 1, 128}, false},
		{ops.BSND, []int{3, 70, 4, 96}, []int{1, 70, 1, 96}, false},
		{ops.BNSD, []int{2, 6, 90, 64}, []int{2, 1, 90, 64}, false},
		{ops.SBND, []int{60, 3, 5, 80}, []int{60, 1, 1, 80}, false},
		{ops.THD, []int{700, 4, 128}, []int{700, 1, 64}, false},
		{ops.BSND, []int{2, 100, 8, 64}, []int{1, 1, 1, 64}, false},
		{ops.BSND, []int{1, 150, 6, 128}, []int{1, 150, 6, 128}, false},
		{ops.THD, []int{900, 4, 48}, []int{900, 1, 36}, false},   // 16 pairs to the kernels, 2 to Go
		{ops.THD, []int{1000, 5, 16}, []int{1000, 1, 12}, false}, // all in Go
		// The fused kernels (NeoX, 16 pairs a block, cos rows walked in runs by the kernel): a
		// run ending where batch does and a thread's share starting inside one; 3 blocks with
		// pass-through; 2 blocks; both operands cancelling in the odd cases.
		{ops.BSND, []int{3, 50, 4, 128}, []int{3, 50, 1, 128}, false},
		{ops.THD, []int{600, 8, 128}, []int{600, 1, 96}, false},
		{ops.BSND, []int{1, 300, 4, 64}, []int{1, 300, 1, 64}, false},
		{ops.BSND, []int{3, 50, 4, 128}, []int{3, 50, 1, 128}, true},
		{ops.BSND, []int{4, 40, 4, 96}, []int{4, 40, 1, 96}, true},
		{ops.BSND, []int{3, 50, 4, 128}, []int{1, 50, 1, 128}, true}, // groups along batch
	}
	r := rand.New(rand.NewPCG(5, 6))
	for ci, c := range cases {
		for di, d := range []tensor.DType{tensor.BF16, tensor.F16, tensor.F32} {
			if thinned(ci, di, 3) {
				continue
			}
			for _, st := range []rotary.Style{rotary.NeoX, rotary.GPTJ} {
				x, dy := cancelling(r, d, c.x...), cancelling(r, d, c.x...)
				if ci%2 == 0 {
					x = randomTensor(r, d, specialValues, c.x...)
				}
				cos, sin := randomTensor(r, d, normalValues, c.cos...), randomTensor(r, d, specialValues, c.cos...)
				// view lays a fresh tensor out as the case's operands are.
				view, clone := func(t tensor.Tensor) tensor.Tensor { return t }, tensor.Tensor.Clone
				if c.gap {
					view = gapped
					clone = cloneView
					x, dy, cos, sin = view(x), view(dy), view(cos), view(sin)
				}
				for _, inPlace := range []bool{false, true} {
					name := fmt.Sprintf("%s%v/%v/%v/forward/inplace=%v", c.layout, c.x, d, st, inPlace)
					sameAsNative(t, name, func(disp *ops.Dispatcher) tensor.Tensor {
						in := clone(x)
						out := view(tensor.Zeros(d, c.x...))
						if inPlace {
							out = in
						}
						if err := rotary.ApplyRotaryEmb(disp, rotary.ApplyRotaryEmbParams{Layout: c.layout, X: in, Cos: cos, Sin: sin, Out: out, Style: st}); err != nil {
							t.Fatal(err)
						}
						return backing(out)
					})
				}
				// 0: both sums, 1: dcos only, 2: dsin only, 3: dx only, 4: the sums into cos and sin
				// themselves, 5: both sums in F32 (x's dtype otherwise; the fused kernels want one)
				for mode := range 6 {
					if mode == 5 && d == tensor.F32 || thinned(ci, mode%3, 3) {
						continue
					}
					inPlace := (ci+mode)%2 == 0
					name := fmt.Sprintf("%s%v/%v/%v/mode%d/inplace=%v", c.layout, c.x, d, st, mode, inPlace)
					sameAsNative(t, name, func(disp *ops.Dispatcher) tensor.Tensor {
						g := clone(dy)
						dx := view(tensor.Zeros(d, c.x...))
						if inPlace {
							dx = g
						}
						cos, sin := cos, sin
						var dcos, dsin tensor.Tensor
						if mode == 0 || mode == 1 {
							dcos = view(tensor.Zeros(d, c.cos...))
						}
						if mode == 0 || mode == 2 {
							dsin = view(tensor.Zeros(d, c.cos...))
						}
						if mode == 4 {
							cos, sin = clone(cos), clone(sin)
							dcos, dsin = cos, sin
						}
						if mode == 5 {
							dcos, dsin = view(tensor.Zeros(tensor.F32, c.cos...)), view(tensor.Zeros(tensor.F32, c.cos...))
						}
						err := rotary.ApplyRotaryEmbBackward(disp, rotary.ApplyRotaryEmbBackwardParams{Layout: c.layout, DY: g, X: x, Cos: cos, Sin: sin, DX: dx, DCos: dcos, DSin: dsin, Style: st})
						if err != nil {
							t.Fatal(err)
						}
						if mode == 5 {
							return concat(widened(backing(dx)), backing(dcos), backing(dsin))
						}
						return concat(backing(dx), backing(dcos), backing(dsin))
					})
				}
			}
		}
	}
}

// cancelling fills a tensor with ±2^15, ±2^-14 and normal values, all finite in every dtype:
// products of 2^30 and 2^-28 with others between, whose float64 sums lose the small terms
// next to the large ones and then cancel the large ones, so that a sum's bits depend on the
// order its terms are added in.
func cancelling(r *rand.Rand, d tensor.DType, shape ...int) tensor.Tensor {
	t := randomTensor(r, d, normalValues, shape...)
	for i := range t.Len() {
		v := float32(1 - 2*r.IntN(2))
		switch r.IntN(4) {
		case 0:
			v *= 1 << 15
		case 1, 2:
			v /= 1 << 14
		default:
			continue
		}
		if d == tensor.F32 {
			t.F32[i] = v
		} else {
			t.Bits[i] = tensor.FromFloat32(d, v)
		}
	}
	return t
}

// gapped is a copy of t (contiguous, rank ≥ 2) as a view whose outermost dimension steps one
// row further than the rest of t: after each outermost index a row of values that are not t's,
// which a walk stepping past the end of an inner dimension would read or write. The gaps'
// values depend only on t's shape and dtype, so two views of equal tensors are equal.
func gapped(t tensor.Tensor) tensor.Tensor {
	r := rand.New(rand.NewPCG(7, 8))
	row := t.Shape[t.Rank()-1]
	inner := t.Len() / t.Shape[0]
	big := randomTensor(r, t.DType, normalValues, t.Shape[0]*(inner+row))
	strides := make([]int, t.Rank())
	for k := range strides {
		strides[k] = t.Stride(k)
	}
	strides[0] = inner + row
	for i := range t.Len() {
		j := i/inner*strides[0] + i%inner
		if t.DType == tensor.F32 {
			big.F32[j] = t.F32[i]
		} else {
			big.Bits[j] = t.Bits[i]
		}
	}
	return tensor.Tensor{DType: t.DType, Shape: t.Shape, Strides: strides, F32: big.F32, Bits: big.Bits}
}

// cloneView copies t's backing memory and keeps its layout.
func cloneView(t tensor.Tensor) tensor.Tensor {
	c := t
	c.F32, c.Bits = slices.Clone(t.F32), slices.Clone(t.Bits)
	return c
}

// backing is all of t's backing memory as one flat tensor (t itself when contiguous): the
// gaps of a view compare too. The zero Tensor stays zero.
func backing(t tensor.Tensor) tensor.Tensor {
	if t.IsZero() {
		return t
	}
	n := len(t.Bits)
	if t.DType == tensor.F32 {
		n = len(t.F32)
	}
	return tensor.Tensor{DType: t.DType, Shape: []int{n}, F32: t.F32, Bits: t.Bits}
}

// widened is t (contiguous) as F32, exactly.
func widened(t tensor.Tensor) tensor.Tensor {
	out := tensor.Zeros(tensor.F32, t.Shape...)
	for i := range t.Len() {
		out.F32[i] = t.Float32At(i)
	}
	return out
}

// concat joins the elements of tensors of one dtype into one flat tensor, skipping zero ones.
func concat(ts ...tensor.Tensor) tensor.Tensor {
	n := 0
	for _, t := range ts {
		if !t.IsZero() {
			n += t.Len()
		}
	}
	out := tensor.Zeros(ts[0].DType, n)
	i := 0
	for _, t := range ts {
		if t.IsZero() {
			continue
		}
		for k := range t.Len() {
			if t.DType == tensor.F32 {
				out.F32[i] = t.F32[k]
			} else {
				out.Bits[i] = t.Bits[k]
			}
			i++
		}
	}
	return out
}

// TestApplyRotaryEmbBackwardNoRows: x with no rows (a zero batch or zero heads) that cos still
// has rows for: dcos and dsin are sums over no terms, +0 in every element, as native writes them
// (PyTorch's gradient of a broadcast input over an empty dimension is zeros too), whatever they
// held before the call.
func TestApplyRotaryEmbBackwardNoRows(t *testing.T) {
	defer cpu.SetImplementation(cpu.Implementations()[0])
	r := rand.New(rand.NewPCG(11, 12))
	for _, x := range [][]int{{0, 4, 2, 64}, {1, 4, 0, 64}} {
		cs := []int{1, 4, 1, 64}
		for _, d := range []tensor.DType{tensor.F32, tensor.BF16, tensor.F16} {
			for _, st := range []rotary.Style{rotary.NeoX, rotary.GPTJ} {
				cos, sin := randomTensor(r, d, normalValues, cs...), randomTensor(r, d, normalValues, cs...)
				held := randomTensor(r, d, normalValues, cs...)
				sameAsNative(t, fmt.Sprintf("x%v/%v/%v", x, d, st), func(disp *ops.Dispatcher) tensor.Tensor {
					dcos, dsin := held.Clone(), held.Clone()
					err := rotary.ApplyRotaryEmbBackward(disp, rotary.ApplyRotaryEmbBackwardParams{Layout: ops.BSND, DY: tensor.Zeros(d, x...), X: tensor.Zeros(d, x...), Cos: cos, Sin: sin, DX: tensor.Zeros(d, x...), DCos: dcos, DSin: dsin, Style: st})
					if err != nil {
						t.Fatal(err)
					}
					return concat(dcos, dsin)
				})
			}
		}
	}
}
