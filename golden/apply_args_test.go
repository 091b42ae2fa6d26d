package golden

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/tensor"
)

// TestReadApplyArgs: apply_args read back as flags, a boolean one with or without its value;
// a malformed flag returns the flags before it with the error.
func TestReadApplyArgs(t *testing.T) {
	isBool := func(name string) bool { return name == "strict" }
	got, err := ReadApplyArgs(`["--op","kv_rmsnorm_rope_cache","--output-kv=true","--strict","--layer","-1","-epsilon","0.001"]`, isBool)
	want := []AppliedFlag{{"op", "kv_rmsnorm_rope_cache", "--op kv_rmsnorm_rope_cache"}, {"output-kv", "true", "--output-kv=true"},
		{"strict", "true", "--strict"}, {"layer", "-1", "--layer -1"}, {"epsilon", "0.001", "-epsilon 0.001"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("ReadApplyArgs = %v, %v; want %v", got, err, want)
	}
	// Without isBool, --strict takes the next word as its value.
	if got, err := ReadApplyArgs(`["--strict","--model","x"]`, nil); err == nil || len(got) != 1 || got[0].Value != "--model" {
		t.Errorf("no isBool: %v, %v; want --strict=--model, then x not a flag", got, err)
	}
	for _, c := range []struct{ args, err string }{
		{"", "the golden has no apply_args"},
		{"nope", "not a JSON list of strings"},
		{`{"op":1}`, "not a JSON list of strings"},
		{`["--op","mrope","junk"]`, `"junk" is not a flag`},
		{`["--op","mrope","--head-size"]`, "--head-size has no value"},
	} {
		got, err := ReadApplyArgs(c.args, nil)
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%q: %v, want an error saying %q", c.args, err, c.err)
		}
		if strings.Contains(c.args, "--op") && (len(got) != 1 || got[0].Name != "op") {
			t.Errorf("%q: flags %v before the error, want --op", c.args, got)
		}
	}
}

// TestApplyArg: the last value of a flag, "" when absent or when apply_args do not read.
func TestApplyArg(t *testing.T) {
	args := `["--op","mrope","--head-size","128","--head-size","64","--rotary-mode=interleave"]`
	for name, want := range map[string]string{"head-size": "64", "rotary-mode": "interleave", "op": "mrope", "mrope-section": ""} {
		if got := ApplyArg(args, name); got != want {
			t.Errorf("ApplyArg(%s) = %q, want %q", name, got, want)
		}
	}
	if got := ApplyArg(`["--head-size","64","junk"]`, "head-size"); got != "" {
		t.Errorf("unreadable apply_args: %q, want \"\"", got)
	}
}

// TestRecordedModel: a bundle's model read back from its apply_args is the model Make was
// given (a preset's or a config file's), at the recorded layer; what it cannot read is refused,
// naming the flag.
func TestRecordedModel(t *testing.T) {
	gemma, err := Preset("gemma-3-4b")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Make(Options{Op: "rotary_embedding", Model: gemma, Layer: 5, DType: tensor.F32, Tokens: 2, Heads: 1, KVHeads: 1})
	if err != nil {
		t.Fatal(err)
	}
	m, layer, err := RecordedModel(b.Metadata["apply_args"])
	if err != nil || m.Name != "gemma-3-4b" || layer != 5 || m.Load == nil {
		t.Fatalf("RecordedModel = %q layer %d, %v; want gemma-3-4b layer 5", m.Name, layer, err)
	}
	_, got, err := m.Load(layer)
	_, want, _ := gemma.Load(5)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("layer 5's spec %+v, %v; want %+v", got, err, want)
	}

	js, err := hf.PresetJSON("qwen3-8b")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, js, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Config(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err = Make(Options{Op: "qk_rmsnorm_rope", Model: cfg, DType: tensor.F32, Tokens: 2, Heads: 1, KVHeads: 1, DispatchFlags: []string{"--backend", "native"}})
	if err != nil {
		t.Fatal(err)
	}
	if m, layer, err := RecordedModel(b.Metadata["apply_args"]); err != nil || m.Config != path || m.Name != "qwen3" || layer != 0 {
		t.Errorf("a config's bundle: %+v layer %d, %v; want the config at layer 0", m, layer, err)
	}

	for _, c := range []struct{ args, err string }{
		{`["--op","rotary_embedding","--model","llama-3.1-8b","--rope","indexer"]`, `--rope indexer: model_type "llama" has no indexer RoPE`},
		{`["--op","rotary_embedding","--model","llama-3.1-8b","--as","hf-9"]`, `--as: dialect "hf-9"`},
		{`["--op","rotary_embedding","--model","llama-3.1-8b","--style","gpt-j"]`, `--style "gpt-j": want neox or gptj`},
		{`["--op","rotary_embedding","--model","llama-3.1-8b","--dynamic","perCall"]`, `--dynamic "perCall": want static, per-call or max-trained`},
		{`["--op","rotary_embedding","--model","llama-3.1-8b","--in","x.safetensors"]`, "flag --in is not one this rotary takes"},
		{`["--op","rotary_embedding","--model","llama-3.1-8b","--rope",""]`, `--rope "": want main or indexer`},
		{`["--op","rotary_embedding","--model","llama-3.1-8b","--strict=yes"]`, "--strict=yes: want true or false"},
		{`["--op","rotary_embedding","--model","llama-3.1-8b","--layer","x"]`, `--layer "x": want an integer`},
		{`["--op","rotary_embedding","--model","llama-3.1-8b","--config","c.json"]`, "give one, not both"},
		{`["--op","apply_rotary_emb","--rotary-mode","half"]`, "name no model"},
		{`["--op","rotary_embedding","--model","nope"]`, `unknown preset "nope"`},
		{"", "no apply_args"},
	} {
		if _, _, err := RecordedModel(c.args); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: %v, want an error saying %q", c.args, err, c.err)
		}
	}
	// --strict and --rope main never change the model.
	if m, _, err := RecordedModel(`["--op","rotary_embedding","--model","llama-3.1-8b","--strict=true","--rope","main","--backend","native"]`); err != nil || m.Name != "llama-3.1-8b" {
		t.Errorf("--strict, --rope main, --backend: %q, %v", m.Name, err)
	}
}

