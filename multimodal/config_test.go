package multimodal

import (
	"errors"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/hf"
)

func TestConfigFromJSON(t *testing.T) {
	for _, c := range []struct {
		name string
		js   string
		want Config
	}{
		{
			// The layout of Qwen/Qwen2.5-VL-7B-Instruct's config.json.
			"qwen2.5-vl full",
			`{"model_type": "qwen2_5_vl", "image_token_id": 151655, "video_token_id": 151656,
			  "vision_start_token_id": 151652, "vision_config": {"spatial_merge_size": 2, "tokens_per_second": 2}}`,
			Config{Kind: Qwen25VL, ImageTokenID: 151655, VideoTokenID: 151656, VisionStartTokenID: 151652, SpatialMergeSize: 2, TokensPerSecond: 2},
		},
		{
			"custom ids",
			`{"model_type": "qwen2_vl", "image_token_id": 7, "video_token_id": 8, "vision_start_token_id": 9,
			  "vision_config": {"spatial_merge_size": 4}}`,
			Config{Kind: Qwen2VL, ImageTokenID: 7, VideoTokenID: 8, VisionStartTokenID: 9, SpatialMergeSize: 4},
		},
		{
			"qwen2.5-vl class defaults",
			`{"model_type": "qwen2_5_vl"}`,
			DefaultConfig(Qwen25VL),
		},
		{
			"qwen2.5-vl published checkpoint",
			`{"_name_or_path": "Qwen/Qwen2.5-VL-7B-Instruct", "model_type": "qwen2_5_vl"}`,
			Config{Kind: Qwen25VL, ImageTokenID: 151655, VideoTokenID: 151656, VisionStartTokenID: 151652, SpatialMergeSize: 2, TokensPerSecond: 2},
		},
		{
			"ids in text_config, null top level",
			`{"model_type": "qwen3_vl_moe", "image_token_id": null, "text_config": {"image_token_id": 11}}`,
			Config{Kind: Qwen3VL, ImageTokenID: 11, VideoTokenID: 151656, VisionStartTokenID: 151652, SpatialMergeSize: 2},
		},
		{
			"model_type from text_config",
			`{"text_config": {"model_type": "qwen3_vl_text"}}`,
			DefaultConfig(Qwen3VL),
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ConfigFromJSON([]byte(c.js))
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

// TestConfigPresets: the embedded presets lack the multimodal keys; they get the HF
// defaults (and Qwen2.5-VL the published tokens_per_second).
func TestConfigPresets(t *testing.T) {
	for name, want := range map[string]Config{
		"qwen2-vl-7b":   DefaultConfig(Qwen2VL),
		"qwen2.5-vl-7b": {Kind: Qwen25VL, ImageTokenID: 151655, VideoTokenID: 151656, VisionStartTokenID: 151652, SpatialMergeSize: 2, TokensPerSecond: 2},
		"qwen3-vl-8b":   DefaultConfig(Qwen3VL),
	} {
		js, err := hf.PresetJSON(name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ConfigFromJSON(js)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got != want {
			t.Errorf("%s: got %+v, want %+v", name, got, want)
		}
	}
}

func TestConfigFromJSONErrors(t *testing.T) {
	for _, c := range []struct{ js, want string }{
		{`[`, "config.json"},
		{`null`, "JSON object"},
		{`{}`, "model_type: missing"},
		{`{"model_type": "llama"}`, `"llama"`},
		{`{"model_type": 3}`, "want a string"},
		{`{"model_type": "qwen2_vl", "image_token_id": 1.5}`, "image_token_id: 1.5: want an integer"},
		{`{"model_type": "qwen2_vl", "image_token_id": "x"}`, "want a number"},
		{`{"model_type": "qwen2_vl", "image_token_id": -1}`, "image_token_id -1"},
		{`{"model_type": "qwen2_vl", "video_token_id": 151655}`, "distinct"},
		{`{"model_type": "qwen2_vl", "vision_config": {"spatial_merge_size": 0}}`, "spatial_merge_size 0"},
		{`{"model_type": "qwen2_vl", "vision_config": []}`, "vision_config: want a JSON object"},
		{`{"model_type": "qwen2_5_vl", "vision_config": {"tokens_per_second": -2}}`, "tokens_per_second -2"},
		{`{"model_type": "qwen2_vl", "image_token_id": 1e400}`, "finite"},
	} {
		_, err := ConfigFromJSON([]byte(c.js))
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrConfig) {
			t.Errorf("%s: error %v, want ErrConfig containing %q", c.js, err, c.want)
		}
	}
}

func FuzzConfigFromJSON(f *testing.F) {
	f.Add([]byte(`{"model_type": "qwen2_5_vl", "vision_config": {"spatial_merge_size": 2, "tokens_per_second": 2}}`))
	f.Add([]byte(`{"text_config": {"model_type": "qwen3_vl_text", "image_token_id": 5}}`))
	f.Add([]byte(`{"model_type": "qwen2_5_vl", "vision_config": {"spatial_merge_size": 1024, "tokens_per_second": 1e300}}`))
	f.Add([]byte(`{"model_type": "qwen2_vl", "image_token_id": 1099511627776, "video_token_id": -1e15, "vision_start_token_id": 1e400}`))
	f.Add([]byte(`{"model_type": "qwen2_5_omni", "thinker_config": {"audio_token_index": 5, "seconds_per_chunk": 0.01, "vision_config": {"spatial_merge_size": 2}}, "talker_config": {"model_type": "x"}}`))
	f.Add([]byte(`{"model_type": "qwen3_omni_moe_talker", "audio_config": {"n_window": 1e9}}`))
	f.Add([]byte(`{"model_type": "ernie4_5_moe_vl", "im_patch_id": 3, "temporal_conv_size": 4, "spatial_conv_size": 0}`))
	f.Add([]byte(`{"model_type": "hunyuan_vl", "text_config": {"rope_scaling": {"xdrope_section": [1, 2, 3, 4, 5]}}}`))
	f.Add([]byte(`{"model_type": "glm46v", "video_start_token_id": 151343}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ConfigFromJSON(data)
		if err == nil {
			if verr := c.Validate(); verr != nil {
				t.Fatalf("accepted an invalid config: %v", verr)
			}
		}
	})
}
