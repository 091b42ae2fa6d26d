package main

import (
	"flag"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// Flags of the packed-sequence ops (TransformerEngine's context parallelism). The pair layout
// comes from --rotary-mode (rotaryMode, registered by apply_rotary_emb).
var thdCPSize, thdCPRank int

func init() {
	flags := func(fs *flag.FlagSet) {
		fs.IntVar(&thdCPSize, "cp-size", 1, "apply_rotary_emb_thd context-parallel `size` (cu_seqlens are the full sequences', each a multiple of 2·size)")
		fs.IntVar(&thdCPRank, "cp-rank", 0, "apply_rotary_emb_thd context-parallel `rank` of this x (holds chunks rank and 2·size−1−rank)")
	}
	registerApplyOp("apply_rotary_emb_thd", &applyOp{
		reads:   []string{"cp-size", "cp-rank", "rotary-mode"},
		summary: "x [T,H,D], cu_seqlens [B+1], cos/sin [S,d] tables, optional start_positions [B] → out (packed sequences, --cp-size/--cp-rank)",
		flags:   flags,
		run:     runApplyRotaryEmbTHD,
	})
	registerApplyOp("apply_rotary_emb_thd_backward", &applyOp{
		reads:   []string{"cp-size", "cp-rank", "rotary-mode"},
		summary: "dy, cu_seqlens, cos, sin, optional start_positions → dx (apply_rotary_emb_thd's gradient)",
		run:     runApplyRotaryEmbTHDBackward,
	})
}

// thdInputs reads the packed-sequence description and the pair style.
func thdInputs(env *applyEnv) (ops.PackedSeqs, rotary.Style, error) {
	style, err := parseRotaryMode()
	if err != nil {
		return ops.PackedSeqs{}, 0, err
	}
	// ops.PackedSeqs reads a CPSize of 0 as 1, so --cp-size 0 would run unsplit without a word.
	if thdCPSize < 1 {
		return ops.PackedSeqs{}, 0, usagef("--cp-size %d: want ≥ 1", thdCPSize)
	}
	cu, err := env.tensor("cu_seqlens")
	if err != nil {
		return ops.PackedSeqs{}, 0, err
	}
	return ops.PackedSeqs{CuSeqlens: cu, StartPositions: env.inputs["start_positions"], CPSize: thdCPSize, CPRank: thdCPRank}, style, nil
}

func runApplyRotaryEmbTHD(env *applyEnv) ([]safetensors.Tensor, error) {
	seqs, style, err := thdInputs(env)
	if err != nil {
		return nil, err
	}
	in, err := env.inputsNamed("x", "cos", "sin")
	if err != nil {
		return nil, err
	}
	out := tensor.Zeros(in[0].DType, in[0].Shape...)
	if err := rotary.ApplyRotaryEmbTHD(env.disp, rotary.ApplyRotaryEmbTHDParams{X: in[0], Cos: in[1], Sin: in[2], Out: out, Seqs: seqs, Style: style}); err != nil {
		return nil, usageError{err}
	}
	return []safetensors.Tensor{toFile("out", out)}, nil
}

func runApplyRotaryEmbTHDBackward(env *applyEnv) ([]safetensors.Tensor, error) {
	seqs, style, err := thdInputs(env)
	if err != nil {
		return nil, err
	}
	in, err := env.inputsNamed("dy", "cos", "sin")
	if err != nil {
		return nil, err
	}
	dx := tensor.Zeros(in[0].DType, in[0].Shape...)
	if err := rotary.ApplyRotaryEmbTHDBackward(env.disp, rotary.ApplyRotaryEmbTHDBackwardParams{DY: in[0], Cos: in[1], Sin: in[2], DX: dx, Seqs: seqs, Style: style}); err != nil {
		return nil, usageError{err}
	}
	return []safetensors.Tensor{toFile("dx", dx)}, nil
}
