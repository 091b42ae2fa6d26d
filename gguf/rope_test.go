package gguf

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/internal/fileio/fileiotest"
	"github.com/rotary-go/rotary/rope"
)

// model writes a metadata-only GGUF for arch with the keys every model has (the context
// length, embedding length, heads) and extra, then derives its RoPE.
func model(t *testing.T, arch string, ctx, embd, heads uint32, extra []KV, tensors ...Tensor) (*RoPE, error) {
	t.Helper()
	kvs := []KV{
		{"general.architecture", Str(arch)},
		{arch + ".context_length", U32(ctx)},
		{arch + ".embedding_length", U32(embd)},
		{arch + ".block_count", U32(8)},
		{arch + ".attention.head_count", U32(heads)},
	}
	f, err := Parse(mustWrite(t, append(kvs, extra...), tensors))
	if err != nil {
		t.Fatal(err)
	}
	return f.RoPE()
}

func mustModel(t *testing.T, arch string, ctx, embd, heads uint32, extra []KV, tensors ...Tensor) *RoPE {
	t.Helper()
	r, err := model(t, arch, ctx, embd, heads, extra, tensors...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRopeTypes: one file per llama.cpp rope type (llama_model_rope_type), as the converter
// writes them (convert_hf_to_gguf.py: Llama 3.1, Qwen2.5, Qwen2-VL, Qwen3.5, a Qwen2-VL
// mmproj), each to the spec it rotates by.
func TestRopeTypes(t *testing.T) {
	t.Run("norm", func(t *testing.T) {
		r := mustModel(t, "llama", 131072, 4096, 32, []KV{
			{"llama.attention.head_count_kv", U32(8)},
			{"llama.rope.dimension_count", U32(128)},
			{"llama.rope.freq_base", F32(500000)},
		})
		want := rope.Spec{HeadSize: 128, RotaryDim: 128, Base: 500000, Style: rope.GPTJ, MaxPositions: 131072,
			Scaling: rope.Scaling{Type: rope.ScalingDefault}}
		if r.Type != RopeNorm || !reflect.DeepEqual(r.Spec, want) || r.NumKVHeads != 8 || r.NumHeads != 32 || r.NumLayers != 8 {
			t.Errorf("got %s %+v (heads %d/%d, %d layers), want norm %+v", r.Type, r.Spec, r.NumHeads, r.NumKVHeads, r.NumLayers, want)
		}
	})
	t.Run("neox", func(t *testing.T) {
		r := mustModel(t, "qwen2", 32768, 3584, 28, []KV{
			{"qwen2.attention.head_count_kv", U32(4)},
			{"qwen2.rope.freq_base", F32(1000000)},
		})
		want := rope.Spec{HeadSize: 128, RotaryDim: 128, Base: 1000000, Style: rope.NeoX, MaxPositions: 32768,
			Scaling: rope.Scaling{Type: rope.ScalingDefault}}
		if r.Type != RopeNeoX || !reflect.DeepEqual(r.Spec, want) {
			t.Errorf("got %s %+v, want neox %+v", r.Type, r.Spec, want)
		}
	})
	t.Run("mrope", func(t *testing.T) {
		r := mustModel(t, "qwen2vl", 32768, 3584, 28, []KV{
			{"qwen2vl.rope.freq_base", F32(1000000)},
			{"qwen2vl.rope.dimension_sections", I32s(16, 24, 24, 0)},
		})
		want := rope.MRoPE{Sections: []int{16, 24, 24}}
		if r.Type != RopeMRoPE || r.Spec.Style != rope.NeoX || r.Spec.MRoPE == nil || !reflect.DeepEqual(*r.Spec.MRoPE, want) {
			t.Errorf("got %s %+v, want mrope with %+v", r.Type, r.Spec, want)
		}
	})
	t.Run("imrope", func(t *testing.T) {
		// Qwen3.5-27B: head 256, a quarter rotated, sections [11, 11, 10].
		r := mustModel(t, "qwen35", 262144, 5120, 24, []KV{
			{"qwen35.attention.key_length", U32(256)},
			{"qwen35.rope.dimension_count", U32(64)},
			{"qwen35.rope.freq_base", F32(10000000)},
			{"qwen35.rope.dimension_sections", I32s(11, 11, 10, 0)},
		})
		want := rope.Spec{HeadSize: 256, RotaryDim: 64, Base: 1e7, Style: rope.NeoX, MaxPositions: 262144,
			Scaling: rope.Scaling{Type: rope.ScalingDefault}, MRoPE: &rope.MRoPE{Sections: []int{11, 11, 10}, Interleaved: true}}
		if r.Type != RopeIMRoPE || !reflect.DeepEqual(r.Spec, want) {
			t.Errorf("got %s %+v, want imrope %+v", r.Type, r.Spec, want)
		}
	})
	t.Run("imrope fourth position", func(t *testing.T) {
		// Qwen3-VL-8B as convert_hf_to_gguf.py writes it: mrope_section [24, 20, 20] padded
		// with a 0. ggml gives pairs 61 and 62 (h and w turns past 3·20) the fourth position,
		// so the spec says llama.cpp's layout rather than refusing.
		r := mustModel(t, "qwen3vl", 262144, 4096, 32, []KV{
			{"qwen3vl.rope.freq_base", F32(5000000)},
			{"qwen3vl.rope.dimension_sections", I32s(24, 20, 20, 0)},
		})
		want := rope.Spec{HeadSize: 128, RotaryDim: 128, Base: 5e6, Style: rope.NeoX, MaxPositions: 262144,
			Scaling: rope.Scaling{Type: rope.ScalingDefault}, MRoPE: &rope.MRoPE{Sections: []int{24, 20, 20, 0}, Interleaved: true, GGMLFourth: true}}
		if r.Type != RopeIMRoPE || !reflect.DeepEqual(r.Spec, want) {
			t.Fatalf("got %s %+v, want imrope %+v", r.Type, r.Spec, want)
		}
		var fourth []int
		for i := range 64 {
			if r.Spec.MRoPE.Axis(i) == 3 {
				fourth = append(fourth, i)
			}
		}
		if !reflect.DeepEqual(fourth, []int{61, 62}) {
			t.Errorf("pairs on the fourth row %v, want [61 62]", fourth)
		}
		if !slices.ContainsFunc(r.Notes, func(n string) bool {
			return strings.Contains(n, "claims pairs 61, 62") && strings.Contains(n, "llm_graph_input_pos::set_input")
		}) {
			t.Errorf("notes %q: want one naming pairs 61, 62 and what llama.cpp feeds them", r.Notes)
		}
		// A fourth section of its own: t stops at 3·8, so t's later turns go there too.
		r = mustModel(t, "qwen3vl", 4096, 4096, 32, []KV{{"qwen3vl.rope.dimension_sections", I32s(8, 24, 24, 8)}})
		if m := r.Spec.MRoPE; m == nil || !m.GGMLFourth || !reflect.DeepEqual(m.Sections, []int{8, 24, 24, 8}) || m.Axis(24) != 3 || m.Axis(21) != 0 {
			t.Errorf("[8, 24, 24, 8]: %+v", r.Spec.MRoPE)
		}
	})
	t.Run("vision", func(t *testing.T) {
		f, err := Parse(mustWrite(t, []KV{
			{"general.architecture", Str("clip")},
			{"clip.projector_type", Str("qwen2vl_merger")},
			{"clip.vision.embedding_length", U32(1280)},
		}, nil))
		if err != nil {
			t.Fatal(err)
		}
		if _, rt, err := f.RopeType(); err != nil || rt != RopeVision {
			t.Fatalf("rope type %s, %v: want vision", rt, err)
		}
		_, err = f.RoPE()
		if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "vision") || !strings.Contains(err.Error(), "GGML_ROPE_TYPE_VISION") {
			t.Errorf("vision: %v, want ErrUnsupported naming the vision rope type", err)
		}
	})
}

// TestMRoPEPicks: glm4's rope type follows the file's sections (llama_hparams::use_mrope).
func TestMRoPEPicks(t *testing.T) {
	r := mustModel(t, "glm4", 65536, 4096, 32, []KV{{"glm4.rope.dimension_count", U32(64)}})
	if r.Type != RopeNorm || r.Spec.Style != rope.GPTJ || r.Spec.RotaryDim != 64 {
		t.Errorf("glm4 without sections: %s %+v", r.Type, r.Spec)
	}
	r = mustModel(t, "glm4", 65536, 4096, 32, []KV{
		{"glm4.rope.dimension_count", U32(64)},
		{"glm4.rope.dimension_sections", I32s(8, 12, 12, 0)},
	})
	if r.Type != RopeMRoPE || r.Spec.Style != rope.NeoX || r.Spec.MRoPE == nil {
		t.Errorf("glm4 with sections: %s %+v", r.Type, r.Spec)
	}
}

// TestYaRN: Qwen3 with YaRN 4× from 32768 (convert_hf_to_gguf.py writes the type, factor and
// original length); the attention factor is what llama_context leaves ggml multiplying by,
// 0.1·ln 4 + 1; deepseek2's log multiplier (0.1·mscale_all_dim) gives mscale(40, m)/mscale(40,
// m_all) with m = m_all, so 1 (llama_context's [TAG_DEEPSEEK2_YARN_LOG_MUL_FIX]).
func TestYaRN(t *testing.T) {
	r := mustModel(t, "qwen3", 131072, 4096, 32, []KV{
		{"qwen3.attention.key_length", U32(128)},
		{"qwen3.rope.freq_base", F32(1000000)},
		{"qwen3.rope.scaling.type", Str("yarn")},
		{"qwen3.rope.scaling.factor", F32(4)},
		{"qwen3.rope.scaling.original_context_length", U32(32768)},
	})
	want := rope.Scaling{Type: rope.ScalingYaRN, Factor: 4, OriginalMaxPositions: 32768, BetaFast: 32, BetaSlow: 1,
		AttentionFactor: 0.1*math.Log(4) + 1}
	if !reflect.DeepEqual(r.Spec.Scaling, want) {
		t.Errorf("yarn: %+v, want %+v", r.Spec.Scaling, want)
	}
	r = mustModel(t, "deepseek2", 163840, 7168, 128, []KV{
		{"deepseek2.rope.dimension_count", U32(64)},
		{"deepseek2.attention.key_length", U32(192)},
		{"deepseek2.rope.scaling.type", Str("yarn")},
		{"deepseek2.rope.scaling.factor", F32(40)},
		{"deepseek2.rope.scaling.original_context_length", U32(4096)},
		{"deepseek2.rope.scaling.yarn_log_multiplier", F32(0.707)},
		{"deepseek2.attention.kv_lora_rank", U32(512)},
	})
	wantAtt := 1.0
	if r.Spec.Style != rope.GPTJ || r.Spec.RotaryDim != 64 || r.Spec.HeadSize != 64 || r.Spec.Scaling.AttentionFactor != wantAtt {
		t.Errorf("deepseek2: %+v, want attention %v", r.Spec, wantAtt)
	}
	// qwen3's loader does not read yarn_attn_factor (only grok's does; TestYaRNKeysPerArch).
	r = mustModel(t, "qwen3", 4096, 4096, 32, []KV{
		{"qwen3.rope.scaling.type", Str("yarn")}, {"qwen3.rope.scaling.factor", F32(4)},
		{"qwen3.rope.scaling.original_context_length", U32(1024)},
		{"qwen3.rope.scaling.yarn_attn_factor", F32(0.5)},
	})
	if r.Spec.Scaling.AttentionFactor != 0.1*math.Log(4)+1 || len(r.Notes) != 1 {
		t.Errorf("yarn_attn_factor with YaRN: %+v, %q", r.Spec.Scaling, r.Notes)
	}
}

// llama3Factors are convert_hf_to_gguf.py LlamaModel.generate_extra_tensors's rope_freqs for
// Llama 3.1 (factor 8, low 1, high 4, original 8192), computed in float64 and stored as
// float32, as the converter stores them.
func llama3Factors(base float64, dim int) []float32 {
	out := make([]float32, dim/2)
	for i := range out {
		freq := 1 / math.Pow(base, float64(2*i)/float64(dim))
		wavelen := 2 * math.Pi / freq
		switch {
		case wavelen < 8192/4.0:
			out[i] = 1
		case wavelen > 8192/1.0:
			out[i] = 8
		default:
			smooth := (8192/wavelen - 1) / (4 - 1)
			out[i] = float32(1 / ((1-smooth)/8 + smooth))
		}
	}
	return out
}

// TestRopeFreqs: Llama 3.1's rope_freqs tensor divides the frequencies as HF's llama3 rule
// does, to the factors' float32 rounding.
func TestRopeFreqs(t *testing.T) {
	ff := llama3Factors(500000, 128)
	r := mustModel(t, "llama", 131072, 4096, 32, []KV{{"llama.rope.freq_base", F32(500000)}},
		Tensor{Name: TensorRopeFreqs, Shape: []int64{64}, Type: TypeF32, Data: f32Bytes(ff...)})
	if r.Spec.Scaling.Type != rope.ScalingLongRoPE || !reflect.DeepEqual(r.Factors, []string{TensorRopeFreqs}) || r.Spec.Scaling.AttentionFactor != 1 {
		t.Fatalf("rope_freqs: %+v", r)
	}
	hf := rope.Spec{HeadSize: 128, RotaryDim: 128, Base: 500000, MaxPositions: 131072, Scaling: rope.Scaling{
		Type: rope.ScalingLlama3, Factor: 8, LowFreqFactor: 1, HighFreqFactor: 4, OriginalMaxPositions: 8192}}
	want, _ := hf.Frequencies(-1)
	for _, maxPos := range []int{0, 131071} {
		got, att := r.Spec.Frequencies(maxPos)
		for i := range want {
			if d := math.Abs(got[i]-want[i]) / want[i]; d > 1e-7 {
				t.Errorf("max position %d: inv_freq[%d] = %v, HF llama3 %v (relative %g)", maxPos, i, got[i], want[i], d)
			}
		}
		if att != 1 {
			t.Errorf("attention factor %v", att)
		}
	}
}

// TestLongRoPE: Phi-3's long and short factor tensors, with the attention factor the
// converter writes.
func TestLongRoPE(t *testing.T) {
	short, long := make([]float32, 48), make([]float32, 48)
	for i := range short {
		short[i], long[i] = 1+float32(i)/100, 1+float32(i)
	}
	r := mustModel(t, "phi3", 131072, 3072, 32, []KV{
		{"phi3.rope.dimension_count", U32(96)},
		{"phi3.rope.scaling.attn_factor", F32(1.19)},
		{"phi3.rope.scaling.original_context_length", U32(4096)},
	}, Tensor{Name: TensorRopeFactorsLong, Shape: []int64{48}, Type: TypeF32, Data: f32Bytes(long...)},
		Tensor{Name: TensorRopeFactorsShort, Shape: []int64{48}, Type: TypeF32, Data: f32Bytes(short...)})
	sc := r.Spec.Scaling
	if sc.Type != rope.ScalingLongRoPE || sc.OriginalMaxPositions != 4096 || sc.AttentionFactor != float64(float32(1.19)) ||
		sc.LongFactor[47] != 48 || sc.ShortFactor[1] != float64(float32(1.01)) {
		t.Errorf("longrope: %+v", sc)
	}
	if _, err := model(t, "phi3", 131072, 3072, 32, []KV{{"phi3.rope.dimension_count", U32(96)}},
		Tensor{Name: TensorRopeFactorsLong, Shape: []int64{48}, Type: TypeF32, Data: f32Bytes(long...)}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "both") {
		t.Errorf("long factors alone: %v", err)
	}
	if _, err := model(t, "phi3", 131072, 3072, 32, nil,
		Tensor{Name: TensorRopeFreqs, Shape: []int64{47}, Type: TypeF32, Data: f32Bytes(long[:47]...)}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "n_rot/2 = 48") {
		t.Errorf("47 factors for 48 pairs: %v", err)
	}
}

// TestNoPELayers: llama4 and smollm3 leave every fourth layer unrotated; a llama4 file whose
// sliding window is 0 gets step n_layer, which the builder's test reads as the last layer
// unrotated (src/models/llama4.cpp use_rope, llama_model::load_hparams).
func TestNoPELayers(t *testing.T) {
	every4 := []bool{false, false, false, true, false, false, false, true}
	for _, arch := range []string{"llama4", "smollm3"} {
		r := mustModel(t, arch, 65536, 4096, 32, nil)
		if r.Spec.Local == nil || !reflect.DeepEqual(r.Spec.Local.NoRoPE, every4) {
			t.Errorf("%s: %+v", arch, r.Spec.Local)
		}
	}
	r := mustModel(t, "llama4", 10485760, 5120, 40, []KV{{"llama4.attention.sliding_window", U32(0)}})
	if r.Spec.Local == nil || !reflect.DeepEqual(r.Spec.Local.NoRoPE, []bool{false, false, false, false, false, false, false, true}) || len(r.Notes) != 1 {
		t.Errorf("llama4 with sliding_window 0: %+v, notes %q", r.Spec.Local, r.Notes)
	}
	if r := mustModel(t, "llama", 65536, 4096, 32, nil); r.Spec.Local != nil {
		t.Errorf("llama: %+v", r.Spec.Local)
	}
}

func TestRoPEErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		arch  string
		extra []KV
		is    error
		want  string
	}{
		{"unknown arch", "nosuch", nil, ErrUnsupported, `"nosuch"`},
		{"no rope", "gpt2", nil, ErrNoRoPE, "gpt2"},
		{"clip projector", "clip", []KV{{"clip.projector_type", Str("pixtral")}}, ErrUnsupported, "mmproj"},
		{"scaling type", "qwen2", []KV{{"qwen2.rope.scaling.type", Str("dynamic")}}, ErrInvalid, `"dynamic"`},
		{"scaling type not a string", "qwen2", []KV{{"qwen2.rope.scaling.type", U32(1)}}, ErrInvalid, "want a string"},
		{"base type", "qwen2", []KV{{"qwen2.rope.freq_base", Str("1e6")}}, ErrInvalid, "want a float"},
		{"n_rot for llama", "llama", []KV{{"llama.rope.dimension_count", U32(64)}}, ErrInvalid, "n_rot"},
		{"sections missing", "qwen2vl", nil, ErrInvalid, "dimension_sections: missing"},
		{"sections sum", "qwen2vl", []KV{{"qwen2vl.rope.dimension_sections", I32s(16, 24, 16, 0)}}, ErrUnsupported, "wraps"},
		{"imrope sections sum", "qwen3vl", []KV{{"qwen3vl.rope.dimension_sections", I32s(24, 20, 20, 4)}}, ErrUnsupported, "wraps"},
		{"per-layer rules", "cohere2", nil, ErrUnsupported, "cohere2"},
		{"swa base", "qwen2", []KV{{"qwen2.rope.freq_base_swa", F32(10000)}}, ErrUnsupported, "freq_base_swa"},
		{"linear attn", "qwen2", []KV{{"qwen2.rope.scaling.factor", F32(2)}, {"qwen2.rope.scaling.attn_factor", F32(2)}}, ErrUnsupported, "attn_factor"},
		{"plain yarn attn", "grok", []KV{{"grok.rope.scaling.yarn_attn_factor", F32(0.5)}}, ErrUnsupported, "yarn_attn_factor 0.5"},
		{"base 1", "qwen2", []KV{{"qwen2.rope.freq_base", F32(1)}}, rope.ErrSpec, "base"},
	} {
		_, err := model(t, c.arch, 4096, 4096, 32, c.extra)
		if !errors.Is(err, c.is) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %v mentioning %q", c.name, err, c.is, c.want)
		}
	}
	f, _ := Parse(mustWrite(t, []KV{{"general.architecture", Str("llama")}}, nil))
	if _, err := f.RoPE(); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "context_length: missing") {
		t.Errorf("no context length: %v", err)
	}
	f, _ = Parse(mustWrite(t, nil, nil))
	if _, err := f.RoPE(); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "general.architecture") {
		t.Errorf("no architecture: %v", err)
	}
}

