package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/safetensors"
)

// familyCase is one family's trip through `rotary positions --family` and `rotary apply`.
type familyCase struct {
	family, config string
	ids            []int64 // one row
	images, videos []int64 // flattened [N, 3]
	want           []int64 // positions [rows, 1, S], flattened
	// extra are more input tensors (audio lengths); flags more positions flags. With
	// viaConfig positions reads the config file instead of --family.
	extra     []safetensors.Tensor
	flags     []string
	viaConfig bool
	// The rotation, written from the HF formula: rotated width, base, GPT-J pairing, and the
	// axis each frequency pair takes its position from.
	rotDim int
	base   float64
	gptj   bool
	axis   func(i int) int
}

// run writes the input, runs positions, checks them, then runs apply on the positions file's
// tensor as it is ([3, 1, S]) and on the same positions as [3, S], and checks both queries
// against ref.
func (c familyCase) run(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	s := len(c.ids)
	ts := []safetensors.Tensor{safetensors.FromInt64s("input_ids", []int{1, s}, c.ids)}
	if c.images != nil {
		ts = append(ts, safetensors.FromInt64s("image_grid_thw", []int{len(c.images) / 3, 3}, c.images))
	}
	if c.videos != nil {
		ts = append(ts, safetensors.FromInt64s("video_grid_thw", []int{len(c.videos) / 3, 3}, c.videos))
	}
	in := writeTensors(t, dir, "ids.safetensors", append(ts, c.extra...)...)
	cfg := filepath.Join(dir, "config.json")
	if err := os.WriteFile(cfg, []byte(c.config), 0o644); err != nil {
		t.Fatal(err)
	}
	posPath := filepath.Join(dir, "pos.safetensors")
	args := []string{"positions", "--family", c.family}
	if c.viaConfig {
		args = []string{"positions", "--config", cfg}
	}
	args = append(append(args, c.flags...), "--in", in, "--out", posPath)
	if code, _, stderr := runCLI(t, args...); code != 0 {
		t.Fatalf("positions: exit %d: %s", code, stderr)
	}
	pos := readOut(t, posPath)["positions"]
	rows := len(c.want) / s
	if p, _ := pos.Int64s(); !reflect.DeepEqual(pos.Shape, []int{rows, 1, s}) || !reflect.DeepEqual(p, c.want) {
		t.Fatalf("positions %v\n got %v\nwant %v", pos.Shape, p, c.want)
	}

	const heads, headDim = 2, 128
	x := randomHeads(s*heads*headDim, 7)
	query := safetensors.FromFloat32s("query", []int{s, heads, headDim}, x)
	for _, p := range []safetensors.Tensor{pos, safetensors.FromInt64s("positions", []int{rows, s}, c.want)} {
		for _, op := range []string{"rotary_embedding", "rotary_embedding_gathered"} {
			apIn := writeTensors(t, dir, "ap.safetensors", p, query)
			apOut := filepath.Join(dir, "ap.out.safetensors")
			if code, _, stderr := runCLI(t, "apply", "--config", cfg, "--op", op, "--in", apIn, "--out", apOut); code != 0 {
				t.Fatalf("apply --op %s with positions %v: exit %d: %s", op, p.Shape, code, stderr)
			}
			got, err := readOut(t, apOut)["query"].Float32s()
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, fmt.Sprintf("%s, positions %v", op, p.Shape), x, got, s, heads, headDim)
		}
	}
}

