package native_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rotary-go/rotary/backend/native"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/tensor"
)

// The formulas these tests evaluate independently, in float64 with an integer floor, are Hugging
// Face transformers' (main, read at zucchini-nlp/transformers decba1d2):
//
//	src/transformers/models/llama4/modeling_llama4.py, Llama4TextAttention.forward:
//	    attn_scales = torch.log1p(torch.floor((positions.float() + 1.0) / self.floor_scale)) * self.attn_scale + 1.0
//	    query_states = (query_states * attn_scales).to(query_states.dtype)
//	src/transformers/models/ministral3/modeling_ministral3.py, get_llama_4_attn_scale (and
//	Ministral3Attention.forward; modeling_mistral4.py has the same function):
//	    scaling = 1 + beta * torch.log(1 + torch.floor(positions_ids / max_position_embeddings))
//	    query_states = query_states * get_llama_4_attn_scale(...).to(query_states.dtype)

// scale64 is the rule's scale at position p in exact arithmetic (float64 logarithm).
func scale64(r rope.QueryScaleRule, p int64) (s float64, k int64) {
	switch r.Kind {
	case rope.QueryScaleLlama4:
		k = int64(math.Floor(float64(p+1) / r.FloorScale))
		return math.Log(float64(k)+1)*r.AttnScale + 1, k
	case rope.QueryScaleBeta:
		k = p / int64(r.OriginalMax)
		return 1 + r.Beta*math.Log(float64(k)+1), k
	}
	return 1, 0
}

// scaleAtStep is the exact scale of step index k.
func scaleAtStep(r rope.QueryScaleRule, k float64) float64 {
	c := r.AttnScale
	if r.Kind == rope.QueryScaleBeta {
		c = r.Beta
	}
	return 1 + c*math.Log(k+1)
}

// scaleBound is how far the float32 pipeline may sit from the exact scale: float32(coefficient),
// the rounded logarithm and the rounded product each 2^-24 of c·L, the final sum 2^-24 of s.
func scaleBound(r rope.QueryScaleRule, s float64) float64 {
	return 0x1p-22 * (math.Abs(s-1) + math.Abs(s))
}

var scaleRules = []rope.QueryScaleRule{
	{Kind: rope.QueryScaleLlama4, FloorScale: 8192, AttnScale: 0.1}, // Llama4TextConfig's defaults
	{Kind: rope.QueryScaleLlama4, FloorScale: 1, AttnScale: 0.1},
	{Kind: rope.QueryScaleLlama4, FloorScale: 2, AttnScale: 0.1}, // a float floor_scale (2.0) in HF's tests
	{Kind: rope.QueryScaleLlama4, FloorScale: 3, AttnScale: 1.5},
	{Kind: rope.QueryScaleLlama4, FloorScale: 1000, AttnScale: -0.2},
	{Kind: rope.QueryScaleBeta, Beta: 0.1, OriginalMax: 16384}, // Ministral3Config's defaults
	{Kind: rope.QueryScaleBeta, Beta: 0.1, OriginalMax: 8192},  // Mistral4Config's
	{Kind: rope.QueryScaleBeta, Beta: 0.5, OriginalMax: 1},
	{Kind: rope.QueryScaleBeta, Beta: 3, OriginalMax: 7},
	{Kind: rope.QueryScaleBeta, Beta: 0, OriginalMax: 100},
}

// stepPositions are the positions on either side of the first steps, of steps up to 2^20 and of
// 2^20 itself, for step length L (Llama 4 steps at (p + 1) = j·L, Beta at p = j·L).
func stepPositions(r rope.QueryScaleRule) []int64 {
	L, shift := int64(r.OriginalMax), int64(0)
	if r.Kind == rope.QueryScaleLlama4 {
		L, shift = int64(r.FloorScale), 1
	}
	var ps []int64
	add := func(p int64) {
		if p >= 0 {
			ps = append(ps, p)
		}
	}
	for j := int64(0); j*L <= 1<<20+L; j = max(j+1, j*5/4) {
		for d := int64(-2); d <= 1; d++ {
			add(j*L - shift + d)
		}
	}
	for _, p := range []int64{1<<20 - 1, 1 << 20, 1<<20 + 1} {
		add(p)
	}
	return ps
}

