// Package explain names the porting mistake behind a wrong RoPE. Given an op's inputs, the
// exact outputs and a candidate's, it recomputes the op under each mistake that breaks RoPE
// ports (the other pairing, the default base, scaling or attention factor left out, positions
// off by one or without the cache offset, the rotation the wrong way, the rotary slice at the
// wrong end of the head, query and key swapped or one left unrotated, a transposed output) and
// under the arithmetic other implementations use (Hugging Face's float32 angles and 16-bit
// cos/sin and products; ggml's float32 angles), and reports the readings that reproduce the
// candidate: the elements it gets wrong are the elements the reading gets wrong, within the
// same tolerance. ExplainGolden takes the op's case from a golden bundle (package golden) and
// a candidate's outputs; rotary verify prints its Findings.
//
// A reading of arithmetic is a precision finding, not a bug: it says how many elements that
// arithmetic moves off the exact result, by how many ULPs, and so which tolerance a kernel that
// computes that way needs.
package explain

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/compare"
	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/tensor"
)

// Case is one failed rotation of query and key by a model's RoPE, as rotary_embedding computes
// it: out = R(positions) · in, pair by pair.
type Case struct {
	// Spec is the layer's RoPE: a spec without per-layer rules (rope.Spec.ForLayer's).
	Spec rope.Spec
	// Positions are the op's positions: [T], or one row per MRoPE section [rows, T].
	Positions tensor.Tensor
	// Query and Key are the op's inputs, before rotation: [T, H, D] or [T, H·D]. Key may be
	// absent (the zero Tensor).
	Query, Key tensor.Tensor
	// Want holds the exact outputs and Got the candidate's, by name: "query", and "key" when
	// Key is given. Got's tensors hold as many elements as Want's, in any dtype.
	Want, Got map[string]tensor.Tensor
}

// Finding is a reading that reproduces (Residual 0) or partly reproduces the candidate.
type Finding struct {
	// Mistake names the reading: pairing, output_interleaved, base_default, ... (stable, for
	// tools).
	Mistake string `json:"mistake"`
	// Reading says what the candidate computed; Fix what the right computation is.
	Reading string `json:"reading"`
	Fix     string `json:"fix"`
	// Failing is the count of the candidate's elements over tolerance against the exact
	// outputs, Explained of those within tolerance of the reading, and Residual the count of
	// the candidate's elements over tolerance against the reading (0: it reproduces the
	// candidate).
	Failing   int `json:"failing"`
	Explained int `json:"explained"`
	Residual  int `json:"residual"`
	// Precision is set for a reading of arithmetic: a precision finding, not a bug.
	Precision *Precision `json:"precision,omitempty"`
}

// Reproduces reports whether the reading accounts for every element of the candidate.
func (f Finding) Reproduces() bool { return f.Residual == 0 }

// Precision is what a reading of arithmetic costs against the exact outputs.
type Precision struct {
	// Moved of Elements differ from the exact outputs.
	Moved    int `json:"moved"`
	Elements int `json:"elements"`
	// ULP is the tolerance a kernel computing this way needs (verify --ulp), beside the default
	// absolute tolerance; MaxAbs the largest absolute error, the --atol that alone would do.
	ULP    int64   `json:"ulp"`
	MaxAbs float64 `json:"max_abs_err"`
	// FromPosition is the least position at which the reading puts an element over tolerance
	// (where it starts to matter); -1 when it puts none over.
	FromPosition int64 `json:"from_position"`
}

// ErrCase is wrapped by the errors Explain returns for a Case it cannot read.
var ErrCase = errors.New("explain: case")

// Report is what Explain found.
type Report struct {
	// Failing is the count of the candidate's elements over tolerance; Tried the count of
	// readings that apply to the Case's spec and were tried.
	Failing, Tried int
	// Findings are the readings that reproduce the candidate, best first; when none does, the
	// readings that account for at least half of the failing elements.
	Findings []Finding
}

