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

// load reads the model and returns it with the spec of the chosen layer.
func (m *modelFlags) load() (*hf.Model, rotary.Spec, error) {
	var model *hf.Model
	opts, err := parseOptions(m.style)
	if err != nil {
		return nil, rotary.Spec{}, err
	}
	if opts.Dialect, err = hf.ParseDialect(m.as); err != nil {
		return nil, rotary.Spec{}, usagef("--as: %v", err)
	}
	switch {
	case m.config != "" && m.preset != "":
		return nil, rotary.Spec{}, usagef("--config and --model: give one, not both")
	case m.config != "":
		model, err = opts.LoadFile(m.config)
	case m.preset != "":
		model, err = opts.Preset(m.preset)
	default:
		return nil, rotary.Spec{}, usagef("--config: missing (or --model PRESET)")
	}
	if err != nil {
		return nil, rotary.Spec{}, usageError{err}
	}
	if err := strictModel(m.strict, model); err != nil {
		return nil, rotary.Spec{}, err
	}
	// ForLayer only knows the layer count of models with per-layer types; the config's
	// num_hidden_layers bounds every model's --layer, so that no command reports a layer that
	// does not exist.
	if model.NumLayers > 0 && m.layer >= model.NumLayers {
		return nil, rotary.Spec{}, usagef("--layer %d: the model has %d layers (0..%d)", m.layer, model.NumLayers, model.NumLayers-1)
	}
	base := model.Spec
	switch m.rope {
	case "main":
	case "indexer":
		if model.Indexer == nil {
			return nil, rotary.Spec{}, usagef("--rope indexer: model_type %q has no indexer RoPE (DeepSeek-V3.2 configs with index_head_dim have one)", model.ModelType)
		}
		base = *model.Indexer
	default:
		return nil, rotary.Spec{}, usagef("--rope %q: want main or indexer", m.rope)
	}
	spec, err := base.ForLayer(m.layer)
	if err != nil {
		return nil, rotary.Spec{}, usagef("--layer: %v", err)
	}
	switch m.dynamic {
	case "": // static, or the rule --as read
	case "static":
		spec.Scaling.Dynamic = rotary.DynamicStatic
	case "per-call":
		spec.Scaling.Dynamic = rotary.DynamicPerCall
	case "max-trained":
		spec.Scaling.Dynamic = rotary.DynamicMaxTrained
	default:
		return nil, rotary.Spec{}, usagef("--dynamic %q: want static, per-call or max-trained", m.dynamic)
	}
	switch m.longrope {
	case "": // config, or the rule --as read
	case "config":
		spec.Scaling.LongRoPEFactorFromLengths = false
	case "lengths":
		spec.Scaling.LongRoPEFactorFromLengths = true
	default:
		return nil, rotary.Spec{}, usagef("--longrope-factor %q: want config or lengths", m.longrope)
	}
	if err := spec.Validate(); err != nil {
		return nil, rotary.Spec{}, usagef("--dynamic %s, --longrope-factor %s: %v", m.dynamic, m.longrope, err)
	}
	return model, spec, nil
}

// registerStyle adds --style, shared by every command that reads a model's config.
func registerStyle(fs *flag.FlagSet, style *string) {
	fs.StringVar(style, "style", "", "pairing of the checkpoint's weights, `neox` (i, i+d/2) or gptj (2i, 2i+1), over the model_type's; needed for a model_type rotary does not know, which is read as neox with a note")
}

// parseOptions turns --style into hf.ParseOptions; "" keeps the model_type's pairing.
func parseOptions(style string) (hf.ParseOptions, error) {
	switch style {
	case "":
		return hf.ParseOptions{}, nil
	case "neox":
		return hf.ParseOptions{Style: new(rotary.NeoX)}, nil
	case "gptj":
		return hf.ParseOptions{Style: new(rotary.GPTJ)}, nil
	}
	return hf.ParseOptions{}, usagef("--style %q: want neox or gptj", style)
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
	fs.BoolVar(strict, "strict", false, "refuse (exit 2) a config whose RoPE rests on a guess: a rope key its variant does not read or a near miss of a RoPE key (a misspelling leaves the default in place), or a pairing assumed for an unknown model_type; apply also refuses positions past the cos/sin cache as vLLM sizes it (max_position_embeddings, × factor for yarn and dynamic NTK), a warning otherwise")
}

// modelWarnings are the reasons a model's RoPE may not be the checkpoint's, one line each:
// keys hf did not read (hf.UnreadKey) and a pairing assumed for an unknown model_type.
func modelWarnings(m *hf.Model) []string {
	if m == nil {
		return nil
	}
	var out []string
	if a := m.Assumption(); a != "" {
		out = append(out, a)
	}
	for _, u := range m.Unread {
		out = append(out, u.String())
	}
	return out
}

// strictModel refuses, under --strict, a model with any modelWarnings.
func strictModel(strict bool, m *hf.Model) error {
	if w := modelWarnings(m); strict && len(w) > 0 {
		return usagef("--strict: %s", strings.Join(w, "; "))
	}
	return nil
}

// warnModel prints modelWarnings on w, one line each: a wrong guess gives plausible numbers
// that no later check can catch.
func warnModel(w io.Writer, command string, m *hf.Model) {
	for _, msg := range modelWarnings(m) {
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
