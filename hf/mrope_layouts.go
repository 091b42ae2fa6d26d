package hf

import "fmt"

// MRoPE layouts that rope.MRoPE has no form for. A config naming one is refused with the reason:
// read generically, its mrope_section would rotate as Qwen2-VL's chunks or Qwen3-VL's
// interleaving, plausibly and wrongly.

// openPanguOrder is vLLM's MRotaryEmbeddingInterleaved (rotary_embedding/openpangu_rope.py
// @098d12c2, selected by get_rope for rope_type "openpangu"): get_mrope_interleaved_id_list
// orders the pairs greedily, each taking the axis placed least in proportion to its section
// (ties to the lower axis) other than the previous pair's, with the last pair forced to t.
// For [24, 20, 20] it leaves Qwen3-VL's order at pair 23 (t where Qwen3-VL takes w).
const openPanguOrder = "openPangu's interleaved MRoPE orders the frequency pairs greedily by axis (vLLM rotary_embedding/openpangu_rope.py get_mrope_interleaved_id_list, the last pair forced to t), an order no rope.MRoPE layout has (Qwen3-VL's interleaving differs from it)"

// bailingOrder is vLLM's BailingMRotaryEmbedding (rotary_embedding/bailing_mrope.py @9c5b7163,
// select_cos_sin) and SGLang's (rotary_embedding/bailing_mrope.py @a1efab20): the checkpoint's
// [t, h, w] sections become [h, w, t], h and w alternating over the first h+w pairs and t the
// rest, which is rope.MRoPE.AlternateHW over the reordered sections; but the text model those
// checkpoints wrap is either unreadable here (bailing_hybrid) or a config without one, and
// SGLang's Ming positions centre h and w on the image (negative positions, a cos/sin table
// starting at -max_position_embeddings).
const bailingOrder = "Bailing's MRoPE (vLLM and SGLang rotary_embedding/bailing_mrope.py BailingMRotaryEmbedding) reorders the checkpoint's [t, h, w] sections to [h, w, t] with h and w alternating, on an MLA/linear-attention hybrid text model (Ling) or on centred, possibly negative h/w positions (Ming), which rotary does not read"

// unrepresentableRopeTypes maps rope types whose RoPE rope.Spec cannot describe to why.
var unrepresentableRopeTypes = map[string]string{
	"openpangu": openPanguOrder,
}

// ropeTypeError is the error for rope type t of rope object n: why it is refused when a known
// layout has no rope.Spec, else that it is unknown.
func ropeTypeError(n node, t string) error {
	if why, ok := unrepresentableRopeTypes[t]; ok {
		return configErr("%s: rope type %q is not supported: %s", n.path, t, why)
	}
	return configErr("%s: unknown rope type %q (want default, linear, dynamic, ntk, yarn, deepseek_yarn, llama3, longrope, su or proportional)", n.path, t)
}

// assumedMRoPE says which MRoPE layout an unknown family's mrope_section was read as.
func assumedMRoPE(interleaved bool, sections []int) string {
	layout := "Qwen2-VL's chunks (mrope_interleaved absent or false)"
	if interleaved {
		layout = "Qwen3-VL's interleaving (mrope_interleaved true)"
	}
	return fmt.Sprintf("mrope_section %v read as %s; other families order the pairs otherwise (ERNIE's and Bailing's alternating h/w, openPangu's greedy order), which config.json does not record", sections, layout)
}
