package golden

import (
	"fmt"
	"math"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/rope"
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
		Reads:  []string{"cp-size", "cp-rank", "rotary-mode"},
		run:    runApplyRotaryEmbTHD,
		inputs: func(g *gen) ([]input, error) { return goldenTHD(g, false) },
		table:  true,
	})
	register(&Op{
		Name:    "apply_rotary_emb_thd_backward",
		Summary: "dy, cu_seqlens, cos, sin, optional start_positions → dx (apply_rotary_emb_thd's gradient)",
		Reads:   []string{"cp-size", "cp-rank", "rotary-mode"},
		run:     runApplyRotaryEmbTHDBackward,
		inputs:  func(g *gen) ([]input, error) { return goldenTHD(g, true) },
		table:   true,
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

// goldenTHD: one packed sequence of the positions START..START+N·cp−1 (this rank holding T
// tokens of it under --cp-size/--cp-rank): x (dy for the backward pass) [T, Hq, D], cu_seqlens
// [0, T·cp], start_positions [START] when START > 0, and cos/sin tables [START+T·cp, rotary_dim]
// at full width in --rotary-mode's pairing. The op derives positions from the sequence, so
// --positions random draws START and a positions file must hold consecutive positions.
func goldenTHD(g *gen, backward bool) ([]input, error) {
	hq, _ := g.heads()
	T, D := g.c.tokens, g.spec.HeadSize
	style, err := rope.ParseRotaryMode(g.opFlag("rotary-mode", rotaryModeOf(g.spec)))
	if err != nil {
		return nil, fmt.Errorf("--rotary-mode: %v", err)
	}
	cp := max(g.intArg("cp-size"), 1)
	// Before anything is sized by cp: a size the op refuses would otherwise cost its inputs first.
	if err := ops.CheckContextParallel(cp, g.intArg("cp-rank")); err != nil {
		return nil, err
	}
	full := int64(T) * int64(cp)
	if full > math.MaxInt32 {
		return nil, fmt.Errorf("--cp-size %d: the sequence of %d tokens × %d ranks overflows cu_seqlens (I32)", cp, T, cp)
	}
	if cp > 1 && full%int64(2*cp) != 0 {
		return nil, fmt.Errorf("--tokens %d: with --cp-size %d a rank holds 2 of 2·%d equal chunks of the sequence: want an even number of tokens", T, cp, cp)
	}
	start := g.pos.start
	switch g.pos.kind {
	case "random":
		start = g.intn(max(g.limit-full+1, 1))
	case "file":
		p := g.pos.file
		if p.Rank() != 1 || cp > 1 {
			return nil, fmt.Errorf("--positions %s: --op %s takes one sequence's consecutive positions [T] (and no --cp-size)", g.pos.Label, g.o.Op)
		}
		start = p.Int64At(0)
		for i := range p.Len() {
			if p.Int64At(i) != start+int64(i) || start < 0 {
				return nil, fmt.Errorf("--positions %s: position %d is %d: --op %s rotates consecutive positions from the first (%d)", g.pos.Label, i, p.Int64At(i), g.o.Op, start)
			}
		}
	}
	name := "x"
	if backward {
		name = "dy"
	}
	in := []input{{name, g.values(name, T, hq, D)}, {"cu_seqlens", tensor.FromI32([]int32{0, int32(full)}, 2)}}
	if start > 0 {
		in = append(in, input{"start_positions", tensor.FromI64([]int64{start}, 1)})
	}
	if g.err != nil {
		return nil, g.err
	}
	cs, err := g.table(start + full)
	if err != nil {
		return nil, err
	}
	cos, sin, err := g.fullWidth(cs, style, int(start+full), g.spec.RotaryDim)
	return append(in, input{"cos", cos}, input{"sin", sin}), err
}
