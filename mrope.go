package rotary

import (
	"fmt"

	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/tensor"
)

// NPUMRoPEParams are torch_npu npu_mrope's arguments.
type NPUMRoPEParams struct {
	// Positions are I32 or I64, [T] (plain RoPE; for an MRoPE call it means text-only tokens,
	// every axis at the same position), or [R, T] with R = len(Sections) for MRoPE.
	Positions tensor.Tensor
	// Query [T, Hq·HeadSize] (or [T, Hq, HeadSize]) and Key [T, Hk·HeadSize] (optional: the zero
	// Tensor), F32, F16 or BF16, rotated in place.
	Query, Key tensor.Tensor
	// CosSinCache is [maxPos, rotaryDim], float: each row holds cos then sin (rows.chunk(2,
	// -1)), rotaryDim even and at most HeadSize; elements rotaryDim..HeadSize of every head pass
	// through. An F32 contiguous cache is used in place; from any other the rows the positions
	// use are gathered to float32 per token (T × rotaryDim values), which allocates.
	CosSinCache tensor.Tensor
	HeadSize    int
	// Sections are nil or all zeros for plain RoPE; otherwise 3 or 4 pair counts
	// (mrope_section) summing to rotaryDim/2.
	Sections []int
	// Style is rotary_mode: NeoX ("half") or GPTJ ("interleave").
	Style Style
	// Interleaved is cache_mode "interleave" (pairs 1::3 below 3·s1 take axis 1, pairs 2::3
	// below 3·s2 axis 2, the rest axis 0: Qwen3-VL) rather than "default" (pair i takes the axis
	// of the section it falls in: Qwen2-VL). It needs exactly 3 sections and has no effect on
	// plain RoPE.
	Interleaved bool
}

// NPUMRoPE is torch_npu's npu_mrope (aclnnRopeWithSinCosCache) with its own arguments: RoPE or
// MRoPE of query and key, in place, with cos/sin looked up in an explicit cache. It builds the
// arguments of op rotary_embedding or op mrope and dispatches them through d (nil:
// ops.Default). On error nothing is written.
func NPUMRoPE(d *ops.Dispatcher, p NPUMRoPEParams) error {
	rp, pos, cache, err := npuMRoPEArgs(p)
	if err != nil {
		return err
	}
	if cache.Data == nil {
		cos, sin := npuGather(p.CosSinCache, &pos, p.Sections, p.Interleaved, cache.Half)
		_, err = ops.Run(dispatcher(d), ops.RotaryEmbeddingGather, ops.GatheredArgs{RoPE: rp, Cos: cos, Sin: sin, Half: cache.Half})
		return err
	}
	if pos.Rows > 1 {
		_, err = ops.Run(dispatcher(d), ops.MRoPE, ops.MRoPEArgs{RoPE: rp, Positions: pos, Cache: cache, Sections: p.Sections, Interleaved: p.Interleaved})
		return err
	}
	_, err = ops.Run(dispatcher(d), ops.RotaryEmbedding, ops.RotaryEmbeddingArgs{RoPE: rp, Positions: pos, Cache: cache})
	return err
}

// npuMRoPEArgs checks npu_mrope's arguments and builds what op rotary_embedding and op mrope
// both take; the positions have more than one row only for an MRoPE call.
func npuMRoPEArgs(p NPUMRoPEParams) (ops.RoPE, ops.Positions, ops.CosSinCache, error) {
	if p.Style != NeoX && p.Style != GPTJ {
		return ops.RoPE{}, ops.Positions{}, ops.CosSinCache{}, fmt.Errorf("rotary_mode (style) %v: want neox (half) or gptj (interleave)", p.Style)
	}
	if p.HeadSize <= 0 {
		return ops.RoPE{}, ops.Positions{}, ops.CosSinCache{}, fmt.Errorf("head_size %d: want > 0", p.HeadSize)
	}
	rows, rd, err := npuCosSinCacheShape(p.CosSinCache, p.HeadSize)
	if err != nil {
		return ops.RoPE{}, ops.Positions{}, ops.CosSinCache{}, err
	}
	mrope, err := npuSections(p.Sections, p.Interleaved, rd, p.CosSinCache)
	if err != nil {
		return ops.RoPE{}, ops.Positions{}, ops.CosSinCache{}, err
	}
	q, k, err := ops.NewQueryKey(p.Query, p.Key, p.HeadSize)
	if err != nil {
		return ops.RoPE{}, ops.Positions{}, ops.CosSinCache{}, err
	}
	pos, err := npuPositions(p.Positions, q.Tokens, p.Sections, mrope, rows)
	if err != nil {
		return ops.RoPE{}, ops.Positions{}, ops.CosSinCache{}, err
	}
	cache := npuCosSinCache(p.CosSinCache, int(pos.Max+1), rd)
	return ops.RoPE{RotaryDim: rd, GPTJ: p.Style == GPTJ, Query: q, Key: k}, pos, cache, nil
}

