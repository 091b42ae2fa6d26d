package check

import (
	"fmt"
	"math"
	"slices"

	"github.com/rotary-go/rotary/rope"
)

// f32Noise is the largest difference float32 tables cannot tell apart: a few half-ULPs of a
// unit cos/sin. Readings closer than this rotate alike once rounded to the float32 cache.
const f32Noise = 0x1p-22

// maxExactPositions is how many positions a comparison visits one by one; past it, positions
// are sampled evenly (the last one always), so that a 10M-token model costs what a 1M one does.
const maxExactPositions = 1 << 20

// Comparison is how far two specs' rotations of a unit vector are apart over positions
// 0..max-1 (layers whose RoPE differs compared each).
type Comparison struct {
	AttentionA float64 `json:"attention_factor_a"`
	AttentionB float64 `json:"attention_factor_b"`
	// MaxAngleDiff is the largest |θ_a − θ_b| in radians over positions and pairs, nil when the
	// two rotate different pairs (rotary dim, pairing or layers without RoPE differ).
	MaxAngleDiff *float64 `json:"max_angle_diff"`
	MaxAngleAt   int      `json:"max_angle_position"`
	// MaxOutputDiff is the largest |R_a x − R_b x| over unit vectors x along one head dim.
	MaxOutputDiff float64 `json:"max_output_diff"`
	MaxOutputAt   int     `json:"max_output_position"`
	// FirstPosition is the first position whose outputs differ beyond float32 noise; -1 none.
	FirstPosition int `json:"first_position"`
	Positions     int `json:"positions"`
	// Sampled: positions past 2^20 were sampled evenly, not all visited.
	Sampled bool `json:"sampled,omitempty"`
	// Structure names a difference no position shows for text positions (MRoPE sections).
	Structure string `json:"structure,omitempty"`
	Layer     int    `json:"layer"`
	Divergent bool   `json:"divergent"`
}

func (c Comparison) divergent() bool { return c.Divergent }

// divergent counts the rows (each embedding a Comparison) that differ beyond float32 noise.
func divergent[R interface{ divergent() bool }](rows []R) int {
	n := 0
	for _, row := range rows {
		if row.divergent() {
			n++
		}
	}
	return n
}

// tableKey says when a spec's frequencies for a call whose largest position is p can differ from
// those of p-1: LongRoPE switches tables at the original length (rope.Spec.FrequenciesInto),
// per-call dynamic NTK stretches with the call's length past max_position_embeddings.
func tableKey(s rope.Spec, p int) int {
	switch {
	case s.Scaling.Type == rope.ScalingLongRoPE:
		if p >= s.OriginalMax() {
			return 1
		}
	case s.Scaling.Type == rope.ScalingDynamic && s.Scaling.Dynamic == rope.DynamicPerCall:
		return max(p+1, s.DynamicMax())
	}
	return 0
}

// frequencyTable gives a spec's inv_freq and attention factor per position, recomputing only
// when tableKey changes.
type frequencyTable struct {
	spec rope.Spec
	// still are pairs whose text angle is 0 whatever the position (textUnrotated).
	still []int
	inv   []float64
	att   float64
	key   int
	init  bool
}

func (t *frequencyTable) at(p int) ([]float64, float64) {
	if t.spec.NoRoPE {
		return nil, 1
	}
	if k := tableKey(t.spec, p); !t.init || k != t.key {
		if t.inv == nil {
			t.inv = make([]float64, t.spec.Half())
		}
		t.att = t.spec.FrequenciesInto(t.inv, p)
		for _, i := range t.still {
			t.inv[i] = 0
		}
		t.key, t.init = k, true
	}
	return t.inv, t.att
}

// columns writes R e_j for every head dim j at angles θ_i = p·inv_i: each image has at most two
// nonzero entries (idx, val).
type column struct {
	idx [2]int
	val [2]float64
	n   int
}

func rotationColumns(s rope.Spec, inv []float64, att float64, p int, cols []column) {
	for j := range cols {
		cols[j] = column{idx: [2]int{j}, val: [2]float64{1}, n: 1}
	}
	if s.NoRoPE {
		return
	}
	h := s.Half()
	for i := range h {
		a, b := i, i+h
		if s.Style == rope.GPTJ {
			a, b = 2*i, 2*i+1
		}
		sin, cos := math.Sincos(float64(p) * inv[i])
		cols[a] = column{idx: [2]int{a, b}, val: [2]float64{att * cos, att * sin}, n: 2}
		cols[b] = column{idx: [2]int{a, b}, val: [2]float64{-att * sin, att * cos}, n: 2}
	}
}

// columnDiff is |x − y| for two sparse columns.
func columnDiff(x, y column) float64 {
	sum := 0.0
	for k := range x.n {
		v := x.val[k]
		for m := range y.n {
			if y.idx[m] == x.idx[k] {
				v -= y.val[m]
			}
		}
		sum += v * v
	}
	for m := range y.n {
		shared := false
		for k := range x.n {
			shared = shared || x.idx[k] == y.idx[m]
		}
		if !shared {
			sum += y.val[m] * y.val[m]
		}
	}
	return math.Sqrt(sum)
}

