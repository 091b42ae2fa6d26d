package hf

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// TestRotaryDimPastInt: the rotary dim is int(head size × partial_rotary_factor), and for a
// head size near math.MaxInt with a factor of 1 the product rounds to 2^63, past int, whose
// conversion Go leaves implementation-defined: amd64 gave a rotary dim of -2^63.
func TestRotaryDimPastInt(t *testing.T) {
	for _, js := range []string{
		`{"model_type": "llama", "num_attention_heads": 1, "head_dim": 9223372036854775807, "partial_rotary_factor": 1}`,
		`{"model_type": "gpt_neox", "num_attention_heads": 1, "head_dim": 9223372036854775296, "rotary_pct": 1.0}`,
	} {
		_, err := Parse([]byte(js))
		if err == nil || !errors.Is(err, ErrConfig) || strings.Contains(err.Error(), "-9") || !strings.Contains(err.Error(), "past int") {
			t.Errorf("%s: %v, want an ErrConfig saying the rotary dim is past int", js, err)
		}
	}
	if rd, ok := truncInt(math.Nextafter(1<<63, 0)); !ok || rd != 1<<63-1024 {
		t.Errorf("truncInt below 2^63 = %d, %v", rd, ok)
	}
	for _, f := range []float64{1 << 63, math.Inf(1), math.Inf(-1), math.NaN(), -1 << 64} {
		if _, ok := truncInt(f); ok {
			t.Errorf("truncInt(%v) ok", f)
		}
	}
	if rd, ok := truncInt(-1 << 63); !ok || rd != math.MinInt64 {
		t.Errorf("truncInt(-2^63) = %d, %v", rd, ok)
	}
}

// TestRoPERatioBase: ChatGLM's base is 10000 × rope_ratio. A finite rope_ratio of 1e305 made
// it +Inf, and 1e-300 a base below 1; both were refused only by Spec.Validate, whose error
// named rope_theta, a key the config did not give.
func TestRoPERatioBase(t *testing.T) {
	for _, ratio := range []string{"1e305", "1.7976931348623157e308", "1e-300", "1e-4"} {
		js := `{"model_type": "chatglm", "num_attention_heads": 2, "kv_channels": 64, "rope_ratio": ` + ratio + `}`
		_, err := Parse([]byte(js))
		if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "rope_ratio") || strings.Contains(err.Error(), "rope_theta") {
			t.Errorf("rope_ratio %s: %v, want an ErrConfig naming rope_ratio", ratio, err)
		}
	}
	if m, err := Parse([]byte(`{"model_type": "chatglm", "num_attention_heads": 2, "kv_channels": 64, "rope_ratio": 500}`)); err != nil || m.Spec.Base != 5e6 {
		t.Errorf("rope_ratio 500: %v, %v", m, err)
	}
}