// Explain recomputes c under every reading that applies to its spec and reports those that
// explain the candidate. Tolerances are opts's, as the candidate was judged (a negative ATol:
// 2^-20 × the largest |exact output| of each tensor). A candidate that passes has nothing to
// explain: the Report is empty.
func Explain(c Case, opts compare.Options) (Report, error) {
	s, err := newState(c, opts)
	if err != nil {
		return Report{}, err
	}
	return s.report(), nil
}

// report tries every reading that applies.
func (s *state) report() Report {
	if s.failing == 0 {
		return Report{}
	}
	rep := Report{Failing: s.failing}
	var full, partial []Finding
	for _, r := range readings {
		if r.applies != nil && !r.applies(s) {
			continue
		}
		rep.Tried++
		pred, err := r.run(s)
		if err != nil || pred == nil {
			continue // a reading the spec cannot express (the mutated spec is invalid)
		}
		f, ok := s.judge(r, pred)
		switch {
		case !ok:
		case f.Reproduces():
			full = append(full, f)
		case 2*f.Explained >= f.Failing:
			partial = append(partial, f)
		}
	}
	rep.Findings = full
	if len(full) == 0 {
		rep.Findings = partial
	}
	slices.SortStableFunc(rep.Findings, func(a, b Finding) int {
		if a.Explained != b.Explained {
			return b.Explained - a.Explained
		}
		return a.Residual - b.Residual
	})
	return rep
}

// state is a case made contiguous, with its failing elements marked. Each output is named
// after the input it rotates ("query", "key"; "out", from x).
type state struct {
	opts     compare.Options
	names    []string                 // the outputs, in order
	inputs   map[string]tensor.Tensor // each output's input, before rotation
	want     map[string]tensor.Tensor
	got      map[string]tensor.Tensor
	atol     map[string]float64 // the absolute tolerance of each output against want
	over     map[string][]bool  // got over tolerance against want
	sample   map[string][]int   // an even sample of each output's failing elements (promising)
	failing  int
	elements int

	// What every reading of the head reads: its size, the rotated dims at its start, the pairing.
	headSize, rotaryDim int
	style               rope.Style
	// swap is the transposed reading's view of each output: outer × a × b × inner elements,
	// a and b the two axes a head-major write swaps (b 0: each output's own); zero when no
	// such reading applies.
	swap [4]int

	// A rotation by the model's RoPE (Case): the spec, at positions.
	bySpec  bool
	spec    rope.Spec
	pos     tensor.Tensor // contiguous
	posRows int
	tokens  int
	maxPos  int64

	// A rotation by given cos and sin (CosSinCase).
	cs *CosSinCase
	// A rotation by a cos/sin cache at positions (CacheCase): pos, posRows, tokens, maxPos
	// as for a spec.
	npu *rotary.NPUMRoPEParams
	// The norm of qk_rmsnorm_rope (QKNormCase), before its rotation.
	qk *qkNorm
	// The packing of apply_rotary_emb_thd (THDCase); cs then holds its x and tables.
	thd *thdCase
	// A vision tower's 2-D rotation (VisionCase): pos, posRows, tokens as for a spec.
	vision *rotary.VisionRoPE2DParams
	// A position-dependent query scale (QueryScaleCase): pos and tokens as for a spec.
	qs *rotary.QueryScaleParams
	// An op given by its rerun (RerunCase).
	rr *RerunCase
}

// mark takes the outputs' tensors, contiguous, and marks the candidate's failing elements.
func (s *state) mark(name string, in, want, got tensor.Tensor) error {
	if want.IsZero() || got.IsZero() {
		return fmt.Errorf("%w: Want and Got: want a %q tensor in each", ErrCase, name)
	}
	if want.Len() != in.Len() || got.Len() != in.Len() {
		return fmt.Errorf("%w: %s: input, Want and Got hold %d, %d and %d elements; want the same", ErrCase, name, in.Len(), want.Len(), got.Len())
	}
	ic, wc, gc := contiguous(in), contiguous(want), contiguous(got)
	if ic.IsZero() || wc.IsZero() || gc.IsZero() {
		return fmt.Errorf("%w: %s: a tensor whose view reaches outside its data", ErrCase, name)
	}
	over, atol, err := compare.Over(wc, gc, s.opts)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrCase, name, err)
	}
	s.names = append(s.names, name)
	s.inputs[name], s.want[name], s.got[name] = ic, wc, gc
	s.over[name], s.atol[name] = over, atol
	failing := 0
	for _, o := range over {
		if o {
			failing++
		}
	}
	s.failing += failing
	step, k := max(failing/sampleSize, 1), 0
	for i, o := range over {
		if o {
			if k%step == 0 {
				s.sample[name] = append(s.sample[name], i)
			}
			k++
		}
	}
	s.elements += wc.Len()
	return nil
}

