package explain

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/compare"
	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/tensor"
)

// The candidates here are written the way a porting engineer's Python would compute them:
// float64 angles and products rounded once (naive), with one mistake each, independent of the
// readings' code. The exact outputs are rotary's.

// mistake is what a naive candidate does wrong.
type mistake struct {
	spec     func(*rope.Spec)        // frequencies and pairing from this spec instead
	position func(p int64) int64     // positions mapped
	reversed bool                    // sin negated
	atEnd    bool                    // rotary dims taken from the end of the head
	whole    bool                    // every dim of the head rotated
	out      func(c *testCase)       // outputs rewritten after the rotation
	hf       bool                    // Hugging Face's BF16 arithmetic
	angles32 bool                    // angles in float32
	skipKey  bool                    // the key left unrotated
	noise    func(x float32) float32 // every output element disturbed
}

type testCase struct {
	spec           rope.Spec
	pos            []int64
	q, k           tensor.Tensor
	wantQ, wantK   tensor.Tensor
	gotQ, gotK     tensor.Tensor
	tokens, hq, hk int
}

func newTestCase(t *testing.T, spec rope.Spec, d tensor.DType, pos []int64, hq, hk int) *testCase {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	T, D := len(pos), spec.HeadSize
	fill := func(h int) tensor.Tensor {
		x := tensor.Zeros(d, T, h, D)
		for i := range x.Len() {
			x.SetFloat32(i, float32(rng.NormFloat64()))
		}
		return x
	}
	c := &testCase{spec: spec, pos: pos, q: fill(hq), k: fill(hk), tokens: T, hq: hq, hk: hk}
	c.wantQ, c.wantK = c.q.Clone(), c.k.Clone()
	emb, err := rotary.New(spec, rotary.WithCacheLen(0))
	if err != nil {
		t.Fatal(err)
	}
	if err := emb.Forward(tensor.FromI64(pos, T), c.wantQ, c.wantK); err != nil {
		t.Fatal(err)
	}
	return c
}

// candidate computes the rotation naively with mistake m.
func (c *testCase) candidate(m mistake) {
	spec := c.spec
	if m.spec != nil {
		spec.Scaling.ShortFactor = append([]float64(nil), spec.Scaling.ShortFactor...)
		spec.Scaling.LongFactor = append([]float64(nil), spec.Scaling.LongFactor...)
		m.spec(&spec)
	}
	D, rd, first := spec.HeadSize, spec.RotaryDim, 0
	if m.whole {
		rd = D
		spec.RotaryDim = D
	}
	if m.atEnd {
		first = D - rd
	}
	maxPos := int64(0)
	for _, p := range c.pos {
		maxPos = max(maxPos, p)
	}
	inv, att := spec.Frequencies(int(maxPos))
	rot := func(x tensor.Tensor, skip bool) tensor.Tensor {
		out := x.Clone()
		if skip {
			return out
		}
		d := x.DType
		r16 := func(v float32) float32 { return tensor.ToFloat32(d, tensor.FromFloat32(d, v)) }
		for row := 0; row < x.Len(); row += D {
			p := c.pos[row/(x.Len()/c.tokens)]
			if m.position != nil {
				p = m.position(p)
			}
			for i := range rd / 2 {
				j, k := first+i, first+i+rd/2
				if spec.Style == rope.GPTJ {
					j, k = first+2*i, first+2*i+1
				}
				a, b := float64(x.Float32At(row+j)), float64(x.Float32At(row+k))
				angle := float64(p) * inv[i]
				cs, sn := math.Cos(angle)*att, math.Sin(angle)*att
				if m.angles32 || m.hf {
					inv32 := float32(inv[i])
					if m.hf && spec.Scaling.Type == "" {
						inv32 = float32(1 / math.Pow(spec.Base, float64(float32(2*i)/float32(rd))))
					}
					f := float32(p) * inv32
					cs = float64(float32(math.Cos(float64(f))) * float32(att))
					sn = float64(float32(math.Sin(float64(f))) * float32(att))
				}
				if m.reversed {
					sn = -sn
				}
				if m.hf {
					c16, s16 := r16(float32(cs)), r16(float32(sn))
					a16, b16 := float32(a), float32(b)
					out.SetFloat32(row+j, r16(r16(a16*c16)+r16(-b16*s16)))
					out.SetFloat32(row+k, r16(r16(b16*c16)+r16(a16*s16)))
					continue
				}
				out.SetFloat32(row+j, float32(a*cs-b*sn))
				out.SetFloat32(row+k, float32(b*cs+a*sn))
			}
		}
		return out
	}
	c.gotQ, c.gotK = rot(c.q, false), rot(c.k, m.skipKey)
	if m.out != nil {
		m.out(c)
	}
	if m.noise != nil {
		for _, g := range []tensor.Tensor{c.gotQ, c.gotK} {
			for i := range g.Len() {
				g.SetFloat32(i, m.noise(g.Float32At(i)))
			}
		}
	}
}

