package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// gatherFlags are cache --gather's: which positions, and the layout, pairing and dtype of the
// full-width cos/sin rows the explicit-cos/sin ops take (apply_rotary_emb / torch_npu
// npu_rotary_mul, kv_rmsnorm_rope_cache).
type gatherFlags struct {
	positions, layout, mode, dtype string
}

// maxGatherTokens bounds range:N: rows for more tokens than any context is a typo, and each
// token costs two rows of the rotary dim.
const maxGatherTokens = 1 << 22

func (g *gatherFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&g.positions, "gather", "", "write cos and sin gathered at `POSITIONS`, full rotary width: range:N (0..N−1) or a safetensors FILE's positions tensor ([T], or [rows,T] for MRoPE)")
	fs.StringVar(&g.layout, "layout", "BSND", "--gather's layout: BSND [1,T,1,d], BNSD [1,1,T,d], SBND [T,1,1,d] or THD [T,1,d] (also TND), as apply_rotary_emb's --layout")
	fs.StringVar(&g.mode, "rotary-mode", "", "--gather's pairing: half (NeoX) or interleave (GPT-J) (default: the model's)")
	fs.StringVar(&g.dtype, "dtype", "F32", "--gather's dtype: F32, BF16 or F16 (values rounded once, to nearest even)")
}

func (g *gatherFlags) given(fs *flag.FlagSet) bool {
	return flagGiven(fs, "layout") || flagGiven(fs, "rotary-mode") || flagGiven(fs, "dtype")
}

// gather returns the cos and sin tensors of spec at --gather's positions, streamed a chunk of
// tokens at a time (rotary.FullWidthStream), so memory follows a chunk, not the token count.
func (g *gatherFlags) gather(spec rotary.Spec) ([]safetensors.Tensor, error) {
	d, err := floatDType(g.dtype)
	if err != nil {
		return nil, err
	}
	style := spec.Style
	if g.mode != "" {
		if style, err = rope.ParseRotaryMode(g.mode); err != nil {
			return nil, usagef("--rotary-mode %q: want half or interleave", g.mode)
		}
	}
	positions, n, err := g.readPositions()
	if err != nil {
		return nil, err
	}
	T := n
	if !positions.IsZero() {
		T = positions.Shape[positions.Rank()-1]
	}
	shape, err := gatherShape(g.layout, T, spec.RotaryDim)
	if err != nil {
		return nil, err
	}
	emb, err := rotary.New(spec, rotary.WithCacheLen(0))
	if err != nil {
		return nil, usageError{err}
	}
	var stream *rotary.FullWidthStream
	if positions.IsZero() {
		stream, err = emb.StreamFullWidthRange(n, style, d)
	} else {
		stream, err = emb.StreamFullWidth(positions, style, d)
	}
	if err != nil {
		return nil, usagef("--gather: %v", err)
	}
	return []safetensors.Tensor{
		{Name: "cos", DType: d.String(), Shape: shape, Stream: stream.WriteCos},
		{Name: "sin", DType: d.String(), Shape: shape, Stream: stream.WriteSin},
	}, nil
}

// readPositions reads --gather: range:N as its count n (positions the zero Tensor), or a
// file's positions tensor, [T] or [rows,T].
func (g *gatherFlags) readPositions() (positions tensor.Tensor, n int, err error) {
	if s, ok := strings.CutPrefix(g.positions, "range:"); ok {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n > maxGatherTokens {
			return tensor.Tensor{}, 0, usagef("--gather %q: want range:N with 0 ≤ N ≤ %d", g.positions, maxGatherTokens)
		}
		return tensor.Tensor{}, n, nil
	}
	in, err := readInputs(g.positions)
	if err != nil {
		return tensor.Tensor{}, 0, err
	}
	p, ok := in["positions"]
	if !ok {
		return tensor.Tensor{}, 0, usagef("--gather %s: no tensor \"positions\" (or give range:N)", g.positions)
	}
	if p.Rank() != 1 && p.Rank() != 2 {
		return tensor.Tensor{}, 0, usagef("--gather %s: positions shape %s: want [T] or [rows,T]", g.positions, tensor.ShapeString(p.Shape))
	}
	return p, 0, nil
}

// gatherShape is the cos/sin shape of T tokens in --layout (ops.Layout.CosSinShape; TND is
// THD).
func gatherShape(layout string, T, d int) ([]int, error) {
	if layout == "TND" {
		layout = string(ops.THD)
	}
	if shape := ops.Layout(layout).CosSinShape(T, d); shape != nil {
		return shape, nil
	}
	return nil, usageError{fmt.Errorf("--layout %q: want BSND, BNSD, SBND or THD (also TND)", layout)}
}
