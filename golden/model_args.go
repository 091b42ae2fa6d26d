package golden

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/hf"
)

// ModelArgs are the model flags of `rotary apply` and `rotary golden` as values, each in the
// words its flag takes: which model, read how, and which of its RoPEs at which layer under
// which rules. A bundle's apply_args record them (ReadModelArgs reads them back). "" in a
// word is the flag's default. Errors name the flag and what it wants, as the command prints
// them.
type ModelArgs struct {
	// Config is --config: a config.json, or a model directory holding one (hf.ReadConfig).
	Config string
	// Preset is --model: an embedded preset (hf.PresetNames). Give Config or Preset.
	Preset string
	// Layer is --layer: the layer whose RoPE (hf.Selection's Layer).
	Layer int
	// As is --as: a framework dialect (hf.ParseDialect); "" is the reference reading.
	As string
	// Style is --style: neox or gptj, the checkpoint's pairing (hf.ParseOptions' Style); ""
	// is the model_type's.
	Style string
	// RoPE is --rope: main or indexer (hf.ParseWhichRoPE); "" is main.
	RoPE string
	// Dynamic is --dynamic: dynamic NTK's length rule (hf.ParseDynamicLength); "" is the
	// rule the model was read with.
	Dynamic string
	// LongRoPEFactor is --longrope-factor: config or lengths (hf.ParseLongRoPEFactor); "" is
	// the rule the model was read with.
	LongRoPEFactor string
	// Strict is --strict: a model with hf.Model.Warnings is refused.
	Strict bool
	// json is the config's bytes as Pin read them, when pinned: ConfigJSON, CheckConfig and
	// Read take them instead of reading Config or Preset again (a string keeps ModelArgs
	// comparable, and the bytes immutable).
	json   string
	pinned bool
}

// Pin returns a holding the config's bytes, read once (ConfigJSON), so that the hash
// CheckConfig checks and the model Load parses are of the same bytes, whatever happens to the
// file in between.
func (a ModelArgs) Pin() (ModelArgs, error) {
	b, err := a.ConfigJSON()
	if err != nil {
		return ModelArgs{}, err
	}
	a.json, a.pinned = string(b), true
	return a, nil
}

// Options are the ParseOptions of --style and --as.
func (a ModelArgs) Options() (hf.ParseOptions, error) {
	var opts hf.ParseOptions
	switch a.Style {
	case "":
	case "neox":
		opts.Style = new(rotary.NeoX)
	case "gptj":
		opts.Style = new(rotary.GPTJ)
	default:
		return hf.ParseOptions{}, fmt.Errorf("--style %q: want neox or gptj", a.Style)
	}
	var err error
	if opts.Dialect, err = hf.ParseDialect(a.As); err != nil {
		return hf.ParseOptions{}, fmt.Errorf("--as: %v", err)
	}
	return opts, nil
}

// Read reads the model under Options, refused under Strict when it rests on a guess, and the
// Selection the other flags make of it (not yet checked against the model: Load does that).
func (a ModelArgs) Read() (*hf.Model, hf.Selection, error) {
	opts, err := a.Options()
	if err != nil {
		return nil, hf.Selection{}, err
	}
	data, err := a.readConfig()
	if err != nil {
		return nil, hf.Selection{}, err
	}
	// The words of hf.ParseOptions.LoadFile and Preset.
	m, err := opts.Parse(data)
	switch {
	case err != nil && a.Config != "":
		return nil, hf.Selection{}, fmt.Errorf("%s: %w", a.Config, err)
	case err != nil:
		return nil, hf.Selection{}, fmt.Errorf("preset %s: %w", a.Preset, err)
	}
	if w := m.Warnings(); a.Strict && len(w) > 0 {
		return nil, hf.Selection{}, fmt.Errorf("--strict: %s", strings.Join(w, "; "))
	}
	sel := hf.Selection{Layer: a.Layer}
	if a.RoPE != "" {
		if sel.RoPE, err = hf.ParseWhichRoPE(a.RoPE); err != nil {
			return nil, hf.Selection{}, flagWord("--rope", err)
		}
	}
	if a.Dynamic != "" {
		d, err := hf.ParseDynamicLength(a.Dynamic)
		if err != nil {
			return nil, hf.Selection{}, flagWord("--dynamic", err)
		}
		sel.Dynamic = &d
	}
	if a.LongRoPEFactor != "" {
		fromLengths, err := hf.ParseLongRoPEFactor(a.LongRoPEFactor)
		if err != nil {
			return nil, hf.Selection{}, flagWord("--longrope-factor", err)
		}
		sel.LongRoPEFactorFromLengths = &fromLengths
	}
	return m, sel, nil
}

// Load is the model Read reads and the spec its Selection picks, validated (hf.Model.Select).
func (a ModelArgs) Load() (*hf.Model, rotary.Spec, error) {
	m, sel, err := a.Read()
	if err != nil {
		return nil, rotary.Spec{}, err
	}
	spec, err := m.Select(sel)
	if err != nil {
		return nil, rotary.Spec{}, a.FlagError(err)
	}
	return m, spec, nil
}

