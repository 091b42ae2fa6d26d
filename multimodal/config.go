package multimodal

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/rotary-go/rotary/hf"
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
	// Qwen25Omni is Qwen2.5-Omni's thinker and talker (model_type qwen2_5_omni): Qwen2.5-VL's
	// grids with time scaled by position_id_per_seconds, audio blocks, and with
	// use_audio_in_video a video's frames and its audio interleaved in chunks of
	// seconds_per_chunk.
	Qwen25Omni
	// Qwen3Omni is Qwen3-Omni (model_type qwen3_omni_moe): Qwen2.5-Omni's blocks, found by
	// their start tokens, with a video's frames and audio merged token by token in time.
	Qwen3Omni
	// Ernie45VL is ERNIE-4.5-VL (model_type ernie4_5_vl_moe): runs of image or video tokens
	// are Qwen2-VL grids, a video's time merged by temporal_merge_size; its language model
	// rotates with pairs (2i, 2i+1) whose h and w alternate, t in the tail.
	Ernie45VL
	// HunYuanVL is HunYuan-VL (model_type hunyuan_vl): every axis is the sequence position
	// except on an image's grid, where the last three (width, height, image) are the patch's
	// column, row and the image's index in the row (XD-RoPE).
	HunYuanVL
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
	case Qwen25Omni:
		return "qwen2_5_omni"
	case Qwen3Omni:
		return "qwen3_omni_moe"
	case Ernie45VL:
		return "ernie4_5_vl_moe"
	case HunYuanVL:
		return "hunyuan_vl"
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
	case "qwen2_5_omni", "qwen2_5_omni_thinker", "qwen2_5_omni_talker":
		return Qwen25Omni, nil
	case "qwen3_omni_moe", "qwen3_omni_moe_thinker", "qwen3_omni_moe_talker":
		return Qwen3Omni, nil
	case "ernie4_5_vl_moe", "ernie4_5_moe_vl", "ernie4_5_vl":
		return Ernie45VL, nil
	case "hunyuan_vl":
		return HunYuanVL, nil
	}
	if why, ok := Unsupported(modelType); ok {
		return 0, fmt.Errorf("model_type %q: %s", modelType, why)
	}
	return 0, fmt.Errorf("model_type %q: multimodal positions know %s", modelType, KnownModelTypes)
}

// KnownModelTypes lists the model_type values KindForModelType accepts, for messages.
const KnownModelTypes = "qwen2_vl, qwen2_5_vl, qwen3_vl, qwen3_vl_moe, qwen3_5, qwen3_5_moe, glm4v, glm4v_moe, glm46v, qwen2_5_omni (_thinker, _talker), qwen3_omni_moe (_thinker, _talker), ernie4_5_vl_moe, hunyuan_vl"

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
	// AudioTokenID and AudioStartTokenID (Omni) are audio_token_id (audio_token_index) and
	// audio_start_token_id.
	AudioTokenID, AudioStartTokenID int64
	// PositionIDPerSeconds (Omni) is position_id_per_seconds: temporal positions per second
	// of video, and per image grid step.
	PositionIDPerSeconds int64
	// SecondsPerChunk (Qwen2.5-Omni) is seconds_per_chunk: with use_audio_in_video, a
	// video's frames and audio alternate in chunks of this many seconds.
	SecondsPerChunk float64
	// AudioNWindow (Qwen3-Omni) is audio_config.n_window, which sets how many audio tokens a
	// number of feature frames gives.
	AudioNWindow int64
	// Talker (Omni) selects the talker's get_rope_index call: the talker config's token ids,
	// and rope_delta discounted by the row's padding (Qwen2_5OmniTalkerForConditionalGeneration
	// and Qwen3OmniMoeTalkerForConditionalGeneration.forward: rope_deltas − delta0).
	Talker bool
	// TemporalMergeSize (ERNIE-4.5-VL) is vision_config.temporal_merge_size (the published
	// configs' temporal_conv_size): video grid steps per LLM token step.
	TemporalMergeSize int64
	// Axes (HunYuan-VL) is the number of position axes, the length of the text config's
	// xdrope_section (mrope_section): 4 for sequence, width, height and image, or 3 without the
	// sequence axis.
	Axes int64
	// SpatialMergeSize is vision_config.spatial_merge_size: the side of the square of
	// patches the merger folds into one LLM token.
	SpatialMergeSize int64
	// TokensPerSecond is vision_config.tokens_per_second (Qwen2.5-VL only): temporal
	// position steps per second of video.
	TokensPerSecond float64
	// RopeIndex is the get_rope_index version the Qwen-VL families' positions follow: the
	// zero value transformers v4.57's and vLLM's, IndexUnified transformers main's.
	RopeIndex IndexVersion
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

