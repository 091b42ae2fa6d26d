package rotarytest

import (
	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/tensor"
)

// xorshift generator: deterministic inputs without math/rand's global state.
type rng uint64

func (r *rng) next() uint64 {
	x := uint64(*r)*0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019
	x ^= x >> 29
	x *= 0xBF58476D1CE4E5B9
	x ^= x >> 32
	*r = rng(x)
	return x
}

// value is uniform in (-4, 4) with some exact zeros and wide-magnitude values mixed in.
func (r *rng) value() float32 {
	x := r.next()
	switch x % 61 {
	case 0:
		return 0
	case 1:
		return float32(int64(x>>11)-(1<<52)) / (1 << 30) // large
	}
	return float32(int64(x>>40)-(1<<23)) / (1 << 21)
}

func spec(hd, rd int, style rotary.Style) rotary.Spec {
	return rotary.Spec{HeadSize: hd, RotaryDim: rd, Base: 10000, Style: style, MaxPositions: 4096}
}

var (
	dtypes  = []tensor.DType{tensor.F32, tensor.BF16, tensor.F16}
	styles  = []rotary.Style{rotary.NeoX, rotary.GPTJ}
	headDim = []int{64, 80, 96, 112, 128, 192, 256}
)

// tokenCounts covers 1 token (decode), every count up to past twice a 512-bit vector of f32,
// and a large batch.
func (s *sweep) tokenCounts() []int {
	if s.opts.Short {
		return []int{1, 3, 17, 33}
	}
	return []int{1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 257}
}

func randomTensor(d tensor.DType, shape []int, r *rng) tensor.Tensor {
	t := tensor.Zeros(d, shape...)
	for i := range t.Len() {
		if d == tensor.F32 {
			t.F32[i] = r.value()
		} else {
			t.Bits[i] = tensor.FromFloat32(d, r.value())
		}
	}
	return t
}

// positions1D draws T positions below limit; the last one is limit−1, so a backend that misreads
// the far end of a table is caught.
func positions1D(limit int64) func(r *rng, T int) tensor.Tensor {
	return func(r *rng, T int) tensor.Tensor {
		p := make([]int64, T)
		for i := range p {
			p[i] = int64(r.next() % uint64(limit))
		}
		if T > 1 {
			p[T-1] = limit - 1 // the last row of the range
		}
		return tensor.FromI64(p, T)
	}
}
