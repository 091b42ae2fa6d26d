package native_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/backend/native"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/tensor"
)

// The reference here is an independent float64 evaluation of apply_rotary_emb,
// out = x·cos + rotate(x)·sin over the first D' elements of each row (the rest copied), with
// rotate(x) = cat(−x2, x1) (half) or (−x[2i+1], x[2i]) (interleave); its gradients are found by
// probing that function with basis vectors (it is linear in x, affine in cos and in sin), not from the
// transposed formulas the kernel uses.

// fwdRow64 is one row of apply_rotary_emb in float64. c and s hold the first d elements.
func fwdRow64(x, c, s []float64, d int, gptj bool) []float64 {
	out := append([]float64(nil), x...)
	for j := range d {
		var r float64
		switch {
		case gptj && j%2 == 0:
			r = -x[j+1]
		case gptj:
			r = x[j-1]
		case j < d/2:
			r = -x[j+d/2]
		default:
			r = x[j-d/2]
		}
		out[j] = x[j]*c[j] + r*s[j]
	}
	return out
}

// rowsOf lists the coordinates (last one 0) of every row of shape, in row-major order.
func rowsOf(shape []int) [][]int {
	var rows [][]int
	lead := shape[:len(shape)-1]
	n := tensor.NumElements(lead)
	for f := range n {
		c := make([]int, len(shape))
		for k := len(lead) - 1; k >= 0; k-- {
			c[k] = f % lead[k]
			f /= lead[k]
		}
		rows = append(rows, c)
	}
	return rows
}

// bcast maps x's row coordinates to cos's (dimensions of size 1 broadcast).
func bcast(cshape, coords []int) []int {
	c := make([]int, len(coords))
	for k := range coords {
		if cshape[k] != 1 {
			c[k] = coords[k]
		}
	}
	return c
}

// readRow returns n elements of the row of t at coords, in float64.
func readRow(t tensor.Tensor, coords []int, n int) []float64 {
	i := t.Index(coords...)
	out := make([]float64, n)
	for j := range out {
		out[j] = t.Float64At(i + j)
	}
	return out
}

func rawAt(t tensor.Tensor, i int) uint32 {
	if t.DType == tensor.F32 {
		return math.Float32bits(t.F32[i])
	}
	return uint32(t.Bits[i])
}

func backing(t tensor.Tensor) int {
	if t.DType == tensor.F32 {
		return len(t.F32)
	}
	return len(t.Bits)
}

// newTensor is a contiguous tensor of shape over a buffer with `guard` extra elements on each
// side (guard values: a NaN payload), filled by gen.
func newTensor(dt tensor.DType, shape []int, guard int, gen func(flat int) float64) tensor.Tensor {
	n := tensor.NumElements(shape)
	t := tensor.Tensor{DType: dt, Shape: append([]int(nil), shape...), Offset: guard}
	if dt == tensor.F32 {
		t.F32 = make([]float32, n+2*guard)
		for i := range t.F32 {
			t.F32[i] = math.Float32frombits(0x7fc0beef)
		}
		for i := range n {
			t.F32[guard+i] = float32(gen(i))
		}
	} else {
		t.Bits = make([]uint16, n+2*guard)
		for i := range t.Bits {
			t.Bits[i] = 0x7e5b
		}
		for i := range n {
			t.Bits[guard+i] = tensor.FromFloat32(dt, float32(gen(i)))
		}
	}
	return t
}

func cloneT(t tensor.Tensor) tensor.Tensor {
	c := t
	c.Shape = append([]int(nil), t.Shape...)
	if t.Strides != nil {
		c.Strides = append([]int(nil), t.Strides...)
	}
	if t.F32 != nil {
		c.F32 = append([]float32(nil), t.F32...)
	}
	if t.Bits != nil {
		c.Bits = append([]uint16(nil), t.Bits...)
	}
	return c
}

func uniform(rng *rand.Rand) func(int) float64 {
	return func(int) float64 { return 4*rng.Float64() - 2 }
}

