package rotary_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// fillFW makes a tensor of dtype d with pseudo-random values in (-2, 2).
func fillFW(d tensor.DType, seed uint64, shape ...int) tensor.Tensor {
	t := tensor.Zeros(d, shape...)
	x := seed*0x9E3779B97F4A7C15 + 1
	for i := range t.Len() {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		t.SetFloat32(i, float32(int64(x>>40)-(1<<23))/(1<<22))
	}
	return t
}

// TestFullWidthEqualsApply: ApplyRotaryEmb with the F32 rows FullWidth writes rotates every
// head of q exactly as CosSin.Apply does (bit for bit), for NeoX and GPT-J, partial rotary dims
// and each dtype of q; the rows hold each pair's gathered value at both of its elements, and
// 16-bit rows are the gathered values rounded once.
func TestFullWidthEqualsApply(t *testing.T) {
	const T, H = 5, 3
	for _, spec := range []rotary.Spec{
		{HeadSize: 64, RotaryDim: 64, Base: 10000, Style: rotary.NeoX, MaxPositions: 4096},
		{HeadSize: 64, RotaryDim: 64, Base: 10000, Style: rotary.GPTJ, MaxPositions: 4096},
		{HeadSize: 80, RotaryDim: 32, Base: 10000, Style: rotary.NeoX, MaxPositions: 2048, Scaling: rotary.Scaling{Type: rotary.ScalingYaRN, Factor: 4, OriginalMaxPositions: 512}},
		{HeadSize: 96, RotaryDim: 48, Base: 500000, Style: rotary.GPTJ, MaxPositions: 2048},
	} {
		emb, err := rotary.New(spec)
		if err != nil {
			t.Fatal(err)
		}
		positions := tensor.FromI64([]int64{0, 1, 7, 2047, 100000}, T)
		var cs rotary.CosSin
		if err := emb.Gather(positions, &cs); err != nil {
			t.Fatal(err)
		}
		d, h := spec.RotaryDim, spec.RotaryDim/2
		cos, sin := tensor.Zeros(tensor.F32, 1, T, 1, d), tensor.Zeros(tensor.F32, 1, T, 1, d)
		if err := cs.FullWidth(spec.Style, cos, sin); err != nil {
			t.Fatal(err)
		}
		for tok := range T {
			for i := range h {
				j, k := i, i+h
				if spec.Style == rotary.GPTJ {
					j, k = 2*i, 2*i+1
				}
				for _, idx := range []int{j, k} {
					if cos.F32[tok*d+idx] != cs.Cos()[tok*h+i] || sin.F32[tok*d+idx] != cs.Sin()[tok*h+i] {
						t.Fatalf("%v token %d element %d: (%v, %v), want pair %d's (%v, %v)", spec.Style, tok, idx, cos.F32[tok*d+idx], sin.F32[tok*d+idx], i, cs.Cos()[tok*h+i], cs.Sin()[tok*h+i])
					}
				}
			}
		}
		for _, dt := range []tensor.DType{tensor.F32, tensor.BF16, tensor.F16} {
			q := fillFW(dt, 3, T, H, spec.HeadSize)
			want := q.Clone()
			if err := cs.Apply(want, tensor.Tensor{}); err != nil {
				t.Fatal(err)
			}
			x, err := q.Reshape(1, T, H, spec.HeadSize)
			if err != nil {
				t.Fatal(err)
			}
			out := tensor.Zeros(dt, 1, T, H, spec.HeadSize)
			if err := rotary.ApplyRotaryEmb(ops.Default, rotary.ApplyRotaryEmbParams{Layout: ops.BSND, X: x, Cos: cos, Sin: sin, Out: out, Style: spec.Style}); err != nil {
				t.Fatal(err)
			}
			for i := range out.Len() {
				if math.Float32bits(out.Float32At(i)) != math.Float32bits(want.Float32At(i)) {
					t.Fatalf("%v rd %d %v: element %d: apply_rotary_emb %v, CosSin.Apply %v", spec.Style, d, dt, i, out.Float32At(i), want.Float32At(i))
				}
			}
		}
		for _, dt := range []tensor.DType{tensor.BF16, tensor.F16} {
			c16, s16 := tensor.Zeros(dt, T, 1, d), tensor.Zeros(dt, T, 1, d) // TND
			if err := cs.FullWidth(spec.Style, c16, s16); err != nil {
				t.Fatal(err)
			}
			for i := range c16.Len() {
				if c16.Bits[i] != tensor.FromFloat32(dt, cos.F32[i]) || s16.Bits[i] != tensor.FromFloat32(dt, sin.F32[i]) {
					t.Fatalf("%v %v element %d: not the F32 row rounded once", spec.Style, dt, i)
				}
			}
		}
	}
}

