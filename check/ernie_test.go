package check_test

import (
	"testing"

	"github.com/rotary-go/rotary/check"
)

// TestERNIEOnNPUMRoPE: ERNIE-4.5-VL's alternating h/w MRoPE is neither of npu_mrope's cache
// modes; either launch is one mrope-cache-mode error, and no cache mode is none.
func TestERNIEOnNPUMRoPE(t *testing.T) {
	ernie := []byte(`{"model_type": "ernie4_5_vl_moe", "text_config": {"model_type": "ernie4_5_vl_moe_text", "hidden_size": 256,
	  "num_attention_heads": 2, "num_key_value_heads": 2, "head_dim": 128, "max_position_embeddings": 32768,
	  "rope_parameters": {"rope_type": "default", "rope_theta": 500000, "mrope_section": [22, 22, 20]}}}`)
	runCases(t, []checkCase{
		{name: "default", config: ernie, launch: check.Launch{CacheMode: "default", Op: "npu_mrope"}, want: []want{errorAt("mrope-cache-mode")}},
		{name: "interleave", config: ernie, launch: check.Launch{CacheMode: "interleave", Op: "npu_mrope"}, want: []want{errorAt("mrope-cache-mode")}},
		{name: "no cache mode", config: ernie, absent: []string{"mrope-cache-mode"}},
	})
	fs := check.Config(ernie, check.Launch{CacheMode: "interleave", Op: "npu_mrope"})
	if n := countCode(fs, "mrope-cache-mode"); n != 1 {
		t.Errorf("%d mrope-cache-mode findings, want 1 (%s)", n, codes(fs))
	}
}