// TestPerLayerHeadCounts: a per-layer head count gives the first attention layer's, with a
// note when layer 0 has none.
func TestPerLayerHeadCounts(t *testing.T) {
	f, err := Parse(mustWrite(t, []KV{
		{"general.architecture", Str("qwen3next")}, {"qwen3next.context_length", U32(4096)},
		{"qwen3next.embedding_length", U32(2048)}, {"qwen3next.attention.head_count", U32s(0, 0, 0, 16)},
		{"qwen3next.attention.head_count_kv", U32s(0, 0, 0, 2)}, {"qwen3next.attention.key_length", U32(256)},
		{"qwen3next.rope.dimension_count", U32(64)},
	}, nil))
	if err != nil {
		t.Fatal(err)
	}
	r, err := f.RoPE()
	if err != nil || r.NumHeads != 16 || r.NumKVHeads != 2 || r.Spec.HeadSize != 256 || r.Spec.RotaryDim != 64 {
		t.Errorf("%+v, %v", r, err)
	}
	// llama.cpp's load_hparams reads n_rot only when layer 0 has heads: a note says so.
	if err == nil && !hasNote(r, "layer 0 has no attention heads") {
		t.Errorf("no note on layer 0's heads: %q", r.Notes)
	}
	f, _ = Parse(mustWrite(t, []KV{
		{"general.architecture", Str("qwen2")}, {"qwen2.context_length", U32(4096)},
		{"qwen2.embedding_length", U32(2048)}, {"qwen2.attention.head_count", U32s(0, 0)},
	}, nil))
	if _, err := f.RoPE(); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "head_count: missing or 0") {
		t.Errorf("no attention layer: %v", err)
	}
}