// properCosSin fills cos/sin of shape (last dim d) with cos θ, sin θ of each pair, duplicated
// as the layout expects (cat(freqs, freqs) for half, repeat_interleave for interleave). The
// angle of pair i in cos row r is (7r + 3)·10000^(−2i/d); sign flips sin (−θ).
func properCosSin(dt tensor.DType, shape []int, gptj bool, sign float64) (cos, sin tensor.Tensor) {
	d := shape[len(shape)-1]
	angle := func(flat int) float64 {
		r, j := flat/d, flat%d
		i := j % (d / 2)
		if gptj {
			i = j / 2
		}
		return float64(7*r+3) * math.Pow(10000, -2*float64(i)/float64(d))
	}
	cos = newTensor(dt, shape, 0, func(f int) float64 { return math.Cos(angle(f)) })
	sin = newTensor(dt, shape, 0, func(f int) float64 { return sign * math.Sin(angle(f)) })
	return cos, sin
}

// spacing is the ulp of |x|'s binade in dt.
func spacing(dt tensor.DType, x float64) float64 {
	mant, emin := 23, -126
	switch dt {
	case tensor.F16:
		mant, emin = 10, -14
	case tensor.BF16:
		mant, emin = 7, -126
	}
	e := emin
	if x = math.Abs(x); x > 0 {
		_, ex := math.Frexp(x)
		e = max(ex-1, emin)
	}
	return math.Ldexp(1, e-mant)
}

// checkVal compares an output with the exact value e, given a bound B on how far the kernel's
// float32 (or float64) value before the final conversion to dt may be from e. F32: |got − e| ≤ B.
// 16-bit: 1 ULP of e whenever B ≤ ULP(e)/2 — the contract; otherwise (cancellation left e much
// smaller than the terms, and no float32 kernel can promise 1 ULP) |got − e| ≤ B + ULP(got).
func checkVal(dt tensor.DType, got, e, B float64, st *roundStats) error {
	if math.IsNaN(got) || math.IsInf(got, 0) {
		return fmt.Errorf("got %v, want %v", got, e)
	}
	if dt == tensor.F32 {
		if math.Abs(got-e) > B {
			return fmt.Errorf("got %v, want %v: error %.3g > %.3g", got, e, math.Abs(got-e), B)
		}
		return nil
	}
	if B <= spacing(dt, e)/2 {
		u := tensor.ULPDiff(dt, got, e)
		if u > 1 {
			return fmt.Errorf("got %v, want %v: %d ULP", got, e, u)
		}
		st.strict++
		if u == 0 {
			st.rounded++
		}
		return nil
	}
	if math.Abs(got-e) > B+spacing(dt, got) {
		return fmt.Errorf("got %v, want %v: error %.3g > %.3g + ULP", got, e, math.Abs(got-e), B)
	}
	return nil
}

// roundStats counts 16-bit outputs checked to 1 ULP and those that are the correctly rounded
// exact value. The kernels round once, to nearest even, from a float32 value far closer to the
// exact one than half a 16-bit ULP, so nearly all must be correctly rounded; truncation or
// double rounding through a coarser format would miss about half.
type roundStats struct{ strict, rounded int }

func (st *roundStats) check(t *testing.T, name string) {
	t.Helper()
	if st.strict >= 64 && st.rounded*100 < st.strict*99 {
		t.Errorf("%s: only %d of %d 16-bit outputs are correctly rounded", name, st.rounded, st.strict)
	}
}

// sumBound bounds the float32 evaluation fl(fl(a') + fl(b')) of e = a + b where a', b' are
// products of the widened operands: products of two 16-bit values are exact in float32.
func sumBound(a, b float64, exactProducts bool) float64 {
	if exactProducts {
		return 0x1p-24*1.0001*math.Abs(a+b) + 1e-38
	}
	return 0x1p-23*1.0001*(math.Abs(a)+math.Abs(b)) + 1e-38
}

type aeCase struct {
	layout   ops.Layout
	x, c     []int
	permuted bool // x is a non-contiguous view (dimensions 1 and 2 swapped in memory)
}

