package golden

import (
	"fmt"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

func init() {
	register(&Op{
		Name:    "apply_rotary_emb",
		Summary: "x, cos, sin (cos/sin full rotary width, broadcastable) → out = x·cos + rotate(x)·sin",
		Params: []Param{
			{Name: "layout", Kind: String, Usage: "layout of apply_rotary_emb's x: BSND, BNSD, SBND, THD (default: any rank); of rotary_embedding's query and key: BNSD for Hugging Face's [B,H,S,D] with position_ids [B,S], BSND [B,S,H,D], SBND [S,B,H,D] (default: [T,H,D] or [T,H·D])"},
			{Name: "rotary-mode", Kind: String, Default: "half", Usage: "apply_rotary_emb pairs: half (NeoX) or interleave (GPT-J)"},
		},
		Reads: []string{"layout", "rotary-mode"},
		Run:   runApplyRotaryEmb,
	})
	register(&Op{
		Name:    "apply_rotary_emb_backward",
		Summary: "dy, x, cos, sin → dx, dcos, dsin (apply_rotary_emb's gradients)",
		Reads:   []string{"layout", "rotary-mode"},
		Run:     runApplyRotaryEmbBackward,
	})
}

func rotaryOptions(a Args) (ops.Layout, rotary.Style, error) {
	var layout ops.Layout
	if s := a.str("layout"); s != "" {
		l, err := ops.ParseLayout(s)
		if err != nil {
			return "", 0, fmt.Errorf("--layout: %v", err)
		}
		layout = l
	}
	style, err := rotaryMode(a)
	if err != nil {
		return "", 0, err
	}
	return layout, style, nil
}

// rotaryMode reads --rotary-mode, which every op with a pair style shares.
func rotaryMode(a Args) (rotary.Style, error) {
	mode := a.str("rotary-mode")
	style, err := rope.ParseRotaryMode(mode)
	if err != nil {
		return 0, fmt.Errorf("--rotary-mode %q: want half or interleave", mode)
	}
	return style, nil
}

func runApplyRotaryEmb(c *Call) ([]safetensors.Tensor, error) {
	layout, style, err := rotaryOptions(c.Args)
	if err != nil {
		return nil, err
	}
	in, err := c.inputsNamed("x", "cos", "sin")
	if err != nil {
		return nil, err
	}
	out := tensor.Zeros(in[0].DType, in[0].Shape...)
	if err := rotary.ApplyRotaryEmb(c.Dispatcher, rotary.ApplyRotaryEmbParams{Layout: layout, X: in[0], Cos: in[1], Sin: in[2], Out: out, Style: style}); err != nil {
		return nil, err
	}
	return []safetensors.Tensor{toFile("out", out)}, nil
}

func runApplyRotaryEmbBackward(c *Call) ([]safetensors.Tensor, error) {
	layout, style, err := rotaryOptions(c.Args)
	if err != nil {
		return nil, err
	}
	in, err := c.inputsNamed("dy", "x", "cos", "sin")
	if err != nil {
		return nil, err
	}
	dx := tensor.Zeros(in[1].DType, in[1].Shape...)
	dcos := tensor.Zeros(in[2].DType, in[2].Shape...)
	dsin := tensor.Zeros(in[3].DType, in[3].Shape...)
	if err := rotary.ApplyRotaryEmbBackward(c.Dispatcher, rotary.ApplyRotaryEmbBackwardParams{Layout: layout, DY: in[0], X: in[1], Cos: in[2], Sin: in[3], DX: dx, DCos: dcos, DSin: dsin, Style: style}); err != nil {
		return nil, err
	}
	return []safetensors.Tensor{toFile("dx", dx), toFile("dcos", dcos), toFile("dsin", dsin)}, nil
}
