package ops

import (
	"maps"
	"slices"
)

// aliases maps torch_npu's name of an op to the registry's. Launch scripts and users coming
// from Ascend spell ops the torch_npu way; vLLM's names (rotary_embedding) are the registry's
// own. _npu_rotary_embedding is the ATB op vllm-ascend calls with vLLM's rotary_embedding
// arguments (positions, query, key, head_size, cos_sin_cache, is_neox_style).
var aliases = map[string]string{
	"npu_rotary_mul":            ApplyRotaryEmb.Name(),
	"npu_interleave_rope":       InterleaveRoPE.Name(),
	"npu_mrope":                 MRoPE.Name(),
	"npu_kv_rmsnorm_rope_cache": KVRMSNormRoPECache.Name(),
	"_npu_rotary_embedding":     RotaryEmbedding.Name(),
}

// Canonical returns the registry name of an op named by its registry name or an alias (see
// Aliases), and false for a name no registered op has. Names are matched exactly, case
// included, as torch_npu's are.
func Canonical(name string) (string, bool) {
	if reg, ok := aliases[name]; ok {
		return reg, true
	}
	regMu.RLock()
	_, ok := registry[name]
	regMu.RUnlock()
	if !ok {
		return "", false
	}
	return name, true
}

// Aliases returns the other names Canonical accepts, each mapped to its registry name. The map
// is the caller's.
func Aliases() map[string]string { return maps.Clone(aliases) }

// NamesWithAliases lists every name Canonical accepts, registry names and aliases, sorted.
func NamesWithAliases() []string {
	names := append(Names(), slices.Collect(maps.Keys(aliases))...)
	slices.Sort(names)
	return names
}