// TestRecordedModelFlags: a bundle made under any model flag (a dialect, a pairing, a dynamic
// NTK or LongRoPE rule, the indexer's RoPE, --strict) records it, and its model read back is
// the one hf reads under the same options: the flags, the layer and every layer's spec.
func TestRecordedModelFlags(t *testing.T) {
	vllm, perCall, lengths := hf.DialectVLLM, rope.DynamicPerCall, true
	for _, c := range []struct {
		args  ModelArgs
		opts  hf.ParseOptions
		sel   hf.Selection
		flags []string
	}{
		{ModelArgs{Preset: "phi-3-mini-128k", As: "vllm"}, hf.ParseOptions{Dialect: vllm}, hf.Selection{}, []string{"--as", "vllm"}},
		{ModelArgs{Preset: "llama-3.1-8b", Style: "gptj", Strict: true}, hf.ParseOptions{Style: new(rope.GPTJ)}, hf.Selection{}, []string{"--strict=true", "--style", "gptj"}},
		{ModelArgs{Preset: "internlm3-8b-instruct", Dynamic: "per-call", Layer: 3}, hf.ParseOptions{}, hf.Selection{Layer: 3, Dynamic: &perCall}, []string{"--dynamic", "per-call"}},
		{ModelArgs{Preset: "phi-3-mini-128k", LongRoPEFactor: "lengths"}, hf.ParseOptions{}, hf.Selection{LongRoPEFactorFromLengths: &lengths}, []string{"--longrope-factor", "lengths"}},
		{ModelArgs{Preset: "deepseek-v3.2-exp", RoPE: "indexer"}, hf.ParseOptions{}, hf.Selection{RoPE: hf.IndexerRoPE}, []string{"--rope", "indexer"}},
	} {
		m, err := c.args.Model()
		if err != nil {
			t.Fatalf("%+v: %v", c.args, err)
		}
		if !reflect.DeepEqual(m.Flags, c.flags) || m.Indexer != (c.args.RoPE == "indexer") {
			t.Errorf("%+v: Flags %q Indexer %t, want %q", c.args, m.Flags, m.Indexer, c.flags)
		}
		b, err := Make(Options{Op: "rotary_embedding", Model: m, Layer: c.args.Layer, DType: tensor.F32, Tokens: 2, Heads: 1, KVHeads: 1})
		if err != nil {
			t.Fatal(err)
		}
		back, err := ReadModelArgs(b.Metadata["apply_args"])
		if err != nil || back != c.args {
			t.Errorf("%+v: ReadModelArgs = %+v, %v", c.args, back, err)
		}
		got, layer, err := RecordedModel(b.Metadata["apply_args"])
		if err != nil || layer != c.args.Layer || !reflect.DeepEqual(got.Flags, c.flags) || got.Name != c.args.Preset {
			t.Fatalf("%+v: RecordedModel = %+v layer %d, %v", c.args, got, layer, err)
		}
		want, err := c.opts.Preset(c.args.Preset)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range []int{0, c.args.Layer} {
			sel := c.sel
			sel.Layer = l
			ws, err := want.Select(sel)
			if err != nil {
				t.Fatal(err)
			}
			if _, gs, err := got.Load(l); err != nil || !reflect.DeepEqual(gs, ws) {
				t.Errorf("%+v: layer %d's spec %+v, %v; want %+v", c.args, l, gs, err, ws)
			}
		}
	}
	// A boolean recorded without its value is true, as apply reads it.
	if a, err := ReadModelArgs(`["--op","rotary_embedding","--model","llama-3.1-8b","--strict","--output-kv","--layer","0"]`); err != nil || !a.Strict {
		t.Errorf("--strict without a value: %+v, %v", a, err)
	}
}
