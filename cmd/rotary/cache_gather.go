package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
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

// gather returns the cos and sin tensors of spec at --gather's positions. Each is written
// cacheChunkRows tokens at a time (gathered, widened to full width, encoded), so memory follows
// a chunk, not the token count.
func (g *gatherFlags) gather(spec rotary.Spec) ([]safetensors.Tensor, error) {
	d, err := tensor.ParseDType(g.dtype)
	if err != nil || !d.IsFloat() || d == tensor.F64 {
		return nil, usagef("--dtype %q: want F32, BF16 or F16", g.dtype)
	}
	style := spec.Style
	if g.mode != "" {
		if style, err = rope.ParseRotaryMode(g.mode); err != nil {
			return nil, usagef("--rotary-mode %q: want half or interleave", g.mode)
		}
	}
	window, T, err := g.readPositions()
	if err != nil {
		return nil, err
	}
	shape, err := gatherShape(g.layout, T, spec.RotaryDim)
	if err != nil {
		return nil, err
	}
	emb, err := rotary.New(spec, rotary.WithCacheLen(0))
	if err != nil {
		return nil, usageError{err}
	}
	// Every position is checked as Gather checks it before anything is computed, so that a bad
	// one is reported as the input's fault rather than the write's.
	var rows []int
	if spec.MRoPE != nil {
		rows = []int{len(spec.MRoPE.Sections)}
	}
	for first := 0; first < T; first += cacheChunkRows {
		k := min(cacheChunkRows, T-first)
		if _, err := ops.NewPositions(window(first, k), k, rows, ops.NoLimit); err != nil {
			return nil, usagef("--gather: %v", err)
		}
	}
	stream := func(sin bool) func(w io.Writer) error {
		return func(w io.Writer) error {
			var cs rotary.CosSin
			var buf []byte
			chunkCos, err := tensor.New(d, min(cacheChunkRows, T), spec.RotaryDim)
			if err != nil {
				return err
			}
			chunkSin, _ := tensor.New(d, min(cacheChunkRows, T), spec.RotaryDim)
			for first := 0; first < T; first += cacheChunkRows {
				k := min(cacheChunkRows, T-first)
				if err := emb.Gather(window(first, k), &cs); err != nil {
					return err
				}
				cos, sn := leadingRows(chunkCos, k), leadingRows(chunkSin, k)
				if err := cs.FullWidth(style, cos, sn); err != nil {
					return err
				}
				out := cos
				if sin {
					out = sn
				}
				buf = appendElements(buf[:0], out)
				if _, err := w.Write(buf); err != nil {
					return err
				}
			}
			return nil
		}
	}
	return []safetensors.Tensor{
		{Name: "cos", DType: d.String(), Shape: shape, Stream: stream(false)},
		{Name: "sin", DType: d.String(), Shape: shape, Stream: stream(true)},
	}, nil
}

// leadingRows is the first k rows of the contiguous [rows, d] tensor t, sharing its storage.
func leadingRows(t tensor.Tensor, k int) tensor.Tensor {
	n := k * t.Shape[1]
	v := tensor.Tensor{DType: t.DType, Shape: []int{k, t.Shape[1]}}
	if t.DType == tensor.F32 {
		v.F32 = t.F32[:n]
	} else {
		v.Bits = t.Bits[:n]
	}
	return v
}

// appendElements appends t's elements (F32, or 16-bit floats' bits) in little-endian order.
func appendElements(b []byte, t tensor.Tensor) []byte {
	if t.DType == tensor.F32 {
		for _, v := range t.F32 {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
		}
		return b
	}
	for _, v := range t.Bits {
		b = binary.LittleEndian.AppendUint16(b, v)
	}
	return b
}

// readPositions reads range:N or a file's positions tensor, as a window of k tokens from the
// first (range:N's made k at a time, a file's a view of its tensor) and the token count.
func (g *gatherFlags) readPositions() (window func(first, k int) tensor.Tensor, tokens int, err error) {
	if s, ok := strings.CutPrefix(g.positions, "range:"); ok {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n > maxGatherTokens {
			return nil, 0, usagef("--gather %q: want range:N with 0 ≤ N ≤ %d", g.positions, maxGatherTokens)
		}
		p := make([]int64, min(n, cacheChunkRows))
		return func(first, k int) tensor.Tensor {
			for i := range k {
				p[i] = int64(first + i)
			}
			return tensor.FromI64(p[:k], k)
		}, n, nil
	}
	in, err := readInputs(g.positions)
	if err != nil {
		return nil, 0, err
	}
	p, ok := in["positions"]
	if !ok {
		return nil, 0, usagef("--gather %s: no tensor \"positions\" (or give range:N)", g.positions)
	}
	if p.Rank() != 1 && p.Rank() != 2 {
		return nil, 0, usagef("--gather %s: positions shape %s: want [T] or [rows,T]", g.positions, tensor.ShapeString(p.Shape))
	}
	last := p.Rank() - 1
	return func(first, k int) tensor.Tensor {
		v := p
		v.Shape, v.Strides = slices.Clone(p.Shape), make([]int, p.Rank())
		for j := range v.Strides {
			v.Strides[j] = p.Stride(j)
		}
		v.Shape[last] = k
		if k > 0 {
			v.Offset += first * p.Stride(last)
		}
		return v
	}, p.Shape[last], nil
}

// gatherShape is the cos/sin shape of T tokens in a layout with one batch and one head: every
// layout holds the same T rows of d in the same order, and the ops broadcast the 1s.
func gatherShape(layout string, T, d int) ([]int, error) {
	switch layout {
	case string(ops.BSND):
		return []int{1, T, 1, d}, nil
	case string(ops.BNSD):
		return []int{1, 1, T, d}, nil
	case string(ops.SBND):
		return []int{T, 1, 1, d}, nil
	case "TND", string(ops.THD):
		return []int{T, 1, d}, nil
	}
	return nil, usageError{fmt.Errorf("--layout %q: want BSND, BNSD, SBND or THD (also TND)", layout)}
}
