package main

import (
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/multimodal"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

const positionsUsage = "--config CONFIG.json | --model PRESET | --family NAME --in IN.safetensors|IN.json | --input-ids IDS [--image-grid-thw T,H,W;...] [--as DIALECT] --out OUT.safetensors"

// runPositions reads input_ids (I64 or I32, [B,S] or [S]), optional attention_mask (an
// integer type or BOOL), image_grid_thw and video_grid_thw (I64 or I32, [N,3]),
// second_per_grid_ts or video_second_per_grid (F32, F64, BF16 or F16, [N]) and the Omni
// families' audio lengths (positionsAudio), and writes positions (I64 [rows,B,S], or
// [rows,S] for 1-D input_ids; rows 3, or HunYuan-VL's XD-RoPE axes) and rope_deltas (I64
// [B]). Nothing is written on error. The token ids, spatial_merge_size and tokens_per_second
// come from the config; keys it lacks (the embedded presets keep only the RoPE keys) take the
// HF defaults documented on multimodal.ConfigFromJSON.
func runPositions(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("positions", positionsUsage, stderr)
	config := fs.String("config", "", "model `config.json` (Hugging Face format; "+multimodal.KnownModelTypes+")")
	preset := fs.String("model", "", "embedded model `preset` instead of --config (see 'rotary presets')")
	family := fs.String("family", "", "the family's get_rope_index `rules` ("+multimodal.KnownModelTypes+"): over --config's or --model's values, or alone with the family's default token ids")
	in := fs.String("in", "", "input `IN.safetensors` or IN.json: input_ids, optional attention_mask, image_grid_thw, video_grid_thw, second_per_grid_ts (or video_second_per_grid), audio_seqlens (or audio_feature_lengths, or feature_attention_mask)")
	audioInVideo := fs.Bool("use-audio-in-video", false, "Omni: every video carries its audio, interleaved with its frames")
	talker := fs.Bool("talker", false, "Omni: the talker's positions (talker_config's token ids; rope_deltas less the row's padding)")
	out := fs.String("out", "", "output `OUT.safetensors`: positions, rope_deltas")
	as := fs.String("as", "", "get_rope_index as `DIALECT` computes it: "+dialectNames()+" (default: the reference, transformers v4.57's and vLLM's; hf is transformers main's rewrite, #43972)")
	var inFlags positionsInputFlags
	inFlags.register(fs.FlagSet)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs.Args()); err != nil {
		return err
	}
	switch {
	case *in != "" && inFlags.given():
		return usagef("--in and --input-ids (and the other input flags): give one")
	case *in == "" && !inFlags.given():
		return usagef("--in: missing (or --input-ids and the other input flags)")
	}
	if err := requireFlag("out", *out); err != nil {
		return err
	}
	if err := checkSafetensorsOut(*out, ""); err != nil {
		return err
	}
	cfg, err := positionsConfig(*config, *preset, *family, *talker)
	if err != nil {
		return err
	}
	dialect, err := hf.ParseDialect(*as)
	if err != nil {
		return usagef("--as: %v", err)
	}
	if rd, ok := dialect.Reading(hf.RuleRopeIndex); ok {
		cfg.RopeIndex = multimodal.IndexVersionOf(rd.Choice)
	}

	var input multimodal.Input
	var shape []int
	if *in != "" {
		input, shape, err = positionsInput(*in)
	} else {
		input, shape, err = inFlags.input()
	}
	if err != nil {
		return err
	}
	input.UseAudioInVideo = *audioInVideo
	ids := input.InputIDs
	pos, deltas, err := multimodal.RoPEIndexN(cfg, input)
	if err != nil {
		return usagef("%s: %v", *in, err)
	}
	outShape := []int{len(pos), len(ids), len(ids[0])}
	if len(shape) == 1 {
		outShape = []int{len(pos), shape[0]}
	}
	tensors := []safetensors.Tensor{
		safetensors.FromInt64s("positions", outShape, multimodal.FlattenN(pos)),
		safetensors.FromInt64s("rope_deltas", []int{len(deltas)}, deltas),
	}
	if err := safetensors.WriteFile(*out, tensors, nil); err != nil {
		return usagef("--out: %v", err)
	}
	return nil
}

