package native_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rotary-go/rotary/backend/native"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// The reference is Hugging Face's Qwen3RMSNorm and RoPE written out in float64: per head,
// r = 1/√(mean(x²) + ε); h = x·r, cast to the activations' dtype; y = w·h, cast again; then
// pairs of y rotate by exact cos/sin of the position (as float32, the cache's precision). Only the
// casts HF makes are mirrored; everything else is float64.

// qknRound64 rounds v to dtype d (F32: no rounding, whose error the tolerance covers).
func qknRound64(d tensor.DType, v float64) float64 {
	if d == tensor.F32 {
		return v
	}
	return float64(tensor.ToFloat32(d, tensor.FromFloat32(d, float32(v))))
}

// qknPair is the index pair of rotation pair i in a head rotating rd elements.
func qknPair(i, rd int, gptj bool) (int, int) {
	if gptj {
		return 2 * i, 2*i + 1
	}
	return i, i + rd/2
}

// qknHead64 is the reference output of one head x with weight w at angles theta (rd/2 of them).
// It also returns y, the normalized head before the rotation.
func qknHead64(dt tensor.DType, x, w []float64, eps float64, rd int, gptj bool, cos, sin []float64) (out, y []float64) {
	n := len(x)
	ss := 0.0
	for _, v := range x {
		ss += v * v
	}
	r := 1 / math.Sqrt(ss/float64(n)+float64(float32(eps)))
	y = make([]float64, n)
	for j := range n {
		y[j] = qknRound64(dt, w[j]*qknRound64(dt, x[j]*r))
	}
	out = append([]float64(nil), y...)
	for i := range rd / 2 {
		a, b := qknPair(i, rd, gptj)
		out[a] = y[a]*cos[i] - y[b]*sin[i]
		out[b] = y[b]*cos[i] + y[a]*sin[i]
	}
	return out, y
}

type qknCase struct {
	headSize, rotaryDim int
	qHeads, kHeads      int
	dt, wdt             tensor.DType
	gptj                bool
	scale               float64 // input magnitude: small values make ε matter
	noKey               bool
}

func (c qknCase) String() string {
	return fmt.Sprintf("head%d rot%d q%d k%d %v w%v gptj=%v scale%g nokey=%v", c.headSize, c.rotaryDim, c.qHeads, c.kHeads, c.dt, c.wdt, c.gptj, c.scale, c.noKey)
}

func qknCases() []qknCase {
	var cs []qknCase
	for _, dt := range []tensor.DType{tensor.F32, tensor.BF16, tensor.F16} {
		for _, gptj := range []bool{false, true} {
			for _, hr := range [][2]int{{128, 128}, {64, 32}, {80, 80}} {
				cs = append(cs, qknCase{hr[0], hr[1], 4, 2, dt, dt, gptj, 1, false})
			}
		}
		cs = append(cs, qknCase{64, 64, 2, 1, dt, dt, false, 1e-3, false}) // var ≈ ε
		cs = append(cs, qknCase{64, 64, 3, 0, dt, dt, true, 1, true})
	}
	cs = append(cs, qknCase{128, 128, 4, 2, tensor.BF16, tensor.F32, false, 1, false})
	return cs
}

