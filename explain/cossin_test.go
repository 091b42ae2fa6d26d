package explain

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/compare"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/tensor"
)

// TestExplainCosSinNamesTheMistake: apply_rotary_emb candidates written naively (float64 per
// element, or torch's BF16 arithmetic), each with one mistake, are named first.
func TestExplainCosSinNamesTheMistake(t *testing.T) {
	const B, S, N, D, rd = 2, 5, 3, 16, 12 // a partial rotary width: the last 4 dims pass through
	rng := rand.New(rand.NewPCG(5, 6))
	x := tensor.Zeros(tensor.BF16, B, S, N, D)
	for i := range x.Len() {
		x.SetFloat32(i, float32(rng.NormFloat64()))
	}
	cos, sin := neoxTables(7, S, rd, 1, S, 1, rd)
	want := tensor.Zeros(tensor.BF16, B, S, N, D)
	if err := rotary.ApplyRotaryEmb(nil, ops.ApplyRotaryEmbParams{Layout: ops.BSND, X: x, Out: want, Cos: cos, Sin: sin}); err != nil {
		t.Fatal(err)
	}
	// naive rotates x in float64 with the given pairing, cos, sin; torch rounds as torch's BF16.
	naive := func(style rope.Style, cos, sin tensor.Tensor, torch bool) tensor.Tensor {
		out := x.Clone()
		r := func(v float32) float32 { return tensor.Float32FromBF16(tensor.BF16FromFloat32(v)) }
		for row := 0; row < x.Len(); row += D {
			s := row / (N * D) % S
			for j := range rd {
				p, sign := (j+rd/2)%rd, -1.0
				if j >= rd/2 {
					sign = 1
				}
				if style == rope.GPTJ {
					p, sign = j^1, float64(2*(j%2)-1)
				}
				c, sn := float64(cos.Float32At(s*rd+j)), float64(sin.Float32At(s*rd+j))
				v, w := float64(x.Float32At(row+j)), sign*float64(x.Float32At(row+p))
				if torch {
					out.SetFloat32(row+j, r(r(float32(v*c))+r(float32(w*sn))))
					continue
				}
				out.SetFloat32(row+j, float32(v*c+w*sn))
			}
		}
		return out
	}
	neg := negated(sin)
	transposedOut := transposed(map[string]tensor.Tensor{"o": naive(rope.NeoX, cos, sin, false)}, [4]int{B, S, N, D})["o"]
	for _, c := range []struct {
		want string
		got  tensor.Tensor
	}{
		{"pairing", naive(rope.GPTJ, cos, sin, false)},
		{"pairing_and_cos_sin_layout", naive(rope.GPTJ, interleavedTable(cos, rd), interleavedTable(sin, rd), false)},
		{"rotation_reversed", naive(rope.NeoX, cos, neg, false)},
		{"cos_sin_swapped", naive(rope.NeoX, sin, cos, false)},
		{"x_not_rotated", x},
		{"output_transposed", transposedOut},
		{"output_order", eachDims(map[string]tensor.Tensor{"o": naive(rope.NeoX, cos, sin, false)}, D, interleaved(rd))["o"]},
		{"products_in_dtype", naive(rope.NeoX, cos, sin, true)},
	} {
		t.Run(c.want, func(t *testing.T) {
			rep, err := ExplainCosSin(CosSinCase{Layout: ops.BSND, X: x, Cos: cos, Sin: sin, Want: want, Got: c.got}, compare.Options{MaxULP: 1, ATol: -1})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range rep.Findings {
				t.Logf("%s: %d of %d, residual %d, precision %+v", f.Mistake, f.Explained, f.Failing, f.Residual, f.Precision)
			}
			if rep.Failing == 0 || len(rep.Findings) == 0 || rep.Findings[0].Mistake != c.want || !rep.Findings[0].Reproduces() {
				t.Errorf("%+v, want %s first", rep, c.want)
			}
		})
	}
	if _, err := ExplainCosSin(CosSinCase{}, compare.Options{}); err == nil {
		t.Error("the zero CosSinCase: no error")
	}
	if _, err := ExplainCosSin(CosSinCase{Layout: ops.BSND, X: x, Cos: cos, Sin: tensor.Zeros(tensor.BF16, 1, S, 1, rd+2), Want: want, Got: want}, compare.Options{}); err == nil {
		t.Error("cos and sin of different widths: no error")
	}
}

// interleavedTable lays NeoX's cos/sin, cat(f, f), out as GPT-J's repeat_interleave(f, 2).
func interleavedTable(t tensor.Tensor, rd int) tensor.Tensor {
	out := t.Clone()
	for row := 0; row < t.Len(); row += rd {
		for j := range rd {
			out.SetFloat32(row+j, t.Float32At(row+j/2))
		}
	}
	return out
}