// queryScaleOnce runs the reference on one query.
func queryScaleOnce(t *testing.T, r rope.QueryScaleRule, pos []int64, q tensor.Tensor) {
	t.Helper()
	a, err := ops.NewQueryScale(ops.QueryScaleParams{Positions: tensor.FromI64(pos, len(pos)), Query: q, Rule: r})
	if err != nil {
		t.Fatal(err)
	}
	native.QueryScale(&a)
}

// TestQueryScaleFormula: an F32 query of ones comes out as the float32 scale, which must be the
// exact scale to within the float32 pipeline's error, at its step index (not a neighbour's)
// across the steps' boundaries and up to 2^20, and exactly 1 before the first step.
func TestQueryScaleFormula(t *testing.T) {
	for _, r := range scaleRules {
		ps := stepPositions(r)
		ones := make([]float32, len(ps))
		for i := range ones {
			ones[i] = 1
		}
		q := tensor.FromF32(ones, len(ps), 1)
		queryScaleOnce(t, r, ps, q)
		for i, p := range ps {
			got := float64(q.F32[i])
			want, k := scale64(r, p)
			b := scaleBound(r, want)
			if k == 0 && got != 1 {
				t.Fatalf("%v: position %d (step 0): scale %v, want exactly 1", r, p, got)
			}
			if math.Abs(got-want) > b {
				t.Fatalf("%v: position %d (step %d): scale %v, want %v ± %.3g", r, p, k, got, want, b)
			}
			for _, nb := range []int64{k - 1, k + 1} {
				if nb < 0 {
					continue
				}
				other := scaleAtStep(r, float64(nb))
				if math.Abs(other-want) > 4*b && math.Abs(got-other) <= math.Abs(got-want) {
					t.Fatalf("%v: position %d: scale %v is step %d's (%v), want step %d's (%v)", r, p, got, nb, other, k, want)
				}
			}
		}
	}
}

// roundsTo reports whether every value within err of v rounds to the same value of dtype d, and
// returns it: then the op's result is fixed whatever its float32 errors.
func roundsTo(d tensor.DType, v, err float64) (float64, bool) {
	lo := tensor.ToFloat32(d, tensor.FromFloat32(d, float32(v-2*err)))
	hi := tensor.ToFloat32(d, tensor.FromFloat32(d, float32(v+2*err)))
	return float64(lo), lo == hi
}

// TestQueryScaleRounding: F16 and BF16 queries under both casts against the exact products.
// Where the rounding cannot depend on the float32 errors the result must be exactly
// upstream's: dtype(q·s) for the product cast, dtype(q·dtype(s)) for the scale cast (the product
// of two 16-bit floats is exact in float32, so it is rounded once); elsewhere within 1 ULP.
func TestQueryScaleRounding(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for _, base := range scaleRules {
		for _, cast := range []rope.QueryScaleCast{rope.QueryScaleCastProduct, rope.QueryScaleCastScale} {
			for _, d := range []tensor.DType{tensor.BF16, tensor.F16} {
				r := base
				r.Cast = cast
				ps := stepPositions(r)
				const H = 3
				q := tensor.Zeros(d, len(ps), H)
				for i := range q.Bits {
					q.Bits[i] = tensor.FromFloat32(d, float32((rng.Float64()*2-1)*8))
				}
				q0 := cloneT(q)
				queryScaleOnce(t, r, ps, q)
				exact, total := 0, 0
				for i, p := range ps {
					s, _ := scale64(r, p)
					sb := scaleBound(r, s)
					for h := range H {
						x := q0.Float64At(i*H + h)
						got := q.Float64At(i*H + h)
						want, err := x*s, math.Abs(x)*sb
						if cast == rope.QueryScaleCastScale {
							sd, ok := roundsTo(d, s, sb)
							if !ok {
								continue // the scale sits on a rounding boundary of d
							}
							want, err = x*sd, 0
						}
						total++
						if w, ok := roundsTo(d, want, err); ok {
							exact++
							if got != w {
								t.Fatalf("%v %v cast %v: position %d: %v · scale = %v, want %v", r, d, cast, p, x, got, w)
							}
						} else if u := tensor.ULPDiff(d, got, want); u > 1 {
							t.Fatalf("%v %v cast %v: position %d: %v · scale = %v, %d ULP from %v", r, d, cast, p, x, got, u, want)
						}
					}
				}
				if exact < total*9/10 {
					t.Fatalf("%v %v cast %v: only %d of %d elements checked exactly", r, d, cast, exact, total)
				}
			}
		}
	}
}

