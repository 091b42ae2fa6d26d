package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestInspectPositionsWrapper: the positions family is the top level's model when it wraps
// another text model. MiniCPM-V 4.7 wraps Qwen3.5's text model, whose get_rope_index would
// misplace every image token, so inspect names no positions family and says why; Qwen3-VL's
// wrapper keeps its own.
func TestInspectPositionsWrapper(t *testing.T) {
	dir := t.TempDir()
	cases := []struct{ name, cfg, family, note string }{
		{"minicpm", `{"model_type": "minicpmv4_7", "text_config": {"model_type": "qwen3_5_text", "hidden_size": 2048,
			"num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 256,
			"rope_parameters": {"rope_type": "default", "rope_theta": 10000000, "partial_rotary_factor": 0.25,
			"mrope_section": [11, 11, 10], "mrope_interleaved": true}}}`, "", "compute_canvas_rope_index"},
		{"qwen3vl", `{"model_type": "qwen3_vl", "text_config": {"model_type": "qwen3_vl_text", "hidden_size": 4096,
			"num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128, "rope_theta": 5000000,
			"rope_scaling": {"rope_type": "default", "mrope_section": [24, 20, 20], "mrope_interleaved": true}}}`, "qwen3_vl", ""},
	}
	for _, c := range cases {
		code, stdout, stderr := runCLI(t, "inspect", "--json", writeFile(t, dir, c.name+".json", []byte(c.cfg)))
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, stderr)
		}
		var r struct {
			PositionsFamily string   `json:"positions_family"`
			Notes           []string `json:"notes"`
		}
		if err := json.Unmarshal([]byte(stdout), &r); err != nil {
			t.Fatal(err)
		}
		if r.PositionsFamily != c.family {
			t.Errorf("%s: positions_family %q, want %q", c.name, r.PositionsFamily, c.family)
		}
		if c.note != "" && !strings.Contains(strings.Join(r.Notes, "\n"), c.note) {
			t.Errorf("%s: notes %q lack %q", c.name, r.Notes, c.note)
		}
	}
}
