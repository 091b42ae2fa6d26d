package hf

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/rope"
)

func parseAs(t *testing.T, d Dialect, cfg string) *Model {
	t.Helper()
	m, err := ParseOptions{Dialect: d}.Parse([]byte(cfg))
	if err != nil {
		t.Fatalf("%s: %v", d, err)
	}
	return m
}

func presetAs(t *testing.T, d Dialect, name string) *Model {
	t.Helper()
	m, err := ParseOptions{Dialect: d}.Preset(name)
	if err != nil {
		t.Fatalf("%s: %v", d, err)
	}
	return m
}

func attention(s rope.Spec) float64 {
	_, att := s.Frequencies(-1)
	return att
}

// TestDialectYaRNAttentionFactor reproduces prime-rl#2802 / vllm#48621: a YaRN config whose
// attention_factor is 1 (poolside's Laguna: factor 64). HF (modeling_rope_utils.py
// _compute_yarn_parameters) and vLLM main (yarn_scaling_rope.py YaRNScalingRotaryEmbedding with
// attention_factor) scale cos/sin by 1; vLLM v0.11 (get_rope's yarn kwargs lack it) and SGLang
// (factory.py get_rope, yarn.py yarn_get_mscale_simple) by 0.1·ln 64 + 1 = 1.4159.
func TestDialectYaRNAttentionFactor(t *testing.T) {
	cfg := `{"model_type":"llama","hidden_size":4096,"num_attention_heads":32,"max_position_embeddings":262144,"rope_theta":500000,
		"rope_scaling":{"rope_type":"yarn","factor":64,"original_max_position_embeddings":4096,"attention_factor":1.0}}`
	computed := 0.1*math.Log(64) + 1
	want := map[Dialect]float64{
		DialectReference: 1, DialectHF: 1, DialectHF457: 1, DialectVLLM: 1,
		DialectVLLM011: computed, DialectSGLang: computed, DialectLlamaCpp: 1, // llama.cpp: not verified, reference reading
	}
	for d, w := range want {
		if got := attention(parseAs(t, d, cfg).Spec); math.Abs(got-w) > 1e-15 {
			t.Errorf("%s: attention factor %.7f, want %.7f", d, got, w)
		}
	}
	if math.Abs(computed-1.4158883) > 1e-7 {
		t.Errorf("0.1·ln 64 + 1 = %.7f, want the 1.4158883 vllm#46280 reports", computed)
	}
	// mscale / mscale_all_dim on the plain yarn path (Ministral 3, vllm#48621): HF's ratio is 1,
	// vLLM v0.11 and SGLang compute 0.1·ln 16 + 1 = 1.2773.
	ministral := `{"model_type":"mistral","hidden_size":4096,"num_attention_heads":32,"max_position_embeddings":262144,"rope_theta":1000000,
		"rope_scaling":{"rope_type":"yarn","factor":16,"original_max_position_embeddings":16384,"mscale":1,"mscale_all_dim":1}}`
	if got := attention(parseAs(t, DialectHF, ministral).Spec); got != 1 {
		t.Errorf("hf: Ministral 3 attention factor %v, want 1", got)
	}
	if got := attention(parseAs(t, DialectVLLM011, ministral).Spec); math.Abs(got-1.2772588722239782) > 1e-15 {
		t.Errorf("vllm-0.11: Ministral 3 attention factor %.16f, want 1.2772588722239782 (vllm#48621)", got)
	}
	// DeepSeek's MLA models take vLLM's deepseek_yarn path (deepseek_v2.py), which reads mscale
	// and mscale_all_dim: DeepSeek-V3 reads alike everywhere.
	for _, d := range []Dialect{DialectHF, DialectVLLM011, DialectSGLang} {
		if got := attention(presetAs(t, d, "deepseek-v3").Spec); got != 1 {
			t.Errorf("%s: deepseek-v3 attention factor %v, want 1 (mscale = mscale_all_dim)", d, got)
		}
	}
}

// yarnRampInv is YaRN's inv_freq of pair i written from transformers _compute_yarn_parameters,
// with or without truncate's floor/ceil of the correction range.
func yarnRampInv(i, d int, base, factor float64, orig int, truncate bool) float64 {
	dim := func(rot float64) float64 {
		return float64(d) * math.Log(float64(orig)/(rot*2*math.Pi)) / (2 * math.Log(base))
	}
	low, high := dim(32), dim(1)
	if truncate {
		low, high = math.Floor(low), math.Ceil(high)
	}
	low, high = math.Max(low, 0), math.Min(high, float64(d-1))
	ramp := math.Min(math.Max((float64(i)-low)/(high-low), 0), 1)
	g := math.Pow(base, float64(2*i)/float64(d))
	return (1/(factor*g))*ramp + (1/g)*(1-ramp)
}

// TestDialectYaRNTruncate reproduces vllm#27722 on gpt-oss-20b (truncate false): HF, vLLM main
// (#28244) and SGLang (factory.py) keep the correction range unrounded; vLLM v0.11
// (common.py yarn_find_correction_range) and llama.cpp (ggml.c ggml_rope_yarn_corr_dims) floor
// and ceil it, so the ramp's pairs get other frequencies.
func TestDialectYaRNTruncate(t *testing.T) {
	for _, c := range []struct {
		d        Dialect
		truncate bool
	}{{DialectHF, false}, {DialectHF457, false}, {DialectVLLM, false}, {DialectSGLang, false}, {DialectVLLM011, true}, {DialectLlamaCpp, true}} {
		s := presetAs(t, c.d, "gpt-oss-20b").Spec
		inv, _ := s.Frequencies(-1)
		differs := 0
		for i := range inv {
			want := yarnRampInv(i, 64, 150000, 32, 4096, c.truncate)
			if math.Abs(inv[i]-want) > 1e-15*want {
				t.Errorf("%s: inv_freq[%d] = %.17g, want %.17g (truncate %t)", c.d, i, inv[i], want, c.truncate)
			}
			if yarnRampInv(i, 64, 150000, 32, 4096, !c.truncate) != want {
				differs++
			}
		}
		if differs == 0 {
			t.Fatalf("the two correction ranges give the same frequencies: the test cannot tell the dialects apart")
		}
	}
}

