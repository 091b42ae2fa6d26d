package main

import (
	"strings"
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// queryScaleInputs are positions across Llama 4's and Ministral 3's first steps and a BF16
// query [T, H, D].
func queryScaleInputs() ([]safetensors.Tensor, tensor.Tensor, tensor.Tensor) {
	pos := []int64{0, 8190, 8191, 16383, 16384, 1 << 20}
	const H, D = 2, 8
	v := randomHeads(len(pos)*H*D, 9)
	bits := make([]uint16, len(v))
	for i, x := range v {
		bits[i] = tensor.FromFloat32(tensor.BF16, x*4)
	}
	q := tensor.FromBits(tensor.BF16, bits, len(pos), H, D)
	p := tensor.FromI64(pos, len(pos))
	return []safetensors.Tensor{toFile("positions", p), toFile("query", q)}, p, q
}

// TestApplyQueryScaleCommand: the command's output is the library's, for each kind and cast,
// with the flags' defaults; the same process runs several command lines, so a parameter given
// to one must not carry over to the next.
func TestApplyQueryScaleCommand(t *testing.T) {
	for _, c := range []struct {
		args []string
		rule rotary.QueryScaleRule
	}{
		{[]string{"--query-scale", "llama4"}, rotary.QueryScaleRule{Kind: rotary.QueryScaleLlama4, FloorScale: 8192, AttnScale: 0.1}},
		{[]string{"--query-scale", "llama4", "--floor-scale", "3", "--attn-scale", "0.25", "--query-scale-cast", "scale"},
			rotary.QueryScaleRule{Kind: rotary.QueryScaleLlama4, FloorScale: 3, AttnScale: 0.25, Cast: rotary.QueryScaleCastScale}},
		{[]string{"--query-scale", "beta", "--beta", "0.1", "--original-max", "16384"}, rotary.QueryScaleRule{Kind: rotary.QueryScaleBeta, Beta: 0.1, OriginalMax: 16384}},
		{[]string{"--query-scale", "beta", "--beta", "0.1", "--original-max", "8192", "--query-scale-cast", "product"},
			rotary.QueryScaleRule{Kind: rotary.QueryScaleBeta, Beta: 0.1, OriginalMax: 8192, Cast: rotary.QueryScaleCastProduct}},
		{[]string{"--query-scale", "llama4"}, rotary.QueryScaleRule{Kind: rotary.QueryScaleLlama4, FloorScale: 8192, AttnScale: 0.1}},
	} {
		inputs, p, q := queryScaleInputs()
		got, code, stderr := extraOpRun(t, inputs, append([]string{"--op", "query_scale"}, c.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		if err := rotary.QueryScale(nil, rotary.QueryScaleParams{Positions: p, Query: q, Rule: c.rule}); err != nil {
			t.Fatal(err)
		}
		extraSame(t, strings.Join(c.args, " "), got["query"], q)
	}
}

// TestApplyQueryScaleBadUsage: exit 2 with one line naming the flag or the tensor.
func TestApplyQueryScaleBadUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "--query-scale: missing"},
		{[]string{"--beta", "0.1"}, "--beta: given without --query-scale"},
		{[]string{"--query-scale", "llama3"}, `--query-scale "llama3"`},
		{[]string{"--query-scale", "none"}, `--query-scale "none"`},
		{[]string{"--query-scale", "llama4", "--beta", "0.1"}, "--beta: not a parameter of --query-scale llama4"},
		{[]string{"--query-scale", "beta", "--beta", "0.1", "--original-max", "16384", "--floor-scale", "2"}, "--floor-scale: not a parameter of --query-scale beta"},
		{[]string{"--query-scale", "beta", "--beta", "0.1"}, "--original-max: missing"},
		{[]string{"--query-scale", "beta", "--original-max", "16384"}, "--beta: missing"},
		{[]string{"--query-scale", "beta", "--beta", "0.1", "--original-max", "1.5"}, "--original-max 1.5"},
		{[]string{"--query-scale", "llama4", "--floor-scale", "0"}, "floor_scale 0"},
		{[]string{"--query-scale", "llama4", "--attn-scale", "x"}, "attn-scale"},
		{[]string{"--query-scale", "llama4", "--query-scale-cast", "both"}, "--query-scale-cast"},
	} {
		inputs, _, _ := queryScaleInputs()
		_, code, stderr := extraOpRun(t, inputs, append([]string{"--op", "query_scale"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q: want exit 2 naming %q", c.args, code, stderr, c.want)
		}
	}
	// Bad tensors: the op's own refusal, naming the tensor.
	_, p, q := queryScaleInputs()
	for _, c := range []struct {
		inputs []safetensors.Tensor
		want   string
	}{
		{[]safetensors.Tensor{toFile("query", q)}, `missing tensor "positions"`},
		{[]safetensors.Tensor{toFile("positions", p)}, `missing tensor "query"`},
		{[]safetensors.Tensor{toFile("positions", tensor.FromI64([]int64{1, 2}, 2)), toFile("query", q)}, "positions: 2 positions for 6 tokens"},
		{[]safetensors.Tensor{toFile("positions", tensor.FromI64([]int64{0, 1, 2, 3, 4, -1}, 6)), toFile("query", q)}, "positions: position -1"},
		{[]safetensors.Tensor{toFile("positions", p), toFile("query", tensor.FromI64(make([]int64, 6), 6, 1))}, "query: dtype"},
	} {
		_, code, stderr := extraOpRun(t, c.inputs, "--op", "query_scale", "--query-scale", "llama4")
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("exit %d, stderr %q: want exit 2 naming %q", code, stderr, c.want)
		}
	}
}

// TestApplyQueryScaleFromConfig: with --config the rule is the model's at --layer: Llama 4's on
// its layers without RoPE (the others written unchanged, with one line on stderr), Ministral
// 3's on every layer; --query-scale-cast still picks the rounding.
func TestApplyQueryScaleFromConfig(t *testing.T) {
	dir := t.TempDir()
	llama4 := writeFile(t, dir, "llama4.json", []byte(`{"model_type": "llama4", "text_config": {"model_type": "llama4_text",
		"hidden_size": 5120, "head_dim": 128, "num_attention_heads": 40, "num_key_value_heads": 8, "num_hidden_layers": 8,
		"rope_theta": 500000.0, "no_rope_layers": [1, 1, 1, 0, 1, 1, 1, 0], "attn_temperature_tuning": true,
		"floor_scale": 8192, "attn_scale": 0.1}}`))
	ministral3 := writeFile(t, dir, "ministral3.json", []byte(`{"model_type": "mistral3", "text_config": {"model_type": "ministral3",
		"hidden_size": 4096, "head_dim": 128, "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 34,
		"max_position_embeddings": 262144, "rope_parameters": {"type": "yarn", "rope_theta": 1000000.0, "factor": 16.0,
		"original_max_position_embeddings": 16384, "beta_fast": 32.0, "beta_slow": 1.0, "llama_4_scaling_beta": 0.1}}}`))
	l4 := rotary.QueryScaleRule{Kind: rotary.QueryScaleLlama4, FloorScale: 8192, AttnScale: 0.1}
	beta := rotary.QueryScaleRule{Kind: rotary.QueryScaleBeta, Beta: 0.1, OriginalMax: 16384}
	product := beta
	product.Cast = rotary.QueryScaleCastProduct
	for _, c := range []struct {
		args      []string
		rule      rotary.QueryScaleRule
		unchanged bool
	}{
		{[]string{"--config", llama4, "--layer", "3"}, l4, false},
		{[]string{"--config", llama4, "--layer", "7"}, l4, false},
		{[]string{"--config", llama4, "--layer", "2"}, rotary.QueryScaleRule{}, true},
		{[]string{"--config", ministral3, "--layer", "0"}, beta, false},
		{[]string{"--config", ministral3, "--layer", "33", "--query-scale-cast", "product"}, product, false},
	} {
		inputs, p, q := queryScaleInputs()
		got, code, stderr := extraOpRun(t, inputs, append([]string{"--op", "query_scale"}, c.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		if c.unchanged != strings.Contains(stderr, "query written unchanged") {
			t.Errorf("%v: stderr %q", c.args, stderr)
		}
		if err := rotary.QueryScale(nil, rotary.QueryScaleParams{Positions: p, Query: q, Rule: c.rule}); err != nil {
			t.Fatal(err)
		}
		extraSame(t, strings.Join(c.args, " "), got["query"], q)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--config", ministral3, "--query-scale", "beta"}, "--query-scale: give it or --config/--model, not both"},
		{[]string{"--config", ministral3, "--beta", "0.2"}, "--beta: the rule comes from --config/--model"},
		{[]string{"--model", "llama-3.1-8b"}, "the config has no query scale"},
		{[]string{"--config", llama4, "--layer", "8"}, "--layer 8"},
	} {
		inputs, _, _ := queryScaleInputs()
		_, code, stderr := extraOpRun(t, inputs, append([]string{"--op", "query_scale"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q: want exit 2 naming %q", c.args, code, stderr, c.want)
		}
	}
}
