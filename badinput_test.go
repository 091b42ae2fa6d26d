package rotary

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/tensor"
)

// TestForwardBadInput: every argument check of Forward (ops.NewQueryKey, NewHeads,
// NewPositions) returns an error naming the argument, never panics, and leaves query and key
// untouched.
func TestForwardBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(50, 51))
	plain := mustNew(t, Spec{HeadSize: 64, RotaryDim: 64, Base: 10000, MaxPositions: 64})
	mrope := mustNew(t, Spec{HeadSize: 64, RotaryDim: 64, Base: 10000, MaxPositions: 64, MRoPE: &MRoPE{Sections: []int{8, 12, 12}}})

	const T = 3
	okPos := func() tensor.Tensor { return tensor.FromI64([]int64{0, 1, 2}, T) }
	type args struct{ pos, q, k tensor.Tensor }
	cases := []struct {
		name string
		e    *Embedding
		mod  func(a *args, dt tensor.DType)
		want []string // substrings of the error
	}{
		{"missing query", plain, func(a *args, dt tensor.DType) { a.q = tensor.Tensor{} }, []string{"query", "missing"}},
		{"q/k dtype mismatch", plain, func(a *args, dt tensor.DType) {
			a.k = newView(other(dt), layout{tokens: T, heads: 1, headSize: 64}, rng).t
		}, []string{"key", "dtype"}},
		{"integer query", plain, func(a *args, dt tensor.DType) { a.q = tensor.FromI32(make([]int32, T*64), T, 1, 64) }, []string{"query", "dtype"}},
		{"f64 key", plain, func(a *args, dt tensor.DType) { a.k = tensor.FromF64(make([]float64, T*64), T, 1, 64) }, []string{"key", "dtype"}},
		{"head size differs", plain, func(a *args, dt tensor.DType) { a.q = buf(dt, T*2*66, T, 2, 66) }, []string{"query", "head size"}},
		{"key head size differs", plain, func(a *args, dt tensor.DType) { a.k = buf(dt, T*32, T, 1, 32) }, []string{"key", "head size"}},
		{"flat width not a multiple", plain, func(a *args, dt tensor.DType) { a.q = buf(dt, T*100, T, 100) }, []string{"query", "multiple"}},
		{"rank 1 query", plain, func(a *args, dt tensor.DType) { a.q = buf(dt, 64, 64) }, []string{"query", "shape"}},
		{"rank 4 query", plain, func(a *args, dt tensor.DType) { a.q = buf(dt, T*64, 1, T, 1, 64) }, []string{"query", "shape"}},
		{"non-contiguous head", plain, func(a *args, dt tensor.DType) {
			a.q = withBacking(tensor.Tensor{DType: dt, Shape: []int{T, 1, 64}, Strides: []int{128, 128, 2}}, T*128)
		}, []string{"query", "contiguous"}},
		{"key token count", plain, func(a *args, dt tensor.DType) { a.k = buf(dt, 2*64, 2, 1, 64) }, []string{"key", "tokens"}},
		{"positions length", plain, func(a *args, dt tensor.DType) { a.pos = tensor.FromI64([]int64{0, 1}, 2) }, []string{"positions", "2 positions for 3 tokens"}},
		{"negative position", plain, func(a *args, dt tensor.DType) { a.pos = tensor.FromI64([]int64{0, -1, 2}, T) }, []string{"positions", "negative"}},
		{"negative I32 position", plain, func(a *args, dt tensor.DType) { a.pos = tensor.FromI32([]int32{0, 1, -7}, T) }, []string{"positions", "negative"}},
		{"float positions", plain, func(a *args, dt tensor.DType) { a.pos = tensor.FromF32([]float32{0, 1, 2}, T) }, []string{"positions", "dtype"}},
		{"I8 positions", plain, func(a *args, dt tensor.DType) { a.pos = tensor.FromI8([]int8{0, 1, 2}, T) }, []string{"positions", "dtype"}},
		{"missing positions", plain, func(a *args, dt tensor.DType) { a.pos = tensor.Tensor{} }, []string{"positions"}},
		{"2-D positions, plain model", plain, func(a *args, dt tensor.DType) { a.pos = tensor.FromI64(make([]int64, 3*T), 3, T) }, []string{"positions", "non-MRoPE"}},
		{"3-D positions", mrope, func(a *args, dt tensor.DType) { a.pos = tensor.FromI64(make([]int64, 3*T), 3, 1, T) }, []string{"positions", "shape"}},
		{"mrope 2 rows", mrope, func(a *args, dt tensor.DType) { a.pos = tensor.FromI64(make([]int64, 2*T), 2, T) }, []string{"positions", "[2,3]"}},
		{"mrope 4 rows for 3 sections", mrope, func(a *args, dt tensor.DType) { a.pos = tensor.FromI64(make([]int64, 4*T), 4, T) }, []string{"positions", "[4,3]"}},
		{"mrope negative", mrope, func(a *args, dt tensor.DType) { a.pos = tensor.FromI64([]int64{0, 1, 2, 0, 1, 2, 0, -1, 2}, 3, T) }, []string{"positions", "negative"}},
		{"mrope wrong tokens", mrope, func(a *args, dt tensor.DType) { a.pos = tensor.FromI64(make([]int64, 3*4), 3, 4) }, []string{"positions", "4 positions for 3 tokens"}},
		{"query out of bounds", plain, func(a *args, dt tensor.DType) { a.q = buf(dt, T*64-1, T, 1, 64) }, []string{"query", "outside"}},
		{"query offset out of bounds", plain, func(a *args, dt tensor.DType) {
			a.q = withBacking(tensor.Tensor{DType: dt, Shape: []int{T, 1, 64}, Offset: 1}, T*64)
		}, []string{"query", "outside"}},
		{"query negative stride out of bounds", plain, func(a *args, dt tensor.DType) {
			a.q = withBacking(tensor.Tensor{DType: dt, Shape: []int{T, 1, 64}, Strides: []int{-64, 64, 1}}, T*64)
		}, []string{"query", "outside"}},
		{"key strided out of bounds", plain, func(a *args, dt tensor.DType) {
			a.k = withBacking(tensor.Tensor{DType: dt, Shape: []int{T, 1, 64}, Strides: []int{100, 64, 1}}, T*64)
		}, []string{"key", "outside"}},
		{"key bits missing", plain, func(a *args, dt tensor.DType) { a.k = tensor.Tensor{DType: dt, Shape: []int{T, 1, 64}} }, []string{"key"}},
		{"positions out of bounds", plain, func(a *args, dt tensor.DType) {
			a.pos = tensor.Tensor{DType: tensor.I64, Shape: []int{T}, Strides: []int{2}, I64: make([]int64, 4)}
		}, []string{"positions", "outside"}},
		{"positions wrong backing", plain, func(a *args, dt tensor.DType) {
			a.pos = tensor.Tensor{DType: tensor.I64, Shape: []int{T}, I32: []int32{0, 1, 2}}
		}, []string{"positions"}},
		{"negative dimension", plain, func(a *args, dt tensor.DType) {
			a.q = tensor.Tensor{DType: tensor.F32, Shape: []int{-1, 1, 64}, F32: make([]float32, 64)}
		}, []string{"query", "negative"}},
		{"strides rank", plain, func(a *args, dt tensor.DType) {
			a.q = tensor.Tensor{DType: tensor.F32, Shape: []int{T, 1, 64}, Strides: []int{64, 1}, F32: make([]float32, T*64)}
		}, []string{"query", "strides"}},
		{"dual chunk via Forward", mustNew(t, Spec{HeadSize: 64, RotaryDim: 64, Base: 10000, MaxPositions: 64, DualChunk: &DualChunk{ChunkSize: 16, LocalSize: 4}}),
			func(*args, tensor.DType) {}, []string{"dual"}},
	}
	for _, c := range cases {
		for _, dt := range []tensor.DType{tensor.F32, tensor.BF16} {
			q := newView(dt, layout{tokens: T, heads: 2, headSize: 64, lead: 1, tail: 1}, rng)
			k := newView(dt, layout{tokens: T, heads: 1, headSize: 64}, rng)
			a := args{okPos(), q.t, k.t}
			c.mod(&a, dt)
			// Snapshots of whatever tensors are passed, plus the prepared ones.
			snaps := map[string][]uint32{"q": q.snapshot(), "k": k.snapshot()}
			passedQ, passedK := snapTensor(a.q), snapTensor(a.k)
			var err error
			if !noPanic(t, c.name, func() { err = c.e.Forward(a.pos, a.q, a.k) }) {
				continue
			}
			if err == nil {
				t.Errorf("%s (%v): Forward succeeded, want an error", c.name, dt)
				continue
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s (%v): error %q does not mention %q", c.name, dt, err, w)
				}
			}
			if !equalU32(q.snapshot(), snaps["q"]) || !equalU32(k.snapshot(), snaps["k"]) {
				t.Errorf("%s (%v): Forward wrote on error", c.name, dt)
			}
			if !equalU32(snapTensor(a.q), passedQ) || !equalU32(snapTensor(a.k), passedK) {
				t.Errorf("%s (%v): Forward wrote a passed tensor on error", c.name, dt)
			}
			// Gather and Apply check the same arguments.
			var cs CosSin
			if strings.Contains(c.name, "position") && !strings.Contains(c.name, "dual") {
				if gerr := c.e.Gather(a.pos, &cs); gerr == nil && !strings.Contains(c.name, "length") && !strings.Contains(c.name, "tokens") {
					t.Errorf("%s (%v): Gather succeeded", c.name, dt)
				}
			}
		}
	}
}

