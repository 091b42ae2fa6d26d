package explain

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/tensor"
)

// reading is one known way of computing the op wrongly (or with other arithmetic).
type reading struct {
	id        string
	precision bool
	applies   func(s *state) bool // nil: always
	run       func(s *state) (map[string]tensor.Tensor, error)
	reading   func(s *state) string
	fix       func(s *state) string
}

func say(format string) func(*state) string { return func(*state) string { return format } }

// rotates: the op rotates some dims (a NoPE layer's outputs are its inputs).
func rotates(s *state) bool { return s.rotaryDim > 0 }

// rotated: the op rotates by the model's RoPE at positions.
func rotated(s *state) bool { return s.bySpec && rotates(s) }

// atPositions: the op rotates by the model's RoPE, a cos/sin cache or a vision tower's
// coordinates at positions, or scales by position (query_scale).
func atPositions(s *state) bool {
	return (s.bySpec || s.npu != nil || s.vision != nil) && rotates(s) || s.qs != nil
}

// interleaveOp: the op is interleave_rope, whose pairing is fixed.
func interleaveOp(s *state) bool { return s.cs != nil && s.cs.Interleaved }

// byCosSin: the op rotates by given cos and sin.
func byCosSin(s *state) bool { return s.cs != nil && rotates(s) }

func styleName(st rope.Style) string {
	if st == rope.GPTJ {
		return "GPT-J's (2i, 2i+1)"
	}
	return "NeoX's (i, i+d/2)"
}