// TestLongArraysNotDecoded: a per-layer or sections array far longer than any model's is
// refused from its length, before it is decoded into integers (which would take 8 bytes per
// file byte).
func TestLongArraysNotDecoded(t *testing.T) {
	long := Value{Type: TypeArray, Elem: TypeUint8, raw: make([]byte, 4<<20), n: 4 << 20}
	for _, c := range []struct{ key, want string }{
		{"qwen2.attention.head_count_kv", "one per layer"},
		{"qwen2.rope.dimension_sections", "at most 4"},
	} {
		f, err := Parse(mustWrite(t, []KV{
			{"general.architecture", Str("qwen2vl")}, {"qwen2vl.context_length", U32(4096)},
			{"qwen2vl.embedding_length", U32(2048)}, {"qwen2vl.attention.head_count", U32(16)},
			{strings.Replace(c.key, "qwen2.", "qwen2vl.", 1), long},
		}, nil))
		if err != nil {
			t.Fatal(err)
		}
		var rerr error
		if n := fileiotest.Allocated(func() { _, rerr = f.RoPE() }); n > 1<<20 {
			t.Errorf("%s: RoPE allocated %d bytes", c.key, n)
		}
		if !errors.Is(rerr, ErrInvalid) || !strings.Contains(rerr.Error(), c.want) {
			t.Errorf("%s: %v, want ErrInvalid mentioning %q", c.key, rerr, c.want)
		}
	}
}