// Qwen2_5OmniThinkerConfig's and Qwen3OmniMoeThinkerConfig's defaults
// (configuration_qwen2_5_omni.py, configuration_qwen3_omni_moe.py); the image, video and
// vision_start ids are Qwen2-VL's. Qwen3OmniMoeTalkerConfig moves audio_start_token_id.
const (
	omniAudioTokenID          = 151646
	omniAudioStartTokenID     = 151647
	qwen3OmniTalkerAudioStart = 151669
	omniPositionIDPerSeconds  = 25
	qwen25OmniSecondsPerChunk = 2
	// Qwen2_5OmniAudioEncoderConfig's n_window is 100, but Qwen2.5-Omni's token count does
	// not depend on it; Qwen3OmniMoeAudioEncoderConfig's is 50.
	qwen3OmniNWindow = 50
)

// Ernie4_5_VLMoeConfig's and HunYuanVLConfig's defaults (configuration_ernie4_5_vl_moe.py,
// configuration_hunyuan_vl.py). HunYuanVLConfig has no default xdrope_section; the published
// HunYuan-VL and HunYuanOCR configs give four sections.
const (
	ernieImageTokenID    = 100295
	ernieVideoTokenID    = 103367
	ernieTemporalMerge   = 2
	hunyuanImageTokenID  = 120120
	hunyuanDefaultAxes   = 4
	maxHunyuanAxes       = 16
	maxTemporalMergeSize = 1 << 10
)

// DefaultTalkerConfig returns the HF config-class defaults of an Omni kind's talker.
func DefaultTalkerConfig(kind Kind) Config {
	c := DefaultConfig(kind)
	c.Talker = true
	if kind == Qwen3Omni {
		c.AudioStartTokenID = qwen3OmniTalkerAudioStart
	}
	return c
}

// isOmni reports whether kind has audio.
func isOmni(kind Kind) bool { return kind == Qwen25Omni || kind == Qwen3Omni }

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
	case Ernie45VL:
		c.ImageTokenID, c.VideoTokenID, c.VisionStartTokenID = ernieImageTokenID, ernieVideoTokenID, 0
		c.TemporalMergeSize = ernieTemporalMerge
	case HunYuanVL:
		c.ImageTokenID, c.VideoTokenID, c.VisionStartTokenID = hunyuanImageTokenID, 0, 0
		c.Axes = hunyuanDefaultAxes
	case Qwen25Omni, Qwen3Omni:
		c.AudioTokenID, c.AudioStartTokenID = omniAudioTokenID, omniAudioStartTokenID
		c.PositionIDPerSeconds = omniPositionIDPerSeconds
		if kind == Qwen25Omni {
			c.SecondsPerChunk = qwen25OmniSecondsPerChunk
		} else {
			c.AudioNWindow = qwen3OmniNWindow
		}
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
	switch c.Kind {
	case Ernie45VL:
		return []idField{{"image_token_id", &c.ImageTokenID}, {"video_token_id", &c.VideoTokenID}}
	case HunYuanVL:
		return []idField{{"image_token_id", &c.ImageTokenID}}
	}
	if isOmni(c.Kind) {
		return []idField{{"image_token_id", &c.ImageTokenID}, {"video_token_id", &c.VideoTokenID}, {"vision_start_token_id", &c.VisionStartTokenID},
			{"audio_token_id", &c.AudioTokenID}, {"audio_start_token_id", &c.AudioStartTokenID}}
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

// maxOmniRate bounds position_id_per_seconds, seconds_per_chunk and n_window (real: 25, 2, 50).
const maxOmniRate = 1 << 16

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
	if c.Kind == Ernie45VL && (c.TemporalMergeSize < 1 || c.TemporalMergeSize > maxTemporalMergeSize) {
		return configErr("temporal_merge_size %d: want 1..%d", c.TemporalMergeSize, maxTemporalMergeSize)
	}
	if c.Kind == HunYuanVL && (c.Axes < 3 || c.Axes > maxHunyuanAxes) {
		return configErr("xdrope_section has %d sections: want 3..%d (the last three are width, height, image)", c.Axes, maxHunyuanAxes)
	}
	if c.RopeIndex >= indexVersionEnd {
		return configErr("rope index version %v: want %v or %v", c.RopeIndex, IndexV457, IndexUnified)
	}
	if c.Talker && !isOmni(c.Kind) {
		return configErr("talker: %v has no talker (only the Omni families do)", c.Kind)
	}
	if isOmni(c.Kind) {
		if c.PositionIDPerSeconds < 0 || c.PositionIDPerSeconds > maxOmniRate {
			return configErr("position_id_per_seconds %d: want 0..%d", c.PositionIDPerSeconds, maxOmniRate)
		}
		// int(position_id_per_seconds · seconds_per_chunk) positions per chunk: at least one,
		// or HF's chunking never ends a chunk.
		if c.Kind == Qwen25Omni && !(float64(c.PositionIDPerSeconds)*c.SecondsPerChunk >= 1 && c.SecondsPerChunk <= maxOmniRate) {
			return configErr("seconds_per_chunk %v × position_id_per_seconds %d: want at least one position per chunk (and seconds_per_chunk ≤ %d)", c.SecondsPerChunk, c.PositionIDPerSeconds, maxOmniRate)
		}
		if c.Kind == Qwen3Omni && (c.AudioNWindow < 1 || c.AudioNWindow > maxOmniRate) {
			return configErr("audio_config.n_window %d: want 1..%d", c.AudioNWindow, maxOmniRate)
		}
	}
	return nil
}