// TestDialectDynamicNTK reproduces vLLM PR #41277 on a dynamic-NTK config without
// max_trained_positions (factor 2, max 8192): vLLM v0.11 and SGLang stretch the base by
// factor² − factor + 1 = 3 for every call (DynamicNTKScalingRotaryEmbedding before the fix);
// vLLM main by factor·max/trained − (factor − 1) = 1 (plain RoPE); HF per call, plain RoPE below
// max_position_embeddings and stretched by 2·8192/8192... past it.
func TestDialectDynamicNTK(t *testing.T) {
	cfg := `{"model_type":"llama","hidden_size":4096,"num_attention_heads":32,"max_position_embeddings":8192,"rope_theta":10000,
		"rope_scaling":{"rope_type":"dynamic","factor":2}}`
	d := 128.0
	pair1 := func(base float64) float64 { return 1 / math.Pow(base, 2/d) }
	for _, c := range []struct {
		d    Dialect
		rule rope.DynamicLength
		at   int
		base float64
	}{
		{DialectVLLM011, rope.DynamicStatic, -1, 10000 * math.Pow(3, d/(d-2))},
		{DialectSGLang, rope.DynamicStatic, -1, 10000 * math.Pow(3, d/(d-2))},
		{DialectVLLM, rope.DynamicMaxTrained, -1, 10000},
		{DialectHF, rope.DynamicPerCall, 100, 10000},
		{DialectHF, rope.DynamicPerCall, 16383, 10000 * math.Pow(2*16384.0/8192-1, d/(d-2))},
		{DialectHF457, rope.DynamicPerCall, 8191, 10000},
		{DialectLlamaCpp, rope.DynamicStatic, 100000, 10000}, // convert_hf_to_gguf.py writes no dynamic scaling
	} {
		s := parseAs(t, c.d, cfg).Spec
		if c.d == DialectLlamaCpp {
			if s.Scaling.Type != rope.ScalingDefault {
				t.Errorf("llama.cpp: scaling %s, want default", s.Scaling.Type)
			}
		} else if s.Scaling.Dynamic != c.rule {
			t.Errorf("%s: dynamic rule %s, want %s", c.d, s.Scaling.Dynamic, c.rule)
		}
		inv, _ := s.Frequencies(c.at)
		if want := pair1(c.base); math.Abs(inv[1]-want) > 1e-14*want {
			t.Errorf("%s at %d: inv_freq[1] = %.17g, want %.17g", c.d, c.at, inv[1], want)
		}
	}
}

// TestDialectLongRoPE: the LongRoPE rules. An explicit factor (8) that differs from
// max / original (32): HF main takes the factor (_compute_longrope_parameters); v4.57 takes the
// lengths when original_max_position_embeddings is top level; vLLM and SGLang always take the
// lengths (Phi3LongRoPEScaledRotaryEmbedding.__init__) and never read attention_factor.
func TestDialectLongRoPE(t *testing.T) {
	factors := `"short_factor":[1,1,1,1,1,1,1,1],"long_factor":[2,3,4,5,6,7,8,9]`
	top := `{"model_type":"phi3","hidden_size":128,"num_attention_heads":8,"max_position_embeddings":131072,"original_max_position_embeddings":4096,
		"rope_theta":10000,"rope_scaling":{"type":"longrope","factor":8,` + factors + `}}`
	byFactor := math.Sqrt(1 + math.Log(8)/math.Log(4096))
	byLengths := math.Sqrt(1 + math.Log(32)/math.Log(4096))
	for d, w := range map[Dialect]float64{DialectReference: byFactor, DialectHF: byFactor, DialectHF457: byLengths,
		DialectVLLM: byLengths, DialectVLLM011: byLengths, DialectSGLang: byLengths} {
		if got := attention(parseAs(t, d, top).Spec); math.Abs(got-w) > 1e-15 {
			t.Errorf("%s: attention factor %.9f, want %.9f", d, got, w)
		}
	}

	// The original length only in the rope object: v4.57 reads it from the top level only, so its
	// original is max_position_embeddings (131072): the factor 8 with ln 131072, and the long
	// factors never apply below max.
	// (Phi3Config defaults the top-level key to 4096, so the case needs a family whose config
	// class does not.)
	inner := strings.NewReplacer(`"original_max_position_embeddings":4096,`, "", `"type":"longrope",`,
		`"type":"longrope","original_max_position_embeddings":4096,`, `"phi3"`, `"llama"`).Replace(top)
	s := parseAs(t, DialectHF457, inner).Spec
	if got, w := attention(s), math.Sqrt(1+math.Log(8)/math.Log(131072)); math.Abs(got-w) > 1e-15 {
		t.Errorf("hf-4.57, rope-level original: attention factor %.9f, want %.9f", got, w)
	}
	if s.OriginalMax() != 131072 {
		t.Errorf("hf-4.57, rope-level original: original %d, want max_position_embeddings 131072", s.OriginalMax())
	}
	if s := parseAs(t, DialectHF, inner).Spec; s.OriginalMax() != 4096 {
		t.Errorf("hf: rope-level original %d, want 4096", s.OriginalMax())
	}

	// An attention_factor key: HF reads it, vLLM does not.
	withAtt := strings.Replace(top, `"factor":8,`, `"factor":8,"attention_factor":1.5,`, 1)
	if got := attention(parseAs(t, DialectHF, withAtt).Spec); got != 1.5 {
		t.Errorf("hf: attention_factor 1.5 read as %v", got)
	}
	if got := attention(parseAs(t, DialectVLLM, withAtt).Spec); math.Abs(got-byLengths) > 1e-15 {
		t.Errorf("vllm: attention factor %v, want %v (attention_factor not read)", got, byLengths)
	}

	// vLLM main (#27431) serves max_position_embeddings > original with the long factors at every
	// position; HF switches per call.
	p3 := presetAs(t, DialectVLLM, "phi-3-mini-128k").Spec
	if !slices.Equal(p3.Scaling.ShortFactor, p3.Scaling.LongFactor) {
		t.Errorf("vllm: phi-3-mini-128k's short table should be the long one")
	}
	short, _ := p3.Frequencies(0)
	long, _ := p3.Frequencies(p3.OriginalMax())
	if !slices.Equal(short, long) {
		t.Errorf("vllm: position 0 and the original length use different tables")
	}
	h3 := presetAs(t, DialectHF, "phi-3-mini-128k").Spec
	if hs, _ := h3.Frequencies(0); slices.Equal(hs, long) {
		t.Errorf("hf: phi-3-mini-128k uses the long factors at position 0")
	}
}