// readings are tried in this order; Explain ranks what they explain.
var readings = []reading{
	{
		id: "pairing", applies: func(s *state) bool { return rotates(s) && !interleaveOp(s) },
		run: func(s *state) (map[string]tensor.Tensor, error) {
			switch {
			case s.cs != nil:
				return s.applyCS(rope.GPTJ+rope.NeoX-s.style, s.cs.Cos, s.cs.Sin)
			case s.vision != nil:
				return s.applyVision(s.inputs, func(p *rotary.VisionRoPE2DParams) { p.Style = rope.GPTJ + rope.NeoX - s.style })
			case s.npu != nil:
				return s.applyCache(func(p *rotary.NPUMRoPEParams) { p.Style = rope.GPTJ + rope.NeoX - s.style })
			}
			return s.withSpec(func(sp *rope.Spec) bool {
				sp.Style = rope.GPTJ + rope.NeoX - sp.Style
				return true
			})
		},
		reading: func(s *state) string {
			return fmt.Sprintf("the other pairing: %s where the op pairs %s", styleName(rope.GPTJ+rope.NeoX-s.style), styleName(s.style))
		},
		fix: func(s *state) string {
			if s.style == rope.GPTJ {
				return "pair element 2i with 2i+1 (rotate_every_two; vLLM is_neox_style=False, torch_npu rotary_mode \"interleave\")"
			}
			return "pair element i with i+d/2 (rotate_half; vLLM is_neox_style=True, torch_npu rotary_mode \"half\")"
		},
	},
	{
		id: "pairing_and_cos_sin_layout", applies: func(s *state) bool { return byCosSin(s) && !interleaveOp(s) },
		run: func(s *state) (map[string]tensor.Tensor, error) {
			other := rope.GPTJ + rope.NeoX - s.style
			order := func(j int) int { return j / 2 } // NeoX's cat(f, f) read as repeat_interleave(f)
			if other == rope.NeoX {
				order = func(j int) int { return 2 * (j % (s.rotaryDim / 2)) }
			}
			t := eachDims(map[string]tensor.Tensor{"cos": s.cs.Cos, "sin": s.cs.Sin}, s.rotaryDim, order)
			return s.applyCS(other, t["cos"], t["sin"])
		},
		reading: func(s *state) string {
			other := rope.GPTJ + rope.NeoX - s.style
			return fmt.Sprintf("the other pairing throughout: %s, with cos and sin laid out for it, where the op pairs %s", styleName(other), styleName(s.style))
		},
		fix: func(s *state) string {
			if s.style == rope.GPTJ {
				return "pair element 2i with 2i+1 and lay cos and sin out as repeat_interleave(freqs, 2) (torch_npu rotary_mode \"interleave\")"
			}
			return "pair element i with i+d/2 and lay cos and sin out as cat(freqs, freqs) (torch_npu rotary_mode \"half\")"
		},
	},
	{
		id: "output_order", applies: rotates,
		run: func(s *state) (map[string]tensor.Tensor, error) {
			order := interleaved(s.rotaryDim)
			if s.style == rope.GPTJ {
				order = halves(s.rotaryDim)
			}
			return eachDims(s.want, s.headSize, order), nil
		},
		reading: func(s *state) string {
			if s.style == rope.GPTJ {
				return "the right rotation, left de-interleaved: each pair's members written at i and i+d/2 instead of 2i and 2i+1"
			}
			return "the right rotation, written interleaved: each pair's members written at 2i and 2i+1 instead of i and i+d/2"
		},
		fix: say("undo the kernel's reordering of the head on its output as on its input (a kernel that de-interleaves to rotate halves must re-interleave what it writes)"),
	},
	{
		id: "base_default", applies: func(s *state) bool { return rotated(s) && s.spec.Base != 10000 },
		run: func(s *state) (map[string]tensor.Tensor, error) {
			return s.withSpec(func(sp *rope.Spec) bool { sp.Base = 10000; return true })
		},
		reading: func(s *state) string {
			return fmt.Sprintf("base 10000 (the common default) instead of the model's %g", s.spec.Base)
		},
		fix: say("read the base from the config (rope_theta, or rope_parameters.rope_theta)"),
	},
	{
		id: "scaling_missing", applies: func(s *state) bool { return rotated(s) && scaled(s.spec) },
		run: func(s *state) (map[string]tensor.Tensor, error) {
			return s.withSpec(func(sp *rope.Spec) bool {
				sp.Scaling = rope.Scaling{RotatedPairs: sp.Scaling.RotatedPairs}
				if sp.Scaling.RotatedPairs > 0 {
					sp.Scaling.Type = rope.ScalingProportional
				}
				return true
			})
		},
		reading: func(s *state) string {
			return fmt.Sprintf("the %s scaling not applied (plain RoPE at base %g)", s.spec.Scaling.Type, s.spec.Base)
		},
		fix: func(s *state) string {
			return fmt.Sprintf("apply the config's rope_scaling (rope_type %q, factor %g) to the frequencies", s.spec.Scaling.Type, s.spec.Scaling.Factor)
		},
	},
	{
		id: "attention_factor_missing", applies: attentionScaled,
		run: func(s *state) (map[string]tensor.Tensor, error) {
			return s.withSpec(func(sp *rope.Spec) bool { sp.Scaling.AttentionFactor = 1; return true })
		},
		reading: func(s *state) string {
			return fmt.Sprintf("the %s attention factor %.6g left out of cos and sin", s.spec.Scaling.Type, attention(s))
		},
		fix: say("multiply cos and sin by the attention factor (HF's attention_scaling, vLLM's mscale)"),
	},
	{
		id: "attention_factor_twice", applies: attentionScaled,
		run: func(s *state) (map[string]tensor.Tensor, error) {
			a := attention(s)
			return s.withSpec(func(sp *rope.Spec) bool { sp.Scaling.AttentionFactor = a * a; return true })
		},
		reading: func(s *state) string {
			return fmt.Sprintf("the %s attention factor %.6g applied twice (cos and sin × %.6g)", s.spec.Scaling.Type, attention(s), attention(s)*attention(s))
		},
		fix: say("apply the attention factor once, to cos and sin (or, as some engines do, to the softmax scale), not both"),
	},
	{
		id: "longrope_tables_swapped",
		applies: func(s *state) bool {
			sc := s.spec.Scaling
			return rotated(s) && sc.Type == rope.ScalingLongRoPE && !slices.Equal(sc.ShortFactor, sc.LongFactor)
		},
		run: func(s *state) (map[string]tensor.Tensor, error) {
			return s.withSpec(func(sp *rope.Spec) bool {
				sp.Scaling.ShortFactor, sp.Scaling.LongFactor = sp.Scaling.LongFactor, sp.Scaling.ShortFactor
				return true
			})
		},
		reading: say("LongRoPE's short and long factor tables swapped"),
		fix: func(s *state) string {
			return fmt.Sprintf("use short_factor while the sequence fits in original_max_position_embeddings (%d), long_factor past it", s.spec.OriginalMax())
		},
	},
	{
		id: "partial_rotary_ignored", applies: func(s *state) bool { return rotated(s) && s.spec.RotaryDim < s.spec.HeadSize },
		run: func(s *state) (map[string]tensor.Tensor, error) {
			return s.withSpec(func(sp *rope.Spec) bool {
				if sp.MRoPE != nil || sp.Scaling.RotatedPairs > 0 || len(sp.Scaling.ShortFactor) > 0 {
					return false // tables sized by the rotary dim: no whole-head reading
				}
				sp.RotaryDim = sp.HeadSize
				return true
			})
		},
		reading: func(s *state) string {
			return fmt.Sprintf("the whole head (%d dims) rotated instead of the rotary dim %d (partial_rotary_factor ignored)", s.spec.HeadSize, s.spec.RotaryDim)
		},
		fix: say("rotate only the first rotary_dim = head_dim × partial_rotary_factor dims of each head and pass the rest through"),
	},
	{
		id: "rotary_slice_at_end", applies: func(s *state) bool { return rotated(s) && s.spec.RotaryDim < s.spec.HeadSize },
		run: func(s *state) (map[string]tensor.Tensor, error) {
			D, rd := s.spec.HeadSize, s.spec.RotaryDim
			out, err := s.rotate(s.spec, s.pos, eachDims(s.inputs, D, tail(D, rd, false)))
			if err != nil {
				return nil, err
			}
			return eachDims(out, D, tail(D, rd, true)), nil
		},
		reading: func(s *state) string {
			D, rd := s.spec.HeadSize, s.spec.RotaryDim
			return fmt.Sprintf("the rotary dims taken from the end of the head (%d..%d) instead of its start (0..%d)", D-rd, D-1, rd-1)
		},
		fix: say("rotate dims 0..rotary_dim−1 of the head this op is given (MLA puts q_pe after q_nope: split before rotating; DeepSeek-V3.2's indexer puts its rope part first)"),
	},
	{
		id: "positions_plus_one", applies: atPositions,
		run: func(s *state) (map[string]tensor.Tensor, error) {
			return s.withPositions(func(p int64) int64 { return p + 1 })
		},
		reading: say("positions one too far (p+1)"),
		fix:     say("give token i the position the positions tensor holds: a prompt starts at 0, a decode step at the cache length"),
	},
	{
		id: "positions_minus_one", applies: atPositions,
		run: func(s *state) (map[string]tensor.Tensor, error) {
			return s.withPositions(func(p int64) int64 { return p - 1 })
		},
		reading: say("positions one short (p−1)"),
		fix:     say("give token i the position the positions tensor holds: a decode step's position is the cache length, not the cache length − 1"),
	},
	{
		id: "positions_from_zero", applies: func(s *state) bool { return atPositions(s) && s.leastPosition() > 0 },
		run: func(s *state) (map[string]tensor.Tensor, error) {
			least := s.leastPosition()
			return s.withPositions(func(p int64) int64 { return p - least })
		},
		reading: func(s *state) string {
			return fmt.Sprintf("positions from 0: the cache offset %d left out", s.leastPosition())
		},
		fix: say("add the number of tokens already in the KV cache to the new tokens' positions"),
	},
	{
		id: "token_index_as_position", applies: func(s *state) bool { return atPositions(s) && !s.tokenOrder(s.leastPosition()) },
		run: func(s *state) (map[string]tensor.Tensor, error) {
			return s.withPositionAt(func(i int, _ int64) int64 { return int64(i % s.tokens) })
		},
		reading: say("each token's index (0, 1, 2, …) taken for its position"),
		fix:     say("take the positions from the positions tensor (position_ids), not from the token's place in the batch"),
	},
	{
		id: "rotation_reversed", applies: rotates,
		run: func(s *state) (map[string]tensor.Tensor, error) {
			switch {
			case s.cs != nil:
				return s.applyCS(s.style, s.cs.Cos, negated(s.cs.Sin))
			case s.npu != nil:
				return s.applyCache(func(p *rotary.NPUMRoPEParams) { p.CosSinCache = cacheHalves(p.CosSinCache, true) })
			}
			// R(−θ)·(a, b) = swap(R(θ)·swap(a, b)), exactly: the swaps move values, and the
			// products are the same products.
			swap := pairMembers(rope.Spec{RotaryDim: s.rotaryDim, Style: s.style})
			swapped := eachDims(s.inputs, s.headSize, swap)
			var out map[string]tensor.Tensor
			var err error
			if s.vision != nil {
				out, err = s.applyVision(swapped, func(*rotary.VisionRoPE2DParams) {})
			} else {
				out, err = s.rotate(s.spec, s.pos, swapped)
			}
			if err != nil {
				return nil, err
			}
			return eachDims(out, s.headSize, swap), nil
		},
		reading: func(s *state) string {
			if s.cs != nil && s.cs.Backward {
				return "the forward rotation applied to the gradient (dx = dy·cos + rotate(dy)·sin, where the backward pass rotates the other way: rotateᵀ)"
			}
			return "the rotation the wrong way (sin negated)"
		},
		fix: func(s *state) string {
			if s.cs != nil && s.cs.Backward {
				return "rotate the gradient by −θ: dx = dy·cos + rotateᵀ(dy·sin), where rotateᵀ(y) is (y2, −y1) for a pair"
			}
			return "first of each pair x·cos − y·sin, second y·cos + x·sin (rotate_half(q) is (−q2, q1))"
		},
	},
	{
		id: "norm_skipped", applies: func(s *state) bool { return s.qk != nil && rotates(s) },
		run: func(s *state) (map[string]tensor.Tensor, error) {
			return s.qkReading(func(raw, _ tensor.Tensor) (tensor.Tensor, error) { return s.rotateOne(raw) })
		},
		reading: say("the heads rotated without the RMSNorm before"),
		fix:     say("normalize each head (q_norm, k_norm) before the rotation"),
	},
	{
		id: "norm_after_rotation", applies: func(s *state) bool { return s.qk != nil && rotates(s) },
		run: func(s *state) (map[string]tensor.Tensor, error) {
			return s.qkReading(func(raw, w tensor.Tensor) (tensor.Tensor, error) {
				r, err := s.rotateOne(raw)
				return normHeads(r, w, s.headSize, s.qk.eps), err
			})
		},
		reading: say("the RMSNorm applied after the rotation instead of before"),
		fix:     say("normalize each head first (q_norm, k_norm), then rotate, as Qwen3Attention does"),
	},
	{
		id: "norm_weight_skipped", applies: func(s *state) bool { return s.qk != nil && rotates(s) },
		run: func(s *state) (map[string]tensor.Tensor, error) {
			return s.qkReading(func(raw, _ tensor.Tensor) (tensor.Tensor, error) {
				return s.rotateOne(normHeads(raw, tensor.Tensor{}, s.headSize, s.qk.eps))
			})
		},
		reading: say("the RMSNorm's weight left out (x·rsqrt(mean(x²) + ε) alone)"),
		fix:     say("multiply the normalized head by q_norm.weight (k_norm.weight for the key)"),
	},
	{
		id: "coordinates_swapped", applies: func(s *state) bool { return s.vision != nil && rotates(s) },
		run: func(s *state) (map[string]tensor.Tensor, error) {
			return s.applyVision(s.inputs, func(p *rotary.VisionRoPE2DParams) { p.Positions = swappedRows(p.Positions) })
		},
		reading: say("the patch's two coordinates swapped (row for column)"),
		fix:     say("give positions row 0 the coordinate the first quarter of pairs turns by (Qwen2-VL: h; Llama 4: column + 1; Pixtral: row) and row 1 the other"),
	},
	{
		id: "vision_layout", applies: func(s *state) bool { return s.vision != nil && rotates(s) },
		run: func(s *state) (map[string]tensor.Tensor, error) {
			return s.applyVision(s.inputs, func(p *rotary.VisionRoPE2DParams) {
				p.Layout = map[ops.VisionLayout]ops.VisionLayout{rotary.VisionSplit: rotary.VisionPixtral, rotary.VisionPixtral: rotary.VisionSplit}[p.Layout]
			})
		},
		reading: func(s *state) string {
			if s.vision.Layout == rotary.VisionPixtral {
				return "Qwen2-VL's frequencies (theta^(−4k/D) for the second coordinate) where the tower uses Pixtral's (theta^(−(4k+2)/D))"
			}
			return "Pixtral's frequencies (theta^(−(4k+2)/D) for the second coordinate) where the tower uses Qwen2-VL's (theta^(−4k/D))"
		},
		fix: say("build the second coordinate's frequencies as the tower's code does (Qwen2-VL VisionRotaryEmbedding: the same inv_freq for both; Pixtral: the odd exponents)"),
	},
	{
		id: "vision_theta_default", applies: func(s *state) bool {
			return s.vision != nil && rotates(s) && s.vision.Theta != 0 && s.vision.Theta != 10000
		},
		run: func(s *state) (map[string]tensor.Tensor, error) {
			return s.applyVision(s.inputs, func(p *rotary.VisionRoPE2DParams) { p.Theta = 10000 })
		},
		reading: func(s *state) string {
			return fmt.Sprintf("theta 10000 (the common default) instead of the tower's %g", s.vision.Theta)
		},
		fix: say("read the vision tower's rope_theta from vision_config"),
	},
	{
		id: "rotation_reversed", applies: kvOp,
		run: func(s *state) (map[string]tensor.Tensor, error) {
			return s.rerun(func(in map[string]tensor.Tensor, _ map[string]string) bool {
				in["sin"] = negated(in["sin"])
				return true
			})
		},
		reading: say("the rope part (k_pe) turned the wrong way (sin negated)"),
		fix:     say("rotate k_pe as x·cos + rotate_half(x)·sin"),
	},
	{
		id: "cos_sin_swapped", applies: kvOp,
		run: func(s *state) (map[string]tensor.Tensor, error) {
			return s.rerun(func(in map[string]tensor.Tensor, _ map[string]string) bool {
				in["cos"], in["sin"] = in["sin"], in["cos"]
				return true
			})
		},
		reading: say("cos and sin swapped in the rope part"),
		fix:     say("pass cos as cos and sin as sin"),
	},
	{
		id: "rope_skipped", applies: kvOp,
		run: func(s *state) (map[string]tensor.Tensor, error) {
			return s.rerun(func(in map[string]tensor.Tensor, _ map[string]string) bool {
				in["cos"], in["sin"] = filled(in["cos"], 1), filled(in["sin"], 0)
				return true
			})
		},
		reading: say("the rope part (k_pe) cached without its rotation"),
		fix:     say("rotate k_pe by the token's cos and sin before it enters the cache"),
	},
	{
		id: "not_deinterleaved", applies: kvOp,
		run: func(s *state) (map[string]tensor.Tensor, error) {
			return s.rerun(func(in map[string]tensor.Tensor, _ map[string]string) bool {
				// k_pe laid out so that the op's de-interleave gives it back as it came: the op
				// then rotates it NeoX style without de-interleaving.
				Dv, Dk := in["gamma"].Len(), in["cos"].Shape[in["cos"].Rank()-1]
				if Dk < 2 || in["kv"].Rank() < 1 || in["kv"].Shape[in["kv"].Rank()-1] != Dv+Dk {
					return false
				}
				inter := interleaved(Dk)
				in["kv"] = eachDims(map[string]tensor.Tensor{"kv": in["kv"]}, Dv+Dk, func(j int) int {
					if j < Dv {
						return j
					}
					return Dv + inter(j-Dv)
				})["kv"]
				return true
			})
		},
		reading: say("k_pe rotated NeoX style as it came in, without the de-interleave (2i, 2i+1) → (i, i+d/2) first"),
		fix:     say("de-interleave k_pe first (as npu_interleave_rope does), then rotate it"),
	},
	{
		id: "norm_weight_skipped", applies: kvOp,
		run: func(s *state) (map[string]tensor.Tensor, error) {
			return s.rerun(func(in map[string]tensor.Tensor, _ map[string]string) bool {
				in["gamma"] = filled(in["gamma"], 1)
				return true
			})
		},
		reading: say("the RMSNorm's weight (gamma) left out of c_kv"),
		fix:     say("multiply the normalized c_kv by gamma (kv_a_layernorm.weight)"),
	},
	{
		id: "epsilon", applies: kvOp,
		run: func(s *state) (map[string]tensor.Tensor, error) {
			return s.rerun(func(_ map[string]tensor.Tensor, args map[string]string) bool {
				args["epsilon"] = otherEpsilon(args["epsilon"])
				return true
			})
		},
		reading: func(s *state) string {
			return fmt.Sprintf("the RMSNorm's epsilon %s where the model's is %s", otherEpsilon(s.rr.Args["epsilon"]), cmp.Or(s.rr.Args["epsilon"], "1e-05"))
		},
		fix: say("pass the model's rms_norm_eps as epsilon (torch_npu's default is 1e-5; DeepSeek's configs say 1e-6)"),
	},
	{
		id: "cache_slot_plus_one", applies: kvOp,
		run: func(s *state) (map[string]tensor.Tensor, error) {
			return s.rerun(func(in map[string]tensor.Tensor, _ map[string]string) bool {
				in["index"] = shiftedIndex(in["index"], 1)
				return true
			})
		},
		reading: say("every token written one cache slot further on (index + 1)"),
		fix:     say("write token t to slot index[t]: slot_mapping is the slot itself, not the slot count"),
	},
	{
		id: "cache_slot_minus_one", applies: kvOp,
		run: func(s *state) (map[string]tensor.Tensor, error) {
			return s.rerun(func(in map[string]tensor.Tensor, _ map[string]string) bool {
				in["index"] = shiftedIndex(in["index"], -1)
				return true
			})
		},
		reading: say("every token written one cache slot short (index − 1)"),
		fix:     say("write token t to slot index[t] (a decode step's slot is the cache length, not the cache length − 1)"),
	},
	{
		id: "query_key_swapped",
		applies: func(s *state) bool {
			return slices.Equal(s.names, []string{"query", "key"}) && s.want["query"].Len() == s.want["key"].Len()
		},
		run: func(s *state) (map[string]tensor.Tensor, error) {
			return map[string]tensor.Tensor{"query": s.want["key"], "key": s.want["query"]}, nil
		},
		reading: say("query and key swapped on output"),
		fix:     say("write the rotated query to query and the rotated key to key"),
	},
	{
		id: "key_not_rotated", applies: func(s *state) bool { return atPositions(s) && len(s.names) == 2 },
		run: func(s *state) (map[string]tensor.Tensor, error) {
			return map[string]tensor.Tensor{"query": s.want["query"], "key": s.inputs["key"]}, nil
		},
		reading: say("only the query rotated: the key left as it came in"),
		fix:     say("rotate the key too, before it enters the KV cache"),
	},
	{
		id: "query_not_rotated", applies: atPositions,
		run: func(s *state) (map[string]tensor.Tensor, error) {
			out := map[string]tensor.Tensor{"query": s.inputs["query"]}
			if len(s.names) == 2 {
				out["key"] = s.want["key"]
			}
			return out, nil
		},
		reading: func(s *state) string {
			switch {
			case s.qs != nil:
				return "the scale not applied: the query left as it came in"
			case len(s.names) == 2:
				return "only the key rotated: the query left as it came in"
			}
			return "the query left as it came in (not rotated)"
		},
		fix: func(s *state) string {
			if s.qs != nil {
				return fmt.Sprintf("scale the query by %v on the layers the model scales", s.qs.Rule)
			}
			return "rotate the query too"
		},
	},
	{
		id: "output_transposed", applies: func(s *state) bool { return s.swap != [4]int{} },
		run: func(s *state) (map[string]tensor.Tensor, error) {
			return transposed(s.want, s.swap), nil
		},
		reading: func(s *state) string {
			if s.cs == nil {
				return "the right values written head-major ([heads, tokens, dim], BNSD) into the token-major [tokens, heads, dim] (BSND) output"
			}
			to, ok := map[ops.Layout]string{ops.BSND: "BNSD", ops.BNSD: "BSND", ops.SBND: "BSND", ops.THD: "[heads, tokens, dim]"}[s.cs.Layout]
			if !ok {
				return "the right values written with two axes swapped (a transposed layout)"
			}
			from := string(s.cs.Layout)
			return fmt.Sprintf("the right values written in %s order into the %s output", to, from)
		},
		fix: say("write the output in the layout the op's tensors have, or transpose it back"),
	},
	{
		id: "cos_sin_swapped", applies: func(s *state) bool { return byCosSin(s) || s.npu != nil && rotates(s) },
		run: func(s *state) (map[string]tensor.Tensor, error) {
			if s.npu != nil {
				return s.applyCache(func(p *rotary.NPUMRoPEParams) { p.CosSinCache = cacheHalves(p.CosSinCache, false) })
			}
			return s.applyCS(s.style, s.cs.Sin, s.cs.Cos)
		},
		reading: say("cos and sin swapped (sin taken for cos)"),
		fix:     say("pass cos as cos and sin as sin: out = x·cos + rotate(x)·sin"),
	},
	{
		id: "not_deinterleaved", applies: func(s *state) bool { return byCosSin(s) && interleaveOp(s) },
		run: func(s *state) (map[string]tensor.Tensor, error) {
			x := s.cs.X
			defer func() { s.cs.X = x }()
			s.cs.X = s.inputs["out"]
			return s.applyCS(rope.NeoX, s.cs.Cos, s.cs.Sin)
		},
		reading: say("x rotated NeoX style as it came in, without the de-interleave (2i, 2i+1) → (i, i+d/2) first"),
		fix:     say("de-interleave each head first, q = reshape(x, [D/2, 2]).transpose(-1, -2).reshape(D), then rotate q"),
	},
	{
		id: "start_positions_ignored", applies: func(s *state) bool { return s.thd != nil && rotates(s) && s.thd.startsGiven() },
		run: func(s *state) (map[string]tensor.Tensor, error) {
			seqs := s.thd.params.Seqs
			seqs.StartPositions = tensor.Tensor{}
			return s.applyTHD(s.style, s.cs.Cos, s.cs.Sin, seqs)
		},
		reading: say("start_positions left out: every sequence rotated from position 0"),
		fix:     say("add each sequence's start position (the tokens already in its cache) to its positions"),
	},
	{
		id: "context_parallel_ignored", applies: func(s *state) bool { return s.thd != nil && rotates(s) && s.thd.params.Seqs.CPSize > 1 },
		run: func(s *state) (map[string]tensor.Tensor, error) {
			seqs := s.thd.params.Seqs
			cp := int64(seqs.CPSize)
			cu := s.thd.cuSeqlens()
			for i := range cu {
				cu[i] /= cp
			}
			seqs.CuSeqlens, seqs.CPSize, seqs.CPRank = tensor.FromI64(cu, len(cu)), 1, 0
			return s.applyTHD(s.style, s.cs.Cos, s.cs.Sin, seqs)
		},
		reading: say("the context-parallel split left out: this rank's tokens rotated as the first of each sequence"),
		fix: func(s *state) string {
			p := s.thd.params.Seqs
			return fmt.Sprintf("rank %d of %d holds chunks %d and %d of each sequence's %d: take each token's position within the full sequence", p.CPRank, p.CPSize, p.CPRank, 2*p.CPSize-1-p.CPRank, 2*p.CPSize)
		},
	},
	{
		id: "sequences_not_restarted", applies: func(s *state) bool { return s.thd != nil && rotates(s) && len(s.thd.cuSeqlens()) > 2 },
		run: func(s *state) (map[string]tensor.Tensor, error) {
			seqs := s.thd.params.Seqs
			cu := s.thd.cuSeqlens()
			seqs.CuSeqlens, seqs.StartPositions = tensor.FromI64([]int64{0, cu[len(cu)-1]}, 2), tensor.Tensor{}
			return s.applyTHD(s.style, s.cs.Cos, s.cs.Sin, seqs)
		},
		reading: say("the packed sequences rotated as one: positions not restarted at each cu_seqlens boundary"),
		fix:     say("restart the positions at 0 (or its start position) for each sequence cu_seqlens delimits"),
	},
	{
		id: "x_not_rotated", applies: byCosSin,
		run: func(s *state) (map[string]tensor.Tensor, error) {
			return map[string]tensor.Tensor{"out": s.inputs["out"]}, nil
		},
		reading: func(s *state) string {
			if s.cs.Backward {
				return "dy copied to dx, not rotated"
			}
			return "x copied to the output, not rotated"
		},
		fix: func(s *state) string {
			if s.cs.Backward {
				return "write dx = dy·cos + rotateᵀ(dy·sin)"
			}
			return "write x·cos + rotate(x)·sin"
		},
	},
	{
		id: "products_in_dtype", precision: true, applies: func(s *state) bool { return byCosSin(s) && !s.cs.Backward && s.thd == nil && s.sixteenBit() },
		run: func(s *state) (map[string]tensor.Tensor, error) {
			return s.productsInDType(), nil
		},
		reading: func(s *state) string {
			return fmt.Sprintf("each product and the sum rounded to %v (torch's x * cos + rotate_half(x) * sin on %[1]v tensors)", s.cs.X.DType)
		},
		fix: say("exact to the last bit takes the products and the sum in float32 and one rounding at the end; to accept torch's arithmetic, verify with the --ulp it needs"),
	},
	{
		id: "query_scale_cast", precision: true, applies: func(s *state) bool { return s.qs != nil && s.sixteenBit() },
		run: func(s *state) (map[string]tensor.Tensor, error) {
			return s.applyQS(func(p *rotary.QueryScaleParams) { p.Rule.Cast = otherCast(p.Rule) })
		},
		reading: func(s *state) string {
			if s.qs.Rule.ScaleFirst() {
				return "the query times the float32 scale, rounded once (Hugging Face's Llama 4 order), where the rule rounds the scale to the query's dtype first"
			}
			return "the scale rounded to the query's dtype before the multiply (Hugging Face's Ministral 3 order), where the rule multiplies in float32 and rounds once"
		},
		fix: say("round where the model's framework rounds (rotary apply --query-scale-cast product|scale), or verify with the --ulp this order needs"),
	},
	{
		id: "cos_sin_in_dtype", precision: true, applies: func(s *state) bool { return rotated(s) && s.sixteenBit() },
		run: func(s *state) (map[string]tensor.Tensor, error) {
			return s.compute(arithmetic{angles: anglesExact, cosSinInDType: true})
		},
		reading: func(s *state) string {
			return fmt.Sprintf("cos and sin rounded to %v before the multiply", s.inputs["query"].DType)
		},
		fix: say("keep cos and sin in float32 and round once, after the rotation (as vLLM's and FlashInfer's kernels do)"),
	},
	{
		id: "hf_arithmetic", precision: true, applies: func(s *state) bool { return rotated(s) && s.sixteenBit() },
		run: func(s *state) (map[string]tensor.Tensor, error) {
			return s.compute(arithmetic{angles: anglesHF, cosSinInDType: true, productsInDType: true})
		},
		reading: func(s *state) string {
			return fmt.Sprintf("Hugging Face's arithmetic (LlamaRotaryEmbedding and apply_rotary_pos_emb): angles in float32, cos and sin rounded to %[1]v, each product and the sum rounded to %[1]v", s.inputs["query"].DType)
		},
		fix: say("exact to the last bit takes float32 cos and sin and one rounding at the end; to accept Hugging Face's arithmetic, verify with the --ulp it needs"),
	},
	{
		id: "angles_float32", precision: true, applies: rotated,
		run: func(s *state) (map[string]tensor.Tensor, error) {
			return s.compute(arithmetic{angles: anglesHF})
		},
		reading: say("angles in float32 (inv_freq @ position_ids, as Hugging Face's rotary embedding computes them)"),
		fix:     say("compute the angle position × inv_freq in float64 (or look cos and sin up in a table built that way) and round cos and sin once"),
	},
	{
		id: "angles_ggml", precision: true, applies: func(s *state) bool { return rotated(s) && !scaled(s.spec) && s.spec.MRoPE == nil },
		run: func(s *state) (map[string]tensor.Tensor, error) {
			return s.compute(arithmetic{angles: anglesGGML})
		},
		reading: say("angles in float32 as ggml computes them (p · theta_scale^i, the angle multiplied pair by pair)"),
		fix:     say("compute the angle position × inv_freq in float64 (or look cos and sin up in a table built that way) and round cos and sin once"),
	},
}