// positionsInput reads --in: a .json file (positionsJSON) or safetensors. shape is input_ids'
// shape in the file, [S] or [B, S].
func positionsInput(path string) (multimodal.Input, []int, error) {
	if strings.HasSuffix(strings.ToLower(path), ".json") {
		in, shape, err := positionsJSON(path)
		if err != nil {
			return multimodal.Input{}, nil, usagef("%s: %v", path, err)
		}
		return in, shape, nil
	}
	f, err := safetensors.ReadFile(path)
	if err != nil {
		return multimodal.Input{}, nil, usageError{err}
	}
	fail := func(err error) (multimodal.Input, []int, error) {
		return multimodal.Input{}, nil, usagef("%s: %v", path, err)
	}
	var in multimodal.Input
	ids, shape, err := positionsIDs(f)
	if err != nil {
		return fail(err)
	}
	in.InputIDs = ids
	if in.AttentionMask, err = positionsMask(f, shape); err != nil {
		return fail(err)
	}
	if in.ImageGridTHW, err = positionsGrids(f, "image_grid_thw"); err != nil {
		return fail(err)
	}
	if in.VideoGridTHW, err = positionsGrids(f, "video_grid_thw"); err != nil {
		return fail(err)
	}
	if in.SecondPerGridT, err = positionsSeconds(f); err != nil {
		return fail(err)
	}
	if in.AudioSeqLens, err = positionsAudio(f); err != nil {
		return fail(err)
	}
	return in, shape, nil
}

// positionsConfig is the multimodal config of --config, --model and --family: a family alone
// takes its HF config class's defaults; with a config, the family's rules replace those its
// model_type names. --talker, or a family ending in _talker, reads an Omni model's talker.
func positionsConfig(config, preset, family string, talker bool) (multimodal.Config, error) {
	var kind multimodal.Kind
	if family != "" {
		k, err := multimodal.KindForModelType(family)
		if err != nil {
			return multimodal.Config{}, usagef("--family: %v", err)
		}
		kind = k
		talker = talker || strings.HasSuffix(family, "_talker")
	}
	var js []byte
	var err error
	switch {
	case config != "" && preset != "":
		return multimodal.Config{}, usagef("--config and --model: give one, not both")
	case config != "":
		if js, err = readConfig(config); err != nil {
			return multimodal.Config{}, usagef("--config: %v", err)
		}
	case preset != "":
		if js, err = hf.PresetJSON(preset); err != nil {
			return multimodal.Config{}, usagef("--model: %v", err)
		}
	case kind != 0 && talker:
		c := multimodal.DefaultTalkerConfig(kind)
		if err := c.Validate(); err != nil {
			return multimodal.Config{}, usagef("--talker: %v", err)
		}
		return c, nil
	case kind != 0:
		return multimodal.DefaultConfig(kind), nil
	default:
		return multimodal.Config{}, usagef("--config: missing (or --model PRESET, or --family NAME)")
	}
	cfg, err := multimodal.ConfigFromJSONWith(js, multimodal.ReadOptions{Kind: kind, Talker: talker})
	if err != nil {
		return multimodal.Config{}, usageError{err}
	}
	return cfg, nil
}

