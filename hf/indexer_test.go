package hf

import (
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/rotary-go/rotary"
)

// deepseekV32Config has the RoPE and attention keys of DeepSeek-V3.2-Exp's published config.json,
// as transformers mirrors it (src/transformers/models/deepseek_v32/deepseek_files/config.json at
// a10b6fa874989cba1c451be928aa86ce59475d9c), written out by hand.
const deepseekV32Config = `{"model_type": "deepseek_v32", "hidden_size": 7168, "num_attention_heads": 128,
	"num_key_value_heads": 128, "num_hidden_layers": 61, "max_position_embeddings": 163840,
	"q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
	"index_head_dim": 128, "index_n_heads": 64, "index_topk": 2048, "rope_theta": 10000,
	"rope_scaling": {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 1.0, "mscale_all_dim": 1.0,
		"original_max_position_embeddings": 4096, "type": "yarn"}}`

func TestDeepseekV32Indexer(t *testing.T) {
	m := mustParse(t, deepseekV32Config)
	if s := m.Spec; s.HeadSize != 64 || s.RotaryDim != 64 || s.Style != rotary.GPTJ || s.Scaling.Type != rotary.ScalingYaRN {
		t.Errorf("MLA spec = %+v, want head 64, rotary 64, gptj, yarn", s)
	}
	if m.Indexer == nil {
		t.Fatal("Indexer = nil")
	}
	ix := *m.Indexer
	if ix.HeadSize != 128 || ix.RotaryDim != 64 || ix.Style != rotary.NeoX {
		t.Errorf("indexer spec: head %d rotary %d style %s, want 128, 64, neox", ix.HeadSize, ix.RotaryDim, ix.Style)
	}
	// The same cos/sin: every frequency and the attention factor are the MLA's, bit for bit.
	mla, err := rotary.New(m.Spec, rotary.WithCacheLen(0))
	if err != nil {
		t.Fatal(err)
	}
	idx, err := rotary.New(ix, rotary.WithCacheLen(0))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(mla.InvFreq(), idx.InvFreq()) || mla.AttentionFactor() != idx.AttentionFactor() {
		t.Errorf("indexer inv_freq/attention factor differ from the MLA's")
	}
	if ix.Base != m.Spec.Base || !reflect.DeepEqual(ix.Scaling, m.Spec.Scaling) || ix.MaxPositions != m.Spec.MaxPositions {
		t.Errorf("indexer base/scaling/max %v %+v %d, want the MLA's", ix.Base, ix.Scaling, ix.MaxPositions)
	}

	// DeepSeek-V3 has no indexer.
	v3 := mustParse(t, `{"model_type": "deepseek_v3", "hidden_size": 7168, "num_attention_heads": 128, "qk_rope_head_dim": 64}`)
	if v3.Indexer != nil {
		t.Errorf("deepseek_v3: Indexer = %+v, want nil", v3.Indexer)
	}
	llama := mustParse(t, `{"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "index_head_dim": 128}`)
	if llama.Indexer != nil {
		t.Errorf("llama: Indexer = %+v, want nil", llama.Indexer)
	}

	_, err = Parse([]byte(`{"model_type": "deepseek_v32", "hidden_size": 7168, "num_attention_heads": 128, "qk_rope_head_dim": 64, "index_head_dim": 32}`))
	if !errors.Is(err, ErrConfig) {
		t.Errorf("index_head_dim 32 < qk_rope_head_dim 64: err = %v, want ErrConfig", err)
	}
}