// ConfigFromJSON reads a Hugging Face config.json of a multimodal model (KnownModelTypes):
// model_type and the token ids from the top level (falling back to text_config),
// spatial_merge_size and tokens_per_second from vision_config (falling back to the top
// level). Absent keys take the HF config classes' defaults (DefaultConfig), except that
// a config whose _name_or_path is a published Qwen/Qwen2.5-VL checkpoint gets that
// checkpoint's tokens_per_second, 2. JSON null counts as absent.
//
// An Omni config is read from its thinker_config (talker_config for a model_type ending in
// _talker), or from the top level of a thinker or talker config alone; token ids are read
// under their _id or _index keys (Qwen2.5-Omni stores audio_token_index, ...).
func ConfigFromJSON(data []byte) (Config, error) { return ConfigFromJSONWith(data, ReadOptions{}) }

// ConfigFromJSONAs is ConfigFromJSON with the family's rules and defaults chosen by kind
// instead of the config's model_type, which may then be absent or any string: for configs
// of fine-tuned or renamed checkpoints.
func ConfigFromJSONAs(data []byte, kind Kind) (Config, error) {
	return ConfigFromJSONWith(data, ReadOptions{Kind: kind})
}

// ReadOptions choose what ConfigFromJSONWith reads.
type ReadOptions struct {
	// Kind, when not 0, replaces the family the config's model_type names.
	Kind Kind
	// Talker reads an Omni config's talker (talker_config and the talker's rope_delta).
	Talker bool
}

// FamilyOptions are the ReadOptions of the family a model_type names (KnownModelTypes): its
// Kind, and Talker for a name ending in _talker (qwen2_5_omni_talker, qwen3_omni_moe_talker).
// The error is KindForModelType's.
func FamilyOptions(modelType string) (ReadOptions, error) {
	kind, err := KindForModelType(modelType)
	if err != nil {
		return ReadOptions{}, err
	}
	return ReadOptions{Kind: kind, Talker: strings.HasSuffix(modelType, "_talker")}, nil
}

