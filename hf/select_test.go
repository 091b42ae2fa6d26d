package hf_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/rope"
)

// TestParseWords: each word parses to its value and back through String; any other word is a
// *ChoiceError naming what it names, the word and every choice.
func TestParseWords(t *testing.T) {
	for _, w := range []hf.WhichRoPE{hf.MainRoPE, hf.IndexerRoPE} {
		if got, err := hf.ParseWhichRoPE(w.String()); err != nil || got != w {
			t.Errorf("ParseWhichRoPE(%q) = %v, %v", w, got, err)
		}
	}
	for _, d := range []rope.DynamicLength{rope.DynamicStatic, rope.DynamicPerCall, rope.DynamicMaxTrained} {
		if got, err := hf.ParseDynamicLength(d.String()); err != nil || got != d {
			t.Errorf("ParseDynamicLength(%q) = %v, %v", d, got, err)
		}
	}
	for word, want := range map[string]bool{"config": false, "lengths": true} {
		if got, err := hf.ParseLongRoPEFactor(word); err != nil || got != want {
			t.Errorf("ParseLongRoPEFactor(%q) = %v, %v", word, got, err)
		}
	}
	for _, c := range []struct {
		parse func(string) error
		want  string
	}{
		{func(s string) error { _, err := hf.ParseWhichRoPE(s); return err }, `RoPE "hf": want main or indexer`},
		{func(s string) error { _, err := hf.ParseDynamicLength(s); return err }, `dynamic NTK length rule "hf": want static, per-call or max-trained`},
		{func(s string) error { _, err := hf.ParseLongRoPEFactor(s); return err }, `LongRoPE factor rule "hf": want config or lengths`},
	} {
		err := c.parse("hf")
		var ce *hf.ChoiceError
		if !errors.As(err, &ce) || err.Error() != c.want || ce.Value != "hf" {
			t.Errorf("error %v (%T), want *hf.ChoiceError %q", err, err, c.want)
		}
		if err := c.parse(""); err == nil {
			t.Errorf("%q: the empty word is accepted", c.want)
		}
	}
	if got := hf.WhichRoPE(7).String(); got != "WhichRoPE(7)" {
		t.Errorf("WhichRoPE(7).String() = %q", got)
	}
}

