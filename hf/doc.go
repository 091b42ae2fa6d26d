// Package hf derives a rope.Spec (rotary.Spec) from a HuggingFace config.json.
//
// Parse reads the keys the HF modeling code reads, in the spellings real configs use:
//
//   - A nested text model: text_config (Qwen2-VL and Qwen2.5-VL in newer files, Qwen3-VL,
//     Gemma 3, Llama 4), read as its wrapper class builds it: from text_config alone (the
//     top-level keys HunYuan-VL's folds in excepted), so a key the nested object lacks takes
//     the text class's default; only under a wrapper hf does not know is it read from the top
//     level. Model.Notes says which happened. A legacy rope_scaling beside rope_parameters is
//     read as the class reads it (rope_scaling or rope_parameters; merged into full_attention
//     for Gemma 3, Gemma 3n and OLMo 3).
//   - Head size: head_dim, else hidden_size / num_attention_heads (legacy n_embd / n_head,
//     d_model, num_heads); ChatGLM's kv_channels; for MLA models (DeepSeek V2/V3, Kimi K2)
//     qk_rope_head_dim, since the rotated q_pe/k_pe part is a tensor of its own.
//   - KV heads: num_key_value_heads, else multi_query_group_num (ChatGLM), num_kv_heads or
//     n_head_kv (Falcon, where multi_query means one), else the attention-head count.
//   - Rotary dim: rotary_dim (GPT-J's, CodeGen's and MiniMax's alone; a warning elsewhere),
//     else int(head size × partial_rotary_factor) or rotary_pct (GPT-NeoX's alone), truncated
//     as HF does; GLM families rotate half the head.
//     Given both in the rope object and as the config attribute (the top-level key, or a
//     config class's kwargs default), rope type default takes the object's and every scaled
//     type the attribute, as transformers main does; the one not read is a warning.
//   - Base: the rope object's rope_theta (rope_parameters' or rope_scaling's: transformers
//     main only setdefaults the config's into it), else rope_theta or rotary_emb_base,
//     ChatGLM's 10000·rope_ratio, else 10000; a top-level value the object overrides is a
//     warning (Model.Unread).
//   - Scaling: rope_scaling (with type or rope_type) or transformers v5's rope_parameters,
//     default, linear, dynamic (with alpha: NTK-alpha), yarn and deepseek_yarn, llama3,
//     longrope and the legacy su, vLLM's ntk, Gemma 4's proportional (its rotated pairs
//     int(partial_rotary_factor · head_dim // 2)); mrope_section / mrope_interleaved;
//     dual_chunk_attention_config.
//   - Per layer (Spec.Local, Spec.ForLayer): rope_parameters keyed by layer type
//     ({"full_attention": …, "sliding_attention": …, or any layer_types value}), each type
//     with its own rope_theta (one an entry lacks: entry_theta.go, where transformers main
//     fails, a warning: Model.HFFails), scaling and partial_rotary_factor; the family rules of
//     layers.go: sliding layers with rope_local_base_freq and no scaling (Gemma 3, Gemma 3n),
//     or with default RoPE at Olmo3Config's default theta (OLMo 3), a legacy rope_scaling
//     being the full layers' alone; layers without RoPE from no_rope_layers or
//     no_rope_layer_interval (Llama 4, SmolLM3), or every layer but the sliding ones
//     (Cohere2; EXAONE 4 when sliding_window is set); Gemma 4's full layers with a head of
//     their own (global_head_dim, or transformers main's per_layer_config head_dim) and the
//     last layer always full. Layer types come from layer_types, else from the family's
//     period (sliding_window_pattern).
//   - Max positions: max_position_embeddings, n_positions, seq_length, else 2048.
//
// The pairing style follows the checkpoint's weight layout, which is what the HF code and
// vLLM's is_neox_style rotate:
//
//	NeoX:  llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, qwen2_vl, qwen2_5_vl,
//	       qwen3_vl, qwen3_vl_moe (and their _text models), gemma, gemma2, gemma3, gemma3n,
//	       phi, phi3, gpt_neox, gpt_oss, olmo, olmo2, olmo3, stablelm, persimmon, starcoder2,
//	       internlm2, falcon, glm4_moe, smollm3, exaone4
//	GPT-J: gptj, codegen, cohere, cohere2, glm, glm4, chatglm (unless original_rope is false),
//	       deepseek_v2, deepseek_v3, deepseek_v32, kimi_k2 (unless rope_interleave is
//	       false), llama4
//
// and, added for current models, NeoX: granite, granitemoe, granitemoeshared,
// granitemoehybrid (with position_embedding_type "rope"), bamba, qwen3_next, qwen3_5 and
// qwen3_5_moe (and their _text models), ministral, ministral3, mistral3, phimoe, minimax,
// minimax_text_01, minimax_m2 (rotary_dim honoured, where HF rotates the whole head; for
// minimax_m2 only without a partial_rotary_factor, which wins),
// glm4v_moe, hunyuan_v1_dense, hunyuan_v1_moe, seed_oss, apertus, nemotron, internlm3; GPT-J:
// glm4v, ernie4_5, ernie4_5_moe, mistral4 (MLA, unless rope_interleave is false), deepseek_v4
// (the trailing rope slice of each head, a RoPE for sliding and one for compressed layers); NeoX with
// proportional RoPE on the full layers: gemma4, gemma4_unified (and their _text models).
//
// KnownModelTypes lists them. Any other model_type whose config has hidden_size,
// num_attention_heads and rope_theta or a rope object is read as a generic decoder with NeoX
// pairing assumed, which Model.StyleAssumed and a note say; ParseOptions.Style names the
// pairing, for any model. A model_type whose HF code positions tokens without RoPE (bert, gpt2,
// t5, bloom, mpt, mamba, ...) is refused with an error wrapping ErrNoRoPE that says what it
// uses instead. When a family's HF config class supplies a default that published files rely
// on (Gemma 3's text keys, Phi-3's original_max_position_embeddings, Falcon's max positions,
// Qwen3-Next's head_dim), Parse uses it and says so in Model.Notes.
//
// Every error wraps ErrConfig and names the key and what was expected; Parse finishes with
// Spec.Validate, whose errors also wrap rope.ErrSpec (rotary.ErrSpec). Parse never panics (FuzzParse).
//
// ReadRaw is the lenient view of a config.json for readers beside Parse (package check
// explains configs Parse refuses, package multimodal reads token ids): the text model found as
// Parse finds it, typed getters whose errors name the key's path, and the head size and rotary
// dim by Parse's rules without their checks. Keys of RoPE and attention are read here alone.
//
// Model.Select picks the spec one call runs (Selection): the main RoPE or DeepSeek-V3.2's
// indexer's, a layer checked against num_hidden_layers, and the dynamic NTK and LongRoPE factor
// rules a config does not record (ParseDynamicLength, ParseLongRoPEFactor read their names).
//
// Preset returns one of the embedded real configs (PresetNames lists them), so the library
// and the rotary tool work with no files.
package hf