// TestDialectPhiMoE: HF main's PhimoeRotaryEmbedding.forward calls rope_init_fn(config) without
// seq_len, so the short factors serve every length; v4.57 (forward with seq_len), vLLM and the
// reference switch to the long factors at the original length.
func TestDialectPhiMoE(t *testing.T) {
	cfg := `{"model_type":"phimoe","hidden_size":128,"num_attention_heads":8,"max_position_embeddings":131072,"original_max_position_embeddings":4096,
		"rope_theta":10000,"rope_scaling":{"type":"longrope","short_mscale":1.2,"long_mscale":1.2,
		"short_factor":[1,1,1,1,1,1,1,1],"long_factor":[2,3,4,5,6,7,8,9]}}`
	plain := rope.Spec{HeadSize: 16, RotaryDim: 16, Base: 10000}
	short, _ := plain.Frequencies(-1) // short factors all 1
	for d, never := range map[Dialect]bool{DialectReference: false, DialectHF: true, DialectHF457: false, DialectVLLM: false} {
		s := parseAs(t, d, cfg).Spec
		at, _ := s.Frequencies(100000)
		if got := slices.Equal(at, short); got != never {
			t.Errorf("%s: position 100000 uses the short factors: %t, want %t", d, got, never)
		}
	}
}

// TestDialectRopeParameters reproduces DeepSpeed#8345: a transformers v5 config that keeps its
// theta only in rope_parameters. Readers that predate v5 (transformers v4.57, vLLM v0.11) never
// see it and use LlamaConfig's default 10000.
func TestDialectRopeParameters(t *testing.T) {
	cfg := `{"model_type":"llama","hidden_size":4096,"num_attention_heads":32,"max_position_embeddings":131072,
		"rope_parameters":{"rope_type":"llama3","rope_theta":500000,"factor":8,"low_freq_factor":1,"high_freq_factor":4,"original_max_position_embeddings":8192}}`
	for d, base := range map[Dialect]float64{DialectReference: 500000, DialectHF: 500000, DialectVLLM: 500000, DialectSGLang: 500000, DialectLlamaCpp: 500000,
		DialectHF457: 10000, DialectVLLM011: 10000} {
		m := parseAs(t, d, cfg)
		if m.Spec.Base != base {
			t.Errorf("%s: base %v, want %v", d, m.Spec.Base, base)
		}
		wantType := rope.ScalingLlama3
		if base == 10000 {
			wantType = rope.ScalingDefault
		}
		if m.Spec.Scaling.Type != wantType {
			t.Errorf("%s: scaling %s, want %s", d, m.Spec.Scaling.Type, wantType)
		}
	}
	// The legacy keys read alike everywhere.
	for _, d := range Dialects() {
		if b := presetAs(t, d, "llama-3.1-8b").Spec.Base; b != 500000 {
			t.Errorf("%s: llama-3.1-8b base %v, want 500000", d, b)
		}
	}
}

// TestDialectMiniMaxAndMRoPE: HF's MiniMaxM2Config has no rotary_dim (the whole head rotates)
// where vLLM's minimax_m2.py rotates rotary_dim; vLLM's get_rope builds MRoPE only when the
// config names mrope_section, where HF's Qwen3VLTextRotaryEmbedding defaults it.
func TestDialectMiniMaxAndMRoPE(t *testing.T) {
	mm := `{"model_type":"minimax_m2","hidden_size":3072,"num_attention_heads":48,"num_key_value_heads":8,"head_dim":128,"rotary_dim":64,
		"max_position_embeddings":196608,"rope_theta":5000000}`
	for d, rd := range map[Dialect]int{DialectReference: 64, DialectVLLM: 64, DialectHF: 128, DialectHF457: 64} {
		if got := parseAs(t, d, mm).Spec.RotaryDim; got != rd {
			t.Errorf("%s: minimax_m2 rotary dim %d, want %d", d, got, rd)
		}
	}
	vl := `{"model_type":"qwen3_vl_text","hidden_size":4096,"num_attention_heads":32,"head_dim":128,"max_position_embeddings":262144,"rope_theta":5000000}`
	for d, sections := range map[Dialect][]int{DialectHF: {24, 20, 20}, DialectHF457: {24, 20, 20}, DialectVLLM: nil, DialectVLLM011: nil, DialectSGLang: nil} {
		var got []int
		if m := parseAs(t, d, vl).Spec.MRoPE; m != nil {
			got = m.Sections
		}
		if !slices.Equal(got, sections) {
			t.Errorf("%s: mrope sections %v, want %v", d, got, sections)
		}
	}
	// Sections without mrope_interleaved: HF's Qwen3VLTextRotaryEmbedding interleaves whatever the
	// config says; vLLM's and SGLang's get_rope default the key to false (chunked).
	noKey := `{"model_type":"qwen3_vl_text","hidden_size":4096,"num_attention_heads":32,"head_dim":128,"max_position_embeddings":262144,
		"rope_theta":5000000,"rope_scaling":{"rope_type":"default","mrope_section":[24,20,20]}}`
	for d, inter := range map[Dialect]bool{DialectReference: true, DialectHF: true, DialectHF457: true, DialectVLLM: false, DialectVLLM011: false, DialectSGLang: false} {
		if m := parseAs(t, d, noKey).Spec.MRoPE; m == nil || m.Interleaved != inter {
			t.Errorf("%s: mrope %+v, want interleaved %t", d, m, inter)
		}
	}
	// A config that names its sections reads alike.
	for _, d := range Dialects() {
		if m := presetAs(t, d, "qwen3-vl-8b").Spec.MRoPE; m == nil || !slices.Equal(m.Sections, []int{24, 20, 20}) {
			t.Errorf("%s: qwen3-vl-8b sections %v", d, m)
		}
	}
}