var aeCases = []aeCase{
	{ops.BSND, []int{2, 5, 3, 64}, []int{1, 5, 1, 64}, false},
	{ops.BNSD, []int{2, 3, 5, 64}, []int{1, 1, 5, 64}, false},
	{ops.SBND, []int{5, 2, 3, 64}, []int{5, 1, 1, 64}, false},
	{ops.THD, []int{7, 4, 128}, []int{7, 1, 128}, false},
	{ops.BSND, []int{2, 5, 3, 64}, []int{1, 5, 1, 32}, false}, // partial
	{ops.THD, []int{7, 4, 128}, []int{7, 1, 64}, false},       // partial
	{ops.BSND, []int{2, 5, 3, 64}, []int{2, 5, 3, 64}, false}, // no broadcast
	{ops.BSND, []int{2, 5, 3, 80}, []int{1, 5, 1, 48}, true},  // strided x, partial
	{"", []int{3, 96}, []int{3, 96}, false},                   // any rank
}

// xTensor builds x for a case: contiguous, or a BSND view of BNSD memory.
func xTensor(c aeCase, dt tensor.DType, gen func(int) float64) tensor.Tensor {
	if !c.permuted {
		return newTensor(dt, c.x, 3, gen)
	}
	mem := []int{c.x[0], c.x[2], c.x[1], c.x[3]}
	t := newTensor(dt, mem, 3, gen)
	st := tensor.ContiguousStrides(mem)
	t.Shape = append([]int(nil), c.x...)
	t.Strides = []int{st[0], st[2], st[1], st[3]}
	return t
}

type dtPair struct{ x, c tensor.DType }

var dtPairs = []dtPair{{tensor.F32, tensor.F32}, {tensor.BF16, tensor.BF16}, {tensor.F16, tensor.F16}, {tensor.BF16, tensor.F32}}

// TestApplyRotaryEmb: every layout, half and interleave, partial rotary, broadcasts, strided x,
// in place and not, with proper and arbitrary cos/sin, against the float64 evaluation.
func TestApplyRotaryEmb(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range aeCases {
		for _, gptj := range []bool{false, true} {
			for _, dts := range dtPairs {
				for _, proper := range []bool{true, false} {
					for _, inPlace := range []bool{false, true} {
						name := fmt.Sprintf("%s x%v cos%v gptj=%v %v/%v proper=%v inplace=%v", c.layout, c.x, c.c, gptj, dts.x, dts.c, proper, inPlace)
						x := xTensor(c, dts.x, uniform(rng))
						var cos, sin tensor.Tensor
						if proper {
							cos, sin = properCosSin(dts.c, c.c, gptj, 1)
						} else {
							cos, sin = newTensor(dts.c, c.c, 0, uniform(rng)), newTensor(dts.c, c.c, 0, uniform(rng))
						}
						x0 := cloneT(x)
						out := x
						if !inPlace {
							out = newTensor(dts.x, c.x, 2, func(int) float64 { return 99 })
						}
						out0 := cloneT(out)
						a, err := ops.NewApplyRotaryEmb(ops.ApplyRotaryEmbParams{Layout: c.layout, X: x, Cos: cos, Sin: sin, Out: out, Style: styleOf(gptj)})
						if err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						if a.RotaryDim != c.c[len(c.c)-1] {
							t.Fatalf("%s: rotary dim %d", name, a.RotaryDim)
						}
						native.ApplyRotaryEmb(&a)
						checkForward(t, name, x0, cos, sin, out0, out, gptj)
					}
				}
			}
		}
	}
}