// TestQueryScaleCastOrder: the two casts of one BF16 element, worked by hand. β 0.1 over 16384
// at position 16384: s = 1 + 0.1·ln 2 = 1.0693147…, which BF16 (steps of 2^-7 in [1, 2)) rounds
// to 1.0703125. Hugging Face's Ministral 3 multiplies 3 by that: 3.2109375, halfway between the
// BF16 neighbours 3.203125 and 3.21875 (steps of 2^-6), so it rounds to even, 3.21875. Llama 4's
// order rounds 3·1.0693147… = 3.2079… once, to 3.203125.
func TestQueryScaleCastOrder(t *testing.T) {
	for _, c := range []struct {
		cast rope.QueryScaleCast
		want float32
	}{
		{rope.QueryScaleCastDefault, 3.21875},
		{rope.QueryScaleCastScale, 3.21875},
		{rope.QueryScaleCastProduct, 3.203125},
	} {
		r := rope.QueryScaleRule{Kind: rope.QueryScaleBeta, Beta: 0.1, OriginalMax: 16384, Cast: c.cast}
		q := tensor.FromBits(tensor.BF16, []uint16{tensor.FromFloat32(tensor.BF16, 3)}, 1, 1)
		queryScaleOnce(t, r, []int64{16384}, q)
		if got := tensor.ToFloat32(tensor.BF16, q.Bits[0]); got != c.want {
			t.Errorf("cast %v: 3 · scale = %v, want %v", c.cast, got, c.want)
		}
	}
	// Llama 4 defaults to the product: at position 8191, (8191 + 1)/8192 is step 1.
	r := rope.QueryScaleRule{Kind: rope.QueryScaleLlama4, FloorScale: 8192, AttnScale: 0.1}
	q := tensor.FromBits(tensor.BF16, []uint16{tensor.FromFloat32(tensor.BF16, 3), tensor.FromFloat32(tensor.BF16, 3)}, 2, 1)
	queryScaleOnce(t, r, []int64{8190, 8191}, q)
	if a, b := tensor.ToFloat32(tensor.BF16, q.Bits[0]), tensor.ToFloat32(tensor.BF16, q.Bits[1]); a != 3 || b != 3.203125 {
		t.Errorf("llama4 at 8190, 8191: %v, %v; want 3, 3.203125", a, b)
	}
}

// TestQueryScaleLogRounding: the float64 logarithm rounded to float32 is the correctly rounded
// float32 logarithm of every step index up to 2^22 (past any step reached from a position up to
// 2^20 with floor_scale ≥ 1): its float64 value is never within a float64 ULP or two of a
// midpoint between float32 neighbours, where rounding a slightly wrong value could go the other
// way. So the reference's scale is the float32 expression with a correctly rounded log1p / log.
func TestQueryScaleLogRounding(t *testing.T) {
	near := 0
	for k := range 1 << 22 {
		for _, v := range []float64{math.Log1p(float64(k)), math.Log(float64(float32(1 + float64(k))))} {
			f := float32(v)
			if float64(f) == v {
				continue // ln 1 = 0
			}
			dir := float32(math.Inf(1))
			if v < float64(f) {
				dir = float32(math.Inf(-1))
			}
			mid := (float64(f) + float64(math.Nextafter32(f, dir))) / 2
			if math.Abs(v-mid) <= 4*math.Abs(v)*0x1p-53 {
				near++
				t.Errorf("step %d: log %v is within 2 ULP of the float32 midpoint %v", k, v, mid)
			}
		}
	}
	if near > 0 {
		t.Fatalf("%d logarithms are ambiguous in float32", near)
	}
}