// TestForwardOverflowingShape: shapes whose element count overflows int must be rejected, not
// accepted as empty views and then indexed out of range (or worse, in range of someone else's
// data).
//
// A bad view can reach a kernel that writes out of bounds (an assembly kernel faults, killing the
// process, where recover cannot help), so the cases run in a child test process and the parent
// reports what happened to it.
func TestForwardOverflowingShape(t *testing.T) {
	if os.Getenv("ROTARY_TEST_OVERFLOW_CHILD") == "1" {
		overflowingShapeCases(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestForwardOverflowingShape$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "ROTARY_TEST_OVERFLOW_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		lines := strings.Split(string(out), "\n")
		if len(lines) > 40 {
			lines = append(lines[:40], "...")
		}
		t.Errorf("overflowing shapes: the child test failed (%v):\n%s", err, strings.Join(lines, "\n"))
	}
}

func overflowingShapeCases(t *testing.T) {
	e := mustNew(t, Spec{HeadSize: 64, RotaryDim: 64, Base: 10000, MaxPositions: 64})
	pos := tensor.FromI64([]int64{0, 1, 2, 3}, 4)
	q := tensor.FromF32(make([]float32, 4*64), 4, 1, 64)
	cases := map[string]tensor.Tensor{
		// 4 · 2^56 · 64 = 2^64: the element count wraps to 0.
		"element count wraps to 0": {DType: tensor.F32, Shape: []int{4, 1 << 56, 64}, F32: make([]float32, 4*64)},
		// Stride·(dim−1) = (2^62+1)·4 = 2^64 + 4 wraps to 4: the extent check sees a tiny view.
		"extent wraps": {DType: tensor.F32, Shape: []int{4, 5, 64}, Strides: []int{64, 1<<62 + 1, 1}, F32: make([]float32, 4*64+8)},
	}
	for name, key := range cases {
		var err error
		if !noPanic(t, name, func() { err = e.Forward(pos, q, key) }) {
			continue
		}
		if err == nil {
			t.Errorf("%s: Forward accepted key shape %v strides %v over %d elements", name, key.Shape, key.Strides, len(key.F32))
		}
	}
	// Positions: stride·(3−1) = −(2^63−1)·2 wraps to 2, so the view looks in bounds.
	badPos := tensor.Tensor{DType: tensor.I64, Shape: []int{3}, Strides: []int{-(1<<63 - 1)}, I64: make([]int64, 3)}
	q3 := tensor.FromF32(make([]float32, 3*64), 3, 1, 64)
	var err error
	if noPanic(t, "positions extent wraps", func() { err = e.Forward(badPos, q3, tensor.Tensor{}) }) && err == nil {
		t.Errorf("positions extent wraps: Forward accepted positions strides %v", badPos.Strides)
	}
	var cs CosSin
	if noPanic(t, "Gather positions extent wraps", func() { err = e.Gather(badPos, &cs) }) && err == nil {
		t.Errorf("positions extent wraps: Gather accepted positions strides %v", badPos.Strides)
	}
}

func snapTensor(t tensor.Tensor) []uint32 {
	var s []uint32
	for _, v := range t.F32 {
		s = append(s, math.Float32bits(v))
	}
	for _, v := range t.Bits {
		s = append(s, uint32(v))
	}
	return s
}

func equalU32(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestCosSinApplyBadInput: a zero CosSin refuses to apply; Apply checks query/key like Forward
// and the token count against the gather.
func TestCosSinApplyBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(52, 53))
	var zero CosSin
	q := newView(tensor.F32, layout{tokens: 2, heads: 1, headSize: 64}, rng)
	q0 := q.clone()
	if err := zero.Apply(q.t, tensor.Tensor{}); err == nil || !strings.Contains(err.Error(), "Gather") {
		t.Errorf("zero CosSin Apply: %v, want an error saying to Gather first", err)
	}
	if zero.Tokens() != 0 || len(zero.Cos()) != 0 {
		t.Errorf("zero CosSin has %d tokens", zero.Tokens())
	}
	e := mustNew(t, Spec{HeadSize: 64, RotaryDim: 64, Base: 10000, MaxPositions: 64})
	var cs CosSin
	if err := e.Gather(tensor.FromI64([]int64{1, 2, 3}, 3), &cs); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		q, k tensor.Tensor
		want string
	}{
		"token count":  {q.t, tensor.Tensor{}, "tokens"},
		"missing":      {tensor.Tensor{}, tensor.Tensor{}, "query"},
		"head size":    {tensor.FromF32(make([]float32, 3*32), 3, 1, 32), tensor.Tensor{}, "query"},
		"key dtype":    {tensor.FromF32(make([]float32, 3*64), 3, 1, 64), tensor.FromBits(tensor.F16, make([]uint16, 3*64), 3, 1, 64), "key"},
		"key tokens":   {tensor.FromF32(make([]float32, 3*64), 3, 1, 64), tensor.FromF32(make([]float32, 2*64), 2, 1, 64), "key"},
		"out of range": {tensor.FromF32(make([]float32, 3*64-1), 3, 1, 64), tensor.Tensor{}, "query"},
	} {
		var err error
		if !noPanic(t, name, func() { err = cs.Apply(c.q, c.k) }) {
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Apply %s: %v, want an error mentioning %q", name, err, c.want)
		}
	}
	if sameBits(q, q0) >= 0 {
		t.Errorf("Apply wrote on error")
	}
	// Gather errors.
	if err := e.Gather(tensor.Tensor{}, &cs); err == nil {
		t.Errorf("Gather of missing positions: no error")
	}
	if err := e.Gather(tensor.FromI64([]int64{0, -3}, 2), &cs); err == nil {
		t.Errorf("Gather of negative positions: no error")
	}
	if err := e.Gather(tensor.FromI64(make([]int64, 6), 3, 2), &cs); err == nil {
		t.Errorf("Gather of 2-D positions for a plain model: no error")
	}
}

