package check

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/multimodal"
	"github.com/rotary-go/rotary/rope"
)

// InspectReport is what rotary inspect says of one layer's RoPE of a model: the spec, its
// frequencies and attention factor, and what the model adds around it. Its JSON form
// (encoding/json's, every key snake_case, those of package rope's types included) is a
// contract for tools; WriteText is what rotary inspect prints.
type InspectReport struct {
	// Source names where the model came from (a path, "preset NAME"); the caller sets it.
	Source          string          `json:"source"`
	ModelType       string          `json:"model_type"`
	Layer           int             `json:"layer"`
	NumLayers       int             `json:"num_layers,omitempty"`
	NumHeads        int             `json:"num_heads"`
	NumKVHeads      int             `json:"num_kv_heads"`
	HeadSize        int             `json:"head_size"`
	RotaryDim       int             `json:"rotary_dim"`
	Style           string          `json:"style"`
	StyleAssumed    bool            `json:"style_assumed,omitempty"`
	Base            float64         `json:"base"`
	MaxPositions    int             `json:"max_position_embeddings"`
	CacheLen        int             `json:"cache_len"`
	Scaling         rope.Scaling    `json:"scaling"`
	AttentionFactor float64         `json:"attention_factor"`
	InvFreq         []float64       `json:"inv_freq"`
	LongInvFreq     []float64       `json:"inv_freq_long,omitempty"`
	MRoPE           *rope.MRoPE     `json:"mrope,omitempty"`
	Local           *rope.LocalRoPE `json:"local,omitempty"`
	GlobalLayer     bool            `json:"global_layer"`
	LayerType       string          `json:"layer_type,omitempty"`
	NoRoPE          bool            `json:"no_rope,omitempty"`
	DualChunk       *rope.DualChunk `json:"dual_chunk,omitempty"`
	// SoftmaxMscale is the factor a DeepSeek-style attention multiplies its softmax scale by
	// (yarn_get_mscale(factor, mscale_all_dim)²): not RoPE, so in no cos/sin (softmaxMscale).
	SoftmaxMscale float64  `json:"softmax_mscale,omitempty"`
	Notes         []string `json:"notes,omitempty"`
	// Warnings are the reasons the RoPE may not be the checkpoint's (hf.Model.Warnings):
	// unread or misspelt keys, an assumed pairing.
	Warnings []string `json:"warnings,omitempty"`
	// Rope names the spec the fields above describe: "main", or "indexer".
	Rope string `json:"rope"`
	// Indexer is the model's second RoPE (DeepSeek-V3.2's lightning indexer), whichever RoPE
	// the report describes, so that one report shows both; its cos/sin are the main RoPE's.
	Indexer *IndexerReport `json:"indexer,omitempty"`
	// PositionsFamily is the multimodal family whose get_rope_index `rotary positions` runs for
	// this model_type, empty for a text-only model.
	PositionsFamily string `json:"positions_family,omitempty"`
	// GGUF is how llama.cpp read the model, for a report of a GGUF file (InspectGGUF).
	GGUF *GGUFFacts `json:"gguf,omitempty"`
}

// IndexerReport is what differs between the indexer's spec and the main one.
type IndexerReport struct {
	HeadSize  int    `json:"head_size"`
	RotaryDim int    `json:"rotary_dim"`
	Style     string `json:"style"`
}