// checkForward compares out (before: out0) with the float64 evaluation on x0.
func checkForward(t *testing.T, name string, x0, cos, sin, out0, out tensor.Tensor, gptj bool) {
	t.Helper()
	last := len(x0.Shape) - 1
	width, d := x0.Shape[last], cos.Shape[last]
	exact := cos.DType != tensor.F32 && x0.DType != tensor.F32
	touched := map[int]bool{}
	fails := 0
	var st roundStats
	defer st.check(t, name)
	for _, rc := range rowsOf(x0.Shape) {
		cc := bcast(cos.Shape, rc)
		x := readRow(x0, rc, width)
		cv, sv := readRow(cos, cc, d), readRow(sin, cc, d)
		want := fwdRow64(x, cv, sv, d, gptj)
		oi, xi := out.Index(rc...), x0.Index(rc...)
		for j := range width {
			touched[oi+j] = true
			if j >= d {
				if rawAt(out, oi+j) != rawAt(x0, xi+j) {
					t.Fatalf("%s: row %v pass-through element %d: %#x, want the input's %#x", name, rc, j, rawAt(out, oi+j), rawAt(x0, xi+j))
				}
				continue
			}
			a := x[j] * cv[j]
			if err := checkVal(out.DType, out.Float64At(oi+j), want[j], sumBound(a, want[j]-a, exact), &st); err != nil {
				fails++
				t.Errorf("%s: row %v element %d: %v", name, rc, j, err)
				if fails > 10 {
					t.FailNow()
				}
			}
		}
	}
	for i := range backing(out) {
		if !touched[i] && rawAt(out, i) != rawAt(out0, i) {
			t.Fatalf("%s: element %d outside out's view changed", name, i)
		}
	}
}

// gradients64 probes L = Σ dy·apply_rotary_emb(x, cos, sin) for its exact gradients in x, cos
// and sin (cos-shaped, summed over broadcast rows). terms[k] sums |contributions| to dcos/dsin[k]
// for the rounding bound; n counts them.
func gradients64(dy, x, cos, sin tensor.Tensor, gptj bool) (dx, dcos, dsin, absCos, absSin []float64) {
	last := len(x.Shape) - 1
	width, d := x.Shape[last], cos.Shape[last]
	dx = make([]float64, x.Len())
	dcos, dsin = make([]float64, cos.Len()), make([]float64, cos.Len())
	absCos, absSin = make([]float64, cos.Len()), make([]float64, cos.Len())
	zero := make([]float64, d)
	dot := func(g, o []float64) float64 {
		s := 0.0
		for j := range g {
			s += g[j] * o[j]
		}
		return s
	}
	for r, rc := range rowsOf(x.Shape) {
		cc := bcast(cos.Shape, rc)
		cflat := 0
		for k := range last {
			cflat = cflat*cos.Shape[k] + cc[k]
		}
		cflat *= d
		xv, g := readRow(x, rc, width), readRow(dy, rc, width)
		cv, sv := readRow(cos, cc, d), readRow(sin, cc, d)
		basis := make([]float64, width)
		for k := range width {
			basis[k] = 1
			dx[r*width+k] = dot(g, fwdRow64(basis, cv, sv, d, gptj))
			basis[k] = 0
		}
		// L is affine in cos and sin (pass-through elements do not depend on them): probe
		// the differences from L(cos = 0, sin = 0).
		base := dot(g, fwdRow64(xv, zero, zero, d, gptj))
		eb := make([]float64, d)
		for k := range d {
			eb[k] = 1
			v := dot(g, fwdRow64(xv, eb, zero, d, gptj)) - base
			dcos[cflat+k] += v
			absCos[cflat+k] += math.Abs(v)
			v = dot(g, fwdRow64(xv, zero, eb, d, gptj)) - base
			dsin[cflat+k] += v
			absSin[cflat+k] += math.Abs(v)
			eb[k] = 0
		}
	}
	return dx, dcos, dsin, absCos, absSin
}