// check compares the rotated query with a float64 evaluation of the formula: pair i of token
// k turns by want[axis(i)][k] · base^(−2i/rotDim); elements past rotDim pass unchanged.
func (c familyCase) check(t *testing.T, what string, x, got []float32, s, heads, headDim int) {
	t.Helper()
	worst := 0.0
	for k := range s {
		for h := range heads {
			row := (k*heads + h) * headDim
			for i := range c.rotDim / 2 {
				p := float64(c.want[c.axis(i)*s+k])
				theta := p * math.Pow(c.base, -float64(2*i)/float64(c.rotDim))
				sn, cs := math.Sincos(theta)
				a, b := row+i, row+i+c.rotDim/2
				if c.gptj {
					a, b = row+2*i, row+2*i+1
				}
				wa := float64(x[a])*cs - float64(x[b])*sn
				wb := float64(x[b])*cs + float64(x[a])*sn
				worst = max(worst, math.Abs(float64(got[a])-wa), math.Abs(float64(got[b])-wb))
			}
			for e := c.rotDim; e < headDim; e++ {
				if got[row+e] != x[row+e] {
					t.Fatalf("%s: token %d head %d element %d changed: %v → %v", what, k, h, e, x[row+e], got[row+e])
				}
			}
		}
	}
	// F32 outputs are within 2^-20 of the pair's norm; the inputs are below 1 in size.
	if worst > 1.0/(1<<19) {
		t.Errorf("%s: largest difference from the float64 formula %g", what, worst)
	}
}

// TestPositionsQwen35: `rotary positions --family qwen3_5` (multimodal.TestQwen35 works the
// positions out), then apply with a Qwen3.5 config: Qwen3_5TextRotaryEmbedding
// (modeling_qwen3_5.py) rotates 64 of the head (a quarter of the published 256; here half of
// 128), pairs (i, i+32),
// apply_interleaved_mrope with [11, 11, 10]: pair i takes h when i%3 == 1 and i < 33, w when
// i%3 == 2 and i < 30, t otherwise.
func TestPositionsQwen35(t *testing.T) {
	familyCase{
		family: "qwen3_5",
		config: `{"model_type": "qwen3_5", "text_config": {"model_type": "qwen3_5_text", "hidden_size": 256,
 "num_attention_heads": 2, "num_key_value_heads": 2, "head_dim": 128, "max_position_embeddings": 262144,
 "rope_parameters": {"rope_type": "default", "rope_theta": 10000000, "partial_rotary_factor": 0.5,
 "mrope_section": [11, 11, 10], "mrope_interleaved": true}}}`,
		ids: []int64{100, 101, 248053, 248056, 248056, 248056, 248056, 248054, 300, 248053, 248057, 248057, 248057, 248057,
			248054, 301, 248053, 248057, 248057, 248057, 248057, 248054, 104},
		images: []int64{1, 4, 4}, videos: []int64{2, 4, 4},
		want: []int64{
			0, 1, 2, 3, 3, 3, 3, 5, 6, 7, 8, 8, 8, 8, 10, 11, 12, 13, 13, 13, 13, 15, 16,
			0, 1, 2, 3, 3, 4, 4, 5, 6, 7, 8, 8, 9, 9, 10, 11, 12, 13, 13, 14, 14, 15, 16,
			0, 1, 2, 3, 4, 3, 4, 5, 6, 7, 8, 9, 8, 9, 10, 11, 12, 13, 14, 13, 14, 15, 16,
		},
		rotDim: 64, base: 10000000,
		axis: func(i int) int {
			switch {
			case i%3 == 1 && i < 33:
				return 1
			case i%3 == 2 && i < 30:
				return 2
			}
			return 0
		},
	}.run(t)
}

// TestPositionsGLM4V: `rotary positions --family glm4v` (multimodal.TestGLM4V works the
// positions out), then apply with a GLM-4.1V config: Glm4vTextRotaryEmbedding.apply_mrope
// (modeling_glm4v.py) takes the 32 frequencies in chunks [8, 12, 12] for t, h, w, and
// apply_rotary_pos_emb repeat_interleaves them over the first half of the head and rotates
// with rotate_half_llm: pairs (2i, 2i+1).
func TestPositionsGLM4V(t *testing.T) {
	const img, bov, eov, boi, eoi = 151343, 151341, 151342, 151339, 151340
	row := []int64{100, 101, boi, img, img, img, img, eoi, 102, bov, boi, img, img, img, img,
		eoi, 300, boi, img, img, img, img, eoi, 301, eov, 103}
	familyCase{
		family: "glm4v",
		config: `{"model_type": "glm4v", "text_config": {"model_type": "glm4v_text", "hidden_size": 256,
 "num_attention_heads": 2, "num_key_value_heads": 2, "partial_rotary_factor": 0.5, "rope_theta": 10000,
 "max_position_embeddings": 65536, "rope_scaling": {"type": "default", "mrope_section": [8, 12, 12]}}}`,
		ids:    row,
		images: []int64{1, 4, 4}, videos: []int64{2, 4, 4},
		want: []int64{
			0, 1, 2, 3, 3, 3, 3, 5, 6, 7, 8, 9, 9, 9, 9, 11, 12, 13, 14, 14, 14, 14, 16, 17, 18, 19,
			0, 1, 2, 3, 3, 4, 4, 5, 6, 7, 8, 9, 9, 10, 10, 11, 12, 13, 14, 14, 15, 15, 16, 17, 18, 19,
			0, 1, 2, 3, 4, 3, 4, 5, 6, 7, 8, 9, 10, 9, 10, 11, 12, 13, 14, 15, 14, 15, 16, 17, 18, 19,
		},
		rotDim: 64, base: 10000, gptj: true,
		axis: func(i int) int {
			switch {
			case i < 8:
				return 0
			case i < 20:
				return 1
			}
			return 2
		},
	}.run(t)
}