// TestDialectReferenceUnchanged: the zero Dialect is Parse, and every dialect's table cites the
// upstream code of each rule it claims.
func TestDialectReferenceUnchanged(t *testing.T) {
	for _, name := range PresetNames() {
		a, err := Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		b := presetAs(t, DialectReference, name)
		if !specEqual(a.Spec, b.Spec) || !slices.Equal(a.Notes, b.Notes) {
			t.Errorf("%s: the reference dialect changes the model", name)
		}
	}
	for _, d := range append(Dialects(), DialectReference) {
		rs := d.Readings()
		if len(rs) == 0 {
			t.Errorf("%s: no verified rule", d)
		}
		for _, r := range rs {
			if r.Follows == "" || !slices.Contains(ruleChoices[r.Rule], r.Choice) {
				t.Errorf("%s %s: choice %q, follows %q", d, r.Rule, r.Choice, r.Follows)
			}
		}
	}
	for _, s := range []string{"hf", "vllm-0.11", "llama.cpp", "reference", ""} {
		if _, err := ParseDialect(s); err != nil {
			t.Errorf("ParseDialect(%q): %v", s, err)
		}
	}
	if _, err := ParseDialect("vllm-0.10"); err == nil || !strings.Contains(err.Error(), "vllm-0.11") {
		t.Errorf("ParseDialect(vllm-0.10): %v, want an error listing the dialects", err)
	}
	for _, o := range []ParseOptions{{Dialect: "tgi"}, {Readings: map[Rule]string{"nope": "x"}}, {Readings: map[Rule]string{RuleYaRNTruncate: "maybe"}}} {
		_, err := o.Parse([]byte(`{"model_type":"llama","hidden_size":64,"num_attention_heads":1}`))
		if !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: %v, want ErrConfig", o, err)
		}
	}
}