// TestApplyRotaryEmbBackward: dx, dcos and dsin against the probed float64 gradients; dcos/dsin
// optional; dx may be dy itself.
func TestApplyRotaryEmbBackward(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range aeCases {
		for _, gptj := range []bool{false, true} {
			for _, dts := range dtPairs {
				for _, variant := range []string{"all", "dx only", "dx aliases dy"} {
					name := fmt.Sprintf("%s x%v cos%v gptj=%v %v/%v %s", c.layout, c.x, c.c, gptj, dts.x, dts.c, variant)
					x := xTensor(c, dts.x, uniform(rng))
					dy := newTensor(dts.x, c.x, 1, uniform(rng))
					cos, sin := newTensor(dts.c, c.c, 0, uniform(rng)), newTensor(dts.c, c.c, 0, uniform(rng))
					dy0 := cloneT(dy)
					dx := newTensor(dts.x, c.x, 2, func(int) float64 { return 7 })
					if variant == "dx aliases dy" {
						dx = dy
					}
					var dcos, dsin tensor.Tensor
					if variant == "all" {
						dcos = newTensor(dts.c, c.c, 1, func(int) float64 { return 5 })
						dsin = newTensor(dts.c, c.c, 1, func(int) float64 { return 5 })
					}
					a, err := ops.NewApplyRotaryEmbBackward(ops.ApplyRotaryEmbBackwardParams{Layout: c.layout, DY: dy, X: x, Cos: cos, Sin: sin, DX: dx, DCos: dcos, DSin: dsin, Style: styleOf(gptj)})
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					native.ApplyRotaryEmbBackward(&a)
					wdx, wdc, wds, ac, as := gradients64(dy0, x, cos, sin, gptj)
					exact := cos.DType != tensor.F32 && x.DType != tensor.F32
					last := len(c.x) - 1
					width, d := c.x[last], c.c[last]
					fails := 0
					var st roundStats
					fail := func(format string, args ...any) {
						fails++
						t.Errorf(name+": "+format, args...)
						if fails > 10 {
							t.FailNow()
						}
					}
					for r, rc := range rowsOf(c.x) {
						cc := bcast(c.c, rc)
						g := readRow(dy0, rc, width)
						cv := readRow(cos, cc, d)
						di := dx.Index(rc...)
						for j := range width {
							want := wdx[r*width+j]
							if j >= d {
								if rawAt(dx, di+j) != rawAt(dy0, dy0.Index(rc...)+j) {
									fail("row %v pass-through dx[%d] is not dy", rc, j)
								}
								continue
							}
							p := g[j] * cv[j]
							if err := checkVal(dx.DType, dx.Float64At(di+j), want, sumBound(p, want-p, exact), &st); err != nil {
								fail("row %v dx[%d]: %v", rc, j, err)
							}
						}
					}
					if variant != "all" {
						st.check(t, name)
						continue
					}
					for k, rc := range rowsOf(c.c) {
						for _, gr := range []struct {
							n    string
							t    tensor.Tensor
							want []float64
							abs  []float64
						}{{"dcos", dcos, wdc, ac}, {"dsin", dsin, wds, as}} {
							i := gr.t.Index(rc...)
							for j := range d {
								e := gr.want[k*d+j]
								B := 0x1p-24*1.0001*math.Abs(e) + 0x1p-50*gr.abs[k*d+j] + 1e-38
								if err := checkVal(gr.t.DType, gr.t.Float64At(i+j), e, B, &st); err != nil {
									fail("%s%v[%d]: %v", gr.n, rc, j, err)
								}
							}
						}
					}
					st.check(t, name)
					// Guards around dcos and dsin.
					for _, gt := range []tensor.Tensor{dcos, dsin} {
						guard := uint32(0x7e5b)
						if gt.DType == tensor.F32 {
							guard = 0x7fc0beef
						}
						for i := range backing(gt) {
							if (i < gt.Offset || i >= gt.Offset+gt.Len()) && rawAt(gt, i) != guard {
								fail("guard %d of a cos gradient changed", i)
							}
						}
					}
				}
			}
		}
	}
}

