package hf

import (
	"fmt"

	"github.com/rotary-go/rotary/rope"
)

// indexerRule is how an MLA family's DSA indexer rotates its index_head_dim-wide head.
type indexerRule uint8

const (
	// indexerFirstNeoX: the first qk_rope_head_dim dims, NeoX pairs (DeepSeek-V3.2).
	indexerFirstNeoX indexerRule = iota
	// indexerFirstGPTJ: the first qk_rope_head_dim dims, GPT-J pairs (GLM-5's GlmMoeDsaIndexer).
	indexerFirstGPTJ
	// indexerTrailing: the last qk_rope_head_dim dims (HY-V4's HYV4Indexer), which a rope.Spec,
	// whose rotated dims lead the head, cannot describe.
	indexerTrailing
)

// indexer derives the RoPE of a DSA lightning indexer (DeepSeek Sparse Attention) from the same
// config as the MLA's. DeepSeek-V3.2's splits each index_head_dim-wide head into its first
// qk_rope_head_dim dims, rotated, and the rest, passed through (HF transformers'
// DeepseekV32Indexer.forward: torch.split(q, [qk_rope_head_dim, head_dim - qk_rope_head_dim]));
// those dims pair NeoX-wise (apply_rotary_pos_emb, rotate_half) while the MLA's q_pe/k_pe pair
// GPT-J-wise (apply_rotary_pos_emb_interleave), and both take the one rotary embedding's
// cos/sin. So the indexer's spec is the MLA's with a wider head and the family's pairing: the
// frequencies, scaling and attention factor are the MLA's.
func (p *parser) indexer() error {
	if p.fam.kind != kindDeepSeek {
		return nil
	}
	// Only DSA models have the key; DeepSeek-V3's config has no indexer.
	d, path, ok, err := p.src.positive("index_head_dim")
	if err != nil || !ok {
		return err
	}
	spec := p.m.Spec
	if p.fam.indexer == indexerTrailing {
		p.note("DSA indexer: it rotates the last %d of its %d dims, which no spec describes (Model.Indexer is nil)", spec.RotaryDim, d)
		return nil
	}
	if d < spec.RotaryDim {
		return configErr("%s: %d: want at least qk_rope_head_dim (%d), the indexer's rotated part", path, d, spec.RotaryDim)
	}
	spec.HeadSize = d
	spec.Style = rope.NeoX
	if p.fam.indexer == indexerFirstGPTJ {
		spec.Style = rope.GPTJ
	}
	if err := spec.Validate(); err != nil {
		return fmt.Errorf("%w: indexer: %w", ErrConfig, err)
	}
	p.m.Indexer = &spec
	p.note("DSA indexer: its own spec (Model.Indexer, rotary --rope indexer): head %d, the first %d dims rotated with %s pairing and the MLA's cos/sin, the last %d passed through", d, spec.RotaryDim, spec.Style, d-spec.RotaryDim)
	return nil
}
