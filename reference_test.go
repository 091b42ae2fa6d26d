package rotary

// Test helpers shared by the root package's tests: an independent float64 evaluation of the
// rotations with exact cos/sin (the frequencies are Spec.Frequencies, which package rope's tests
// hold to Hugging Face's modeling_rope_utils formulas), strided views with guard values around
// them, and the accuracy contract in the README.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rotary-go/rotary/tensor"
)

// refAxes is the position axis of every pair of an MRoPE head, built the way HF builds it:
// chunked: mrope_section runs in order; interleaved (Qwen3-VL apply_interleaved_mrope): start
// from axis 0 and overwrite slice(offset, 3·s[dim], 3) with dim for dim, offset in (1,1), (2,2).
func refAxes(half int, m *MRoPE) []int {
	axes := make([]int, half)
	if m == nil {
		return axes
	}
	if m.Interleaved {
		for dim := 1; dim <= 2; dim++ {
			for i := dim; i < 3*m.Sections[dim] && i < half; i += 3 {
				axes[i] = dim
			}
		}
		return axes
	}
	i := 0
	for a, s := range m.Sections {
		for range s {
			axes[i] = a
			i++
		}
	}
	return axes
}

// layout describes a query or key view inside a larger buffer.
type layout struct {
	tokens, heads, headSize int
	flat                    bool // [T, H·D] instead of [T, H, D]
	lead, tail              int  // guard elements before the first and after the last element
	tokPad, headPad         int  // guard elements between tokens and between heads (3-D only)
}

// view is a query/key tensor over a guarded buffer.
type view struct {
	lay        layout
	dt         tensor.DType
	t          tensor.Tensor
	tokStride  int
	headStride int
}

// Guard bit patterns: NaNs with a payload, so any arithmetic or copy by the wrong width shows.
const (
	guard32 = 0x7fc0dead
	guard16 = 0x7e5a
)

func newView(dt tensor.DType, lay layout, rng *rand.Rand) *view {
	v := &view{lay: lay, dt: dt}
	v.headStride = lay.headSize + lay.headPad
	if lay.flat {
		v.headStride = lay.headSize
	}
	v.tokStride = lay.heads*v.headStride + lay.tokPad
	n := lay.lead + lay.tail
	if lay.tokens > 0 && lay.heads > 0 {
		n += (lay.tokens-1)*v.tokStride + (lay.heads-1)*v.headStride + lay.headSize
	}
	t := tensor.Tensor{DType: dt, Offset: lay.lead}
	if lay.flat {
		t.Shape = []int{lay.tokens, lay.heads * lay.headSize}
		t.Strides = []int{v.tokStride, 1}
	} else {
		t.Shape = []int{lay.tokens, lay.heads, lay.headSize}
		t.Strides = []int{v.tokStride, v.headStride, 1}
	}
	if dt == tensor.F32 {
		t.F32 = make([]float32, n)
		for i := range t.F32 {
			t.F32[i] = math.Float32frombits(guard32)
		}
	} else {
		t.Bits = make([]uint16, n)
		for i := range t.Bits {
			t.Bits[i] = guard16
		}
	}
	v.t = t
	if rng != nil {
		v.fill(func() float64 { return 4*rng.Float64() - 2 })
	}
	return v
}

func (v *view) index(tok, head, j int) int {
	return v.lay.lead + tok*v.tokStride + head*v.headStride + j
}

func (v *view) fill(gen func() float64) {
	for tok := range v.lay.tokens {
		for h := range v.lay.heads {
			for j := range v.lay.headSize {
				v.set(tok, h, j, gen())
			}
		}
	}
}

func (v *view) set(tok, head, j int, x float64) {
	i := v.index(tok, head, j)
	if v.dt == tensor.F32 {
		v.t.F32[i] = float32(x)
		return
	}
	v.t.Bits[i] = tensor.FromFloat32(v.dt, float32(x))
}

func (v *view) get(tok, head, j int) float64 {
	i := v.index(tok, head, j)
	if v.dt == tensor.F32 {
		return float64(v.t.F32[i])
	}
	return float64(tensor.ToFloat32(v.dt, v.t.Bits[i]))
}