// TestBackwardIsInverseRotation: with cos = cos θ and sin = sin θ, the x-gradient is the forward
// rotation by −θ (cos θ, −sin θ), bit for bit, and equals the float64 rotation by −θ.
func TestBackwardIsInverseRotation(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range aeCases {
		for _, gptj := range []bool{false, true} {
			for _, dt := range []tensor.DType{tensor.F32, tensor.BF16} {
				name := fmt.Sprintf("%s x%v cos%v gptj=%v %v", c.layout, c.x, c.c, gptj, dt)
				dy := xTensor(c, dt, uniform(rng))
				x := newTensor(dt, c.x, 0, uniform(rng))
				cos, sin := properCosSin(dt, c.c, gptj, 1)
				_, negSin := properCosSin(dt, c.c, gptj, -1)
				dx := newTensor(dt, c.x, 0, func(int) float64 { return 0 })
				b, err := ops.NewApplyRotaryEmbBackward(ops.ApplyRotaryEmbBackwardParams{Layout: c.layout, DY: dy, X: x, Cos: cos, Sin: sin, DX: dx, Style: styleOf(gptj)})
				if err != nil {
					t.Fatal(err)
				}
				native.ApplyRotaryEmbBackward(&b)
				fwd := newTensor(dt, c.x, 0, func(int) float64 { return 0 })
				f, err := ops.NewApplyRotaryEmb(ops.ApplyRotaryEmbParams{Layout: c.layout, X: dy, Cos: cos, Sin: negSin, Out: fwd, Style: styleOf(gptj)})
				if err != nil {
					t.Fatal(err)
				}
				native.ApplyRotaryEmb(&f)
				for _, rc := range rowsOf(c.x) {
					i, j := dx.Index(rc...), fwd.Index(rc...)
					for k := range c.x[len(c.x)-1] {
						if rawAt(dx, i+k) != rawAt(fwd, j+k) {
							t.Fatalf("%s: row %v element %d: backward %v, forward by −θ %v", name, rc, k, dx.Float64At(i+k), fwd.Float64At(j+k))
						}
					}
				}
				checkForward(t, name+" vs float64 −θ", dy, cos, negSin, dx, dx, gptj)
			}
		}
	}
}

// TestApplyRotaryEmbBadInput: the argument checks name the argument.
func TestApplyRotaryEmbBadInput(t *testing.T) {
	f32 := func(shape ...int) tensor.Tensor { return tensor.Zeros(tensor.F32, shape...) }
	x, cs := f32(2, 5, 3, 64), f32(1, 5, 1, 64)
	cases := []struct {
		name           string
		layout         ops.Layout
		x, c, s, o     tensor.Tensor
		want           string
		backwardDCosOK bool
	}{
		{"missing x", ops.BSND, tensor.Tensor{}, cs, cs, x, "x", false},
		{"missing cos", ops.BSND, x, tensor.Tensor{}, cs, x, "cos", false},
		{"missing out", ops.BSND, x, cs, cs, tensor.Tensor{}, "out", false},
		{"layout rank", ops.THD, x, cs, cs, x, "layout", false},
		{"integer x", ops.BSND, tensor.Zeros(tensor.I32, 2, 5, 3, 64), cs, cs, x, "x", false},
		{"sin shape", ops.BSND, x, cs, f32(1, 5, 1, 32), x, "sin", false},
		{"sin dtype", ops.BSND, x, cs, tensor.Zeros(tensor.BF16, 1, 5, 1, 64), x, "sin", false},
		{"cos rank", ops.BSND, x, f32(5, 64), f32(5, 64), x, "cos", false},
		{"cos broadcast", ops.BSND, x, f32(1, 4, 1, 64), f32(1, 4, 1, 64), x, "broadcast", false},
		{"cos odd", ops.BSND, x, f32(1, 5, 1, 63), f32(1, 5, 1, 63), x, "even", false},
		{"cos too wide", ops.BSND, x, f32(1, 5, 1, 66), f32(1, 5, 1, 66), x, "cos", false},
		{"out shape", ops.BSND, x, cs, cs, f32(2, 5, 3, 32), "out", false},
		{"out dtype", ops.BSND, x, cs, cs, tensor.Zeros(tensor.BF16, 2, 5, 3, 64), "out", false},
		{"x out of bounds", ops.BSND, tensor.FromF32(make([]float32, 10), 2, 5, 3, 64), cs, cs, x, "x", false},
		{"x last dim strided", ops.BSND, tensor.Tensor{DType: tensor.F32, Shape: []int{2, 5, 3, 64}, Strides: []int{2 * 960, 2 * 192, 2 * 64, 2}, F32: make([]float32, 2*1920)}, cs, cs, x, "contiguous", false},
		{"bad layout", "BSH", x, cs, cs, x, "layout", false},
	}
	for _, c := range cases {
		if _, err := ops.NewApplyRotaryEmb(ops.ApplyRotaryEmbParams{Layout: c.layout, X: c.x, Cos: c.c, Sin: c.s, Out: c.o, Style: rope.NeoX}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("forward %s: %v, want an error mentioning %q", c.name, err, c.want)
		}
	}
	if _, err := ops.ParseLayout("BSH"); err == nil {
		t.Errorf("ParseLayout(BSH): no error")
	}
	for _, l := range []string{"BSND", "BNSD", "SBND", "THD"} {
		if got, err := ops.ParseLayout(l); err != nil || string(got) != l {
			t.Errorf("ParseLayout(%s) = %v, %v", l, got, err)
		}
	}
	// Backward: dy/dx shapes, dcos shape.
	for name, c := range map[string]struct {
		dy, dx, dcos tensor.Tensor
		want         string
	}{
		"dy shape":   {f32(2, 5, 3, 32), x, tensor.Tensor{}, "dy"},
		"dx missing": {x, tensor.Tensor{}, tensor.Tensor{}, "dx"},
		"dx dtype":   {x, tensor.Zeros(tensor.BF16, 2, 5, 3, 64), tensor.Tensor{}, "dx"},
		"dcos shape": {x, x, f32(1, 5, 3, 64), "dcos"},
	} {
		if _, err := ops.NewApplyRotaryEmbBackward(ops.ApplyRotaryEmbBackwardParams{Layout: ops.BSND, DY: c.dy, X: x, Cos: cs, Sin: cs, DX: c.dx, DCos: c.dcos, Style: rope.NeoX}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("backward %s: %v, want an error mentioning %q", name, err, c.want)
		}
	}
}