// scaled: the spec's frequencies are not the plain ones.
func scaled(spec rope.Spec) bool {
	t := spec.Scaling.Type
	return t != "" && t != rope.ScalingDefault && t != rope.ScalingProportional
}

// attention is the factor that multiplies cos and sin.
func attention(s *state) float64 {
	_, a := s.spec.Frequencies(int(min(s.maxPos, 1<<31-1)))
	return a
}

func attentionScaled(s *state) bool {
	t := s.spec.Scaling.Type
	return rotated(s) && (t == rope.ScalingYaRN || t == rope.ScalingLongRoPE) && attention(s) != 1
}

func (s *state) leastPosition() int64 {
	least := s.pos.Int64At(0)
	for i := range s.pos.Len() {
		least = min(least, s.pos.Int64At(i))
	}
	return least
}

// tokenOrder: every row of positions is from, from+1, from+2, …: the token index is then
// positions_from_zero's reading.
func (s *state) tokenOrder(from int64) bool {
	for i := range s.pos.Len() {
		if s.pos.Int64At(i) != from+int64(i%s.tokens) {
			return false
		}
	}
	return true
}

func (s *state) sixteenBit() bool {
	d := s.inputs[s.names[0]].DType
	return d == tensor.BF16 || d == tensor.F16
}

// otherEpsilon is the epsilon a port takes by mistake: torch_npu's default 1e-5, or DeepSeek's
// rms_norm_eps 1e-6 where 1e-5 is the model's.
func otherEpsilon(eps string) string {
	if v, err := strconv.ParseFloat(eps, 64); err == nil && v == 1e-5 || eps == "" {
		return "1e-06"
	}
	return "1e-05"
}