// TestFullWidthRefuses: every bad argument is an error naming it, and nothing is written.
func TestFullWidthRefuses(t *testing.T) {
	spec := rotary.Spec{HeadSize: 8, RotaryDim: 8, Base: 10000, MaxPositions: 64}
	emb, err := rotary.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	var cs rotary.CosSin
	if err := emb.Gather(tensor.FromI64([]int64{1, 2}, 2), &cs); err != nil {
		t.Fatal(err)
	}
	sentinel := func(d tensor.DType, shape ...int) tensor.Tensor {
		x := tensor.Zeros(d, shape...)
		for i := range x.Len() {
			x.SetFloat32(i, 42)
		}
		return x
	}
	strided := sentinel(tensor.F32, 2, 16)
	strided.Shape, strided.Strides = []int{2, 8}, []int{16, 1}
	nope, err := rotary.New(rotary.Spec{HeadSize: 8, MaxPositions: 64, NoRoPE: true})
	if err != nil {
		t.Fatal(err)
	}
	var csNope rotary.CosSin
	if err := nope.Gather(tensor.FromI64([]int64{1, 2}, 2), &csNope); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		cs       *rotary.CosSin
		style    rotary.Style
		cos, sin tensor.Tensor
		want     string
	}{
		{"nil", nil, rotary.NeoX, sentinel(tensor.F32, 2, 8), sentinel(tensor.F32, 2, 8), "Gather"},
		{"not gathered", &rotary.CosSin{}, rotary.NeoX, sentinel(tensor.F32, 2, 8), sentinel(tensor.F32, 2, 8), "Gather"},
		{"no rope", &csNope, rotary.NeoX, sentinel(tensor.F32, 2, 8), sentinel(tensor.F32, 2, 8), "NoRoPE"},
		{"style", &cs, rotary.Style(7), sentinel(tensor.F32, 2, 8), sentinel(tensor.F32, 2, 8), "style"},
		{"cos missing", &cs, rotary.NeoX, tensor.Tensor{}, sentinel(tensor.F32, 2, 8), "cos"},
		{"sin tokens", &cs, rotary.NeoX, sentinel(tensor.F32, 2, 8), sentinel(tensor.F32, 3, 8), "sin"},
		{"cos width", &cs, rotary.NeoX, sentinel(tensor.F32, 4, 4), sentinel(tensor.F32, 4, 4), "cos"},
		{"cos int", &cs, rotary.NeoX, tensor.FromI32(make([]int32, 16), 2, 8), sentinel(tensor.F32, 2, 8), "cos"},
		{"dtypes differ", &cs, rotary.NeoX, sentinel(tensor.F32, 2, 8), sentinel(tensor.BF16, 2, 8), "sin"},
		{"strided", &cs, rotary.NeoX, strided, sentinel(tensor.F32, 2, 8), "cos"},
		{"short buffer", &cs, rotary.NeoX, tensor.FromF32(make([]float32, 3), 2, 8), sentinel(tensor.F32, 2, 8), "cos"},
	} {
		cosBefore, sinBefore := slices.Clone(c.cos.F32), slices.Clone(c.sin.F32)
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("%s: panic %v", c.name, r)
				}
			}()
			err = c.cs.FullWidth(c.style, c.cos, c.sin)
		}()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %s", c.name, err, c.want)
		}
		if !slices.Equal(c.cos.F32, cosBefore) || !slices.Equal(c.sin.F32, sinBefore) {
			t.Errorf("%s: cos or sin written on error", c.name)
		}
	}
}

// TestFullWidthNoAlloc: expanding allocates nothing.
func TestFullWidthNoAlloc(t *testing.T) {
	emb, err := rotary.New(rotary.Spec{HeadSize: 128, RotaryDim: 128, Base: 10000, MaxPositions: 4096})
	if err != nil {
		t.Fatal(err)
	}
	var cs rotary.CosSin
	if err := emb.Gather(tensor.FromI64([]int64{1, 2, 3, 4}, 4), &cs); err != nil {
		t.Fatal(err)
	}
	cos, sin := tensor.Zeros(tensor.BF16, 1, 4, 1, 128), tensor.Zeros(tensor.BF16, 1, 4, 1, 128)
	if n := testing.AllocsPerRun(20, func() { _ = cs.FullWidth(rotary.GPTJ, cos, sin) }); n != 0 {
		t.Errorf("%v allocations per call, want 0", n)
	}
}