// comparePositions lists the positions a comparison visits: all below 2^20, then an even sample
// that ends on the last.
func comparePositions(n int) ([]int, bool) {
	if n <= maxExactPositions {
		ps := make([]int, n)
		for i := range ps {
			ps[i] = i
		}
		return ps, false
	}
	ps := make([]int, 0, 2*maxExactPositions+1)
	for p := range maxExactPositions {
		ps = append(ps, p)
	}
	stride := (n - maxExactPositions + maxExactPositions - 1) / maxExactPositions
	for p := maxExactPositions; p < n; p += stride {
		ps = append(ps, p)
	}
	if ps[len(ps)-1] != n-1 {
		ps = append(ps, n-1)
	}
	return ps, true
}

// textUnrotated lists the pairs a text token of s leaves unrotated: under llama.cpp's IMROPE
// layout those on the fourth position row, which llama.cpp fills with 0 for text tokens
// (src/llama-graph.cpp llm_graph_input_pos::set_input, llama.cpp 434f71a5b). A spec's 1-D
// positions would put the position there; llama.cpp's reading of a text token does not.
func textUnrotated(s rope.Spec) []int {
	if s.NoRoPE {
		return nil
	}
	return FourthRowPairs(s.MRoPE, s.Half())
}

// compareSpecs measures two readings' rotations against each other over text positions
// 0..max-1, as each reading feeds a text token (textUnrotated).
func compareSpecs(a, b rope.Spec) Comparison {
	c := Comparison{FirstPosition: -1}
	n := max(a.MaxPositions, b.MaxPositions, 1)
	c.Positions = n
	if a.HeadSize != b.HeadSize {
		c.Structure = fmt.Sprintf("head size %d vs %d", a.HeadSize, b.HeadSize)
		c.Divergent = true
		return c
	}
	stillA, stillB := textUnrotated(a), textUnrotated(b)
	if !sameSections(a.MRoPE, b.MRoPE) {
		text := "text positions rotate alike"
		if !slices.Equal(stillA, stillB) {
			text = "text positions differ where llama.cpp's IMROPE leaves pairs unrotated (its fourth position row, 0 for text)"
		}
		c.Structure = fmt.Sprintf("multimodal sections %s vs %s: %s, image and video positions do not", sectionsString(a.MRoPE), sectionsString(b.MRoPE), text)
		c.Divergent = true
	}
	samePairs := !a.NoRoPE && !b.NoRoPE && a.RotaryDim == b.RotaryDim && a.Style == b.Style
	ta, tb := &frequencyTable{spec: a, still: stillA}, &frequencyTable{spec: b, still: stillB}
	_, c.AttentionA = ta.at(0)
	_, c.AttentionB = tb.at(0)
	colsA := make([]column, a.HeadSize)
	colsB := make([]column, b.HeadSize)
	maxAngle := 0.0
	positions, sampled := comparePositions(n)
	c.Sampled = sampled
	for _, p := range positions {
		invA, attA := ta.at(p)
		invB, attB := tb.at(p)
		worst := 0.0
		if samePairs {
			// Both rotate pair i by its angle: the two columns of the pair differ by
			// |attA·e^{iθA} − attB·e^{iθB}|, √((attA − attB)² + 4·attA·attB·sin²(Δθ/2)), which
			// stays accurate for tiny Δθ; dims past the rotary dim pass through in both.
			dAtt := (attA - attB) * (attA - attB)
			for i := range invA {
				d := float64(p) * (invA[i] - invB[i])
				if math.Abs(d) > maxAngle {
					maxAngle, c.MaxAngleAt = math.Abs(d), p
				}
				h := math.Sin(d / 2)
				worst = max(worst, math.Sqrt(dAtt+4*attA*attB*h*h))
			}
		} else {
			rotationColumns(a, invA, attA, p, colsA)
			rotationColumns(b, invB, attB, p, colsB)
			for j := range colsA {
				worst = max(worst, columnDiff(colsA[j], colsB[j]))
			}
		}
		if worst > c.MaxOutputDiff {
			c.MaxOutputDiff, c.MaxOutputAt = worst, p
		}
		if worst > f32Noise && c.FirstPosition < 0 {
			c.FirstPosition = p
		}
	}
	if samePairs {
		c.MaxAngleDiff = &maxAngle
	}
	if c.MaxOutputDiff > f32Noise {
		c.Divergent = true
	}
	return c
}

func sameSections(a, b *rope.MRoPE) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Interleaved == b.Interleaved && a.AlternateHW == b.AlternateHW && a.GGMLFourth == b.GGMLFourth && slices.Equal(a.Sections, b.Sections)
}

func sectionsString(m *rope.MRoPE) string {
	if m == nil {
		return "none"
	}
	if m.GGMLFourth {
		return fmt.Sprint(m.Sections, " interleaved, llama.cpp's fourth position row")
	}
	if m.Interleaved {
		return fmt.Sprint(m.Sections, " interleaved")
	}
	if m.AlternateHW {
		return fmt.Sprint(m.Sections, " h/w alternating")
	}
	return fmt.Sprint(m.Sections, " chunked")
}
