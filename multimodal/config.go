package multimodal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/rotary-go/rotary/internal/errs"
)

// Kind selects which model family's get_rope_index rules apply.
type Kind uint8

// The supported families.
const (
	// Qwen2VL is Qwen2-VL (model_type qwen2_vl): a video's temporal index counts grid steps.
	Qwen2VL Kind = iota + 1
	// Qwen25VL is Qwen2.5-VL (model_type qwen2_5_vl): a video's temporal index is scaled by
	// second_per_grid_t · tokens_per_second; images use temporal index 0.
	Qwen25VL
	// Qwen3VL is Qwen3-VL (model_type qwen3_vl, qwen3_vl_moe): videos are split into frames
	// of one grid step each, separated by timestamp text tokens.
	Qwen3VL
	// Qwen35 is Qwen3.5 (model_type qwen3_5, qwen3_5_moe): Qwen3-VL's positions with its own
	// token ids; the language model rotates them with a partial interleaved MRoPE.
	Qwen35
	// GLM4V is GLM-4.1V, GLM-4.5V and GLM-4.6V (model_type glm4v, glm4v_moe, glm46v): image
	// tokens between video_start and video_end are video frames, each a (1, h, w) grid of its
	// video, frames separated by timestamp text.
	GLM4V
	kindEnd
)