// TestQKRMSNormRoPE checks every element of query and key against the float64 reference.
func TestQKRMSNormRoPE(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	const T, P = 9, 40
	const eps = 1e-6
	for _, c := range qknCases() {
		name := c.String()
		half := c.rotaryDim / 2
		// The cache: float32 cos/sin of (p·10000^(−2i/rd)), as the library builds it.
		cache := ops.CosSinCache{Data: make([]float32, P*2*half), Rows: P, Half: half}
		for p := range P {
			for i := range half {
				th := float64(p) * math.Pow(10000, -2*float64(i)/float64(c.rotaryDim))
				cache.Data[p*2*half+i] = float32(math.Cos(th))
				cache.Data[p*2*half+half+i] = float32(math.Sin(th))
			}
		}
		pos := make([]int64, T)
		for i := range pos {
			pos[i] = int64(rng.IntN(P))
		}
		pos[0] = 0
		gen := func(int) float64 { return c.scale * (4*rng.Float64() - 2) }
		// q's tokens are strided (a padded row per token), k's heads are contiguous.
		qMem := newTensor(c.dt, []int{T, c.qHeads*c.headSize + 5}, 1, gen)
		qt := qMem
		qt.Shape, qt.Strides = []int{T, c.qHeads, c.headSize}, []int{c.qHeads*c.headSize + 5, c.headSize, 1}
		var kt tensor.Tensor
		if !c.noKey {
			kt = newTensor(c.dt, []int{T, c.kHeads * c.headSize}, 2, gen)
		}
		qw := newTensor(c.wdt, []int{c.headSize}, 0, func(int) float64 { return 2 * rng.Float64() })
		kw := newTensor(c.wdt, []int{c.headSize}, 0, func(int) float64 { return 2 * rng.Float64() })
		q0, k0 := cloneT(qt), cloneT(kt)

		q, k, err := ops.NewQueryKey(qt, kt, c.headSize)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		positions, err := ops.NewPositions(tensor.FromI64(pos, T), T, nil, P)
		if err != nil {
			t.Fatal(err)
		}
		a := ops.QKRMSNormRoPEArgs{RoPE: ops.RoPE{RotaryDim: c.rotaryDim, GPTJ: c.gptj, Query: q, Key: k}, Positions: positions, Cache: cache}
		if c.noKey {
			kw = tensor.Tensor{}
		}
		if err := ops.NewQKRMSNormWeights(&a, q, k, qw, kw, eps); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		native.QKRMSNormRoPE(&a)

		var st roundStats
		fails := 0
		check := func(what string, before ops.Heads, w tensor.Tensor, mem0, mem tensor.Tensor) {
			touched := map[int]bool{}
			wv := readRow(w, []int{0}, c.headSize)
			for tok := range T {
				cr, sr := cache.Row(pos[tok])
				cv, sv := make([]float64, half), make([]float64, half)
				for i := range half {
					cv[i], sv[i] = float64(cr[i]), float64(sr[i])
				}
				for h := range before.NumHeads {
					base := before.Off + tok*before.TokenStride + h*before.HeadStride
					x := make([]float64, c.headSize)
					for j := range x {
						x[j] = mem0.Float64At(base + j)
						touched[base+j] = true
					}
					want, y := qknHead64(c.dt, x, wv, eps, c.rotaryDim, c.gptj, cv, sv)
					for j := range c.headSize {
						got := mem.Float64At(base + j)
						// The bound on the float32 value before its last rounding: the
						// rotation's own rounding, plus (16-bit) a y one unit off in the rare
						// case x·r lands next to a rounding boundary.
						var ya, yb, cs float64
						if j < c.rotaryDim {
							i := j
							if c.gptj {
								i = j / 2
							} else if j >= half {
								i = j - half
							}
							pa, pb := qknPair(i, c.rotaryDim, c.gptj)
							ya, yb, cs = y[pa], y[pb], math.Abs(cv[i])+math.Abs(sv[i])
						} else {
							ya, yb, cs = y[j], 0, 1
						}
						m := max(math.Abs(ya), math.Abs(yb))
						B := 0x1p-20*(m+1e-30)*cs + 1e-38
						if c.dt != tensor.F32 {
							B = 0x1p-22*m*cs + 1e-38 // float32 rounding only: 1 ULP when y matches
						}
						if err := checkVal(c.dt, got, want[j], B, &st); err != nil {
							// Allow y off by one unit of the dtype, at most.
							if c.dt == tensor.F32 || math.Abs(got-want[j]) > B+(2*spacing(c.dt, m)+spacing(c.dt, want[j]))*cs {
								fails++
								t.Errorf("%s: %s token %d head %d element %d: %v (y %v %v)", name, what, tok, h, j, err, ya, yb)
								if fails > 10 {
									t.FailNow()
								}
							}
						}
					}
				}
			}
			for i := range backing(mem) {
				if !touched[i] && rawAt(mem, i) != rawAt(mem0, i) {
					t.Fatalf("%s: %s element %d outside the view changed", name, what, i)
				}
			}
		}
		check("query", q, qw, q0, qt)
		if !c.noKey {
			check("key", k, kw, k0, kt)
		}
		if c.dt != tensor.F32 && st.strict >= 64 && st.rounded*100 < st.strict*98 {
			t.Errorf("%s: only %d of %d outputs match the reference's rounding", name, st.rounded, st.strict)
		}
	}
}

// TestQKRMSNormRoPEPosition0IsNorm: at position 0 (cos 1, sin 0) the op is the norm alone: the
// heads come out with a root mean square of about |w| (here w = 1: about 1) and their direction
// unchanged.
func TestQKRMSNormRoPEPosition0IsNorm(t *testing.T) {
	const D = 64
	x := newTensor(tensor.F32, []int{1, 2 * D}, 0, func(i int) float64 { return float64(i%7) - 2.5 + float64(i)/100 })
	x0 := cloneT(x)
	ones := newTensor(tensor.F32, []int{D}, 0, func(int) float64 { return 1 })
	q, _, err := ops.NewQueryKey(x, tensor.Tensor{}, D)
	if err != nil {
		t.Fatal(err)
	}
	pos, _ := ops.NewPositions(tensor.FromI64([]int64{0}, 1), 1, nil, 1)
	cache := ops.CosSinCache{Data: make([]float32, D), Rows: 1, Half: D / 2}
	for i := range D / 2 {
		cache.Data[i] = 1
	}
	a := ops.QKRMSNormRoPEArgs{RoPE: ops.RoPE{RotaryDim: D, Query: q}, Positions: pos, Cache: cache}
	if err := ops.NewQKRMSNormWeights(&a, q, ops.Heads{}, ones, tensor.Tensor{}, 0); err != nil {
		t.Fatal(err)
	}
	native.QKRMSNormRoPE(&a)
	for h := range 2 {
		ss, dot, n0 := 0.0, 0.0, 0.0
		for j := range D {
			v, v0 := float64(x.F32[h*D+j]), float64(x0.F32[h*D+j])
			ss += v * v
			dot += v * v0
			n0 += v0 * v0
		}
		if rms := math.Sqrt(ss / D); math.Abs(rms-1) > 1e-6 {
			t.Errorf("head %d: rms %v, want 1", h, rms)
		}
		if cosAngle := dot / math.Sqrt(ss*n0); math.Abs(cosAngle-1) > 1e-6 {
			t.Errorf("head %d: direction changed (cos %v)", h, cosAngle)
		}
	}
}