// TestValidate: each invalid spec is refused with ErrSpec and a message naming the field.
func TestValidate(t *testing.T) {
	good := Spec{HeadSize: 128, RotaryDim: 128, Base: 10000, MaxPositions: 4096}
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		mod  func(*Spec)
		want string
	}{
		{"odd rotary dim", func(s *Spec) { s.RotaryDim = 63 }, "rotary dim"},
		{"zero rotary dim", func(s *Spec) { s.RotaryDim = 0 }, "rotary dim"},
		{"rotary > head", func(s *Spec) { s.RotaryDim = 130 }, "larger than head size"},
		{"zero head size", func(s *Spec) { s.HeadSize = 0 }, "head size"},
		{"zero base", func(s *Spec) { s.Base = 0 }, "base"},
		{"NaN base", func(s *Spec) { s.Base = math.NaN() }, "base"},
		{"bad style", func(s *Spec) { s.Style = 7 }, "style"},
		{"negative max positions", func(s *Spec) { s.MaxPositions = -1 }, "max positions"},
		{"unknown rope type", func(s *Spec) { s.Scaling.Type = "su" }, `unknown rope type "su"`},
		{"linear without factor", func(s *Spec) { s.Scaling = Scaling{Type: ScalingLinear} }, "factor"},
		{"dynamic without factor", func(s *Spec) { s.Scaling = Scaling{Type: ScalingDynamic} }, "factor"},
		{"dynamic without max positions", func(s *Spec) { s.MaxPositions = 0; s.Scaling = Scaling{Type: ScalingDynamic, Factor: 2} }, "max_position_embeddings"},
		{"ntk alpha without alpha", func(s *Spec) { s.Scaling = Scaling{Type: ScalingNTKAlpha} }, "alpha"},
		{"yarn without factor", func(s *Spec) { s.Scaling = Scaling{Type: ScalingYaRN} }, "factor"},
		{"yarn negative factor", func(s *Spec) { s.Scaling = Scaling{Type: ScalingYaRN, Factor: -4} }, "factor"},
		{"yarn negative beta", func(s *Spec) { s.Scaling = Scaling{Type: ScalingYaRN, Factor: 4, BetaFast: -1} }, "beta"},
		{"yarn without original", func(s *Spec) { s.MaxPositions = 0; s.Scaling = Scaling{Type: ScalingYaRN, Factor: 4} }, "original_max_position_embeddings"},
		{"llama3 without factor", func(s *Spec) {
			s.Scaling = Scaling{Type: ScalingLlama3, LowFreqFactor: 1, HighFreqFactor: 4, OriginalMaxPositions: 8192}
		}, "factor"},
		{"llama3 without low", func(s *Spec) {
			s.Scaling = Scaling{Type: ScalingLlama3, Factor: 8, HighFreqFactor: 4, OriginalMaxPositions: 8192}
		}, "low_freq_factor"},
		{"llama3 without high", func(s *Spec) {
			s.Scaling = Scaling{Type: ScalingLlama3, Factor: 8, LowFreqFactor: 1, OriginalMaxPositions: 8192}
		}, "high_freq_factor"},
		{"llama3 high < low", func(s *Spec) {
			s.Scaling = Scaling{Type: ScalingLlama3, Factor: 8, LowFreqFactor: 4, HighFreqFactor: 2, OriginalMaxPositions: 8192}
		}, "high_freq_factor"},
		{"llama3 without original", func(s *Spec) {
			s.Scaling = Scaling{Type: ScalingLlama3, Factor: 8, LowFreqFactor: 1, HighFreqFactor: 4}
		}, "original_max_position_embeddings"},
		{"longrope short length", func(s *Spec) {
			s.Scaling = Scaling{Type: ScalingLongRoPE, Factor: 4, ShortFactor: make([]float64, 63), LongFactor: ones(64)}
		}, "short_factor"},
		{"longrope long length", func(s *Spec) {
			s.Scaling = Scaling{Type: ScalingLongRoPE, Factor: 4, ShortFactor: ones(64), LongFactor: ones(128)}
		}, "long_factor"},
		{"longrope zero factor", func(s *Spec) {
			l := ones(64)
			l[9] = 0
			s.Scaling = Scaling{Type: ScalingLongRoPE, Factor: 4, ShortFactor: ones(64), LongFactor: l}
		}, "entry 9"},
		{"mrope sum", func(s *Spec) { s.MRoPE = &MRoPE{Sections: []int{16, 24, 16}} }, "sums to 56"},
		{"mrope count", func(s *Spec) { s.MRoPE = &MRoPE{Sections: []int{32, 32}} }, "mrope_section"},
		{"mrope negative", func(s *Spec) { s.MRoPE = &MRoPE{Sections: []int{-8, 36, 36}} }, "negative"},
		{"local base", func(s *Spec) { s.Local = &LocalRoPE{Pattern: 6} }, "rope_local_base_freq"},
		{"local pattern", func(s *Spec) { s.Local = &LocalRoPE{Base: 10000} }, "sliding_window_pattern"},
		{"local layer type", func(s *Spec) { s.Local = &LocalRoPE{Base: 10000, LayerTypes: []string{"full_attention", "local"}} }, "layer_types[1]"},
		{"dual chunk", func(s *Spec) { s.DualChunk = &DualChunk{ChunkSize: 8, LocalSize: 8} }, "chunk_size"},
	}
	for _, c := range cases {
		s := good
		c.mod(&s)
		err := s.Validate()
		if err == nil {
			t.Errorf("%s: Validate accepted %+v", c.name, s)
			continue
		}
		if !errors.Is(err, ErrSpec) {
			t.Errorf("%s: error %v does not wrap ErrSpec", c.name, err)
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q does not mention %q", c.name, err, c.want)
		}
		if e, err2 := New(s); err2 == nil || e != nil {
			t.Errorf("%s: New accepted the spec", c.name)
		}
	}
	// New refuses absurd or negative cache lengths.
	if _, err := New(good, WithCacheLen(1<<40)); err == nil {
		t.Errorf("New with a 2^40-row cache: no error")
	}
}