// Inspect reports the spec sel picks from m (hf.Model.Select, whose *hf.SelectionError it
// returns as is). It never panics.
func Inspect(m *hf.Model, sel hf.Selection) (*InspectReport, error) {
	if m == nil {
		return nil, errors.New("check: Inspect needs a model, got nil")
	}
	spec, err := m.Select(sel)
	if err != nil {
		return nil, err
	}
	// The frequencies of rotary.New's Embedding: none for a layer without RoPE, whose factor is 1.
	var inv, long []float64
	attention, cacheLen := 1.0, 0
	if !spec.NoRoPE {
		inv, attention = spec.Frequencies(-1)
		if spec.Scaling.Type == rope.ScalingLongRoPE {
			long, _ = spec.Frequencies(spec.OriginalMax())
		}
		cacheLen = spec.DefaultCacheLen()
	}
	notes := m.Notes
	mscale := softmaxMscale(m.ModelType, spec.Scaling)
	if mscale != 0 {
		notes = append(slices.Clip(notes), fmt.Sprintf("the attention also multiplies its softmax scale (qk_head_dim^-0.5) by yarn_get_mscale(%g, mscale_all_dim %g)² = %.17g: not RoPE, so in no cos/sin here and not in the attention factor above (transformers %s yarn_apply_mscale)", spec.Scaling.Factor, spec.Scaling.MscaleAllDim, mscale, m.ModelType))
	}
	if why, ok := multimodal.Unsupported(m.TopModelType); ok {
		notes = append(slices.Clip(notes), "positions: "+why)
	}
	var ix *IndexerReport
	if s := m.Indexer; s != nil {
		ix = &IndexerReport{HeadSize: s.HeadSize, RotaryDim: s.RotaryDim, Style: s.Style.String()}
	}
	return &InspectReport{
		Rope: sel.RoPE.String(), Indexer: ix,
		ModelType: m.ModelType, Layer: sel.Layer, NumLayers: m.NumLayers,
		NumHeads: m.NumHeads, NumKVHeads: m.NumKVHeads, HeadSize: spec.HeadSize,
		RotaryDim: spec.RotaryDim, Style: spec.Style.String(), StyleAssumed: m.StyleAssumed, Base: spec.Base,
		MaxPositions: spec.MaxPositions, CacheLen: cacheLen, Scaling: spec.Scaling,
		AttentionFactor: attention, InvFreq: inv, LongInvFreq: long,
		MRoPE: spec.MRoPE, Local: m.Spec.Local, GlobalLayer: m.Spec.IsGlobalLayer(sel.Layer),
		LayerType: m.Spec.LayerType(sel.Layer), NoRoPE: spec.NoRoPE, DualChunk: spec.DualChunk, Notes: notes,
		SoftmaxMscale: mscale, PositionsFamily: positionsFamily(m), Warnings: m.Warnings(),
	}, nil
}

// positionsFamily names the multimodal positions family of m, or "": the top level's, which
// builds the positions, when it names another model than the text model; a wrapper whose
// positions rotary does not compute has none, whatever its text model's would be.
func positionsFamily(m *hf.Model) string {
	if m.TopModelType != "" && m.TopModelType != m.ModelType {
		if _, ok := multimodal.Unsupported(m.TopModelType); ok {
			return ""
		}
		if k, err := multimodal.KindForModelType(m.TopModelType); err == nil {
			return k.String()
		}
	}
	k, err := multimodal.KindForModelType(m.ModelType)
	if err != nil {
		return ""
	}
	return k.String()
}

// mscaleSoftmaxTypes are the model types whose attention scales its softmax by
// yarn_get_mscale(factor, mscale_all_dim)² under a scaled RoPE: transformers main
// models/<type>/modeling_<type>.py yarn_apply_mscale, called for the attention's scaling (MLA
// models; vLLM's deepseek_v2.py DeepseekV2MLAAttention does the same under its deepseek_yarn).
var mscaleSoftmaxTypes = []string{"deepseek_v2", "deepseek_v3", "deepseek_v32", "glm4_moe_lite", "glm_moe_dsa", "longcat_flash", "minicpm3", "mistral4", "youtu", "axk1"}

// softmaxMscale is the factor such a model multiplies its softmax scale by, or 0 when it does
// not: yarn_apply_mscale scales only under a rope_type other than default and with a
// mscale_all_dim other than 0; yarn_get_mscale(s, m) is 1 for s ≤ 1, else 0.1·m·ln(s) + 1.
func softmaxMscale(modelType string, sc rope.Scaling) float64 {
	if !slices.Contains(mscaleSoftmaxTypes, modelType) || sc.Type == "" || sc.Type == rope.ScalingDefault || sc.MscaleAllDim == 0 {
		return 0
	}
	m := 1.0
	if sc.Factor > 1 {
		m = 0.1*sc.MscaleAllDim*math.Log(sc.Factor) + 1
	}
	return m * m
}