// FuzzParseDialects: every dialect parses any input without panicking, wraps its errors in
// ErrConfig and gives a spec that validates; a config the reference reading refuses for its
// JSON is refused by every dialect.
func FuzzParseDialects(f *testing.F) {
	for _, name := range PresetNames() {
		data, err := PresetJSON(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		`{"model_type":"phimoe","hidden_size":16,"num_attention_heads":1,"max_position_embeddings":9,"rope_scaling":{"type":"longrope","short_factor":[1,1,1,1,1,1,1,1],"long_factor":[2,2,2,2,2,2,2,2]}}`,
		`{"model_type":"minimax_m2","hidden_size":64,"num_attention_heads":1,"rotary_dim":null,"text_config":{"rotary_dim":4}}`,
		`{"model_type":"llama","hidden_size":64,"num_attention_heads":1,"rope_parameters":{"full_attention":{"rope_type":"yarn","factor":4,"attention_factor":0,"truncate":false},"sliding_attention":3}}`,
		`{"model_type":"deepseek_v3","qk_rope_head_dim":64,"num_attention_heads":1,"rope_scaling":{"type":"deepseek_yarn","factor":40,"mscale":1,"attention_factor":2}}`,
		`{"model_type":"llama","hidden_size":64,"num_attention_heads":1,"max_position_embeddings":10,"rope_scaling":{"rope_type":"dynamic","factor":2,"max_trained_positions":1000}}`,
		`{"model_type":"qwen3_vl","text_config":"x"}`,
		`{"model_type":"kimi_k2","qk_rope_head_dim":64,"num_attention_heads":1,"rope_scaling":{"type":"yarn","factor":40,"mscale":0.707,"attn_factor":null}}`,
		`{"model_type":"llama","hidden_size":64,"num_attention_heads":1,"rotary_pct":0.5,"partial_rotary_factor":0.25,"rope_parameters":{"rope_type":"default","partial_rotary_factor":0.5}}`,
		`{"model_type":"glm4","hidden_size":64,"num_attention_heads":1,"partial_rotary_factor":0.25,"rope_parameters":{"rope_type":"yarn","factor":2,"partial_rotary_factor":1}}`,
		`{"model_type":"gpt_neox","hidden_size":64,"num_attention_heads":1,"rotary_pct":0.5,"partial_rotary_factor":"x","rope_scaling":{"rope_type":"linear","factor":2}}`,
		`{"model_type":"gemma3_text","hidden_size":64,"num_attention_heads":1,"partial_rotary_factor":0.5,"rope_parameters":{"full_attention":{"rope_type":"linear","factor":2,"partial_rotary_factor":0.5},"sliding_attention":{"rope_type":"default","partial_rotary_factor":0.5}}}`,
		`{"model_type":"zaya","num_hidden_layers":2,"layer_types":["hybrid","hybrid_sliding"],"partial_rotary_factor":0.75,"rope_parameters":{"hybrid":{"rope_type":"linear","factor":2,"partial_rotary_factor":0.5},"hybrid_sliding":{"rope_type":"default","partial_rotary_factor":0.25}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, refErr := Parse(data)
		for _, d := range Dialects() {
			m, err := ParseOptions{Dialect: d}.Parse(data)
			if err != nil {
				if !errors.Is(err, ErrConfig) {
					t.Fatalf("%s: error %v does not wrap ErrConfig", d, err)
				}
				continue
			}
			if refErr != nil && strings.Contains(refErr.Error(), "not valid JSON") {
				t.Fatalf("%s: parsed what the reference refuses as JSON: %v", d, refErr)
			}
			if err := m.Spec.Validate(); err != nil {
				t.Fatalf("%s: invalid spec: %v", d, err)
			}
		}
	})
}

// TestDialectLongRoPEBoundary: vLLM v0.11's and SGLang's Phi3LongRoPEScaledRotaryEmbedding.forward
// take the long cache when a position exceeds the original length (positions > original); HF's
// longrope_frequency_update when seq_len > original, that is a position equal to it. The
// attention factor stays the one of the real original length.
func TestDialectLongRoPEBoundary(t *testing.T) {
	for d, switchAt := range map[Dialect]int{DialectHF: 4096, DialectHF457: 4096, DialectVLLM011: 4097, DialectSGLang: 4097} {
		ref := presetAs(t, DialectReference, "phi-3-mini-128k").Spec
		s := presetAs(t, d, "phi-3-mini-128k").Spec
		short, _ := ref.Frequencies(0)
		long, _ := ref.Frequencies(4096)
		before, attBefore := s.Frequencies(switchAt - 1)
		after, attAfter := s.Frequencies(switchAt)
		if !slices.Equal(before, short) || !slices.Equal(after, long) {
			t.Errorf("%s: the long factors should start at position %d", d, switchAt)
		}
		if want := attention(ref); attBefore != want || attAfter != want {
			t.Errorf("%s: attention factor %v / %v, want %v", d, attBefore, attAfter, want)
		}
	}
}

// TestDialectVLLM011LongRoPEOriginal: vLLM v0.11 (0e93ac0b) models/llama.py LlamaDecoderLayer,
// which Phi-3 runs, copies a top-level original_max_position_embeddings into rope_scaling, and
// get_rope reads the rope object's key otherwise: the config-level key wins, as HF main's
// standardize_rope_params, where v4.57 reads the top level only.
func TestDialectVLLM011LongRoPEOriginal(t *testing.T) {
	rd, ok := DialectVLLM011.Reading(RuleLongRoPEOriginal)
	if !ok || rd.Choice != "config-or-rope" {
		t.Fatalf("vllm-0.11 longrope_original: %+v (verified %v), want config-or-rope", rd, ok)
	}
	factors := `"short_factor":[1,1,1,1,1,1,1,1],"long_factor":[2,3,4,5,6,7,8,9]`
	inner := `{"model_type":"llama","hidden_size":128,"num_attention_heads":8,"max_position_embeddings":131072,
		"rope_theta":10000,"rope_scaling":{"type":"longrope","original_max_position_embeddings":4096,` + factors + `}}`
	// The spec's original length is one past vLLM's (its long-past-original switch), the attention
	// factor max / original's.
	both := strings.Replace(inner, `"rope_theta":10000,`, `"rope_theta":10000,"original_max_position_embeddings":8192,`, 1)
	for _, c := range []struct {
		name, cfg string
		orig      int
	}{{"rope-level original", inner, 4096}, {"both originals", both, 8192}} {
		s := parseAs(t, DialectVLLM011, c.cfg).Spec
		want := math.Sqrt(1 + math.Log(131072/float64(c.orig))/math.Log(float64(c.orig)))
		if s.OriginalMax() != c.orig+1 || math.Abs(attention(s)-want) > 1e-15 {
			t.Errorf("vllm-0.11, %s: original %d, attention factor %v; want %d and %v", c.name, s.OriginalMax(), attention(s), c.orig+1, want)
		}
	}
}

// TestDialectVLLMLongRoPEServedLength: vLLM's default max_model_len for a LongRoPE model is the
// top-level original_max_position_embeddings (vllm/config/model.py _get_and_verify_max_len), so
// its long-if-extended table (Phi3LongRoPEScaledRotaryEmbedding: use_long_rope = max_model_len >
// original) is what a launch with --max-model-len past the original gets; the note and the
// citation say so rather than a default of max_position_embeddings.
func TestDialectVLLMLongRoPEServedLength(t *testing.T) {
	rd, _ := DialectVLLM.Reading(RuleLongRoPETables)
	if strings.Contains(rd.Follows, "defaulting to max_position_embeddings") || !strings.Contains(rd.Follows, "_get_and_verify_max_len") {
		t.Errorf("vllm longrope_tables follows %q", rd.Follows)
	}
	m := presetAs(t, DialectVLLM, "phi-3-mini-128k")
	found := false
	for _, n := range m.Notes {
		found = found || strings.Contains(n, "longrope_tables") && strings.Contains(n, "--max-model-len")
	}
	if !found {
		t.Errorf("vllm phi-3-mini-128k notes %q: want the served-length condition named", m.Notes)
	}
}

// TestDialectRopeIndex: the Qwen-VL get_rope_index version is transformers main's rewrite
// (#43972, models/qwen2_vl/modeling_qwen2_vl.py Qwen2VLModel.get_rope_index) under hf only;
// hf-4.57's and vLLM's (qwen2_vl.py get_mrope_input_positions) are v4.57's. The rule moves
// positions, not the spec: every reading derives the same spec.
func TestDialectRopeIndex(t *testing.T) {
	want := map[Dialect]string{DialectReference: "v4.57", DialectHF: "unified", DialectHF457: "v4.57", DialectVLLM: "v4.57"}
	for d, c := range want {
		rd, ok := d.Reading(RuleRopeIndex)
		if !ok || rd.Choice != c {
			t.Errorf("%s: rope_index %q (verified %v), want %q", d, rd.Choice, ok, c)
		}
	}
	for _, d := range []Dialect{DialectVLLM011, DialectSGLang, DialectLlamaCpp} {
		if rd, ok := d.Reading(RuleRopeIndex); ok {
			t.Errorf("%s: rope_index %q: not verified in its source, want no reading", d, rd.Choice)
		}
	}
	for _, name := range []string{"qwen2-vl-7b", "qwen2.5-vl-7b", "qwen3-vl-8b"} {
		a, err := ParseOptions{Readings: map[Rule]string{RuleRopeIndex: "v4.57"}}.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		b, err := ParseOptions{Readings: map[Rule]string{RuleRopeIndex: "unified"}}.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a.Spec, b.Spec) {
			t.Errorf("%s: the rope_index readings derive different specs", name)
		}
	}
	// The note says so under hf, for the Qwen-VL families only.
	hasNote := func(m *Model) bool {
		return slices.ContainsFunc(m.Notes, func(n string) bool { return strings.Contains(n, "rope_index") })
	}
	if !hasNote(presetAs(t, DialectHF, "qwen3-vl-8b")) || hasNote(presetAs(t, DialectHF457, "qwen3-vl-8b")) || hasNote(presetAs(t, DialectHF, "llama-3.1-8b")) {
		t.Error("the rope_index note: want it under hf for qwen3-vl-8b only")
	}
	if _, err := (ParseOptions{Readings: map[Rule]string{RuleRopeIndex: "v5"}}).Preset("qwen2-vl-7b"); err == nil {
		t.Error("rope_index v5: accepted")
	}
}

// TestDialectIndexerPairing: DeepSeek-V3.2's lightning indexer rotates NeoX-wise while its MLA
// rotates GPT-J-wise (transformers main modeling_deepseek_v32.py DeepseekV32Indexer.forward:
// apply_rotary_pos_emb; DeepSeek-V3.2-Exp's inference code fixed in 8631a813). vLLM v0.11
// handed the indexer the MLA's rotary embedding (models/deepseek_v2.py Indexer.forward with
// mla.py's rotary_emb, is_neox_style=False), so its indexer paired GPT-J-wise until #28968;
// vLLM main (DeepseekV2MLAAttention.indexer_rope_emb, is_neox_style=True without
// indexer_rope_interleave) and SGLang main (nsa_indexer.py Indexer.__init__, is_neox_style=True)
// pair NeoX-wise. SGLang's fix was asked for in sglang#13530; vllm-ascend's PR #5701 removed
// its fix (#4641) by accident and #7859 restored it, but vllm-ascend is not a dialect here.
func TestDialectIndexerPairing(t *testing.T) {
	want := map[Dialect]rope.Style{DialectReference: rope.NeoX, DialectHF: rope.NeoX, DialectVLLM: rope.NeoX, DialectSGLang: rope.NeoX, DialectVLLM011: rope.GPTJ}
	for d, style := range want {
		m := presetAs(t, d, "deepseek-v3.2-exp")
		if m.Indexer == nil || m.Indexer.Style != style || m.Spec.Style != rope.GPTJ {
			t.Errorf("%s: indexer %+v, MLA style %v: want indexer %v, MLA GPT-J", d, m.Indexer, m.Spec.Style, style)
			continue
		}
		// Only the pairing moves: the frequencies and head are the reference indexer's.
		ref := presetAs(t, DialectReference, "deepseek-v3.2-exp").Indexer
		got := *m.Indexer
		got.Style = ref.Style
		if !reflect.DeepEqual(got, *ref) {
			t.Errorf("%s: indexer %+v differs from the reference %+v beyond its pairing", d, *m.Indexer, *ref)
		}
	}
	for _, d := range []Dialect{DialectHF457, DialectLlamaCpp} {
		if rd, ok := d.Reading(RuleIndexerPairing); ok {
			t.Errorf("%s: indexer_pairing %q: not verified (v4.57 has no deepseek_v32), want no reading", d, rd.Choice)
		}
	}
	// DeepSeek-V3 has no indexer: the rule leaves it alone.
	if m := presetAs(t, DialectVLLM011, "deepseek-v3"); m.Indexer != nil {
		t.Errorf("deepseek-v3 under vllm-0.11: indexer %+v", m.Indexer)
	}
}

// TestDialectNestedTextConfig: the key rules act on the text config hf reads, an Omni model's
// thinker_config.text_config included (Qwen3OmniMoeConfig), so its mrope_section counts and its
// rope_parameters are the ones hf-4.57 ignores; vLLM's get_rope (rotary_embedding/__init__.py)
// builds HunYuan-VL's XDRotaryEmbedding from xdrope_section, its sections under their legacy name.
func TestDialectNestedTextConfig(t *testing.T) {
	for _, d := range Dialects() {
		m := presetAs(t, d, "qwen3-omni-30b-a3b-instruct").Spec.MRoPE
		if m == nil || !slices.Equal(m.Sections, []int{24, 20, 20}) || !m.Interleaved {
			t.Errorf("%s: qwen3-omni sections %+v, want [24 20 20] interleaved", d, m)
		}
	}
	noKey := `{"model_type":"qwen3_omni_moe","thinker_config":{"model_type":"qwen3_omni_moe_thinker","text_config":{
		"model_type":"qwen3_omni_moe_text","hidden_size":2048,"num_attention_heads":32,"head_dim":128,"max_position_embeddings":65536,
		"rope_theta":1000000,"rope_scaling":{"rope_type":"default","mrope_section":[24,20,20]}}}}`
	for d, inter := range map[Dialect]bool{DialectHF: true, DialectVLLM: false, DialectSGLang: false} {
		m := parseAs(t, d, noKey)
		if m.Spec.MRoPE == nil || m.Spec.MRoPE.Interleaved != inter {
			t.Errorf("%s: thinker mrope %+v, want interleaved %t", d, m.Spec.MRoPE, inter)
		}
	}
	v5 := `{"model_type":"qwen3_omni_moe","thinker_config":{"model_type":"qwen3_omni_moe_thinker","text_config":{
		"model_type":"qwen3_omni_moe_text","hidden_size":2048,"num_attention_heads":32,"head_dim":128,"max_position_embeddings":65536,
		"rope_parameters":{"rope_type":"default","rope_theta":5000000,"mrope_section":[24,20,20]}}}}`
	// Without rope_parameters, Qwen3OmniMoeTextConfig's default rope_theta 1e6 (v4.57's too).
	for d, base := range map[Dialect]float64{DialectHF: 5000000, DialectVLLM: 5000000, DialectHF457: 1000000, DialectVLLM011: 1000000} {
		if got := parseAs(t, d, v5).Spec.Base; got != base {
			t.Errorf("%s: thinker rope_parameters: base %v, want %v", d, got, base)
		}
	}
	// A thinker_config that is no object is refused under every reading, as by Parse.
	for _, d := range append(Dialects(), DialectReference) {
		_, err := ParseOptions{Dialect: d}.Parse([]byte(`{"model_type":"qwen3_omni_moe","thinker_config":[1]}`))
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "thinker_config: want an object") {
			t.Errorf("%s: thinker_config [1]: %v", d, err)
		}
	}
	for _, d := range []Dialect{DialectHF, DialectVLLM} {
		m := presetAs(t, d, "hunyuan-ocr-1.5").Spec.MRoPE
		if m == nil || !slices.Equal(m.Sections, []int{16, 16, 16, 16}) || m.Interleaved {
			t.Errorf("%s: hunyuan-ocr sections %+v, want [16 16 16 16] chunked", d, m)
		}
	}
}

// TestDialectPartialRotaryFactor: transformers main's LlamaConfig has no partial_rotary_factor,
// and LlamaRotaryEmbedding.compute_default_rope_parameters (models/llama/modeling_llama.py,
// decba1d2) sizes inv_freq over the whole head_dim without reading it, so a rope_type default
// Llama config rotates the whole head under HF main whatever partial_rotary_factor says, top
// level or in rope_parameters. The reference and vLLM (models/llama.py get_rope with
// rope_parameters; rotary_embedding/__init__.py get_rope: int(head_size · partial_rotary_factor))
// rotate the fraction. HF main's MiniMax (Text-01) rotary embedding is Llama's, so
// minimax_rotary_dim "ignored" drops the key too; MiniMax-M2's reads it.
func TestDialectPartialRotaryFactor(t *testing.T) {
	top := `{"model_type":"llama","hidden_size":4096,"num_attention_heads":32,"max_position_embeddings":8192,"rope_theta":10000,"partial_rotary_factor":0.5}`
	inner := `{"model_type":"llama","hidden_size":4096,"num_attention_heads":32,"max_position_embeddings":8192,
		"rope_parameters":{"rope_type":"default","rope_theta":10000,"partial_rotary_factor":0.5}}`
	for _, cfg := range []string{top, inner} {
		want := map[Dialect]int{DialectReference: 64, DialectHF: 128, DialectVLLM: 64, DialectHF457: 64}
		if cfg == inner {
			want[DialectHF457] = 128 // v4.57 reads no rope_parameters (rope_parameters "ignores")
		}
		for d, rd := range want {
			m := parseAs(t, d, cfg)
			if m.Spec.RotaryDim != rd {
				t.Errorf("%s: llama rotary dim %d, want %d", d, m.Spec.RotaryDim, rd)
			}
			noted := slices.ContainsFunc(m.Notes, func(n string) bool { return strings.Contains(n, string(RulePartialRotary)) })
			if noted != (d == DialectHF) {
				t.Errorf("%s: partial_rotary_factor note %t in %q", d, noted, m.Notes)
			}
		}
		// The whole head's frequencies: base^(-2i/128), not base^(-2i/64).
		inv, _ := parseAs(t, DialectHF, cfg).Spec.Frequencies(-1)
		if want := 1 / math.Pow(10000, 2.0/128); len(inv) != 64 || inv[1] != want {
			t.Errorf("hf: %d pairs, inv_freq[1] %v; want 64 pairs, %v", len(inv), inv[1], want)
		}
	}
	// rotary_pct is no key of LlamaConfig's either, whatever the rope type.
	pct := strings.Replace(top, `"partial_rotary_factor":0.5`, `"rotary_pct":0.5,"rope_scaling":{"rope_type":"linear","factor":2}`, 1)
	if rd := parseAs(t, DialectHF, pct).Spec.RotaryDim; rd != 128 {
		t.Errorf("hf: llama rotary_pct: rotary dim %d, want 128", rd)
	}
	// A scaled rope type's tables are sized by the factor (ROPE_INIT_FUNCTIONS read
	// rope_parameters["partial_rotary_factor"], which convert_rope_params_to_dict set), and
	// apply_rotary_pos_emb cannot apply them to the whole head: the factor is kept and a failure
	// (Model.HFFails) says HF main cannot run the config, in every reading.
	yarn := strings.Replace(top, `"partial_rotary_factor":0.5`, `"partial_rotary_factor":0.5,
		"rope_scaling":{"rope_type":"yarn","factor":2,"original_max_position_embeddings":4096}`, 1)
	for _, d := range []Dialect{DialectReference, DialectHF} {
		m := parseAs(t, d, yarn)
		if m.Spec.RotaryDim != 64 || !failWith(m, "partial_rotary_factor", "apply_rotary_pos_emb") || noteHas(m, "fails on this config") {
			t.Errorf("%s: llama yarn with partial_rotary_factor: rotary dim %d, failures %v, notes %q", d, m.Spec.RotaryDim, m.HFFails, m.Notes)
		}
	}
	// Model types whose HF main classes read the key keep it.
	phi3 := strings.Replace(top, `"llama"`, `"phi3"`, 1)
	if rd := parseAs(t, DialectHF, phi3).Spec.RotaryDim; rd != 64 {
		t.Errorf("hf: phi3 rotary dim %d, want 64", rd)
	}
	// MiniMax-Text-01 under HF main's MiniMaxConfig: neither rotary_dim nor partial_rotary_factor.
	text01 := `{"model_type":"minimax","hidden_size":6144,"num_attention_heads":64,"head_dim":128,"max_position_embeddings":8192,
		"rope_theta":10000000,"partial_rotary_factor":0.5}`
	for d, rd := range map[Dialect]int{DialectReference: 64, DialectHF: 128, DialectVLLM: 64} {
		if got := parseAs(t, d, text01).Spec.RotaryDim; got != rd {
			t.Errorf("%s: minimax partial_rotary_factor: rotary dim %d, want %d", d, got, rd)
		}
	}
	both := strings.Replace(text01, `"partial_rotary_factor":0.5`, `"partial_rotary_factor":0.5,"rotary_dim":64`, 1)
	if got := parseAs(t, DialectHF, both).Spec.RotaryDim; got != 128 {
		t.Errorf("hf: minimax rotary_dim and partial_rotary_factor: rotary dim %d, want 128", got)
	}
	m2 := strings.Replace(text01, `"minimax"`, `"minimax_m2"`, 1)
	if got := parseAs(t, DialectHF, m2).Spec.RotaryDim; got != 64 {
		t.Errorf("hf: minimax_m2 partial_rotary_factor: rotary dim %d, want 64 (MiniMaxM2RotaryEmbedding reads it)", got)
	}
	if rd, ok := DialectHF457.Reading(RulePartialRotary); ok {
		t.Errorf("hf-4.57: partial_rotary_factor %q: v4.57 sizes inv_freq by the factor but its apply_rotary_pos_emb cannot apply it, want no reading", rd.Choice)
	}
	if _, err := (ParseOptions{Readings: map[Rule]string{RulePartialRotary: "ignored"}}).Parse([]byte(top)); err != nil {
		t.Errorf("Readings partial_rotary_factor ignored: %v", err)
	}
}

// TestDialectDeepSeekYaRN: vLLM's DeepSeek MLA models (models/deepseek_v2.py
// DeepseekV2MLAAttention.__init__ switches rope_type to deepseek_yarn) build
// DeepseekScalingRotaryEmbedding, whose mscale and mscale_all_dim default to 1 and 0 and which
// never reads attention_factor: the attention factor is yarn_get_mscale(factor, mscale) /
// yarn_get_mscale(factor, mscale_all_dim) · attn_factor. HF's _compute_yarn_parameters takes
// attention_factor, else the ratio only when both are given, else 0.1·ln(factor) + 1.
func TestDialectDeepSeekYaRN(t *testing.T) {
	ds := func(scaling string) string {
		return `{"model_type":"deepseek_v3","hidden_size":7168,"num_attention_heads":128,"qk_nope_head_dim":128,"qk_rope_head_dim":64,
			"kv_lora_rank":512,"max_position_embeddings":163840,"rope_theta":10000,
			"rope_scaling":{"type":"yarn","factor":40,"original_max_position_embeddings":4096,"beta_fast":32,"beta_slow":1` + scaling + `}}`
	}
	get := func(f, m float64) float64 { return 0.1*m*math.Log(f) + 1 }
	for _, c := range []struct {
		name, scaling string
		hf, vllm      float64
	}{
		{"mscale only", `,"mscale":0.707`, get(40, 1), get(40, 0.707)},
		{"mscale_all_dim only", `,"mscale_all_dim":0.707`, get(40, 1), get(40, 1) / get(40, 0.707)},
		{"attention_factor", `,"attention_factor":2,"mscale":1,"mscale_all_dim":1`, 2, 1},
		{"attn_factor", `,"attn_factor":0.5`, get(40, 1), get(40, 1) * 0.5},
	} {
		cfg := ds(c.scaling)
		for d, w := range map[Dialect]float64{DialectReference: c.hf, DialectHF: c.hf, DialectHF457: c.hf, DialectVLLM: c.vllm} {
			m := parseAs(t, d, cfg)
			if got := attention(m.Spec); math.Abs(got-w) > 1e-15 {
				t.Errorf("%s, %s: attention factor %.16f, want %.16f", c.name, d, got, w)
			}
			noted := slices.ContainsFunc(m.Notes, func(n string) bool { return strings.Contains(n, string(RuleDeepSeekYaRN)) })
			if noted != (d == DialectVLLM) {
				t.Errorf("%s, %s: deepseek_yarn note %t in %q", c.name, d, noted, m.Notes)
			}
		}
	}
	// The brief's numbers: factor 40, mscale 0.707 alone.
	if v, h := get(40, 0.707), get(40, 1); math.Abs(v-1.2608) > 5e-5 || math.Abs(h-1.3689) > 5e-5 {
		t.Errorf("yarn_get_mscale(40, 0.707) = %v, 0.1·ln 40 + 1 = %v; want 1.2608 and 1.3689", v, h)
	}
	// Readings that agree leave the spec as the reference derives it: DeepSeek's own configs give
	// mscale = mscale_all_dim, and a config with neither gets 0.1·ln(factor) + 1 either way.
	for _, name := range []string{"deepseek-v3", "deepseek-v2-lite", "deepseek-v3.2-exp"} {
		if a, b := presetAs(t, DialectReference, name), presetAs(t, DialectVLLM, name); !reflect.DeepEqual(a.Spec, b.Spec) || !reflect.DeepEqual(a.Indexer, b.Indexer) {
			t.Errorf("%s: vllm's deepseek_yarn reading changes the spec", name)
		}
	}
	if a, b := parseAs(t, DialectReference, ds("")), parseAs(t, DialectVLLM, ds("")); !reflect.DeepEqual(a.Spec, b.Spec) {
		t.Errorf("no mscale keys: vllm %+v, reference %+v", b.Spec.Scaling, a.Spec.Scaling)
	}
	// The plain yarn path (a Llama config) is YaRNScalingRotaryEmbedding's, read as HF does.
	llama := `{"model_type":"llama","hidden_size":4096,"num_attention_heads":32,"max_position_embeddings":163840,"rope_theta":10000,
		"rope_scaling":{"rope_type":"yarn","factor":40,"original_max_position_embeddings":4096,"mscale":0.707}}`
	if got := attention(parseAs(t, DialectVLLM, llama).Spec); got != get(40, 1) {
		t.Errorf("vllm: llama yarn with mscale only: attention factor %v, want %v", got, get(40, 1))
	}
	// A config that names deepseek_yarn gets DeepseekScalingRotaryEmbedding from get_rope whatever
	// its model type.
	named := strings.Replace(llama, `"rope_type":"yarn"`, `"rope_type":"deepseek_yarn"`, 1)
	if got := attention(parseAs(t, DialectVLLM, named).Spec); math.Abs(got-get(40, 0.707)) > 1e-15 {
		t.Errorf("vllm: rope_type deepseek_yarn: attention factor %v, want %v", got, get(40, 0.707))
	}
	for _, d := range []Dialect{DialectVLLM011, DialectSGLang, DialectLlamaCpp} {
		if rd, ok := d.Reading(RuleDeepSeekYaRN); ok {
			t.Errorf("%s: deepseek_yarn_attention %q: not verified in its source, want no reading", d, rd.Choice)
		}
	}
}
