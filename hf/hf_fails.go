package hf

import (
	"fmt"
	"slices"
)

// HFFailure is a reason Hugging Face transformers main, the reading rotary takes for its
// reference, cannot run a config: the model it builds raises (a shape mismatch where a cos/sin
// table sized by one rotary fraction meets a head sliced by another, a KeyError where a rotary
// embedding indexes a key the config does not give). No reference RoPE exists for such a config,
// so Model.Spec is a reading rotary chose, which Reading names: rotary inspect and check warn of
// it, and --strict refuses it.
type HFFailure struct {
	// Key is the key, with its place in the config, whose value (or absence) makes it fail.
	Key string
	// Fails is the upstream class and function, or function, that raises.
	Fails string
	// Error is what it raises, and why.
	Error string
	// Reading is what rotary takes instead.
	Reading string
}

// String is the failure in one line, as Model.Warnings lists it: the key, what raises and
// why, and the reading rotary takes.
func (f HFFailure) String() string {
	return fmt.Sprintf("%s: transformers main cannot run this config: %s raises %s; rotary %s", f.Key, f.Fails, f.Error, f.Reading)
}

// fail records f, once per key.
func (p *parser) fail(f HFFailure) {
	if !slices.ContainsFunc(p.fails, func(g HFFailure) bool { return g.Key == f.Key }) {
		p.fails = append(p.fails, f)
	}
}

// notFailed are the keys of unread that no failure names: a key transformers main fails on is
// reported there, with the reading rotary takes, and not as unread too.
func notFailed(unread []UnreadKey, fails []HFFailure) []UnreadKey {
	return slices.DeleteFunc(unread, func(u UnreadKey) bool {
		return slices.ContainsFunc(fails, func(f HFFailure) bool { return f.Key == u.Path })
	})
}

// ropeInitFunctions are the functions transformers main's ROPE_INIT_FUNCTIONS
// (modeling_rope_utils.py, decba1d2) runs for each scaled rope type.
var ropeInitFunctions = map[string]string{
	"linear": "_compute_linear_scaling_rope_parameters", "dynamic": "_compute_dynamic_ntk_parameters",
	"yarn": "_compute_yarn_parameters", "longrope": "_compute_longrope_parameters",
	"llama3": "_compute_llama3_parameters", "proportional": "_compute_proportional_rope_parameters",
}

// ropeInit names the function transformers main builds scaled rope type rt with.
func ropeInit(rt string) string {
	if f, ok := ropeInitFunctions[rt]; ok {
		return f
	}
	return fmt.Sprintf("ROPE_INIT_FUNCTIONS[%q]", rt)
}