// TestExplainInterleaveRoPE: interleave_rope candidates that wrote each pair back where it was
// read, skipped the de-interleave, or turned the wrong way are named first.
func TestExplainInterleaveRoPE(t *testing.T) {
	const B, N, S, D = 1, 4, 5, 8
	rng := rand.New(rand.NewPCG(9, 10))
	x := tensor.Zeros(tensor.BF16, B, N, S, D)
	for i := range x.Len() {
		x.SetFloat32(i, float32(rng.NormFloat64()))
	}
	cos, sin := neoxTables(3, S, D, 1, 1, S, D)
	want := tensor.Zeros(tensor.BF16, B, N, S, D)
	if err := rotary.InterleaveRoPE(nil, ops.InterleaveRoPEParams{X: x, Out: want, Cos: cos, Sin: sin}); err != nil {
		t.Fatal(err)
	}
	// naive: pair (x[2i], x[2i+1]) rotated by cos[i], sin[i] in float64, written at (i, D/2+i)
	// or, inPlace, back at (2i, 2i+1); deinterleave false pairs (x[i], x[i+D/2]) instead.
	naive := func(inPlace, deinterleave bool, sign float64) tensor.Tensor {
		out := x.Clone()
		for row := 0; row < x.Len(); row += D {
			s := row / D % S
			for i := range D / 2 {
				a, b := float64(x.Float32At(row+2*i)), float64(x.Float32At(row+2*i+1))
				if !deinterleave {
					a, b = float64(x.Float32At(row+i)), float64(x.Float32At(row+D/2+i))
				}
				c1, s1 := float64(cos.Float32At(s*D+i)), sign*float64(sin.Float32At(s*D+i))
				c2, s2 := float64(cos.Float32At(s*D+D/2+i)), sign*float64(sin.Float32At(s*D+D/2+i))
				j, k := i, D/2+i
				if inPlace {
					j, k = 2*i, 2*i+1
				}
				out.SetFloat32(row+j, float32(a*c1-b*s1))
				out.SetFloat32(row+k, float32(b*c2+a*s2))
			}
		}
		return out
	}
	for _, c := range []struct {
		want string
		got  tensor.Tensor
	}{
		{"output_order", naive(true, true, 1)},
		{"not_deinterleaved", naive(false, false, 1)},
		{"rotation_reversed", naive(false, true, -1)},
	} {
		// Style is unused for interleave_rope: a GPT-J one changes nothing.
		for _, style := range []rope.Style{rope.NeoX, rope.GPTJ} {
			rep, err := ExplainCosSin(CosSinCase{Interleaved: true, Style: style, X: x, Cos: cos, Sin: sin, Want: want, Got: c.got}, compare.Options{MaxULP: 1, ATol: -1})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Failing == 0 || len(rep.Findings) == 0 || rep.Findings[0].Mistake != c.want || !rep.Findings[0].Reproduces() {
				t.Errorf("%s (Style %v): %+v", c.want, style, rep)
			}
		}
	}
}

// neoxTables are BF16 cos and sin of shape for positions from..from+S−1 at full width rd in
// NeoX's pairing, cat(freqs, freqs), base 10000.
func neoxTables(from, S, rd int, shape ...int) (cos, sin tensor.Tensor) {
	cos, sin = tensor.Zeros(tensor.BF16, shape...), tensor.Zeros(tensor.BF16, shape...)
	for s := range S {
		for j := range rd {
			a := float64(s+from) / math.Pow(10000, float64(2*(j%(rd/2)))/float64(rd))
			cos.SetFloat32(s*rd+j, float32(math.Cos(a)))
			sin.SetFloat32(s*rd+j, float32(math.Sin(a)))
		}
	}
	return cos, sin
}

// TestExplainBackward: apply_rotary_emb's backward pass written naively with the forward
// rotation, the other pairing or no rotation is named first.
func TestExplainBackward(t *testing.T) {
	const S, N, D = 6, 3, 16
	rng := rand.New(rand.NewPCG(13, 14))
	dy := tensor.Zeros(tensor.F32, 1, S, N, D)
	for i := range dy.Len() {
		dy.SetFloat32(i, float32(rng.NormFloat64()))
	}
	cos, sin := neoxTables(5, S, D, 1, S, 1, D)
	want := tensor.Zeros(tensor.F32, 1, S, N, D)
	if err := rotary.ApplyRotaryEmbBackward(nil, ops.ApplyRotaryEmbBackwardParams{Layout: ops.BSND, DY: dy, X: dy, DX: want, Cos: cos, Sin: sin}); err != nil {
		t.Fatal(err)
	}
	// naive: dx_i = dy_i·c_i + dy_p·s_p·sign with p the pair partner, in float64; transpose
	// false is the forward rotation.
	naive := func(style rope.Style, transpose bool) tensor.Tensor {
		out := dy.Clone()
		for row := 0; row < dy.Len(); row += D {
			s := row / (N * D)
			for j := range D {
				p, sign := (j+D/2)%D, 1.0 // rotateᵀ: the first of a pair takes +partner·sin
				if j >= D/2 {
					sign = -1
				}
				if style == rope.GPTJ {
					p, sign = j^1, float64(1-2*(j%2))
				}
				cj := float64(cos.Float32At(s*D + j))
				sp := float64(sin.Float32At(s*D + p))
				if !transpose {
					sign, sp = -sign, float64(sin.Float32At(s*D+j))
				}
				out.SetFloat32(row+j, float32(float64(dy.Float32At(row+j))*cj+sign*float64(dy.Float32At(row+p))*sp))
			}
		}
		return out
	}
	if rep, err := ExplainCosSin(CosSinCase{Backward: true, Layout: ops.BSND, X: dy, Cos: cos, Sin: sin, Want: want, Got: naive(rope.NeoX, true)}, compare.Options{MaxULP: 1, ATol: -1}); err != nil || rep.Failing != 0 {
		t.Fatalf("the naive backward pass itself: %+v %v", rep, err)
	}
	for _, c := range []struct {
		want string
		got  tensor.Tensor
	}{
		{"rotation_reversed", naive(rope.NeoX, false)},
		{"pairing", naive(rope.GPTJ, true)},
		{"x_not_rotated", dy},
	} {
		rep, err := ExplainCosSin(CosSinCase{Backward: true, Layout: ops.BSND, X: dy, Cos: cos, Sin: sin, Want: want, Got: c.got}, compare.Options{MaxULP: 1, ATol: -1})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Failing == 0 || len(rep.Findings) == 0 || rep.Findings[0].Mistake != c.want || !rep.Findings[0].Reproduces() {
			t.Errorf("%s: %+v", c.want, rep)
		}
	}
}