func (k Kind) String() string {
	switch k {
	case Qwen2VL:
		return "qwen2_vl"
	case Qwen25VL:
		return "qwen2_5_vl"
	case Qwen3VL:
		return "qwen3_vl"
	case Qwen35:
		return "qwen3_5"
	case GLM4V:
		return "glm4v"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// KindForModelType maps a config.json model_type to a Kind. The nested text models'
// types (qwen2_vl_text, qwen3_vl_text, ...) are accepted too.
func KindForModelType(modelType string) (Kind, error) {
	switch strings.TrimSuffix(modelType, "_text") {
	case "qwen2_vl":
		return Qwen2VL, nil
	case "qwen2_5_vl":
		return Qwen25VL, nil
	case "qwen3_vl", "qwen3_vl_moe":
		return Qwen3VL, nil
	case "qwen3_5", "qwen3_5_moe":
		return Qwen35, nil
	case "glm4v", "glm4v_moe", "glm46v":
		return GLM4V, nil
	}
	return 0, fmt.Errorf("model_type %q: multimodal positions know %s", modelType, KnownModelTypes)
}

// KnownModelTypes lists the model_type values KindForModelType accepts, for messages.
const KnownModelTypes = "qwen2_vl, qwen2_5_vl, qwen3_vl, qwen3_vl_moe, qwen3_5, qwen3_5_moe, glm4v, glm4v_moe, glm46v"

// splitsFrames reports whether kind splits each video (t, h, w) into t frames (1, h, w), each
// its own block between timestamp text (Qwen3-VL and Qwen3.5).
func splitsFrames(kind Kind) bool { return kind == Qwen3VL || kind == Qwen35 }

// Config is what get_rope_index reads from a model's config: the special token ids, the
// vision tower's spatial merge size and (Qwen2.5-VL) tokens_per_second.
type Config struct {
	Kind Kind
	// ImageTokenID, VideoTokenID and VisionStartTokenID are image_token_id, video_token_id
	// and vision_start_token_id (top level of config.json).
	ImageTokenID, VideoTokenID, VisionStartTokenID int64
	// VideoStartTokenID and VideoEndTokenID (GLM-4V) are video_start_token_id and
	// video_end_token_id: the image tokens between them are video frames.
	VideoStartTokenID, VideoEndTokenID int64
	// SpatialMergeSize is vision_config.spatial_merge_size: the side of the square of
	// patches the merger folds into one LLM token.
	SpatialMergeSize int64
	// TokensPerSecond is vision_config.tokens_per_second (Qwen2.5-VL only): temporal
	// position steps per second of video.
	TokensPerSecond float64
}

// The HF config classes' defaults. Qwen2VLConfig, Qwen2_5_VLConfig and Qwen3VLConfig all
// default image_token_id=151655, video_token_id=151656, vision_start_token_id=151652, and
// their vision configs spatial_merge_size=2 (configuration_qwen2_vl.py,
// configuration_qwen2_5_vl.py, configuration_qwen3_vl.py).
const (
	DefaultImageTokenID       = 151655
	DefaultVideoTokenID       = 151656
	DefaultVisionStartTokenID = 151652
	DefaultSpatialMergeSize   = 2
	// DefaultTokensPerSecond is Qwen2_5_VLVisionConfig's default (tokens_per_second=4).
	// The published Qwen2.5-VL checkpoints set 2 in their config.json; ConfigFromJSON
	// uses that value for configs whose _name_or_path names one of them.
	DefaultTokensPerSecond = 4
	// publishedQwen25TokensPerSecond is vision_config.tokens_per_second in the
	// Qwen/Qwen2.5-VL-*-Instruct config.json files.
	publishedQwen25TokensPerSecond = 2
)

// Qwen3_5Config and Qwen3_5MoeConfig's defaults (configuration_qwen3_5.py,
// configuration_qwen3_5_moe.py): the Qwen3.5 vocabulary moved the vision tokens.
const (
	qwen35ImageTokenID       = 248056
	qwen35VideoTokenID       = 248057
	qwen35VisionStartTokenID = 248053
)

// Glm4vConfig's defaults (configuration_glm4v.py); Glm4vMoeConfig moves the image and video
// tokens (configuration_glm4v_moe.py: 151363, 151364), which ConfigFromJSON reads from a
// glm4v_moe config's model_type.
const (
	glm4vImageTokenID      = 151343
	glm4vVideoTokenID      = 151344
	glm4vVideoStartTokenID = 151341
	glm4vVideoEndTokenID   = 151342
	glm4vMoEImageTokenID   = 151363
	glm4vMoEVideoTokenID   = 151364
	// Glm46VConfig (configuration_glm46v.py) moves the video span's tokens.
	glm46vVideoStartTokenID = 151361
	glm46vVideoEndTokenID   = 151362
)

// DefaultConfig returns the HF config-class defaults for kind.
func DefaultConfig(kind Kind) Config {
	c := Config{
		Kind:               kind,
		ImageTokenID:       DefaultImageTokenID,
		VideoTokenID:       DefaultVideoTokenID,
		VisionStartTokenID: DefaultVisionStartTokenID,
		SpatialMergeSize:   DefaultSpatialMergeSize,
	}
	switch kind {
	case Qwen25VL:
		c.TokensPerSecond = DefaultTokensPerSecond
	case Qwen35:
		c.ImageTokenID, c.VideoTokenID, c.VisionStartTokenID = qwen35ImageTokenID, qwen35VideoTokenID, qwen35VisionStartTokenID
	case GLM4V:
		c.ImageTokenID, c.VideoTokenID, c.VisionStartTokenID = glm4vImageTokenID, glm4vVideoTokenID, 0
		c.VideoStartTokenID, c.VideoEndTokenID = glm4vVideoStartTokenID, glm4vVideoEndTokenID
	}
	return c
}

// idField is a token id of a Config with its config.json key.
type idField struct {
	key string
	p   *int64
}

// tokenIDs are the token ids kind's get_rope_index reads, which must be distinct.
func (c *Config) tokenIDs() []idField {
	if c.Kind == GLM4V {
		// GLM-4V's video frames are image tokens; video_token_id is never in the input.
		return []idField{{"image_token_id", &c.ImageTokenID}, {"video_start_token_id", &c.VideoStartTokenID}, {"video_end_token_id", &c.VideoEndTokenID}}
	}
	return []idField{{"image_token_id", &c.ImageTokenID}, {"video_token_id", &c.VideoTokenID}, {"vision_start_token_id", &c.VisionStartTokenID}}
}

// ErrConfig is wrapped by every error ConfigFromJSON and Config.Validate return.
var ErrConfig = errors.New("multimodal config")

func configErr(format string, args ...any) error {
	return errs.Wrapf(ErrConfig, format, args...)
}

// maxTokenID bounds token ids to what real vocabularies use; a larger one is a typo.
const maxTokenID = 1 << 40

// maxMerge bounds spatial_merge_size: real models use 2.
const maxMerge = 1 << 10

// Validate checks c, naming the field and what was expected.
func (c Config) Validate() error {
	if c.Kind < Qwen2VL || c.Kind >= kindEnd {
		return configErr("kind %v: want one of %s", c.Kind, KnownModelTypes)
	}
	ids := c.tokenIDs()
	for i, a := range ids {
		if *a.p < 0 || *a.p > maxTokenID {
			return configErr("%s %d: want 0..%d", a.key, *a.p, int64(maxTokenID))
		}
		for _, b := range ids[:i] {
			if *a.p == *b.p {
				return configErr("%s and %s are both %d: want distinct token ids", b.key, a.key, *a.p)
			}
		}
	}
	if c.SpatialMergeSize < 1 || c.SpatialMergeSize > maxMerge {
		return configErr("spatial_merge_size %d: want 1..%d", c.SpatialMergeSize, maxMerge)
	}
	if c.Kind == Qwen25VL && (c.TokensPerSecond < 0 || math.IsNaN(c.TokensPerSecond) || math.IsInf(c.TokensPerSecond, 0)) {
		return configErr("tokens_per_second %v: want a finite number ≥ 0", c.TokensPerSecond)
	}
	return nil
}

// ConfigFromJSON reads a Hugging Face config.json of a multimodal model (KnownModelTypes):
// model_type and the token ids from the top level (falling back to text_config),
// spatial_merge_size and tokens_per_second from vision_config (falling back to the top
// level). Absent keys take the HF config classes' defaults (DefaultConfig), except that
// a config whose _name_or_path is a published Qwen/Qwen2.5-VL checkpoint gets that
// checkpoint's tokens_per_second, 2. JSON null counts as absent.
func ConfigFromJSON(data []byte) (Config, error) { return configFromJSON(data, 0) }

// ConfigFromJSONAs is ConfigFromJSON with the family's rules and defaults chosen by kind
// instead of the config's model_type, which may then be absent or any string: for configs
// of fine-tuned or renamed checkpoints.
func ConfigFromJSONAs(data []byte, kind Kind) (Config, error) {
	if kind < Qwen2VL || kind >= kindEnd {
		return Config{}, configErr("kind %v: want one of %s", kind, KnownModelTypes)
	}
	return configFromJSON(data, kind)
}

func configFromJSON(data []byte, kind Kind) (Config, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var top map[string]any
	if err := dec.Decode(&top); err != nil {
		return Config{}, configErr("config.json: %v", err)
	}
	if top == nil {
		return Config{}, configErr("config.json: want a JSON object")
	}
	text, err := object(top, "text_config")
	if err != nil {
		return Config{}, err
	}
	vision, err := object(top, "vision_config")
	if err != nil {
		return Config{}, err
	}
	mt, ok, err := str(top, "model_type")
	if err != nil {
		return Config{}, err
	}
	if !ok && text != nil {
		if mt, ok, err = str(text, "model_type"); err != nil {
			return Config{}, err
		}
	}
	if kind == 0 {
		if !ok {
			return Config{}, configErr("model_type: missing")
		}
		if kind, err = KindForModelType(mt); err != nil {
			return Config{}, fmt.Errorf("%w: %w", ErrConfig, err)
		}
	}
	c := DefaultConfig(kind)
	if kind == GLM4V {
		switch strings.TrimSuffix(mt, "_text") {
		case "glm4v_moe":
			c.ImageTokenID, c.VideoTokenID = glm4vMoEImageTokenID, glm4vMoEVideoTokenID
		case "glm46v":
			c.VideoStartTokenID, c.VideoEndTokenID = glm46vVideoStartTokenID, glm46vVideoEndTokenID
		}
	}
	if kind == Qwen25VL {
		if name, ok, _ := str(top, "_name_or_path"); ok && strings.HasPrefix(name, "Qwen/Qwen2.5-VL-") {
			c.TokensPerSecond = publishedQwen25TokensPerSecond
		}
	}
	for _, f := range c.tokenIDs() {
		if err := integer([]map[string]any{top, text}, f.key, f.p); err != nil {
			return Config{}, err
		}
	}
	if err := integer([]map[string]any{vision, top}, "spatial_merge_size", &c.SpatialMergeSize); err != nil {
		return Config{}, err
	}
	if kind == Qwen25VL {
		for _, m := range []map[string]any{vision, top} {
			v, ok, err := number(m, "tokens_per_second")
			if err != nil {
				return Config{}, err
			}
			if ok {
				c.TokensPerSecond = v
				break
			}
		}
	}
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

func object(m map[string]any, key string) (map[string]any, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return nil, nil
	}
	o, ok := v.(map[string]any)
	if !ok {
		return nil, configErr("%s: want a JSON object", key)
	}
	return o, nil
}

func str(m map[string]any, key string) (string, bool, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return "", false, nil
	}
	s, ok := v.(string)
	if !ok {
		return "", false, configErr("%s: want a string", key)
	}
	return s, true, nil
}

func number(m map[string]any, key string) (float64, bool, error) {
	if m == nil {
		return 0, false, nil
	}
	v, ok := m[key]
	if !ok || v == nil {
		return 0, false, nil
	}
	n, ok := v.(json.Number)
	if !ok {
		return 0, false, configErr("%s: %v: want a number", key, v)
	}
	f, err := n.Float64()
	if err != nil || math.IsInf(f, 0) {
		return 0, false, configErr("%s: %s: want a finite number", key, n)
	}
	return f, true, nil
}

// integer sets *dst from the first of the objects that has key; absent everywhere leaves it.
func integer(in []map[string]any, key string, dst *int64) error {
	for _, m := range in {
		f, ok, err := number(m, key)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if f != math.Trunc(f) || math.Abs(f) > maxTokenID {
			return configErr("%s: %v: want an integer", key, f)
		}
		*dst = int64(f)
		return nil
	}
	return nil
}