// positionsInts decodes an integer tensor (I64, I32, I8, U8 or BOOL) to int64.
func positionsInts(t safetensors.Tensor) ([]int64, error) {
	switch t.DType {
	case "I64":
		return t.Int64s()
	case "I32":
		v, err := t.Int32s()
		out := make([]int64, len(v))
		for i, x := range v {
			out[i] = int64(x)
		}
		return out, err
	case "I8":
		v, err := t.Int8s()
		out := make([]int64, len(v))
		for i, x := range v {
			out[i] = int64(x)
		}
		return out, err
	case "U8", "BOOL":
		if n := t.NumElements(); n < 0 || n != len(t.Data) {
			return nil, fmt.Errorf("%s: shape %v does not match its %d bytes", t.Name, t.Shape, len(t.Data))
		}
		out := make([]int64, len(t.Data))
		for i, b := range t.Data {
			out[i] = int64(b)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s: dtype %s: want an integer type (I64, I32, I8, U8, BOOL)", t.Name, t.DType)
}

// positionsIDs reads input_ids as [B][S] and returns its file shape.
func positionsIDs(f *safetensors.File) ([][]int64, []int, error) {
	t, ok := f.Get("input_ids")
	if !ok {
		return nil, nil, fmt.Errorf("missing tensor %q", "input_ids")
	}
	if t.DType != "I64" && t.DType != "I32" {
		return nil, nil, fmt.Errorf("input_ids: dtype %s: want I64 or I32", t.DType)
	}
	var b, s int
	switch len(t.Shape) {
	case 1:
		b, s = 1, t.Shape[0]
	case 2:
		b, s = t.Shape[0], t.Shape[1]
	default:
		return nil, nil, fmt.Errorf("input_ids: shape %v: want [B,S] or [S]", t.Shape)
	}
	if b < 1 || s < 1 {
		return nil, nil, fmt.Errorf("input_ids: shape %v: want at least one token", t.Shape)
	}
	flat, err := positionsInts(t)
	if err != nil {
		return nil, nil, err
	}
	return positionsRows(flat, b, s), t.Shape, nil
}

func positionsRows(flat []int64, b, s int) [][]int64 {
	rows := make([][]int64, b)
	for i := range rows {
		rows[i] = flat[i*s : (i+1)*s : (i+1)*s]
	}
	return rows
}

func positionsMask(f *safetensors.File, shape []int) ([][]int64, error) {
	t, ok := f.Get("attention_mask")
	if !ok {
		return nil, nil
	}
	if !slices.Equal(t.Shape, shape) {
		return nil, fmt.Errorf("attention_mask: shape %v: want input_ids' shape %v", t.Shape, shape)
	}
	flat, err := positionsInts(t)
	if err != nil {
		return nil, err
	}
	b, s := 1, shape[0]
	if len(shape) == 2 {
		b, s = shape[0], shape[1]
	}
	return positionsRows(flat, b, s), nil
}

func positionsGrids(f *safetensors.File, name string) ([][3]int64, error) {
	t, ok := f.Get(name)
	if !ok {
		return nil, nil
	}
	if t.DType != "I64" && t.DType != "I32" {
		return nil, fmt.Errorf("%s: dtype %s: want I64 or I32", name, t.DType)
	}
	if len(t.Shape) != 2 || t.Shape[1] != 3 {
		return nil, fmt.Errorf("%s: shape %v: want [N,3] (t, h, w per row)", name, t.Shape)
	}
	flat, err := positionsInts(t)
	if err != nil {
		return nil, err
	}
	grids := make([][3]int64, t.Shape[0])
	for i := range grids {
		copy(grids[i][:], flat[3*i:])
	}
	return grids, nil
}

func positionsSeconds(f *safetensors.File) ([]float64, error) {
	t, ok := f.Get("second_per_grid_ts")
	if alt, has := f.Get("video_second_per_grid"); has {
		if ok {
			return nil, fmt.Errorf("second_per_grid_ts and video_second_per_grid: give one, not both")
		}
		t, ok = alt, true
	}
	if !ok {
		return nil, nil
	}
	if len(t.Shape) != 1 {
		return nil, fmt.Errorf("%s: shape %v: want [N]", t.Name, t.Shape)
	}
	switch t.DType {
	case "F64":
		return t.Float64s()
	case "F32":
		v, err := t.Float32s()
		out := make([]float64, len(v))
		for i, x := range v {
			out[i] = float64(x)
		}
		return out, err
	case "BF16", "F16":
		if n := t.NumElements(); n < 0 || 2*n != len(t.Data) {
			return nil, fmt.Errorf("%s: shape %v does not match its %d bytes", t.Name, t.Shape, len(t.Data))
		}
		d := tensor.BF16
		if t.DType == "F16" {
			d = tensor.F16
		}
		out := make([]float64, len(t.Data)/2)
		for i := range out {
			out[i] = float64(tensor.ToFloat32(d, binary.LittleEndian.Uint16(t.Data[2*i:])))
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s: dtype %s: want F32, F64, BF16 or F16", t.Name, t.DType)
}
