package golden

import (
	"fmt"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

func init() {
	register(&Op{
		Name:    "apply_rotary_emb_thd",
		Summary: "x [T,H,D], cu_seqlens [B+1], cos/sin [S,d] tables, optional start_positions [B] → out (packed sequences, --cp-size/--cp-rank)",
		// TransformerEngine's context parallelism.
		Params: []Param{
			{Name: "cp-size", Kind: Int, Default: "1", Usage: "apply_rotary_emb_thd context-parallel `size` (cu_seqlens are the full sequences', each a multiple of 2·size)"},
			{Name: "cp-rank", Kind: Int, Default: "0", Usage: "apply_rotary_emb_thd context-parallel `rank` of this x (holds chunks rank and 2·size−1−rank)"},
		},
		Reads: []string{"cp-size", "cp-rank", "rotary-mode"},
		Run:   runApplyRotaryEmbTHD,
	})
	register(&Op{
		Name:    "apply_rotary_emb_thd_backward",
		Summary: "dy, cu_seqlens, cos, sin, optional start_positions → dx (apply_rotary_emb_thd's gradient)",
		Reads:   []string{"cp-size", "cp-rank", "rotary-mode"},
		Run:     runApplyRotaryEmbTHDBackward,
	})
}

// contextParallel reads --cp-size and --cp-rank.
func contextParallel(a Args) (size, rank int, err error) {
	if size, err = a.int("cp-size"); err != nil {
		return 0, 0, err
	}
	rank, err = a.int("cp-rank")
	return size, rank, err
}

// thdInputs reads the packed-sequence description and the pair style.
func thdInputs(c *Call) (ops.PackedSeqs, rotary.Style, error) {
	style, err := rotaryMode(c.Args)
	if err != nil {
		return ops.PackedSeqs{}, 0, err
	}
	size, rank, err := contextParallel(c.Args)
	if err != nil {
		return ops.PackedSeqs{}, 0, err
	}
	// ops.PackedSeqs reads a CPSize of 0 as 1, so --cp-size 0 would run unsplit without a word.
	if size < 1 {
		return ops.PackedSeqs{}, 0, fmt.Errorf("--cp-size %d: want ≥ 1", size)
	}
	cu, err := c.tensor("cu_seqlens")
	if err != nil {
		return ops.PackedSeqs{}, 0, err
	}
	return ops.PackedSeqs{CuSeqlens: cu, StartPositions: c.Inputs["start_positions"], CPSize: size, CPRank: rank}, style, nil
}

func runApplyRotaryEmbTHD(c *Call) ([]safetensors.Tensor, error) {
	seqs, style, err := thdInputs(c)
	if err != nil {
		return nil, err
	}
	in, err := c.inputsNamed("x", "cos", "sin")
	if err != nil {
		return nil, err
	}
	out := tensor.Zeros(in[0].DType, in[0].Shape...)
	if err := rotary.ApplyRotaryEmbTHD(c.Dispatcher, rotary.ApplyRotaryEmbTHDParams{X: in[0], Cos: in[1], Sin: in[2], Out: out, Seqs: seqs, Style: style}); err != nil {
		return nil, err
	}
	return []safetensors.Tensor{toFile("out", out)}, nil
}

func runApplyRotaryEmbTHDBackward(c *Call) ([]safetensors.Tensor, error) {
	seqs, style, err := thdInputs(c)
	if err != nil {
		return nil, err
	}
	in, err := c.inputsNamed("dy", "cos", "sin")
	if err != nil {
		return nil, err
	}
	dx := tensor.Zeros(in[0].DType, in[0].Shape...)
	if err := rotary.ApplyRotaryEmbTHDBackward(c.Dispatcher, rotary.ApplyRotaryEmbTHDBackwardParams{DY: in[0], Cos: in[1], Sin: in[2], DX: dx, Seqs: seqs, Style: style}); err != nil {
		return nil, err
	}
	return []safetensors.Tensor{toFile("dx", dx)}, nil
}
