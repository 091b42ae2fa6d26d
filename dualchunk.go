package rotary

import (
	"fmt"

	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// DualChunkQueries receives the extra query rotations of dual-chunk attention, each shaped like
// the query. A zero Tensor skips that variant.
type DualChunkQueries struct {
	// Succ: the query as seen from the next chunk, position min(p mod L + L, chunk_size).
	Succ tensor.Tensor
	// Inter: the query as seen from chunks further on, the fixed position min(2L − 1, chunk_size).
	Inter tensor.Tensor
	// SuccCritical: p mod L + L, without the clamp.
	SuccCritical tensor.Tensor
	// InterCritical: p mod L + chunk_size.
	InterCritical tensor.Tensor
}

// DualChunk applies Qwen2.5-1M's dual-chunk RoPE (vLLM's DualChunkRotaryEmbedding) with
// L = chunk_size − local_size: query and key rotate in place at p mod L (the intra-chunk
// positions), and each set field of extra receives the unrotated query rotated at that variant's
// position. It allocates scratch for the mapped positions.
func (e *Embedding) DualChunk(positions, query, key tensor.Tensor, extra DualChunkQueries) error {
	if err := e.ready(); err != nil {
		return err
	}
	dc := e.spec.DualChunk
	if dc == nil {
		return fmt.Errorf("DualChunk: the spec has no dual_chunk_attention_config")
	}
	q, k, err := ops.NewQueryKey(query, key, e.spec.HeadSize)
	if err != nil {
		return err
	}
	pos, err := ops.NewPositions(positions, q.Tokens, nil, ops.NoLimit)
	if err != nil {
		return err
	}
	type variant struct {
		name string
		out  tensor.Tensor
		at   func(p int64) int64
		view ops.Heads
	}
	L := int64(dc.ChunkSize - dc.LocalSize)
	chunk := int64(dc.ChunkSize)
	variants := []variant{
		{name: "succ", out: extra.Succ, at: func(p int64) int64 { return min(p%L+L, chunk) }},
		{name: "inter", out: extra.Inter, at: func(int64) int64 { return min(2*L-1, chunk) }},
		{name: "succ_critical", out: extra.SuccCritical, at: func(p int64) int64 { return p%L + L }},
		{name: "inter_critical", out: extra.InterCritical, at: func(p int64) int64 { return p%L + chunk }},
	}
	for i := range variants {
		v := &variants[i]
		if v.out.IsZero() {
			continue
		}
		if v.view, err = ops.NewHeads("query_"+v.name, v.out, e.spec.HeadSize); err != nil {
			return err
		}
		if v.view.DType != q.DType || v.view.Tokens != q.Tokens || v.view.NumHeads != q.NumHeads {
			return fmt.Errorf("query_%s: must match query's dtype %v and shape (%d tokens × %d heads)", v.name, q.DType, q.Tokens, q.NumHeads)
		}
	}
	mapped := make([]int64, q.Tokens)
	rotateAt := func(at func(int64) int64, q, k ops.Heads) error {
		for t := range mapped {
			mapped[t] = at(pos.At(0, t))
		}
		mp, err := ops.NewPositions(tensor.FromI64(mapped, len(mapped)), len(mapped), nil, ops.NoLimit)
		if err != nil {
			return err
		}
		return e.forward(&mp, q, k)
	}
	for _, v := range variants {
		if v.out.IsZero() {
			continue
		}
		copyHeads(&v.view, &q)
		if err := rotateAt(v.at, v.view, ops.Heads{}); err != nil {
			return err
		}
	}
	return rotateAt(func(p int64) int64 { return p % L }, q, k)
}

// copyHeads copies src's elements into dst (same dtype and shape).
func copyHeads(dst, src *ops.Heads) {
	for t := range src.Tokens {
		for h := range src.NumHeads {
			si := src.Off + t*src.TokenStride + h*src.HeadStride
			di := dst.Off + t*dst.TokenStride + h*dst.HeadStride
			if src.DType == tensor.F32 {
				copy(dst.F32[di:di+src.HeadSize], src.F32[si:si+src.HeadSize])
			} else {
				copy(dst.Bits[di:di+src.HeadSize], src.Bits[si:si+src.HeadSize])
			}
		}
	}
}