// TestSelect: the zero Selection is the model's main spec at layer 0; the layer picks the
// layer's RoPE; the rules replace the dialect's; the indexer is the indexer's spec.
func TestSelect(t *testing.T) {
	m, err := hf.Preset("gemma-3-4b")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []int{0, 5} {
		want, err := m.Spec.ForLayer(l)
		if err != nil {
			t.Fatal(err)
		}
		got, err := m.Select(hf.Selection{Layer: l})
		if err != nil || got.Base != want.Base || !reflect.DeepEqual(got, want) {
			t.Errorf("gemma-3-4b layer %d: %+v, %v; want ForLayer's %+v", l, got, err, want)
		}
	}

	ds, err := hf.Preset("deepseek-v3.2-exp")
	if err != nil {
		t.Fatal(err)
	}
	ix, err := ds.Select(hf.Selection{RoPE: hf.IndexerRoPE})
	if err != nil || ix.HeadSize != ds.Indexer.HeadSize || ix.Style != rope.NeoX || ds.Spec.Style != rope.GPTJ {
		t.Errorf("deepseek-v3.2 indexer: %+v, %v", ix, err)
	}

	dyn, err := hf.Parse([]byte(`{"model_type":"llama","hidden_size":4096,"num_attention_heads":32,
		"max_position_embeddings":8192,"rope_scaling":{"rope_type":"dynamic","factor":2,"original_max_position_embeddings":4096}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []rope.DynamicLength{rope.DynamicPerCall, rope.DynamicMaxTrained, rope.DynamicStatic} {
		s, err := dyn.Select(hf.Selection{Dynamic: &d})
		if err != nil || s.Scaling.Dynamic != d {
			t.Errorf("Dynamic %v: %v, %v", d, s.Scaling.Dynamic, err)
		}
	}
	phi, err := hf.Preset("phi-4-mini")
	if err != nil {
		t.Fatal(err)
	}
	for _, fromLengths := range []bool{true, false} {
		s, err := phi.Select(hf.Selection{LongRoPEFactorFromLengths: &fromLengths})
		if err != nil || s.Scaling.LongRoPEFactorFromLengths != fromLengths {
			t.Errorf("LongRoPEFactorFromLengths %v: %v, %v", fromLengths, s.Scaling.LongRoPEFactorFromLengths, err)
		}
	}
	// Without a rule given, the dialect's reading stays.
	hf457, err := hf.ParseOptions{Dialect: hf.DialectHF457}.Preset("phi-4-mini")
	if err != nil {
		t.Fatal(err)
	}
	s, err := hf457.Select(hf.Selection{})
	if err != nil || s.Scaling.LongRoPEFactorFromLengths != hf457.Spec.Scaling.LongRoPEFactorFromLengths {
		t.Errorf("hf-4.57 phi-4-mini: the selection changed the dialect's LongRoPE rule: %v, %v", s.Scaling, err)
	}
}

// TestSelectErrors: every refusal is a *SelectionError whose message is Arg then Detail, Arg
// naming the argument at fault, with rope's error behind it where rope refused.
func TestSelectErrors(t *testing.T) {
	llama, err := hf.Preset("llama-3.1-8b")
	if err != nil {
		t.Fatal(err)
	}
	// A model whose config does not give num_hidden_layers: its per-layer rules bound the layer.
	noLayers := &hf.Model{ModelType: "llama4_text", Spec: llama.Spec}
	noLayers.Spec.Local = &rope.LocalRoPE{NoRoPE: []bool{false, true}}
	maxTrained := rope.DynamicMaxTrained
	dyn, err := hf.Parse([]byte(`{"model_type":"llama","hidden_size":4096,"num_attention_heads":32,"max_position_embeddings":8192,
		"rope_scaling":{"rope_type":"dynamic","factor":2,"original_max_position_embeddings":4096,"max_trained_positions":100000}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		m         *hf.Model
		sel       hf.Selection
		arg, want string
		ropeErr   bool
	}{
		{llama, hf.Selection{Layer: 32}, "layer", "layer 32: the model has 32 layers (0..31)", false},
		{llama, hf.Selection{Layer: -1}, "layer", "layer: layer -1: want ≥ 0", true},
		{noLayers, hf.Selection{Layer: 2}, "layer", "layer: layer 2: the model has 2 layers", true},
		{llama, hf.Selection{RoPE: hf.IndexerRoPE}, "rope", `rope indexer: model_type "llama" has no indexer RoPE (DeepSeek-V3.2 configs with index_head_dim have one)`, false},
		{llama, hf.Selection{RoPE: 9}, "rope", "rope WhichRoPE(9): want main or indexer", false},
		{dyn, hf.Selection{Dynamic: &maxTrained}, "rules", "rules: invalid rope spec: dynamic max_trained_positions 100000", true},
		{&hf.Model{}, hf.Selection{}, "rules", "rules: invalid rope spec: head size 0", true},
	} {
		_, err := c.m.Select(c.sel)
		se, ok := errors.AsType[*hf.SelectionError](err)
		if !ok || se.Arg != c.arg || !strings.HasPrefix(err.Error(), c.want) || err.Error() != se.Arg+se.Detail {
			t.Errorf("%+v: %v (%T), want a *SelectionError of %s: %q", c.sel, err, err, c.arg, c.want)
			continue
		}
		if (se.Err != nil) != c.ropeErr || c.arg == "rules" && !errors.Is(err, rope.ErrSpec) {
			t.Errorf("%+v: Err %v, want rope's error: %v", c.sel, se.Err, c.ropeErr)
		}
	}
	var nilModel *hf.Model
	if _, err := nilModel.Select(hf.Selection{}); err == nil {
		t.Error("Select on a nil *Model: no error")
	}
}

// ExampleModel_Select picks the RoPE one call runs: layer 5 of Gemma 3, a full-attention layer
// with the model's linear scaling, where layer 0 is a sliding one with the local base.
func ExampleModel_Select() {
	m, err := hf.Preset("gemma-3-4b")
	if err != nil {
		panic(err)
	}
	for _, layer := range []int{0, 5} {
		s, err := m.Select(hf.Selection{Layer: layer})
		if err != nil {
			panic(err)
		}
		fmt.Println(layer, m.Spec.LayerType(layer), s.Base, s.Scaling.Type, s.Scaling.Factor)
	}
	d, err := hf.ParseDynamicLength("per-call")
	if err != nil {
		panic(err)
	}
	_, err = m.Select(hf.Selection{Layer: 34, Dynamic: &d})
	fmt.Println(err)
	// Output:
	// 0 sliding_attention 10000 default 0
	// 5 full_attention 1e+06 linear 8
	// layer 34: the model has 34 layers (0..33)
}