// raw is the bit pattern of backing element i.
func (v *view) raw(i int) uint32 {
	if v.dt == tensor.F32 {
		return math.Float32bits(v.t.F32[i])
	}
	return uint32(v.t.Bits[i])
}

func (v *view) len() int {
	if v.dt == tensor.F32 {
		return len(v.t.F32)
	}
	return len(v.t.Bits)
}

// snapshot copies the backing buffer's bits.
func (v *view) snapshot() []uint32 {
	s := make([]uint32, v.len())
	for i := range s {
		s[i] = v.raw(i)
	}
	return s
}

// clone is a deep copy of v.
func (v *view) clone() *view {
	c := *v
	c.t.F32 = append([]float32(nil), v.t.F32...)
	c.t.Bits = append([]uint16(nil), v.t.Bits...)
	if v.t.F32 == nil {
		c.t.F32 = nil
	}
	if v.t.Bits == nil {
		c.t.Bits = nil
	}
	return &c
}

// inView reports which backing elements belong to the view.
func (v *view) inView() []bool {
	m := make([]bool, v.len())
	for tok := range v.lay.tokens {
		for h := range v.lay.heads {
			for j := range v.lay.headSize {
				m[v.index(tok, h, j)] = true
			}
		}
	}
	return m
}

// sameBits reports the first differing backing element of two views, or -1.
func sameBits(a, b *view) int {
	for i := range a.len() {
		if a.raw(i) != b.raw(i) {
			return i
		}
	}
	return -1
}

// spacing is the distance between adjacent values of dt around |x| (the ulp of |x|'s binade).
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

// accStats counts how the accuracy contract was checked.
type accStats struct {
	strict, loose, pairs int
	rounded              int // 16-bit elements equal to the correctly rounded exact value
}

// checkOut checks one rotated element against the exact float64 value e = a + b (the two
// products, cos and sin carrying the attention factor), for a pair of norm `norm`.
//
// F32: |got − e| ≤ 2^-20·norm (the contract).
//
// F16/BF16: the contract is 1 ULP. The kernel computes in float32: cos/sin rounded once, each
// product rounded, the sum rounded, so its float32 result is off from e by at most
// ε = 3·2^-24·(|a|+|b|) (2^-22 here for margin). Rounding that to the output format stays
// within 1 ULP of e whenever ε ≤ ULP(e)/2. When the two products cancel, e can be far smaller
// than the pair's norm and ε larger than half of e's ULP: then no float32 kernel can promise
// 1 ULP, and the check is absolute instead, |got − e| ≤ ε + ULP(got)/2 (the float32 error plus
// the final rounding). Such elements are rare (|e| < ~2^-13·norm for BF16, ~2^-10 for F16) and
// counted.
func checkOut(dt tensor.DType, got, a, b, norm float64, st *accStats) error {
	e := a + b
	if math.IsNaN(got) || math.IsInf(got, 0) {
		return fmt.Errorf("got %v, want %v", got, e)
	}
	if dt == tensor.F32 {
		if d := math.Abs(got - e); d > 0x1p-20*norm {
			return fmt.Errorf("got %v, want %v: error %.3g > 2^-20·norm %.3g", got, e, d, 0x1p-20*norm)
		}
		st.strict++
		return nil
	}
	eps := 0x1p-22 * (math.Abs(a) + math.Abs(b))
	if eps <= spacing(dt, e)/2 {
		st.strict++
		u := tensor.ULPDiff(dt, got, e)
		if u > 1 {
			return fmt.Errorf("got %v, want %v: %d ULP", got, e, u)
		}
		if u == 0 {
			st.rounded++
		}
		return nil
	}
	st.loose++
	if d := math.Abs(got - e); d > eps+spacing(dt, got)/2 {
		return fmt.Errorf("got %v, want %v (cancellation): error %.3g > ε %.3g + ULP/2 %.3g", got, e, d, eps, spacing(dt, got)/2)
	}
	return nil
}