// DefaultConfigWith is the Config of o without a config.json: o.Kind's HF config-class
// defaults (DefaultConfig), or with o.Talker its talker's (DefaultTalkerConfig), which only
// the Omni families have. The result is validated; errors wrap ErrConfig.
func DefaultConfigWith(o ReadOptions) (Config, error) {
	c := DefaultConfig(o.Kind)
	if o.Talker {
		c = DefaultTalkerConfig(o.Kind)
	}
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// ConfigFromJSONWith is ConfigFromJSON with the family and the Omni talker chosen by o.
func ConfigFromJSONWith(data []byte, o ReadOptions) (Config, error) {
	if o.Kind != 0 && (o.Kind < Qwen2VL || o.Kind >= kindEnd) {
		return Config{}, configErr("kind %v: want one of %s", o.Kind, KnownModelTypes)
	}
	kind := o.Kind
	raw, err := hf.ReadRaw(data)
	if err != nil {
		return Config{}, configErr("config.json: %v", err)
	}
	top := raw.Top()
	text, err := top.TextConfig()
	if err != nil {
		return Config{}, configErr("%v", err)
	}
	vision, err := object(top, "vision_config")
	if err != nil {
		return Config{}, err
	}
	mt, ok, err := str(top, "model_type")
	if err != nil {
		return Config{}, err
	}
	if !ok {
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
	talker := o.Talker || (isOmni(kind) && strings.HasSuffix(strings.TrimSuffix(mt, "_text"), "_talker"))
	if talker && !isOmni(kind) {
		return Config{}, configErr("talker: %v has no talker (only the Omni families do)", kind)
	}
	c := DefaultConfig(kind)
	if talker {
		c = DefaultTalkerConfig(kind)
	}
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
	// where lists the objects keys are read from, first hit wins; merge those of
	// spatial_merge_size.
	where, merge := []hf.RawObject{top, text}, []hf.RawObject{vision, top}
	if isOmni(kind) {
		if where, merge, err = omniSections(top, talker); err != nil {
			return Config{}, err
		}
	}
	for _, f := range c.tokenIDs() {
		if err := integer(where, f.key, f.p); err != nil {
			return Config{}, err
		}
		if alt, ok := strings.CutSuffix(f.key, "_id"); ok && kind == Qwen25Omni && !strings.HasSuffix(f.key, "start_token_id") {
			// Qwen2.5-Omni's configs store image_token_index, video_token_index and
			// audio_token_index (the classes' attribute_map reads them as *_token_id).
			if err := integer(where, alt+"_index", f.p); err != nil {
				return Config{}, err
			}
		}
	}
	if err := integer(merge, "spatial_merge_size", &c.SpatialMergeSize); err != nil {
		return Config{}, err
	}
	if kind == Qwen25VL {
		for _, m := range []hf.RawObject{vision, top} {
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
	if kind == Ernie45VL {
		// The published configs: im_patch_id, spatial_conv_size and temporal_conv_size at
		// the top level; HF's conversion: image_token_id and vision_config's merge sizes.
		if err := integer([]hf.RawObject{top, text}, "im_patch_id", &c.ImageTokenID); err != nil {
			return Config{}, err
		}
		if err := integer(where, "image_token_id", &c.ImageTokenID); err != nil {
			return Config{}, err
		}
		if err := integer([]hf.RawObject{top}, "spatial_conv_size", &c.SpatialMergeSize); err != nil {
			return Config{}, err
		}
		if err := integer([]hf.RawObject{vision}, "spatial_merge_size", &c.SpatialMergeSize); err != nil {
			return Config{}, err
		}
		if err := integer([]hf.RawObject{vision, top}, "temporal_merge_size", &c.TemporalMergeSize); err != nil {
			return Config{}, err
		}
		if err := integer([]hf.RawObject{top}, "temporal_conv_size", &c.TemporalMergeSize); err != nil {
			return Config{}, err
		}
	}
	if kind == HunYuanVL {
		sections, given, err := raw.Sections()
		if err != nil {
			return Config{}, configErr("%v", err)
		}
		if given {
			c.Axes = int64(len(sections))
		}
	}
	if isOmni(kind) {
		if err := integer(where, "position_id_per_seconds", &c.PositionIDPerSeconds); err != nil {
			return Config{}, err
		}
		for _, m := range where {
			v, ok, err := number(m, "seconds_per_chunk")
			if err != nil {
				return Config{}, err
			}
			if ok {
				c.SecondsPerChunk = v
				break
			}
		}
		var audio []hf.RawObject
		for _, m := range where {
			a, err := object(m, "audio_config")
			if err != nil {
				return Config{}, err
			}
			audio = append(audio, a)
		}
		if err := integer(audio, "n_window", &c.AudioNWindow); err != nil {
			return Config{}, err
		}
	}
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// omniSections are the objects an Omni config's keys are read from: the thinker's (or
// talker's) section, its text_config, then the top level; spatial_merge_size from the
// section's vision_config first, then the thinker's vision_config (the talker has none).
func omniSections(top hf.RawObject, talker bool) (where, merge []hf.RawObject, err error) {
	name := "thinker_config"
	if talker {
		name = "talker_config"
	}
	section, err := object(top, name)
	if err != nil {
		return nil, nil, err
	}
	thinker, err := object(top, "thinker_config")
	if err != nil {
		return nil, nil, err
	}
	text, err := section.TextConfig()
	if err != nil {
		return nil, nil, configErr("%v", err)
	}
	vision, err := object(section, "vision_config")
	if err != nil {
		return nil, nil, err
	}
	thinkerVision, err := object(thinker, "vision_config")
	if err != nil {
		return nil, nil, err
	}
	topVision, err := object(top, "vision_config")
	if err != nil {
		return nil, nil, err
	}
	where = []hf.RawObject{section, text, top}
	merge = []hf.RawObject{vision, section, thinkerVision, topVision, top}
	return where, merge, nil
}

// object, str and number are hf.RawObject's getters with multimodal's errors.
func object(m hf.RawObject, key string) (hf.RawObject, error) {
	o, err := m.Object(key)
	if err != nil {
		return hf.RawObject{}, configErr("%v", err)
	}
	return o, nil
}

func str(m hf.RawObject, key string) (string, bool, error) {
	s, ok, err := m.String(key)
	if err != nil {
		return "", false, configErr("%v", err)
	}
	return s, ok, nil
}

func number(m hf.RawObject, key string) (float64, bool, error) {
	f, ok, err := m.Number(key)
	if err != nil {
		return 0, false, configErr("%v", err)
	}
	return f, ok, nil
}

// integer sets *dst from the first of the objects that has key; absent everywhere leaves it.
func integer(in []hf.RawObject, key string, dst *int64) error {
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