// TestQueryScaleLargePositions: positions past 2^24 are rounded to float32 first, as
// positions.float() and the int64 ÷ int promotion do, and the scale stays finite up to the
// largest int64.
func TestQueryScaleLargePositions(t *testing.T) {
	for _, r := range scaleRules {
		for _, p := range []int64{1<<24 - 1, 1 << 24, 1<<24 + 1, 1<<31 - 1, 1<<53 + 1, math.MaxInt64} {
			got := native.QueryScaleFactor(&r, tensor.F32, p)
			// The step of the float32 position (9223372036854775807 rounds to 2^63).
			pf := float64(float32(p))
			var s float64
			if r.Kind == rope.QueryScaleLlama4 {
				s = scaleAtStep(r, math.Floor(float64(float32(pf+1))/r.FloorScale))
			} else {
				s = scaleAtStep(r, math.Floor(pf/float64(r.OriginalMax)))
			}
			if math.IsInf(float64(got), 0) || math.IsNaN(float64(got)) || math.Abs(float64(got)-s) > 2*scaleBound(r, s) {
				t.Fatalf("%v: position %d: scale %v, want %v", r, p, got, s)
			}
		}
	}
}

// TestQueryScaleNone: a rule of kind none leaves every bit alone (NaN payloads included), as
// the upstream layers without the scale do not multiply at all.
func TestQueryScaleNone(t *testing.T) {
	for _, d := range []tensor.DType{tensor.F32, tensor.BF16, tensor.F16} {
		q := tensor.Zeros(d, 4, 2, 3)
		for i := range q.Len() {
			if d == tensor.F32 {
				q.F32[i] = math.Float32frombits(0x7f800001 + uint32(i))
			} else {
				q.Bits[i] = 0x7c01 + uint16(i)
			}
		}
		q0 := cloneT(q)
		queryScaleOnce(t, rope.QueryScaleRule{}, []int64{0, 1 << 20, 5, 1 << 40}, q)
		for i := range q.Len() {
			if rawAt(q, i) != rawAt(q0, i) {
				t.Fatalf("%v element %d: bits %#x, want %#x", d, i, rawAt(q, i), rawAt(q0, i))
			}
		}
	}
}

// TestQueryScaleViews: a strided [T, H, D] view and a [T, H·D] query get the same per-token
// scale, and nothing outside the view changes.
func TestQueryScaleViews(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	r := rope.QueryScaleRule{Kind: rope.QueryScaleBeta, Beta: 0.1, OriginalMax: 4}
	const T, H, D, pad = 5, 3, 4, 2
	pos := []int64{0, 4, 9, 100, 7}
	for _, d := range []tensor.DType{tensor.F32, tensor.BF16, tensor.F16} {
		t.Run(fmt.Sprint(d), func(t *testing.T) {
			mem := tensor.Zeros(d, T*(H*D+pad)+pad)
			for i := range mem.Len() {
				mem.SetFloat32(i, float32(rng.Float64()*4-2))
			}
			view := mem
			view.Shape, view.Strides, view.Offset = []int{T, H, D}, []int{H*D + pad, D, 1}, 1
			flat := tensor.Zeros(d, T, H*D)
			for tok := range T {
				for j := range H * D {
					flat.SetFloat32(tok*H*D+j, mem.Float32At(view.Index(tok, j/D, j%D)))
				}
			}
			before := cloneT(mem)
			queryScaleOnce(t, r, pos, view)
			queryScaleOnce(t, r, pos, flat)
			inView := map[int]bool{}
			for tok := range T {
				for j := range H * D {
					i := view.Index(tok, j/D, j%D)
					inView[i] = true
					if rawAt(mem, i) != rawAt(flat, tok*H*D+j) {
						t.Fatalf("token %d element %d: strided %#x, flat %#x", tok, j, rawAt(mem, i), rawAt(flat, tok*H*D+j))
					}
				}
			}
			for i := range mem.Len() {
				if !inView[i] && rawAt(mem, i) != rawAt(before, i) {
					t.Fatalf("backing element %d outside the view changed", i)
				}
			}
		})
	}
}