// refHead rotates one head in float64: theta[i] is pair i's angle, att the attention factor.
// It returns, per element, the two products whose sum is the exact output (pass-through
// elements: the input and 0).
func refHead(x []float64, theta []float64, att float64, rotaryDim int, gptj bool) (a, b []float64) {
	a = append([]float64(nil), x...)
	b = make([]float64, len(x))
	half := rotaryDim / 2
	for i := range half {
		i1, i2 := i, i+half
		if gptj {
			i1, i2 = 2*i, 2*i+1
		}
		c, s := math.Cos(theta[i])*att, math.Sin(theta[i])*att
		x1, x2 := x[i1], x[i2]
		a[i1], b[i1] = x1*c, -x2*s
		a[i2], b[i2] = x2*c, x1*s
	}
	return a, b
}

// expectRotated checks every element of after (a rotated copy of before) against the float64
// evaluation: rotated pairs within the accuracy contract, pass-through elements and everything
// outside the view bit for bit. theta(t, i) is token t's angle for pair i.
func expectRotated(t *testing.T, name string, before, after *view, rotaryDim int, gptj bool, theta func(tok, i int) float64, att float64) accStats {
	t.Helper()
	var st accStats
	lay := before.lay
	half := rotaryDim / 2
	in := before.inView()
	for i := range before.len() {
		if !in[i] && before.raw(i) != after.raw(i) {
			t.Fatalf("%s: guard element %d changed: %#x → %#x", name, i, before.raw(i), after.raw(i))
		}
	}
	th := make([]float64, half)
	x := make([]float64, lay.headSize)
	fails := 0
	for tok := range lay.tokens {
		for i := range th {
			th[i] = theta(tok, i)
		}
		for h := range lay.heads {
			for j := range x {
				x[j] = before.get(tok, h, j)
			}
			a, b := refHead(x, th, att, rotaryDim, gptj)
			for i := range half {
				i1, i2 := i, i+half
				if gptj {
					i1, i2 = 2*i, 2*i+1
				}
				norm := math.Hypot(x[i1], x[i2]) * math.Abs(att)
				st.pairs++
				for _, j := range []int{i1, i2} {
					if err := checkOut(before.dt, after.get(tok, h, j), a[j], b[j], norm, &st); err != nil {
						fails++
						t.Errorf("%s: token %d head %d element %d (pair %d, angle %v): %v", name, tok, h, j, i, th[i], err)
						if fails > 10 {
							t.FailNow()
						}
					}
				}
			}
			for j := rotaryDim; j < lay.headSize; j++ {
				k := before.index(tok, h, j)
				if before.raw(k) != after.raw(k) {
					t.Fatalf("%s: pass-through element (token %d head %d element %d) changed: %#x → %#x", name, tok, h, j, before.raw(k), after.raw(k))
				}
			}
		}
	}
	// The kernel rounds once, to nearest even: its float32 error is far below half a 16-bit ULP,
	// so all but a handful of outputs must be the correctly rounded exact value (a kernel that
	// truncated, or rounded twice through a coarser format, would miss about half).
	if before.dt != tensor.F32 && st.strict >= 64 && st.rounded*100 < st.strict*99 {
		t.Errorf("%s: only %d of %d outputs are correctly rounded", name, st.rounded, st.strict)
	}
	return st
}

// posTensor builds a [T] int64 or int32 position tensor.
func posTensor(pos []int64, i32 bool) tensor.Tensor {
	if i32 {
		p := make([]int32, len(pos))
		for i, v := range pos {
			p[i] = int32(v)
		}
		return tensor.FromI32(p, len(p))
	}
	return tensor.FromI64(append([]int64(nil), pos...), len(pos))
}

// mustNew builds an embedding or stops the test.
func mustNew(t testing.TB, s Spec, opts ...Option) *Embedding {
	t.Helper()
	e, err := New(s, opts...)
	if err != nil {
		t.Fatalf("New(%+v): %v", s, err)
	}
	return e
}

// noPanic runs f and turns a panic into a test error.
func noPanic(t *testing.T, name string, f func()) (ok bool) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s: panic through the public API: %v", name, r)
			ok = false
		}
	}()
	f()
	return true
}

// relClose reports whether got is within rel of want (relative), or both are 0.
func relClose(got, want, rel float64) bool {
	if got == want {
		return true
	}
	return math.Abs(got-want) <= rel*math.Abs(want)
}

func randFactors(rng *rand.Rand, n int, lo, hi float64) []float64 {
	f := make([]float64, n)
	for i := range f {
		f[i] = lo + (hi-lo)*rng.Float64()
	}
	return f
}
