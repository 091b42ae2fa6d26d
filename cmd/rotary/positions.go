package main

import (
	"io"

	"github.com/rotary-go/rotary/golden"
	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/multimodal"
	"github.com/rotary-go/rotary/safetensors"
)

const positionsUsage = "--config CONFIG.json | --model PRESET | --family NAME --in IN.safetensors|IN.json | --input-ids IDS [--image-grid-thw T,H,W;...] [--as DIALECT] --out OUT.safetensors"

// runPositions reads a processor's outputs (--in: multimodal.ReadInputFile; or the input
// flags) and writes positions (multimodal.PositionTensors: I64 [rows,B,S], or [rows,S] for 1-D
// input_ids; rows 3, or HunYuan-VL's XD-RoPE axes) and rope_deltas (I64 [B]). Nothing is
// written on error. The token ids, spatial_merge_size and tokens_per_second come from the
// config; keys it lacks (the embedded presets keep only the RoPE keys) take the HF defaults
// documented on multimodal.ConfigFromJSON.
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
		if input, shape, err = multimodal.ReadInputFile(*in); err != nil {
			return usageError{err}
		}
	} else if input, shape, err = inFlags.input(); err != nil {
		return err
	}
	input.UseAudioInVideo = *audioInVideo
	pos, deltas, err := multimodal.RoPEIndexN(cfg, input)
	if err != nil {
		return usagef("%s: %v", *in, err)
	}
	tensors, err := multimodal.PositionTensors(pos, deltas, shape)
	if err != nil {
		return err
	}
	if err := safetensors.WriteFile(*out, tensors, nil); err != nil {
		return usagef("--out: %v", err)
	}
	return nil
}

// positionsConfig is the multimodal config of --config, --model and --family: a family alone
// takes its HF config class's defaults; with a config, the family's rules replace those its
// model_type names. --talker, or a family ending in _talker, reads an Omni model's talker.
func positionsConfig(config, preset, family string, talker bool) (multimodal.Config, error) {
	var opts multimodal.ReadOptions
	if family != "" {
		var err error
		if opts, err = multimodal.FamilyOptions(family); err != nil {
			return multimodal.Config{}, usagef("--family: %v", err)
		}
	}
	opts.Talker = opts.Talker || talker
	switch {
	case config == "" && preset == "" && opts.Kind != 0:
		c, err := multimodal.DefaultConfigWith(opts)
		if err != nil {
			return multimodal.Config{}, usagef("--talker: %v", err)
		}
		return c, nil
	case config == "" && preset == "":
		return multimodal.Config{}, usagef("--config: missing (or --model PRESET, or --family NAME)")
	}
	js, err := golden.ModelArgs{Config: config, Preset: preset}.ConfigJSON()
	if err != nil {
		return multimodal.Config{}, usageError{err}
	}
	cfg, err := multimodal.ConfigFromJSONWith(js, opts)
	if err != nil {
		return multimodal.Config{}, usageError{err}
	}
	return cfg, nil
}
