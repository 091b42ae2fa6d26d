package cpu_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/backend/cpu"
	"github.com/rotary-go/rotary/bench"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// mropeSpecs are the MRoPE layouts the cpu backend serves: chunked (Qwen2-VL), interleaved
// (Qwen3-VL) and ERNIE-4.5-VL's alternating h/w, with sections that leave the Go tail some pairs,
// and heads wider than any model's.
var mropeSpecs = []struct {
	name string
	spec rotary.Spec
}{
	{"qwen2-vl", rotary.Spec{HeadSize: 128, RotaryDim: 128, Base: 1e6, MaxPositions: 512, MRoPE: &rotary.MRoPE{Sections: []int{16, 24, 24}}}},
	{"qwen3-vl", rotary.Spec{HeadSize: 128, RotaryDim: 128, Base: 5e6, MaxPositions: 512, MRoPE: &rotary.MRoPE{Sections: []int{24, 20, 20}, Interleaved: true}}},
	{"ernie-4.5-vl", rotary.Spec{HeadSize: 128, RotaryDim: 128, Base: 5e5, MaxPositions: 512, MRoPE: &rotary.MRoPE{Sections: []int{22, 22, 20}, AlternateHW: true}}},
	{"odd", rotary.Spec{HeadSize: 80, RotaryDim: 76, Base: 1e4, MaxPositions: 512, MRoPE: &rotary.MRoPE{Sections: []int{10, 14, 14}, Interleaved: true}}},
	{"gptj", rotary.Spec{HeadSize: 64, RotaryDim: 64, Base: 1e4, Style: rotary.GPTJ, MaxPositions: 512, MRoPE: &rotary.MRoPE{Sections: []int{8, 12, 12}}}},
	// Rows longer than a block's share of the gathered rows (128 pairs), and longer than the
	// kept layout (256 pairs).
	{"wide", rotary.Spec{HeadSize: 320, RotaryDim: 320, Base: 1e4, MaxPositions: 512, MRoPE: &rotary.MRoPE{Sections: []int{48, 56, 56}}}},
	{"wider", rotary.Spec{HeadSize: 576, RotaryDim: 576, Base: 1e4, MaxPositions: 512, MRoPE: &rotary.MRoPE{Sections: []int{96, 96, 96}, Interleaved: true}}},
	// llama.cpp's Qwen3-VL: a fourth position row.
	{"qwen3-vl-gguf", rotary.Spec{HeadSize: 128, RotaryDim: 128, Base: 5e6, MaxPositions: 512, MRoPE: &rotary.MRoPE{Sections: []int{24, 20, 20, 0}, Interleaved: true, GGMLFourth: true}}},
}

// mropeRows is how many position rows spec's MRoPE reads.
func mropeRows(spec rotary.Spec) int {
	if spec.MRoPE.GGMLFourth {
		return 4
	}
	return 3
}

// TestMRoPEAxes: tokens whose axes share one position (text tokens) and tokens whose axes
// differ (image tokens), mixed in one call, decoded alone and in a threaded prefill, on every
// implementation, bit for bit as native; and with subnormal, NaN and infinite elements at
// positions 0 to 2 (position 0 passes a subnormal through: the 16-bit roundings' slow paths).
func TestMRoPEAxes(t *testing.T) {
	defer cpu.SetImplementation(cpu.Implementations()[0])
	r := rand.New(rand.NewPCG(7, 8))
	for _, s := range mropeSpecs {
		ref, err := rotary.New(s.spec, rotary.WithDispatcher(mustDispatcher(t, "none", ops.Auto)))
		if err != nil {
			t.Fatal(err)
		}
		rows := mropeRows(s.spec)
		for _, c := range []struct {
			mix    valueMix
			maxPos int64
			Ts     []int
		}{{normalValues, 500, []int{1, 2, 37, 300}}, {tinyValues, 3, []int{1, 37}}, {specialValues, 3, []int{1, 37}}} {
			for _, T := range c.Ts {
				testMRoPEAxes(t, r, ref, s.name, s.spec, rows, T, c.mix, c.maxPos)
			}
		}
	}
}

// testMRoPEAxes is TestMRoPEAxes for T tokens of one spec, elements of mix, positions below
// maxPos.
func testMRoPEAxes(t *testing.T, r *rand.Rand, ref *rotary.Embedding, name string, spec rotary.Spec, rows, T int, mix valueMix, maxPos int64) {
	t.Helper()
	p := make([]int64, rows*T)
	for i := range T {
		p[i] = r.Int64N(maxPos)
		for a := 1; a < rows; a++ {
			p[a*T+i] = p[i] // text: one position on every axis
			if i%3 != 0 {
				p[a*T+i] = r.Int64N(maxPos) // image: its own
			}
		}
	}
	pos := tensor.FromI64(p, rows, T)
	for _, d := range []tensor.DType{tensor.F32, tensor.BF16, tensor.F16} {
		q := randomTensor(r, d, mix, T, 4, spec.HeadSize)
		k := randomTensor(r, d, mix, T, 2, spec.HeadSize)
		wq, wk := q.Clone(), k.Clone()
		if err := ref.Forward(pos, wq, wk); err != nil {
			t.Fatal(err)
		}
		for _, impl := range cpu.Implementations() {
			if err := cpu.SetImplementation(impl); err != nil {
				t.Fatal(err)
			}
			emb, err := rotary.New(spec, rotary.WithDispatcher(mustDispatcher(t, "all", cpu.Name)))
			if err != nil {
				t.Fatal(err)
			}
			gq, gk := q.Clone(), k.Clone()
			if err := emb.Forward(pos, gq, gk); err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				name      string
				got, want tensor.Tensor
			}{{"query", gq, wq}, {"key", gk, wk}} {
				if i := firstDiff(c.got, c.want); i >= 0 {
					t.Errorf("%s %v T=%d %v %s: %s element %d = %v, native %v", name, mix, T, d, impl, c.name, i, c.got.Float64At(i), c.want.Float64At(i))
				}
			}
		}
	}
}