// TestGradientReference cross-checks the probed gradients with the analytic ones,
// dx = dy·cos + Rᵀ(dy·sin), dcos = Σ dy·x, dsin = Σ dy·rotate(x), in float64, so the reference
// itself is known right.
func TestGradientReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, gptj := range []bool{false, true} {
		xs, cs := []int{2, 5, 3, 80}, []int{1, 5, 1, 48}
		x := newTensor(tensor.F32, xs, 0, uniform(rng))
		dy := newTensor(tensor.F32, xs, 0, uniform(rng))
		cos, sin := newTensor(tensor.F32, cs, 0, uniform(rng)), newTensor(tensor.F32, cs, 0, uniform(rng))
		dx, dcos, dsin, _, _ := gradients64(dy, x, cos, sin, gptj)
		d, w := 48, 80
		wc, ws := make([]float64, cos.Len()), make([]float64, cos.Len())
		rot := func(v []float64, j int) float64 { // rotate(v)[j]
			switch {
			case gptj && j%2 == 0:
				return -v[j+1]
			case gptj:
				return v[j-1]
			case j < d/2:
				return -v[j+d/2]
			}
			return v[j-d/2]
		}
		rotT := func(v []float64, j int) float64 { // Rᵀ(v)[j] = −rotate(v)[j]
			return -rot(v, j)
		}
		for r, rc := range rowsOf(xs) {
			cc := bcast(cs, rc)
			ci := (cc[1]) * d
			xv, g := readRow(x, rc, w), readRow(dy, rc, w)
			cv, sv := readRow(cos, cc, d), readRow(sin, cc, d)
			gs := make([]float64, d)
			for j := range d {
				gs[j] = g[j] * sv[j]
			}
			for j := range w {
				want := g[j]
				if j < d {
					want = g[j]*cv[j] + rotT(gs, j)
					wc[ci+j] += g[j] * xv[j]
					ws[ci+j] += g[j] * rot(xv, j)
				}
				if math.Abs(dx[r*w+j]-want) > 1e-12 {
					t.Fatalf("gptj=%v row %v: probed dx[%d] %v, analytic %v", gptj, rc, j, dx[r*w+j], want)
				}
			}
		}
		for k := range wc {
			if math.Abs(dcos[k]-wc[k]) > 1e-12 || math.Abs(dsin[k]-ws[k]) > 1e-12 {
				t.Fatalf("gptj=%v: probed dcos/dsin[%d] %v %v, analytic %v %v", gptj, k, dcos[k], dsin[k], wc[k], ws[k])
			}
		}
	}
}

// styleOf is the pair style a test's GPT-J flag names.
func styleOf(gptj bool) rope.Style {
	if gptj {
		return rope.GPTJ
	}
	return rope.NeoX
}