// TestPositionsQwen25Omni: `rotary positions` with a Qwen2.5-Omni thinker config, alone and
// inside a whole config.json (position_id_per_seconds 2, so chunks of 4 positions), the audio
// length as a feature_attention_mask and --use-audio-in-video: multimodal.TestQwen25OmniAudioInVideo works
// the positions out. Then apply: Qwen2_5OmniThinkerTextModel rotates the whole 128-wide head
// NeoX style with chunked mrope_section [16, 24, 24].
func TestPositionsQwen25Omni(t *testing.T) {
	const vs, as, ae, ve, vid, aud = 151652, 151647, 151648, 151653, 151656, 151646
	mask := make([]byte, 30) // the audio's 23 feature frames, padded to 30
	for i := range 23 {
		mask[i] = 1
	}
	thinker := `"position_id_per_seconds": 2, "seconds_per_chunk": 2,
 "text_config": {"model_type": "qwen2_5_omni_text", "hidden_size": 256, "num_attention_heads": 2, "num_key_value_heads": 2,
 "max_position_embeddings": 32768, "rope_theta": 1000000, "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}}`
	// The thinker's config alone, and the whole model's config.json with it under thinker_config.
	for _, cfg := range []string{
		`{"model_type": "qwen2_5_omni_thinker", ` + thinker + `}`,
		`{"model_type": "qwen2_5_omni", "talker_config": {"spatial_merge_size": 2}, "thinker_config": {"model_type": "qwen2_5_omni_thinker", ` + thinker + `}}`,
	} {
		familyCase{
			config:    cfg,
			viaConfig: true,
			flags:     []string{"--use-audio-in-video"},
			ids:       []int64{100, vs, as, vid, vid, aud, aud, aud, aud, vid, aud, aud, ae, ve, 101},
			videos:    []int64{3, 2, 2},
			extra:     []safetensors.Tensor{{Name: "feature_attention_mask", DType: "U8", Shape: []int{1, 30}, Data: mask}},
			want: []int64{
				0, 1, 1, 2, 4, 2, 3, 4, 5, 6, 6, 7, 8, 8, 9,
				0, 1, 1, 2, 2, 2, 3, 4, 5, 2, 6, 7, 8, 8, 9,
				0, 1, 1, 2, 2, 2, 3, 4, 5, 2, 6, 7, 8, 8, 9,
			},
			rotDim: 128, base: 1000000,
			axis: func(i int) int {
				switch {
				case i < 16:
					return 0
				case i < 40:
					return 1
				}
				return 2
			},
		}.run(t)
	}
}

