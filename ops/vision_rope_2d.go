package ops

import (
	"fmt"
	"math"

	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/tensor"
)

// VisionLayout is how a vision tower's 2-D RoPE spreads its frequencies over a token's two
// coordinates.
type VisionLayout uint8

// The layouts.
const (
	// VisionSplit (Qwen2-VL, Qwen2.5-VL, Qwen3-VL, Llama 4): with q = D/4, pair i < q turns by
	// coordinate 0 · theta^(−4i/D) and pair q + k by coordinate 1 · theta^(−4k/D): the
	// frequencies of a D/2-wide RoPE, once per coordinate (Qwen2-VL's VisionRotaryEmbedding(D/2)
	// and rot_pos_emb, Llama4VisionRotaryEmbedding).
	VisionSplit VisionLayout = iota
	// VisionPixtral (Pixtral, Mistral 3): pair i < q turns by coordinate 0 · theta^(−4i/D), pair
	// q + k by coordinate 1 · theta^(−(4k+2)/D): coordinate 0 on the even and coordinate 1 on
	// the odd frequencies of a D-wide RoPE (PixtralRotaryEmbedding).
	VisionPixtral
)

func (l VisionLayout) String() string {
	switch l {
	case VisionSplit:
		return "split"
	case VisionPixtral:
		return "pixtral"
	}
	return fmt.Sprintf("VisionLayout(%d)", uint8(l))
}

// ParseVisionLayout reads a VisionLayout's name.
func ParseVisionLayout(s string) (VisionLayout, error) {
	switch s {
	case "split", "qwen2_vl", "llama4":
		return VisionSplit, nil
	case "pixtral":
		return VisionPixtral, nil
	}
	return 0, fmt.Errorf("vision layout %q: want split (Qwen2-VL, Llama 4) or pixtral", s)
}

// VisionRoPE2DParams are the caller's arguments of op vision_rope_2d.
type VisionRoPE2DParams struct {
	// Positions are I32 or I64 [2, T]: each token's two coordinates, ≥ 0. Qwen2-VL: (h, w) of
	// its patch (multimodal.Qwen2VisionPositions); Llama 4: (column + 1, row + 1), the CLS token
	// (0, 0), which turns by nothing; Pixtral: (row, column).
	Positions tensor.Tensor
	// Query is [T, H, HeadSize] or [T, H·HeadSize], rotated in place; Key too when not zero.
	Query, Key tensor.Tensor
	// HeadSize is the vision head size D, a multiple of 4; the whole head rotates.
	HeadSize int
	// Theta is the base (0: 10000, every tower's default).
	Theta float64
	// Style is the pairing: NeoX (Qwen-VL, HF's Pixtral) or GPT-J (Llama 4, Mistral's Pixtral).
	Style  rope.Style
	Layout VisionLayout
}

// coordinateRows is vision_rope_2d's one accepted position row count, (h, w): a package value,
// since a slice literal in the call escapes and costs an allocation per call.
var coordinateRows = []int{2}

// VisionRoPE2DArgs are the arguments of op vision_rope_2d: pair i of token t turns by
// Positions.At(i / (D/4), t) · Freq(i) (the coordinate of its half, the layout's frequency),
// cos and sin computed in float64 and rounded once to float32, the rotation in float32.
type VisionRoPE2DArgs struct {
	RoPE
	Positions Positions
	Theta     float64
	Layout    VisionLayout
}

// Freq is pair i's frequency.
func (a *VisionRoPE2DArgs) Freq(i int) float64 {
	d := a.RotaryDim
	q := d / 4
	e := float64(4*i) / float64(d)
	if i >= q {
		k := i - q
		e = float64(4*k) / float64(d)
		if a.Layout == VisionPixtral {
			e = float64(4*k+2) / float64(d)
		}
	}
	return 1 / math.Pow(a.Theta, e)
}

// VisionRoPE2D is the op.
var VisionRoPE2D = NewOp[VisionRoPE2DArgs]("vision_rope_2d")

// NewVisionRoPE2D checks vision_rope_2d's arguments: query (and key) heads of HeadSize, a
// multiple of 4 up to 65536; positions [2, T] for their T tokens, ≥ 0; theta finite and > 1
// (0 for 10000); a known style and layout.
func NewVisionRoPE2D(p VisionRoPE2DParams) (VisionRoPE2DArgs, error) {
	if p.HeadSize < 4 || p.HeadSize%4 != 0 || p.HeadSize > 1<<16 {
		return VisionRoPE2DArgs{}, fmt.Errorf("head_size %d: want a multiple of 4 in 4..65536 (each coordinate turns D/4 pairs)", p.HeadSize)
	}
	theta := p.Theta
	if theta == 0 {
		theta = 10000
	}
	if !(theta > 1) || math.IsInf(theta, 0) {
		return VisionRoPE2DArgs{}, fmt.Errorf("theta %v: want a finite number > 1 (0 for 10000)", p.Theta)
	}
	if p.Style != rope.NeoX && p.Style != rope.GPTJ {
		return VisionRoPE2DArgs{}, fmt.Errorf("style %v: want neox or gptj", p.Style)
	}
	if p.Layout != VisionSplit && p.Layout != VisionPixtral {
		return VisionRoPE2DArgs{}, fmt.Errorf("layout %v: want split or pixtral", p.Layout)
	}
	q, k, err := NewQueryKey(p.Query, p.Key, p.HeadSize)
	if err != nil {
		return VisionRoPE2DArgs{}, err
	}
	if err := p.Positions.Check("positions"); err != nil {
		return VisionRoPE2DArgs{}, err
	}
	if p.Positions.Rank() != 2 {
		return VisionRoPE2DArgs{}, fmt.Errorf("positions: shape %s: want [2, tokens] (each token's two coordinates)", tensor.ShapeString(p.Positions.Shape))
	}
	pos, err := NewPositions(p.Positions, q.Tokens, coordinateRows, NoLimit)
	if err != nil {
		return VisionRoPE2DArgs{}, err
	}
	return VisionRoPE2DArgs{RoPE: RoPE{RotaryDim: p.HeadSize, GPTJ: p.Style == rope.GPTJ, Query: q, Key: k}, Positions: pos, Theta: theta, Layout: p.Layout}, nil
}