// npuCosSinCacheShape checks cos_sin_cache and returns its row count and rotary dim.
func npuCosSinCacheShape(c tensor.Tensor, headSize int) (rows, rd int, err error) {
	if c.IsZero() {
		return 0, 0, fmt.Errorf("cos_sin_cache: missing")
	}
	if err := c.Check("cos_sin_cache"); err != nil {
		return 0, 0, err
	}
	if !c.DType.IsFloat() {
		return 0, 0, fmt.Errorf("cos_sin_cache: dtype %v: want F32, F16 or BF16", c.DType)
	}
	if c.Rank() != 2 {
		return 0, 0, fmt.Errorf("cos_sin_cache: shape %s: want [max_positions, rotary_dim]", tensor.ShapeString(c.Shape))
	}
	rows, rd = c.Shape[0], c.Shape[1]
	if rd == 0 || rd%2 != 0 || rd > headSize {
		return 0, 0, fmt.Errorf("cos_sin_cache: rotary dim %d (shape %s): want an even number from 2 to head_size %d", rd, tensor.ShapeString(c.Shape), headSize)
	}
	return rows, rd, nil
}

// npuSections checks mrope_section against the rotary dim and cache_mode; mrope is false for
// plain RoPE (no sections, or all zeros).
func npuSections(sections []int, interleaved bool, rd int, cosSinCache tensor.Tensor) (mrope bool, err error) {
	for _, s := range sections {
		mrope = mrope || s != 0
	}
	if !mrope {
		return false, nil
	}
	if n := len(sections); n != 3 && n != 4 {
		return false, fmt.Errorf("mrope_section %v: want 3 or 4 sections (or none for plain RoPE)", sections)
	}
	if err := rope.CheckSections(sections, rd/2); err != nil {
		return false, fmt.Errorf("%w (rotary_dim %d from cos_sin_cache %s)", err, rd, tensor.ShapeString(cosSinCache.Shape))
	}
	if len(sections) == 4 && interleaved {
		return false, fmt.Errorf("mrope_section %v: 4 sections need cache_mode default (interleave spreads exactly 3 axes)", sections)
	}
	return true, nil
}

// npuPositions checks the positions: [tokens], or for MRoPE one row per section; every value
// must have a row of the cache.
func npuPositions(positions tensor.Tensor, tokens int, sections []int, mrope bool, rows int) (ops.Positions, error) {
	var allow []int
	if mrope {
		allow = []int{len(sections)}
	}
	if positions.Rank() == 2 {
		switch {
		case !mrope:
			return ops.Positions{}, fmt.Errorf("positions: shape %s: 2-D positions need mrope_section (plain RoPE takes [tokens])", tensor.ShapeString(positions.Shape))
		case positions.Shape[0] != len(sections):
			return ops.Positions{}, fmt.Errorf("positions: %d rows (shape %s) for %d mrope sections %v: want as many rows as sections", positions.Shape[0], tensor.ShapeString(positions.Shape), len(sections), sections)
		}
	}
	return ops.NewPositions(positions, tokens, allow, int64(rows))
}

// npuCosSinCache is the first rows of the checked cache c as the ops take it: c itself when it
// is F32 and contiguous; otherwise no Data, and NPUMRoPE gathers the rows the positions use
// (npuGather), since widening the table whole would cost its largest position, not the work.
func npuCosSinCache(c tensor.Tensor, rows, rd int) ops.CosSinCache {
	cache := ops.CosSinCache{Rows: rows, Half: rd / 2}
	if c.DType == tensor.F32 && c.Contiguous() {
		cache.Data = c.F32[c.Offset : c.Offset+cache.Rows*rd]
	}
	return cache
}

// npuGather widens to float32 each token's cos and sin from the checked cache c: pair i of token
// t from the row of its position on the axis the sections give it (rope.MRoPE.Axis), as op
// mrope and op rotary_embedding read a float32 table, so the rotation is the same bit for bit.
func npuGather(c tensor.Tensor, pos *ops.Positions, sections []int, interleaved bool, half int) (cos, sin []float32) {
	var m *rope.MRoPE
	if pos.Rows > 1 {
		m = &rope.MRoPE{Sections: sections, Interleaved: interleaved}
	}
	cos, sin = make([]float32, pos.Tokens*half), make([]float32, pos.Tokens*half)
	for t := range pos.Tokens {
		for i := range half {
			r := int(pos.At(m.Axis(i), t))
			cos[t*half+i] = float32(c.Float64At(c.Index(r, i)))
			sin[t*half+i] = float32(c.Float64At(c.Index(r, half+i)))
		}
	}
	return cos, sin
}