// TestPositionsOmniBadInput: audio lengths that do not match the audio tokens, and audio given
// twice, are exit 2 with one line naming the tensor, and nothing is written.
func TestPositionsOmniBadInput(t *testing.T) {
	dir := t.TempDir()
	row := []int64{100, 151647, 151646, 151646, 151646, 151648}
	for _, c := range []struct {
		name  string
		extra []safetensors.Tensor
		want  string
	}{
		{"too few frames", []safetensors.Tensor{safetensors.FromInt64s("audio_seqlens", []int{1}, []int64{10})}, "3 audio tokens but audio_seqlens gives 2"},
		{"two forms", []safetensors.Tensor{safetensors.FromInt64s("audio_seqlens", []int{1}, []int64{13}),
			safetensors.FromInt64s("audio_feature_lengths", []int{1}, []int64{13})}, "audio_seqlens and audio_feature_lengths"},
		{"mask values", []safetensors.Tensor{safetensors.FromInt64s("feature_attention_mask", []int{1, 2}, []int64{1, 2})}, "feature_attention_mask[0][1] = 2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := writeTensors(t, dir, "in.safetensors", append([]safetensors.Tensor{safetensors.FromInt64s("input_ids", []int{6}, row)}, c.extra...)...)
			out := filepath.Join(dir, "out.safetensors")
			code, _, stderr := runCLI(t, "positions", "--family", "qwen2_5_omni", "--in", in, "--out", out)
			if code != 2 || strings.Count(strings.TrimRight(stderr, "\n"), "\n") != 0 || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q: want 2 and one line containing %q", code, stderr, c.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("--out was created on error (%v)", err)
			}
		})
	}
	// --talker of a family without one.
	in := writeTensors(t, dir, "in.safetensors", safetensors.FromInt64s("input_ids", []int{2}, []int64{1, 2}))
	if code, _, stderr := runCLI(t, "positions", "--family", "qwen3_vl", "--talker", "--in", in, "--out", filepath.Join(dir, "o.safetensors")); code != 2 || !strings.Contains(stderr, "talker") {
		t.Errorf("--talker on qwen3_vl: exit %d, %q", code, stderr)
	}
}

// TestPositionsErnie45VL: `rotary positions --family ernie4_5_vl_moe` writes the positions
// multimodal.TestErnie45VL works out (row 0), and apply rotates them as
// Ernie4_5_VLMoeTextRotaryEmbedding and apply_rotary_pos_emb (modeling_ernie4_5_vl_moe.py) do:
// the whole head in pairs (2i, 2i+1), pair i at inv_freq[i] taking h when even and w when odd
// below 22 + 22, t from pair 44.
func TestPositionsErnie45VL(t *testing.T) {
	const img, vid, is, ie, vs, ve = 100295, 103367, 101304, 101305, 101306, 101307
	familyCase{
		family: "ernie4_5_vl_moe",
		config: `{"model_type": "ernie4_5_vl_moe", "text_config": {"model_type": "ernie4_5_vl_moe_text", "hidden_size": 256,
 "num_attention_heads": 2, "num_key_value_heads": 2, "head_dim": 128, "max_position_embeddings": 32768,
 "rope_parameters": {"rope_type": "default", "rope_theta": 500000, "mrope_section": [22, 22, 20]}}}`,
		ids:    []int64{100, is, img, img, img, img, ie, 101, vs, vid, vid, vid, vid, vid, vid, vid, vid, ve, 102},
		images: []int64{1, 4, 4}, videos: []int64{4, 4, 4},
		want: []int64{
			0, 1, 2, 2, 2, 2, 4, 5, 6, 7, 7, 7, 7, 8, 8, 8, 8, 9, 10,
			0, 1, 2, 2, 3, 3, 4, 5, 6, 7, 7, 8, 8, 7, 7, 8, 8, 9, 10,
			0, 1, 2, 3, 2, 3, 4, 5, 6, 7, 8, 7, 8, 7, 8, 7, 8, 9, 10,
		},
		rotDim: 128, base: 500000, gptj: true,
		axis: func(i int) int {
			if i < 44 {
				return 1 + i%2
			}
			return 0
		},
	}.run(t)
}

