package hf

import (
	"fmt"
	"slices"
	"strings"
)

// flatTextKeys are the keys a text config class reads for the RoPE or its head: a wrapper that
// builds its text model from defaults (configClass.flatText) reads none of them at its top level.
var flatTextKeys = append(slices.Clone(textRopeKeys), "num_key_value_heads", "num_hidden_layers", "sliding_window")

// refuseFlatWrapper refuses a config without text_config whose wrapper class builds its text
// model from the text class's defaults, when its top level gives text keys: AutoConfig (so
// AutoModel, pipelines and vLLM, which read get_text_config()) builds the defaults and ignores
// them, while the text class's from_pretrained reads them all (PretrainedConfig.from_pretrained
// finds no text_config and only warns about the model_type), so the file names no one RoPE. A
// config that gives none of them reads as the defaults, which both paths agree on.
func refuseFlatWrapper(top node, topType string, c configClass) error {
	var given []string
	for _, k := range flatTextKeys {
		if v, ok := top.m[k]; ok && v != nil {
			given = append(given, k)
		}
	}
	if given == nil {
		return nil
	}
	return configErr("model_type %q without text_config: %s.__post_init__ builds its text model from %s's defaults and does not read the top-level %s, "+
		"which the text class read directly would take; nest them under text_config, or give model_type %s to read them as the text model's",
		topType, c.wrapper, c.name, strings.Join(given, ", "), c.flatText)
}

// topFirst looks key k up at the top level of a nested config first when the wrapper folds that
// key into text_config over text_config's own value (configClass.topWins), with a note when both
// give it. folded is true when the top level has the key, null included: a null folds too, and
// leaves the key absent.
func (s *source) topFirst(k string) (path string, v any, ok, folded bool) {
	if s.top == nil || !slices.Contains(s.topWins, k) {
		return "", nil, false, false
	}
	if _, folded = s.top.m[k]; !folded {
		return "", nil, false, false
	}
	if path, v, ok = s.top.get(k); !ok {
		return "", nil, false, true
	}
	if tpath, tv, tok := s.text.get(k); tok {
		s.note("%s %s taken over %s %s: %s folds the top-level text keys into text_config", path, brief(v), tpath, brief(tv), s.wrapper)
	}
	return path, v, true, true
}

// brief is a JSON value for a note: numbers and strings as they are, objects and arrays by kind.
func brief(v any) string {
	switch v.(type) {
	case object, []any:
		return "(" + describe(v) + ")"
	}
	return fmt.Sprint(v)
}

// levels is the order in which the text model's key k is looked up: text_config, then the top
// level of a nested config, or the other way round where the wrapper folds k (topWins); a
// wrapper hf knows reads no other top-level key (source.wrapper).
func (s *source) levels(k string) []*node {
	if s.top != nil && slices.Contains(s.topWins, k) {
		return []*node{s.top, &s.text}
	}
	if s.wrapper != "" {
		return []*node{&s.text}
	}
	return []*node{&s.text, s.top}
}