// contiguous is t when it is contiguous from its first element, else its copy: the readings
// index tensors flat and never write them.
func contiguous(t tensor.Tensor) tensor.Tensor {
	if t.Contiguous() && t.Offset == 0 && t.Check("t") == nil {
		return t
	}
	return t.Clone()
}

func blankState(opts compare.Options) *state {
	return &state{opts: opts, inputs: map[string]tensor.Tensor{}, want: map[string]tensor.Tensor{}, got: map[string]tensor.Tensor{},
		atol: map[string]float64{}, over: map[string][]bool{}, sample: map[string][]int{}}
}

func newState(c Case, opts compare.Options) (*state, error) {
	if c.Spec.DualChunk != nil {
		return nil, fmt.Errorf("%w: dual-chunk models rotate each query variant at its own positions; not covered", ErrCase)
	}
	if c.Spec.Local != nil {
		return nil, fmt.Errorf("%w: Spec has per-layer rules; pass the layer's (Spec.ForLayer)", ErrCase)
	}
	if err := c.Spec.Validate(); err != nil {
		return nil, fmt.Errorf("%w: Spec: %v", ErrCase, err)
	}
	s := blankState(opts)
	s.bySpec, s.spec = true, c.Spec
	s.headSize, s.rotaryDim, s.style = c.Spec.HeadSize, c.Spec.RotaryDim, c.Spec.Style
	if c.Spec.NoRoPE {
		s.rotaryDim = 0
	}
	if c.Query.IsZero() {
		return nil, fmt.Errorf("%w: Query: missing", ErrCase)
	}
	if err := s.markQueryKey(c.Query, c.Key, c.Want, c.Got); err != nil {
		return nil, err
	}
	if err := s.setPositions(c.Positions); err != nil {
		return nil, err
	}
	return s, nil
}

// markQueryKey marks query, and key when given.
func (s *state) markQueryKey(q, k tensor.Tensor, want, got map[string]tensor.Tensor) error {
	for _, in := range []struct {
		name string
		t    tensor.Tensor
	}{{"query", q}, {"key", k}} {
		if in.t.IsZero() {
			continue
		}
		if !isFloat(in.t) {
			return fmt.Errorf("%w: %s: dtype %v: want F32, F16 or BF16", ErrCase, in.name, in.t.DType)
		}
		if err := s.mark(in.name, in.t, want[in.name], got[in.name]); err != nil {
			return err
		}
	}
	return nil
}

// setPositions takes a query/key rotation's positions ([T] or [rows, T]) once the head size is
// known, and the transposed reading's view of its heads.
func (s *state) setPositions(positions tensor.Tensor) error {
	s.pos = positions.Clone()
	if s.pos.IsZero() || s.pos.DType.IsFloat() || s.pos.DType == tensor.F64 || s.pos.Rank() < 1 || s.pos.Rank() > 2 {
		return fmt.Errorf("%w: Positions: want an integer tensor [T] or [rows, T]", ErrCase)
	}
	s.tokens = s.pos.Shape[s.pos.Rank()-1]
	s.posRows = s.pos.Len() / max(s.tokens, 1)
	D := s.headSize
	if s.tokens == 0 || D <= 0 || s.inputs["query"].Len()%(s.tokens*D) != 0 {
		return fmt.Errorf("%w: Query: %d elements do not split into %d tokens of heads of %d", ErrCase, s.inputs["query"].Len(), s.tokens, D)
	}
	for i := range s.pos.Len() {
		p := s.pos.Int64At(i)
		if p < 0 {
			return fmt.Errorf("%w: Positions: %d is negative", ErrCase, p)
		}
		s.maxPos = max(s.maxPos, p)
	}
	if h := s.inputs["query"].Len() / (s.tokens * D); h > 1 && s.tokens > 1 {
		s.swap = [4]int{1, s.tokens, 0, D}
	}
	return nil
}

