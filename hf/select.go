package hf

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rotary-go/rotary/rope"
)

// WhichRoPE names one of a model's RoPEs.
type WhichRoPE uint8

const (
	// MainRoPE is the attention's RoPE, Model.Spec.
	MainRoPE WhichRoPE = iota
	// IndexerRoPE is DeepSeek-V3.2's lightning indexer's, Model.Indexer.
	IndexerRoPE
)

// String is w's name, the word ParseWhichRoPE reads: main or indexer.
func (w WhichRoPE) String() string {
	switch w {
	case MainRoPE:
		return "main"
	case IndexerRoPE:
		return "indexer"
	}
	return fmt.Sprintf("WhichRoPE(%d)", uint8(w))
}

// ParseWhichRoPE reads a RoPE's name: main or indexer. Its error is a *ChoiceError.
func ParseWhichRoPE(s string) (WhichRoPE, error) {
	for _, w := range []WhichRoPE{MainRoPE, IndexerRoPE} {
		if s == w.String() {
			return w, nil
		}
	}
	return MainRoPE, &ChoiceError{Arg: "RoPE", Value: s, Choices: []string{"main", "indexer"}}
}

// ParseDynamicLength reads a dynamic NTK length rule by its name (rope.DynamicLength's String):
// static, per-call or max-trained. Its error is a *ChoiceError.
func ParseDynamicLength(s string) (rope.DynamicLength, error) {
	rules := []rope.DynamicLength{rope.DynamicStatic, rope.DynamicPerCall, rope.DynamicMaxTrained}
	names := make([]string, len(rules))
	for i, d := range rules {
		if s == d.String() {
			return d, nil
		}
		names[i] = d.String()
	}
	return rope.DynamicStatic, &ChoiceError{Arg: "dynamic NTK length rule", Value: s, Choices: names}
}

// ParseLongRoPEFactor reads LongRoPE's attention factor rule, rope.Scaling's
// LongRoPEFactorFromLengths: "config" (false: the config's factor, else max / original, as
// transformers main computes it) or "lengths" (true: max_position_embeddings / original, as
// transformers v4.57, vLLM and Microsoft's code do). Its error is a *ChoiceError.
func ParseLongRoPEFactor(s string) (fromLengths bool, err error) {
	switch s {
	case "config":
		return false, nil
	case "lengths":
		return true, nil
	}
	return false, &ChoiceError{Arg: "LongRoPE factor rule", Value: s, Choices: []string{"config", "lengths"}}
}

// ChoiceError is a parse function's refusal of a word that names none of its choices. A
// command puts its flag's name in Arg to say the same of the flag.
type ChoiceError struct {
	// Arg names what the word names: "RoPE", "dynamic NTK length rule", ...
	Arg string
	// Value is the word given.
	Value string
	// Choices are the words taken.
	Choices []string
}

// Error says the word refused and the choices: Arg "Value": want a, b or c.
func (e *ChoiceError) Error() string {
	want := strings.Join(e.Choices, " or ")
	if n := len(e.Choices); n > 2 {
		want = strings.Join(e.Choices[:n-1], ", ") + " or " + e.Choices[n-1]
	}
	return fmt.Sprintf("%s %q: want %s", e.Arg, e.Value, want)
}

// Selection picks one spec of a Model: which of its RoPEs, which layer, and the rules of a
// call that config.json does not record. The zero value picks the main RoPE of layer 0 under
// the rules the model was read with.
type Selection struct {
	// RoPE is which of the model's RoPEs.
	RoPE WhichRoPE
	// Layer is the layer whose RoPE (rope.Spec.ForLayer), from 0; below Model.NumLayers when
	// the config gives it, which bounds every model's layers, not only those whose RoPE
	// differs by layer, so that no caller describes a layer that does not exist.
	Layer int
	// Dynamic, when not nil, is dynamic NTK's length rule, over the one the model was read
	// with (ParseOptions.Dialect's, else static).
	Dynamic *rope.DynamicLength
	// LongRoPEFactorFromLengths, when not nil, is LongRoPE's attention factor rule
	// (ParseLongRoPEFactor), over the one the model was read with.
	LongRoPEFactorFromLengths *bool
}

// SelectionError is Model.Select's refusal of a Selection; its message is Arg then Detail. Arg
// names the argument at fault: "layer" (past Model.NumLayers, or refused by rope.Spec.ForLayer),
// "rope" (a RoPE the model lacks, or no RoPE's name), or "rules" (the spec of the layer under
// Dynamic and LongRoPEFactorFromLengths fails rope.Spec.Validate). Detail says the value and
// what was wrong; Err is rope's error behind it, if any. A command puts its flag's name in
// place of Arg.
type SelectionError struct {
	Arg, Detail string
	Err         error
}

// Error is Arg then Detail.
func (e *SelectionError) Error() string { return e.Arg + e.Detail }

// Unwrap is rope's error behind the refusal, nil when there is none.
func (e *SelectionError) Unwrap() error { return e.Err }

// Select is the spec s picks from m, validated: the RoPE s names, at layer s.Layer, under s's
// rules where it gives them. Every error is a *SelectionError, checked in the order layer
// count, RoPE, layer, rules; Select never panics.
func (m *Model) Select(s Selection) (rope.Spec, error) {
	if m == nil {
		return rope.Spec{}, errors.New("hf: Select on a nil *Model")
	}
	if m.NumLayers > 0 && s.Layer >= m.NumLayers {
		return rope.Spec{}, &SelectionError{Arg: "layer", Detail: fmt.Sprintf(" %d: the model has %d layers (0..%d)", s.Layer, m.NumLayers, m.NumLayers-1)}
	}
	base := m.Spec
	switch s.RoPE {
	case MainRoPE:
	case IndexerRoPE:
		if m.Indexer == nil {
			return rope.Spec{}, &SelectionError{Arg: "rope", Detail: fmt.Sprintf(" indexer: model_type %q has no indexer RoPE (DeepSeek-V3.2 configs with index_head_dim have one)", m.ModelType)}
		}
		base = *m.Indexer
	default:
		return rope.Spec{}, &SelectionError{Arg: "rope", Detail: fmt.Sprintf(" %v: want main or indexer", s.RoPE)}
	}
	spec, err := base.ForLayer(s.Layer)
	if err != nil {
		return rope.Spec{}, &SelectionError{Arg: "layer", Detail: ": " + err.Error(), Err: err}
	}
	if s.Dynamic != nil {
		spec.Scaling.Dynamic = *s.Dynamic
	}
	if s.LongRoPEFactorFromLengths != nil {
		spec.Scaling.LongRoPEFactorFromLengths = *s.LongRoPEFactorFromLengths
	}
	if err := spec.Validate(); err != nil {
		return rope.Spec{}, &SelectionError{Arg: "rules", Detail: ": " + err.Error(), Err: err}
	}
	return spec, nil
}
