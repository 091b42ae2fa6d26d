package main

import (
	"math"

	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/tensor"
)

func init() {
	goldenMakers["apply_rotary_emb_thd"] = func(g *goldenGen) ([]goldenInput, error) { return goldenTHD(g, false) }
	goldenMakers["apply_rotary_emb_thd_backward"] = func(g *goldenGen) ([]goldenInput, error) { return goldenTHD(g, true) }
}

// goldenTHD: one packed sequence of the positions START..START+N·cp−1 (this rank holding T
// tokens of it under --cp-size/--cp-rank): x (dy for the backward pass) [T, Hq, D], cu_seqlens
// [0, T·cp], start_positions [START] when START > 0, and cos/sin tables [START+T·cp, rotary_dim]
// at full width in --rotary-mode's pairing. The op derives positions from the sequence, so
// --positions random draws START and a positions file must hold consecutive positions.
func goldenTHD(g *goldenGen, backward bool) ([]goldenInput, error) {
	hq, _ := g.heads()
	T, D := g.c.tokens, g.spec.HeadSize
	style, err := rope.ParseRotaryMode(g.opFlag("rotary-mode", rotaryModeOf(g.spec)))
	if err != nil {
		return nil, usagef("--rotary-mode: %v", err)
	}
	cp := max(g.flagInt("cp-size"), 1)
	// Before anything is sized by cp: a size the op refuses would otherwise cost its inputs first.
	if err := ops.CheckContextParallel(cp, g.flagInt("cp-rank")); err != nil {
		return nil, usageError{err}
	}
	full := int64(T) * int64(cp)
	if full > math.MaxInt32 {
		return nil, usagef("--cp-size %d: the sequence of %d tokens × %d ranks overflows cu_seqlens (I32)", cp, T, cp)
	}
	if cp > 1 && full%int64(2*cp) != 0 {
		return nil, usagef("--tokens %d: with --cp-size %d a rank holds 2 of 2·%d equal chunks of the sequence: want an even number of tokens", T, cp, cp)
	}
	start := g.pos.start
	switch g.pos.kind {
	case "random":
		start = g.intn(max(g.limit-full+1, 1))
	case "file":
		p := g.pos.file
		if p.Rank() != 1 || cp > 1 {
			return nil, usagef("--positions %s: --op %s takes one sequence's consecutive positions [T] (and no --cp-size)", g.pos.label, g.o.op)
		}
		start = p.Int64At(0)
		for i := range p.Len() {
			if p.Int64At(i) != start+int64(i) || start < 0 {
				return nil, usagef("--positions %s: position %d is %d: --op %s rotates consecutive positions from the first (%d)", g.pos.label, i, p.Int64At(i), g.o.op, start)
			}
		}
	}
	name := "x"
	if backward {
		name = "dy"
	}
	in := []goldenInput{{name, g.values(name, T, hq, D)}, {"cu_seqlens", tensor.FromI32([]int32{0, int32(full)}, 2)}}
	if start > 0 {
		in = append(in, goldenInput{"start_positions", tensor.FromI64([]int64{start}, 1)})
	}
	if g.err != nil {
		return nil, g.err
	}
	cs, err := g.table(start + full)
	if err != nil {
		return nil, err
	}
	cos, sin, err := g.fullWidth(cs, style, int(start+full), g.spec.RotaryDim)
	return append(in, goldenInput{"cos", cos}, goldenInput{"sin", sin}), err
}