func ones(n int) []float64 {
	f := make([]float64, n)
	for i := range f {
		f[i] = 1
	}
	return f
}

// buf is a contiguous dt tensor of the given shape over n elements (n may be short of the shape).
func buf(dt tensor.DType, n int, shape ...int) tensor.Tensor {
	return withBacking(tensor.Tensor{DType: dt, Shape: shape}, n)
}

// withBacking gives t an n-element zero backing slice of its dtype.
func withBacking(t tensor.Tensor, n int) tensor.Tensor {
	if t.DType == tensor.F32 {
		t.F32 = make([]float32, n)
	} else {
		t.Bits = make([]uint16, n)
	}
	return t
}

// other is a float dtype different from dt.
func other(dt tensor.DType) tensor.DType {
	if dt == tensor.F32 {
		return tensor.BF16
	}
	return tensor.F32
}

// TestForwardZerosBadShape: a key made by tensor.Zeros with a negative dimension is refused
// with that shape, not taken for an absent key (which Forward would skip without a word) nor
// called missing.
func TestForwardZerosBadShape(t *testing.T) {
	e := mustNew(t, Spec{HeadSize: 64, RotaryDim: 64, Base: 10000, MaxPositions: 64})
	pos := tensor.FromI64([]int64{0, 1}, 2)
	q := tensor.Zeros(tensor.F32, 2, 1, 64)
	for name, k := range map[string]tensor.Tensor{"key": tensor.Zeros(tensor.F32, 2, -1, 64)} {
		err := e.Forward(pos, q, k)
		if err == nil || !strings.Contains(err.Error(), "[2,-1,64]") || strings.Contains(err.Error(), "missing") {
			t.Errorf("Forward with %s Zeros(F32, 2, -1, 64): %v, want an error naming the shape [2,-1,64]", name, err)
		}
	}
	err := e.Forward(pos, tensor.Zeros(tensor.F32, -2, 1, 64), tensor.Tensor{})
	if err == nil || !strings.Contains(err.Error(), "[-2,1,64]") {
		t.Errorf("Forward with query Zeros(F32, -2, 1, 64): %v, want an error naming the shape", err)
	}
}