// LoadAt is Model.Load for these flags: Load with Layer replaced by layer.
func (a ModelArgs) LoadAt(layer int) (*hf.Model, rotary.Spec, error) {
	a.Layer = layer
	return a.Load()
}

// FlagError is a refusal of hf.Model.Select (an *hf.SelectionError, also from a reader that
// selects, such as check.Inspect) in the words of the flags that made the selection; any other
// error is returned as is.
func (a ModelArgs) FlagError(err error) error {
	se, ok := errors.AsType[*hf.SelectionError](err)
	switch {
	case !ok:
		return err
	case se.Arg == "rules":
		return fmt.Errorf("--dynamic %s, --longrope-factor %s: %w", a.Dynamic, a.LongRoPEFactor, se.Err)
	}
	return fmt.Errorf("--%s%s", se.Arg, se.Detail)
}

// flagWord is a parser's refusal of a flag's word (an hf.ChoiceError) said of the flag.
func flagWord(flag string, err error) error {
	if c, ok := errors.AsType[*hf.ChoiceError](err); ok {
		named := *c
		named.Arg = flag
		return &named
	}
	return fmt.Errorf("%s: %v", flag, err)
}

// ConfigJSON is the config JSON the model comes from (Config's file, or the preset's): what a
// bundle's config_sha256 hashes.
func (a ModelArgs) ConfigJSON() ([]byte, error) {
	b, err := a.readConfig()
	var read *readError
	switch {
	case errors.As(err, &read) && a.Config != "":
		return nil, fmt.Errorf("--config: %v", read.err)
	case errors.As(err, &read):
		return nil, fmt.Errorf("--model: %v", read.err)
	}
	return b, err
}

// readConfig is the config's bytes: the pinned ones, or Config's file, or Preset's embedded
// JSON. A failed reading is a *readError, in the reader's own words.
func (a ModelArgs) readConfig() ([]byte, error) {
	var b []byte
	var err error
	switch {
	case a.Config != "" && a.Preset != "":
		return nil, errors.New("--config and --model: give one, not both")
	case a.pinned:
		return []byte(a.json), nil
	case a.Config != "":
		b, err = hf.ReadConfig(a.Config)
	case a.Preset != "":
		b, err = hf.PresetJSON(a.Preset)
	default:
		return nil, errors.New("--config: missing (or --model PRESET)")
	}
	if err != nil {
		return nil, &readError{err}
	}
	return b, nil
}

// readError is a config that could not be read: ConfigJSON says which flag named it, Read
// says it as the hf reader does.
type readError struct{ err error }

func (e *readError) Error() string { return e.err.Error() }
func (e *readError) Unwrap() error { return e.err }

// CheckConfig refuses a model whose config is not the one a bundle (its metadata) was made
// from: the bundle's outputs would differ from the model's, silently.
func (a ModelArgs) CheckConfig(metadata map[string]string) error {
	b, err := a.ConfigJSON()
	if err != nil {
		return err
	}
	want := metadata["config_sha256"]
	if got := ConfigSum(b); got != want {
		what := "--model " + a.Preset
		if a.Config != "" {
			what = "--config " + a.Config
		}
		return fmt.Errorf("%s: its config's sha256 is %s, the golden bundle's config_sha256 %s (model %s): not the config the bundle was made from", what, got, want, metadata["model"])
	}
	return nil
}

// Model is the bundle's Model of these flags, for Make, once Load has read the model at Layer:
// named by the preset or the config's model_type, its JSON (ConfigJSON), Source the flags that
// choose it, Flags the others (but --layer) that differ from their defaults, as apply_args
// record them, and Load LoadAt, which reads the model again at each layer asked for.
func (a ModelArgs) Model() (Model, error) {
	a, err := a.Pin()
	if err != nil {
		return Model{}, err
	}
	data := []byte(a.json)
	if _, _, err := a.Load(); err != nil {
		return Model{}, err
	}
	m := Model{Name: a.Preset, JSON: data, Config: a.Config, Source: []string{"--model", a.Preset}, Indexer: a.RoPE == "indexer", Load: a.LoadAt}
	if a.Config != "" {
		m.Name, m.Source = modelType(data), []string{"--config", a.Config}
	}
	add := func(name, v string) {
		if v != "" {
			m.Flags = append(m.Flags, "--"+name, v)
		}
	}
	add("as", a.As) // sorted by name, as the command line's are
	add("dynamic", a.Dynamic)
	add("longrope-factor", a.LongRoPEFactor)
	if a.RoPE != "main" {
		add("rope", a.RoPE)
	}
	if a.Strict {
		m.Flags = append(m.Flags, "--strict=true")
	}
	add("style", a.Style)
	return m, nil
}