// firstDiff is the first element where a and b (same dtype and length) differ in their bits,
// NaN payloads aside, or -1.
func firstDiff(a, b tensor.Tensor) int {
	for i := range a.Len() {
		if x, y := a.Float64At(i), b.Float64At(i); x != x && y != y {
			continue
		}
		if a.DType == tensor.F32 {
			if math.Float32bits(a.F32[i]) != math.Float32bits(b.F32[i]) {
				return i
			}
		} else if a.Bits[i] != b.Bits[i] {
			return i
		}
	}
	return -1
}

// BenchmarkMRoPE times Embedding.Forward on Qwen3-VL's q/k (32 and 8 heads of 128) at image
// positions (every axis its own) and text positions (one for all axes).
func BenchmarkMRoPE(b *testing.B) {
	spec := rotary.Spec{HeadSize: 128, RotaryDim: 128, Base: 5e6, MaxPositions: 16384, MRoPE: &rotary.MRoPE{Sections: []int{24, 20, 20}, Interleaved: true}}
	emb, err := rotary.New(spec, rotary.WithDispatcher(func() *ops.Dispatcher { d, _ := ops.NewDispatcher("all", cpu.Name); return d }()))
	if err != nil {
		b.Fatal(err)
	}
	for _, kind := range []string{"image", "text"} {
		for _, d := range []tensor.DType{tensor.F32, tensor.BF16} {
			for _, T := range []int{1, 16} {
				b.Run(fmt.Sprintf("%s/%v/T=%d", kind, d, T), func(b *testing.B) {
					q, k := bench.Filled(d, T, 32, 128), bench.Filled(d, T, 8, 128)
					p := make([]int64, 3*T)
					for i := range p {
						p[i] = int64(i % T)
						if kind == "image" {
							p[i] = int64(i)
						}
					}
					pos := tensor.FromI64(p, 3, T)
					b.SetBytes(int64(2 * (q.Len() + k.Len()) * d.Size()))
					for b.Loop() {
						if err := emb.Forward(pos, q, k); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

// TestMRoPELayoutAcrossCalls: a layout's pair-to-axis map outlives the call, for the next
// layer's; calls in turn with each layout (and back), decoded alone and in a threaded prefill,
// must each rotate bit for bit as native on every implementation.
func TestMRoPELayoutAcrossCalls(t *testing.T) {
	defer cpu.SetImplementation(cpu.Implementations()[0])
	r := rand.New(rand.NewPCG(17, 18))
	gguf := mropeSpecs[len(mropeSpecs)-1]
	specs := append(mropeSpecs[:len(mropeSpecs):len(mropeSpecs)], mropeSpecs[0], mropeSpecs[1], gguf, mropeSpecs[1])
	for _, impl := range cpu.Implementations() {
		if err := cpu.SetImplementation(impl); err != nil {
			t.Fatal(err)
		}
		for _, T := range []int{1, 300} {
			for i, s := range specs {
				rows := mropeRows(s.spec)
				p := make([]int64, rows*T)
				for j := range p {
					p[j] = r.Int64N(500) // every axis its own position: image tokens
				}
				pos := tensor.FromI64(p, rows, T)
				q := randomTensor(r, tensor.F32, normalValues, T, 4, s.spec.HeadSize)
				want, got := q.Clone(), q.Clone()
				ref, err := rotary.New(s.spec, rotary.WithDispatcher(mustDispatcher(t, "none", ops.Auto)))
				if err != nil {
					t.Fatal(err)
				}
				emb, err := rotary.New(s.spec, rotary.WithDispatcher(mustDispatcher(t, "all", cpu.Name)))
				if err != nil {
					t.Fatal(err)
				}
				if err := ref.Forward(pos, want, tensor.Tensor{}); err != nil {
					t.Fatal(err)
				}
				if err := emb.Forward(pos, got, tensor.Tensor{}); err != nil {
					t.Fatal(err)
				}
				if j := firstDiff(got, want); j >= 0 {
					t.Errorf("%s T=%d call %d (%s): element %d = %v, native %v", impl, T, i, s.name, j, got.Float64At(j), want.Float64At(j))
				}
			}
		}
	}
}