// TestPositionsHunYuanVL: `rotary positions --family hunyuan_vl` writes the four XD-RoPE rows
// [4, 1, S] (multimodal.TestHunYuanVL, row 0), and apply takes them, with a HunYuan-VL config as
// published (rope_scaling type xdrope, alpha, xdrope_section) and as HF's HunYuanVLTextConfig
// normalises it (dynamic with alpha, mrope_section): the whole head rotates NeoX style, pair
// (i, i+64) taking the axis of its chunk of [16, 16, 16, 16], with NTK-alpha's base
// 10000 · 1000^(128/126), as Tencent's apply_rotary_pos_emb_xdrope (xdrope_section * 2, the
// list repeated over cat(freqs, freqs)) and vLLM's XDRotaryEmbedding (rotary_embedding/
// xdrope.py, chunks of the half) do. transformers main's apply_multimodal_rotary_pos_emb
// (modeling_hunyuan_vl.py) doubles each section instead ([2·s for s]), so there elements i and
// i+64 of a grid token turn by different axes' angles; the image tokens below tell the two apart.
func TestPositionsHunYuanVL(t *testing.T) {
	const img, is, ie = 120120, 120118, 120119
	for _, rope := range []string{
		`"rope_theta": 10000, "rope_scaling": {"alpha": 1000.0, "beta_fast": 32, "beta_slow": 1, "factor": 1.0, "mscale": 1.0, "mscale_all_dim": 1.0, "type": "xdrope", "xdrope_section": [16, 16, 16, 16]}`,
		`"rope_parameters": {"rope_type": "dynamic", "rope_theta": 10000, "alpha": 1000, "mrope_section": [16, 16, 16, 16]}`,
	} {
		familyCase{
			family: "hunyuan_vl",
			config: `{"model_type": "hunyuan_vl", "text_config": {"model_type": "hunyuan_vl_text", "hidden_size": 256,
 "num_attention_heads": 2, "num_key_value_heads": 2, "head_dim": 128, "max_position_embeddings": 32768, ` + rope + `}}`,
			ids:    []int64{100, is, img, img, img, img, img, img, img, img, ie, 101},
			images: []int64{1, 4, 4},
			want: []int64{
				0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
				0, 1, 2, 0, 1, 2, 0, 1, 2, 9, 10, 11,
				0, 1, 2, 0, 0, 0, 1, 1, 1, 9, 10, 11,
				0, 1, 2, 0, 0, 0, 0, 0, 0, 9, 10, 11,
			},
			rotDim: 128, base: 10000 * math.Pow(1000, 128.0/126),
			axis: func(i int) int { return i / 16 },
		}.run(t)
	}
}

