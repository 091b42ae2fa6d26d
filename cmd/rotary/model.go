package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/golden"
	"github.com/rotary-go/rotary/hf"
)

// modelFlags are the flags that pick a model and its per-call options.
type modelFlags struct {
	config   string
	preset   string
	layer    int
	dynamic  string
	longrope string
	style    string
	rope     string
	as       string
	strict   bool
	// pinned, when set, are the args with the config's bytes read once (pin).
	pinned *golden.ModelArgs
}

func (m *modelFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&m.config, "config", "", "model `config.json` (Hugging Face format)")
	fs.StringVar(&m.preset, "model", "", "embedded model `preset` instead of --config (see 'rotary presets')")
	fs.IntVar(&m.layer, "layer", 0, "layer `N`, for models whose RoPE differs by layer (Gemma 3, OLMo 3, Gemma 3n) or that leave layers unrotated (Llama 4, SmolLM3, Cohere2, EXAONE 4)")
	fs.StringVar(&m.longrope, "longrope-factor", "", "LongRoPE's attention factor from: config (HF main: rope_scaling.factor when given) or lengths (HF v4.57, vLLM, Microsoft: max_position_embeddings / original); default config, or --as's rule")
	registerStyle(fs, &m.style)
	fs.StringVar(&m.rope, "rope", "main", "which of the model's RoPEs: main (the attention's) or indexer (DeepSeek-V3.2's lightning indexer: NeoX over the first qk_rope_head_dim dims of its index_head_dim head)")
	fs.StringVar(&m.dynamic, "dynamic", "", "dynamic NTK length rule: static (vLLM ≤ 0.21: factor × original), per-call (Hugging Face: the call's length over max_position_embeddings) or max-trained (vLLM ≥ 0.22: max_position / max_trained_positions); default static, or --as's rule")
	registerStrict(fs, &m.strict)
	fs.StringVar(&m.as, "as", "", "read the config as `DIALECT` does: "+dialectNames()+" (default: the reference reading; the math stays exact float64, only the rules change)")
}

// args are the flags' values as the library reads them.
func (m *modelFlags) args() golden.ModelArgs {
	if m.pinned != nil {
		return *m.pinned
	}
	return golden.ModelArgs{Config: m.config, Preset: m.preset, Layer: m.layer, As: m.as, Style: m.style,
		RoPE: m.rope, Dynamic: m.dynamic, LongRoPEFactor: m.longrope, Strict: m.strict}
}

// pin reads the config once: every later read of the model parses these bytes
// (golden.ModelArgs.Pin).
func (m *modelFlags) pin() error {
	a, err := m.args().Pin()
	if err != nil {
		return err
	}
	m.pinned = &a
	return nil
}

// load reads the model and returns it with the spec of the chosen layer.
func (m *modelFlags) load() (*hf.Model, rotary.Spec, error) {
	model, sel, err := m.model()
	if err != nil {
		return nil, rotary.Spec{}, err
	}
	spec, err := model.Select(sel)
	if err != nil {
		return nil, rotary.Spec{}, m.selectionError(err)
	}
	return model, spec, nil
}

// model reads the model, refused under --strict when it rests on a guess, and the selection
// the flags make of it. golden.ModelArgs read --rope "" as main; given, it is no choice.
func (m *modelFlags) model() (*hf.Model, hf.Selection, error) {
	model, sel, err := m.args().Read()
	if err == nil && m.rope == "" {
		err = &hf.ChoiceError{Arg: "--rope", Value: "", Choices: []string{"main", "indexer"}}
	}
	if err != nil {
		return nil, hf.Selection{}, usageError{err}
	}
	return model, sel, nil
}

// selectionError is Model.Select's refusal in the words of the flags that made the selection.
func (m *modelFlags) selectionError(err error) error { return usageError{m.args().FlagError(err)} }

// registerStyle adds --style, shared by every command that reads a model's config.
func registerStyle(fs *flag.FlagSet, style *string) {
	fs.StringVar(style, "style", "", "pairing of the checkpoint's weights, `neox` (i, i+d/2) or gptj (2i, 2i+1), over the model_type's; needed for a model_type rotary does not know, which is read as neox with a note")
}

// readConfig reads a config.json for the commands that want its JSON rather than an
// hf.Model, under hf.LoadFile's rules (hf.ReadConfig: a file or a model directory).
func readConfig(path string) ([]byte, error) { return hf.ReadConfig(path) }

func requireFlag(name, value string) error {
	if value == "" {
		return usagef("--%s: missing", name)
	}
	return nil
}

func noArgs(args []string) error {
	if len(args) > 0 {
		return usagef("unexpected argument %q", args[0])
	}
	return nil
}

// registerStrict adds --strict, shared by every command that reads a model's config.
func registerStrict(fs *flag.FlagSet, strict *bool) {
	fs.BoolVar(strict, "strict", false, "refuse (exit 2) a config whose RoPE rests on a guess: a rope key its variant does not read or a near miss of a RoPE key (a misspelling leaves the default in place), a pairing assumed for an unknown model_type, or a config transformers main cannot run (rotary's reading of it is its own); apply also refuses positions past the cos/sin cache as vLLM sizes it (max_position_embeddings, × factor for yarn and dynamic NTK), a warning otherwise")
}

// warnModel prints hf.Model.Warnings on w, one line each.
func warnModel(w io.Writer, command string, m *hf.Model) {
	for _, msg := range m.Warnings() {
		fmt.Fprintf(w, "rotary %s: warning: %s\n", command, msg)
	}
}

// noteLayerKinds prints one stderr line when the model's layers differ in RoPE (Gemma 3's
// sliding and full layers, OLMo 3's, Cohere2's unrotated ones, ...) and the command was given
// no --layer: which kind `layer` is, and the first --layer of each other kind. Without it a
// command on Gemma 3 silently gives the sliding layer's numbers. rope is --rope: main or
// indexer. The commands that pick a layer (cache, apply, golden) call it with their name.
func noteLayerKinds(w io.Writer, command string, layer int, model *hf.Model, rope string) {
	if model == nil {
		return
	}
	spec := model.Spec
	if rope == "indexer" && model.Indexer != nil {
		spec = *model.Indexer
	}
	kinds := golden.LayerKinds(spec, model.NumLayers)
	if len(kinds) < 2 {
		return
	}
	var this string
	var others []string
	for _, k := range kinds {
		if slices.Contains(k.Layers, layer) {
			this = k.Name
			continue
		}
		others = append(others, fmt.Sprintf("%s (--layer %d)", k.Name, k.Layers[0]))
	}
	if this == "" {
		return // a layer past the rules' count: load refuses it
	}
	fmt.Fprintf(w, "rotary %s: note: no --layer given, so layer %d's RoPE: %s; the model's other layers: %s\n", command, layer, this, strings.Join(others, ", "))
}

// flagGiven reports whether the command line set flag name.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// dialectNames lists --as's values.
func dialectNames() string {
	names := make([]string, 0, len(hf.Dialects()))
	for _, d := range hf.Dialects() {
		names = append(names, string(d))
	}
	return strings.Join(names, ", ")
}