// TestLinearScaling: a linear factor is rope.Spec's linear scaling; type none never scales.
func TestLinearScaling(t *testing.T) {
	r := mustModel(t, "llama", 16384, 4096, 32, []KV{{"llama.rope.scaling.factor", F32(4)}})
	if r.Spec.Scaling.Type != rope.ScalingLinear || r.Spec.Scaling.Factor != 4 || r.ScalingType != "" {
		t.Errorf("linear: %+v", r.Spec.Scaling)
	}
	r = mustModel(t, "llama", 16384, 4096, 32, []KV{{"llama.rope.scaling.type", Str("none")}, {"llama.rope.scaling.factor", F32(4)}})
	if r.Spec.Scaling.Type != rope.ScalingDefault {
		t.Errorf("none: %+v", r.Spec.Scaling)
	}
}

// TestIMRoPEAxisIsSpecs: for every section list that sums to the pairs, the spec mrope writes
// under IMRoPE turns each pair by the row ggml_mrope_cache_init does (imropeAxis).
func TestIMRoPEAxisIsSpecs(t *testing.T) {
	for a := range 9 {
		for b := range 9 {
			for c := range 9 {
				for d := range 3 {
					four := [4]int{a, b, c, d}
					half := a + b + c + d
					if half == 0 {
						continue
					}
					m := rope.MRoPE{Sections: four[:], Interleaved: true, GGMLFourth: true}
					if s := (rope.Spec{HeadSize: 2 * half, RotaryDim: 2 * half, Base: 10000, MRoPE: &m}); s.Validate() != nil {
						t.Fatalf("%v: %v", four, s.Validate())
					}
					for i := range half {
						if got, want := m.Axis(i), imropeAxis(i, four); got != want {
							t.Fatalf("%v pair %d: spec axis %d, ggml's %d", four, i, got, want)
						}
					}
				}
			}
		}
	}
}