// judge measures the candidate against a reading's outputs.
func (s *state) judge(r reading, pred map[string]tensor.Tensor) (Finding, bool) {
	f := Finding{Mistake: r.id, Reading: r.reading(s), Fix: r.fix(s), Failing: s.failing}
	opts := s.opts
	for _, n := range s.names {
		if p, ok := pred[n]; !ok || p.Len() != s.want[n].Len() || p.DType != s.want[n].DType {
			return f, false
		}
	}
	if !s.promising(pred) {
		return f, false
	}
	for _, n := range s.names {
		p := pred[n]
		// The candidate is judged against the reading with the tolerance it was judged by.
		opts.ATol = s.atol[n]
		over, _, err := compare.Over(p, s.got[n], opts)
		if err != nil {
			return f, false
		}
		for i, o := range over {
			switch {
			case o:
				f.Residual++
			case s.over[n][i]:
				f.Explained++
			}
		}
	}
	if r.precision {
		f.Precision = s.cost(pred)
	}
	return f, f.Explained > 0
}

// sampleSize is how many failing elements of each output promising looks at.
const sampleSize = 4096

// promising tells a reading that may account for half of the failing elements from one that
// cannot, on an even sample of them, before the full count over every element: most readings
// explain none, and the sample spares their full count. A reading whose sample it explains
// below 40% is dropped; one that reproduces the candidate explains all of its sample.
func (s *state) promising(pred map[string]tensor.Tensor) bool {
	explained, sampled := 0, 0
	opts := s.opts
	for _, n := range s.names {
		idx := s.sample[n]
		if len(idx) == 0 {
			continue
		}
		p, g := tensor.Zeros(pred[n].DType, len(idx)), tensor.Zeros(s.got[n].DType, len(idx))
		for k, i := range idx {
			copyElem(p, k, pred[n], i)
			copyElem(g, k, s.got[n], i)
		}
		opts.ATol = s.atol[n]
		over, _, err := compare.Over(p, g, opts)
		if err != nil {
			return false
		}
		for _, o := range over {
			if !o {
				explained++
			}
		}
		sampled += len(idx)
	}
	return 5*explained >= 2*sampled
}

// cost is what a reading of arithmetic moves off the exact outputs.
func (s *state) cost(pred map[string]tensor.Tensor) *Precision {
	p := &Precision{Elements: s.elements, FromPosition: -1}
	opts := s.opts
	for _, n := range s.names {
		want, got := s.want[n], pred[n]
		cd, _, _ := compare.CommonDType(want.DType, got.DType, "", "")
		for i := range want.Len() {
			x, y := compare.RoundTo(cd, want.Float64At(i)), compare.RoundTo(cd, got.Float64At(i))
			if x == y || math.IsNaN(x) && math.IsNaN(y) {
				continue
			}
			p.Moved++
			if math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) {
				continue // no tolerance covers it: counted as moved, not as a size
			}
			diff := math.Abs(x - y)
			p.MaxAbs = max(p.MaxAbs, diff)
			if diff > s.atol[n] {
				p.ULP = max(p.ULP, tensor.ULPDiff(cd, x, y))
			}
		}
		if !s.bySpec {
			continue
		}
		opts.ATol = s.atol[n]
		over, _, err := compare.Over(want, got, opts)
		if err != nil {
			continue
		}
		perToken := len(over) / s.tokens
		for i, o := range over {
			if !o {
				continue
			}
			t := i / perToken
			least := s.pos.Int64At(t) // the text row; MRoPE rows start from it too
			for r := 1; r < s.posRows; r++ {
				least = min(least, s.pos.Int64At(r*s.tokens+t))
			}
			if p.FromPosition < 0 || least < p.FromPosition {
				p.FromPosition = least
			}
		}
	}
	return p
}