// TestPositionsJSONInput: a JSON --in gives the positions its safetensors twin gives (the
// Qwen2.5-Omni case of multimodal.TestQwen25Omni, row 0, under its video_second_per_grid and
// audio_feature_lengths names), and its mistakes are exit 2 with one line naming the key.
func TestPositionsJSONInput(t *testing.T) {
	dir := t.TempDir()
	row := "100, 151652, 151655, 151655, 151655, 151655, 151653, 101, 151647, 151646, 151646, 151646, 151648, 102, 151652, " +
		"151656, 151656, 151656, 151656, 151656, 151656, 151656, 151656, 151653, 103"
	js := `{"input_ids": [[` + row + `]], "attention_mask": [[` + strings.Repeat("1, ", 24) + `1]],
 "image_grid_thw": [[1, 4, 4]], "video_grid_thw": [[2, 4, 4]], "video_second_per_grid": [0.5], "audio_feature_lengths": [13]}`
	in := filepath.Join(dir, "in.json")
	if err := os.WriteFile(in, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.safetensors")
	if code, _, stderr := runCLI(t, "positions", "--family", "qwen2_5_omni", "--in", in, "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got := readOut(t, out)
	p, _ := got["positions"].Int64s()
	want := []int64{
		0, 1, 2, 2, 2, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 13, 13, 13, 25, 25, 25, 25, 26, 27,
		0, 1, 2, 2, 3, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 13, 14, 14, 13, 13, 14, 14, 26, 27,
		0, 1, 2, 3, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 13, 14, 13, 14, 13, 14, 26, 27,
	}
	if !reflect.DeepEqual(got["positions"].Shape, []int{3, 1, 25}) || !reflect.DeepEqual(p, want) {
		t.Errorf("positions %v %v", got["positions"].Shape, p)
	}
	if d, _ := got["rope_deltas"].Int64s(); !reflect.DeepEqual(d, []int64{3}) {
		t.Errorf("rope_deltas %v, want [3]", d)
	}
	for _, c := range []struct{ js, want string }{
		{`{"input_ids": [1, 2], "image_grid": [[1, 2, 2]]}`, `unknown field "image_grid"`},
		{`{"input_ids": [1, 2], "image_grid_thw": [[1, 2]]}`, "image_grid_thw[0]: 2 values"},
		{`{"attention_mask": [1, 1]}`, "input_ids: missing"},
		{`{"input_ids": ["a"]}`, "input_ids: want a list of integers"},
		{`{"input_ids": [[1, 2], [3]]}`, "input_ids row 1 has 1 tokens"},
	} {
		bad := filepath.Join(dir, "bad.json")
		if err := os.WriteFile(bad, []byte(c.js), 0o644); err != nil {
			t.Fatal(err)
		}
		o := filepath.Join(dir, "bad.out.safetensors")
		code, _, stderr := runCLI(t, "positions", "--family", "qwen2_vl", "--in", bad, "--out", o)
		if code != 2 || strings.Count(strings.TrimRight(stderr, "\n"), "\n") != 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q: want 2 and one line containing %q", c.js, code, stderr, c.want)
		}
		if _, err := os.Stat(o); !os.IsNotExist(err) {
			t.Errorf("%s: --out was created on error", c.js)
		}
	}
}

// TestInspectPositionsFamily: inspect names the multimodal family `rotary positions` follows
// for the model_type (the text model's type as well as the top level's), and none for a text
// model.
func TestInspectPositionsFamily(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "glm.json")
	if err := os.WriteFile(cfg, []byte(`{"model_type": "glm4v", "text_config": {"model_type": "glm4v_text", "hidden_size": 256,
 "num_attention_heads": 2, "partial_rotary_factor": 0.5, "rope_scaling": {"type": "default", "mrope_section": [8, 12, 12]}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--model", "qwen2-vl-7b"}, "qwen2_vl's get_rope_index (rotary positions --family qwen2_vl)"},
		{[]string{cfg}, "glm4v's get_rope_index"},
		{[]string{"--model", "llama-3.1-8b"}, ""},
	} {
		code, stdout, stderr := runCLI(t, append([]string{"inspect"}, c.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		if has := strings.Contains(stdout, "\npositions:"); has != (c.want != "") || !strings.Contains(stdout, c.want) {
			t.Errorf("%v: output lacks %q or has a positions line it should not:\n%s", c.args, c.want, stdout)
		}
	}
	_, stdout, _ := runCLI(t, "inspect", "--json", cfg)
	if !strings.Contains(stdout, `"positions_family": "glm4v"`) {
		t.Errorf("--json lacks positions_family:\n%s", stdout)
	}
}

// TestApplyBadSections: a config whose mrope_section does not sum to the rotary half is exit 2
// with one line naming mrope_section, and nothing is written.
func TestApplyBadSections(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.json")
	if err := os.WriteFile(cfg, []byte(`{"model_type": "glm4v", "text_config": {"model_type": "glm4v_text", "hidden_size": 256,
 "num_attention_heads": 2, "partial_rotary_factor": 0.5, "rope_scaling": {"type": "default", "mrope_section": [8, 12, 10]}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	in := writeTensors(t, dir, "in.safetensors", safetensors.FromInt64s("positions", []int{3, 1, 2}, []int64{0, 1, 0, 1, 0, 1}),
		safetensors.FromFloat32s("query", []int{2, 2, 128}, randomHeads(512, 3)))
	out := filepath.Join(dir, "out.safetensors")
	code, _, stderr := runCLI(t, "apply", "--config", cfg, "--in", in, "--out", out)
	if code != 2 || strings.Count(strings.TrimRight(stderr, "\n"), "\n") != 0 || !strings.Contains(stderr, "mrope_section [8 12 10] sums to 30") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("--out was created on error (%v)", err)
	}
}

// TestPositionsFromFlags: the inputs on the command line give what --in gives
// (multimodal.TestOneImage's row), and flags with --in, or neither, are refused.
func TestPositionsFromFlags(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.safetensors")
	ids := "100,101,151652,151655,151655,151655,151655,151655,151655,151653,102,103"
	if code, _, stderr := runCLI(t, "positions", "--family", "qwen2_vl", "--input-ids", ids, "--image-grid-thw", "1,4,6", "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got := readOut(t, out)
	p, _ := got["positions"].Int64s()
	want := []int64{0, 1, 2, 3, 3, 3, 3, 3, 3, 6, 7, 8, 0, 1, 2, 3, 3, 3, 4, 4, 4, 6, 7, 8, 0, 1, 2, 3, 4, 5, 3, 4, 5, 6, 7, 8}
	if !reflect.DeepEqual(got["positions"].Shape, []int{3, 12}) || !reflect.DeepEqual(p, want) {
		t.Errorf("positions %v %v", got["positions"].Shape, p)
	}
	// Two rows, a mask, an Omni audio length.
	out2 := filepath.Join(dir, "out2.safetensors")
	if code, _, stderr := runCLI(t, "positions", "--family", "qwen2_5_omni", "--input-ids", "5,151647,151646,151646,151646,151648;7,7,7,7,7,7",
		"--attention-mask", "1,1,1,1,1,1;0,1,1,1,1,1", "--audio-seqlens", "13", "--out", out2); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if s := readOut(t, out2)["positions"].Shape; !reflect.DeepEqual(s, []int{3, 2, 6}) {
		t.Errorf("two rows: shape %v", s)
	}
	in := writeTensors(t, dir, "in.safetensors", safetensors.FromInt64s("input_ids", []int{2}, []int64{1, 2}))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--in", in, "--input-ids", "1,2"}, "give one"},
		{[]string{}, "--in: missing"},
		{[]string{"--input-ids", "1,x"}, `--input-ids: "x" is not an integer`},
		{[]string{"--input-ids", "1,2", "--image-grid-thw", "1,4"}, "--image-grid-thw: grid 0 has 2 values"},
		{[]string{"--image-grid-thw", "1,4,4"}, "--input-ids: missing"},
	} {
		o := filepath.Join(dir, "bad.safetensors")
		code, _, stderr := runCLI(t, append(append([]string{"positions", "--family", "qwen2_vl"}, c.args...), "--out", o)...)
		if code != 2 || strings.Count(strings.TrimRight(stderr, "\n"), "\n") != 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q: want 2 and one line containing %q", c.args, code, stderr, c.want)
		}
		if _, err := os.Stat(o); !os.IsNotExist(err) {
			t.Errorf("%v: --out was created on error", c.args)
		}
	}
}

// TestQKRMSNormTakesBatchPositions: qk_rmsnorm_rope reads positions' [3, 1, T] as [3, T] like
// the other position-taking ops (a Qwen3-VL model's MRoPE).
func TestQKRMSNormTakesBatchPositions(t *testing.T) {
	dir := t.TempDir()
	q := randomHeads(2*4*128, 5)
	w := randomHeads(128, 6)
	var outs [2][]byte
	for i, p := range []safetensors.Tensor{
		safetensors.FromInt64s("positions", []int{3, 1, 2}, []int64{0, 5, 0, 6, 0, 7}),
		safetensors.FromInt64s("positions", []int{3, 2}, []int64{0, 5, 0, 6, 0, 7}),
	} {
		in := writeTensors(t, dir, "in.safetensors", p, safetensors.FromFloat32s("query", []int{2, 4, 128}, q), safetensors.FromFloat32s("q_weight", []int{128}, w))
		out := filepath.Join(dir, "out.safetensors")
		if code, _, stderr := runCLI(t, "apply", "--model", "qwen3-vl-8b", "--op", "qk_rmsnorm_rope", "--in", in, "--out", out); code != 0 {
			t.Fatalf("positions %v: exit %d: %s", p.Shape, code, stderr)
		}
		outs[i] = readOut(t, out)["query"].Data
	}
	if string(outs[0]) != string(outs[1]) {
		t.Error("qk_rmsnorm_rope rotated [3, 1, 2] positions differently from [3, 2]")
	}
}