func (c *testCase) explain(t *testing.T) Report {
	t.Helper()
	rep, err := Explain(Case{
		Spec: c.spec, Positions: tensor.FromI64(c.pos, len(c.pos)), Query: c.q, Key: c.k,
		Want: map[string]tensor.Tensor{"query": c.wantQ, "key": c.wantK},
		Got:  map[string]tensor.Tensor{"query": c.gotQ, "key": c.gotK},
	}, compare.Options{MaxULP: 1, ATol: -1})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func positions(from int64, n int) []int64 {
	p := make([]int64, n)
	for i := range p {
		p[i] = from + int64(i)
	}
	return p
}

func llama3() rope.Spec {
	return rope.Spec{HeadSize: 128, RotaryDim: 128, Base: 500000, MaxPositions: 131072,
		Scaling: rope.Scaling{Type: rope.ScalingLlama3, Factor: 8, OriginalMaxPositions: 8192, LowFreqFactor: 1, HighFreqFactor: 4}}
}

// TestExplainNamesTheMistake: each mistake a port makes is named, first, and reproduces the
// candidate; the precision readings say what they cost.
func TestExplainNamesTheMistake(t *testing.T) {
	partial := rope.Spec{HeadSize: 64, RotaryDim: 32, Base: 10000, MaxPositions: 4096}
	yarn := rope.Spec{HeadSize: 64, RotaryDim: 64, Base: 10000, MaxPositions: 16384,
		Scaling: rope.Scaling{Type: rope.ScalingYaRN, Factor: 4, OriginalMaxPositions: 4096}}
	short, long := make([]float64, 32), make([]float64, 32)
	for i := range short {
		short[i], long[i] = 1+float64(i)/64, 1+float64(i)/4
	}
	longrope := rope.Spec{HeadSize: 64, RotaryDim: 64, Base: 10000, MaxPositions: 131072,
		Scaling: rope.Scaling{Type: rope.ScalingLongRoPE, OriginalMaxPositions: 4096, ShortFactor: short, LongFactor: long}}
	gptj := rope.Spec{HeadSize: 64, RotaryDim: 64, Base: 10000, Style: rope.GPTJ, MaxPositions: 2048}
	transpose := func(c *testCase) {
		for _, g := range []*tensor.Tensor{&c.gotQ, &c.gotK} {
			h := g.Shape[1]
			tr := tensor.Zeros(g.DType, g.Shape...)
			for tok := range c.tokens {
				for hh := range h {
					for d := range g.Shape[2] {
						tr.Bits[(hh*c.tokens+tok)*g.Shape[2]+d] = g.Bits[(tok*h+hh)*g.Shape[2]+d]
					}
				}
			}
			*g = tr
		}
	}
	for _, tc := range []struct {
		name, want string
		spec       rope.Spec
		pos        []int64
		hk         int
		dtype      tensor.DType
		m          mistake
	}{
		{"pairing", "pairing", llama3(), positions(100, 8), 2, tensor.BF16, mistake{spec: func(s *rope.Spec) { s.Style = rope.GPTJ }}},
		{"base", "base_default", llama3(), positions(100, 8), 2, tensor.BF16, mistake{spec: func(s *rope.Spec) { s.Base = 10000 }}},
		{"scaling", "scaling_missing", llama3(), positions(9000, 8), 2, tensor.BF16, mistake{spec: func(s *rope.Spec) { s.Scaling = rope.Scaling{} }}},
		{"plus one", "positions_plus_one", llama3(), positions(100, 8), 2, tensor.BF16, mistake{position: func(p int64) int64 { return p + 1 }}},
		{"minus one", "positions_minus_one", llama3(), positions(100, 8), 2, tensor.BF16, mistake{position: func(p int64) int64 { return p - 1 }}},
		{"no offset", "positions_from_zero", llama3(), positions(100, 8), 2, tensor.BF16, mistake{position: func(p int64) int64 { return p - 100 }}},
		{"token index", "token_index_as_position", llama3(), []int64{7, 3, 900, 12, 5, 40}, 2, tensor.BF16, mistake{position: func(p int64) int64 {
			return map[int64]int64{7: 0, 3: 1, 900: 2, 12: 3, 5: 4, 40: 5}[p]
		}}},
		{"reversed", "rotation_reversed", llama3(), positions(100, 8), 2, tensor.BF16, mistake{reversed: true}},
		{"reversed gptj", "rotation_reversed", gptj, positions(3, 8), 2, tensor.F32, mistake{reversed: true}},
		{"key", "key_not_rotated", llama3(), positions(100, 8), 2, tensor.BF16, mistake{skipKey: true}},
		{"swapped", "query_key_swapped", llama3(), positions(100, 8), 4, tensor.BF16, mistake{out: func(c *testCase) { c.gotQ, c.gotK = c.gotK, c.gotQ }}},
		{"transposed", "output_transposed", llama3(), positions(100, 8), 2, tensor.BF16, mistake{out: transpose}},
		{"interleaved out", "output_order", llama3(), positions(100, 8), 2, tensor.BF16, mistake{out: func(c *testCase) {
			c.gotQ = eachDims(map[string]tensor.Tensor{"q": c.gotQ}, 128, interleaved(128))["q"]
			c.gotK = eachDims(map[string]tensor.Tensor{"k": c.gotK}, 128, interleaved(128))["k"]
		}}},
		{"whole head", "partial_rotary_ignored", partial, positions(100, 8), 2, tensor.BF16, mistake{whole: true}},
		{"at end", "rotary_slice_at_end", partial, positions(100, 8), 2, tensor.BF16, mistake{atEnd: true}},
		{"attention missing", "attention_factor_missing", yarn, positions(100, 8), 2, tensor.BF16, mistake{spec: func(s *rope.Spec) { s.Scaling.AttentionFactor = 1 }}},
		{"attention twice", "attention_factor_twice", yarn, positions(100, 8), 2, tensor.F32, mistake{spec: func(s *rope.Spec) {
			_, a := s.Frequencies(-1)
			s.Scaling.AttentionFactor = a * a
		}}},
		{"longrope", "longrope_tables_swapped", longrope, positions(100, 8), 2, tensor.BF16, mistake{spec: func(s *rope.Spec) {
			s.Scaling.ShortFactor, s.Scaling.LongFactor = s.Scaling.LongFactor, s.Scaling.ShortFactor
		}}},
		{"hf bf16", "hf_arithmetic", llama3(), positions(3000, 16), 2, tensor.BF16, mistake{hf: true}},
		{"angles f32", "angles_float32", llama3(), positions(120000, 8), 2, tensor.F32, mistake{angles32: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestCase(t, tc.spec, tc.dtype, tc.pos, 4, tc.hk)
			c.candidate(tc.m)
			rep := c.explain(t)
			if rep.Failing == 0 || len(rep.Findings) == 0 {
				t.Fatalf("failing %d, findings %+v", rep.Failing, rep.Findings)
			}
			for _, f := range rep.Findings {
				t.Logf("%s: %d of %d, residual %d, precision %+v", f.Mistake, f.Explained, f.Failing, f.Residual, f.Precision)
			}
			f := rep.Findings[0]
			if f.Mistake != tc.want || !f.Reproduces() || f.Explained != rep.Failing {
				t.Errorf("first finding %+v (of %d), want %s reproducing all %d failing", f, len(rep.Findings), tc.want, rep.Failing)
			}
			if (f.Precision != nil) != (tc.m.hf || tc.m.angles32) {
				t.Errorf("precision %+v", f.Precision)
			}
			if f.Reading == "" || f.Fix == "" {
				t.Errorf("reading %q fix %q", f.Reading, f.Fix)
			}
		})
	}
}

// TestExplainPrecisionCost: Hugging Face's BF16 arithmetic moves a share of the elements by a
// few ULPs, and float32 angles start to matter at large positions only.
func TestExplainPrecisionCost(t *testing.T) {
	c := newTestCase(t, llama3(), tensor.BF16, positions(3000, 16), 4, 2)
	c.candidate(mistake{hf: true})
	rep := c.explain(t)
	p := rep.Findings[0].Precision
	if p == nil || p.Moved == 0 || p.Moved >= p.Elements || p.ULP < 2 || p.Elements != (4+2)*16*128 {
		t.Fatalf("precision %+v", p)
	}
	// A kernel with that arithmetic passes at the ULP the finding names.
	for _, pair := range [][2]tensor.Tensor{{c.wantQ, c.gotQ}, {c.wantK, c.gotK}} {
		if r := compare.Tensors("x", pair[0], pair[1], compare.Options{MaxULP: p.ULP, ATol: -1}, compare.Axes{}); r.Problem != "" {
			t.Errorf("--ulp %d: %s", p.ULP, r.Problem)
		}
		if r := compare.Tensors("x", pair[0], pair[1], compare.Options{MaxULP: p.ULP - 1, ATol: -1}, compare.Axes{}); r.Problem == "" && pair[0].Shape[1] == 4 {
			t.Errorf("--ulp %d passes the query too: ULP is not the least", p.ULP-1)
		}
	}

	c = newTestCase(t, llama3(), tensor.F32, append(positions(0, 4), positions(120000, 4)...), 4, 2)
	c.candidate(mistake{angles32: true})
	rep = c.explain(t)
	if f := rep.Findings[0]; f.Mistake != "angles_float32" || f.Precision.FromPosition < 120000 {
		t.Errorf("finding %+v precision %+v: want float32 angles mattering from 120000 on", f, f.Precision)
	}
}

// TestExplainNothingToExplain: an exact candidate has no findings; noise matches no reading.
func TestExplainNothingToExplain(t *testing.T) {
	c := newTestCase(t, llama3(), tensor.BF16, positions(100, 8), 4, 2)
	c.candidate(mistake{})
	if rep := c.explain(t); rep.Failing != 0 || len(rep.Findings) != 0 {
		t.Errorf("an exact candidate: %+v", rep)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	c.candidate(mistake{noise: func(x float32) float32 { return x + float32(rng.NormFloat64()) }})
	rep := c.explain(t)
	if rep.Failing == 0 || len(rep.Findings) != 0 || rep.Tried != 14 { // the readings that apply to Llama 3.1 BF16 at positions 100..107
		t.Errorf("noise: %+v", rep)
	}
}

// TestExplainRefusesBadCases: the zero Case and malformed ones are errors wrapping ErrCase,
// never a panic; the caller's maps are left as they were.
func TestExplainRefusesBadCases(t *testing.T) {
	c := newTestCase(t, llama3(), tensor.BF16, positions(100, 8), 4, 2)
	good := func() Case {
		return Case{Spec: c.spec, Positions: tensor.FromI64(c.pos, len(c.pos)), Query: c.q, Key: c.k,
			Want: map[string]tensor.Tensor{"query": c.wantQ, "key": c.wantK},
			Got:  map[string]tensor.Tensor{"query": c.wantQ, "key": c.wantK}}
	}
	for name, mutate := range map[string]func(*Case){
		"zero":      func(k *Case) { *k = Case{} },
		"no got":    func(k *Case) { k.Got = nil },
		"short":     func(k *Case) { k.Got["query"] = tensor.FromF32([]float32{1}, 1) },
		"positions": func(k *Case) { k.Positions = tensor.FromF32([]float32{1}, 1) },
		"negative":  func(k *Case) { k.Positions = tensor.FromI64([]int64{0, 1, 2, 3, 4, 5, 6, -7}, 8) },
		"tokens":    func(k *Case) { k.Positions = tensor.FromI64([]int64{0, 1, 2}, 3) },
		"layers":    func(k *Case) { k.Spec.Local = &rope.LocalRoPE{} },
		"spec":      func(k *Case) { k.Spec.HeadSize = 0 },
	} {
		k := good()
		mutate(&k)
		if _, err := Explain(k, compare.Options{MaxULP: 1, ATol: -1}); !errors.Is(err, ErrCase) {
			t.Errorf("%s: %v", name, err)
		}
	}
	k := good()
	want := k.Want["query"]
	Explain(k, compare.Options{})
	if k.Want["query"].Bits == nil || &k.Want["query"].Bits[0] != &want.Bits[0] || len(k.Want) != 2 {
		t.Error("Explain replaced the caller's tensors")
	}
	if rep, err := Explain(good(), compare.Options{MaxULP: 1, ATol: -1}); err != nil || len(rep.Findings) != 0 || !strings.Contains("", "") {
		t.Errorf("a passing candidate: %+v %v", rep, err)
	}
}

// TestExplainPrecisionNonFinite: an input with a NaN and an infinity leaves the precision
// figures finite (an element non-finite on one side is moved, not measured), so the findings
// encode as JSON.
func TestExplainPrecisionNonFinite(t *testing.T) {
	c := newTestCase(t, llama3(), tensor.BF16, positions(3000, 16), 4, 2)
	c.q.SetFloat32(5, float32(math.NaN()))
	c.q.SetFloat32(300, float32(math.Inf(1)))
	c.wantQ = c.q.Clone()
	c.wantK = c.k.Clone()
	emb, err := rotary.New(c.spec, rotary.WithCacheLen(0))
	if err != nil {
		t.Fatal(err)
	}
	if err := emb.Forward(tensor.FromI64(c.pos, len(c.pos)), c.wantQ, c.wantK); err != nil {
		t.Fatal(err)
	}
	c.candidate(mistake{hf: true})
	rep := c.explain(t)
	if len(rep.Findings) == 0 {
		t.Fatalf("no findings: %+v", rep)
	}
	for _, f := range rep.Findings {
		if p := f.Precision; p != nil && (math.IsNaN(p.MaxAbs) || math.IsInf(p.MaxAbs, 0)) {
			t.Errorf("%s: MaxAbs %v", f.Mistake, p.MaxAbs)
		}
	}
	if _, err := json.Marshal(rep.Findings); err != nil {
		t.Errorf("the findings do not encode: %v", err)
	}
}
