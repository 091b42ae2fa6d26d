package main

import (
	"flag"
	"strconv"
	"strings"

	"github.com/rotary-go/rotary/multimodal"
)

// positionsInputFlags are `rotary positions`' inputs given on the command line instead of --in:
// rows separated by ";", values by ",".
type positionsInputFlags struct {
	ids, mask, images, videos, seconds, audio string
}

func (p *positionsInputFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&p.ids, "input-ids", "", "input_ids instead of --in: `ids` comma-separated, rows separated by ';'")
	fs.StringVar(&p.mask, "attention-mask", "", "attention_mask with --input-ids: 0s and 1s shaped like it")
	fs.StringVar(&p.images, "image-grid-thw", "", "image_grid_thw with --input-ids: `t,h,w` per image, separated by ';'")
	fs.StringVar(&p.videos, "video-grid-thw", "", "video_grid_thw with --input-ids: `t,h,w` per video, separated by ';'")
	fs.StringVar(&p.seconds, "second-per-grid-ts", "", "second_per_grid_ts with --input-ids: `seconds` per video, comma-separated")
	fs.StringVar(&p.audio, "audio-seqlens", "", "audio_seqlens with --input-ids: feature `frames` per audio, comma-separated")
}

// given reports whether any input flag was set.
func (p *positionsInputFlags) given() bool {
	return p.ids != "" || p.mask != "" || p.images != "" || p.videos != "" || p.seconds != "" || p.audio != ""
}

// input parses the flags; shape is input_ids' ([S] for one row, else [B, S]).
func (p *positionsInputFlags) input() (multimodal.Input, []int, error) {
	var in multimodal.Input
	if p.ids == "" {
		return in, nil, usagef("--input-ids: missing (or --in)")
	}
	ids, err := flagRows("input-ids", p.ids)
	if err != nil {
		return in, nil, err
	}
	in.InputIDs = ids
	shape := []int{len(ids), len(ids[0])}
	if len(ids) == 1 {
		shape = []int{len(ids[0])}
	}
	if p.mask != "" {
		if in.AttentionMask, err = flagRows("attention-mask", p.mask); err != nil {
			return in, nil, err
		}
	}
	for _, g := range []struct {
		name, s string
		out     *[][3]int64
	}{{"image-grid-thw", p.images, &in.ImageGridTHW}, {"video-grid-thw", p.videos, &in.VideoGridTHW}} {
		if g.s == "" {
			continue
		}
		rows, err := flagRows(g.name, g.s)
		if err != nil {
			return in, nil, err
		}
		for i, r := range rows {
			if len(r) != 3 {
				return in, nil, usagef("--%s: grid %d has %d values: want t,h,w", g.name, i, len(r))
			}
			*g.out = append(*g.out, [3]int64{r[0], r[1], r[2]})
		}
	}
	if p.seconds != "" {
		for _, f := range strings.Split(p.seconds, ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil {
				return in, nil, usagef("--second-per-grid-ts: %q is not a number", f)
			}
			in.SecondPerGridT = append(in.SecondPerGridT, v)
		}
	}
	if p.audio != "" {
		rows, err := flagRows("audio-seqlens", p.audio)
		if err != nil {
			return in, nil, err
		}
		if len(rows) != 1 {
			return in, nil, usagef("--audio-seqlens: one comma-separated list, not rows")
		}
		in.AudioSeqLens = rows[0]
	}
	return in, shape, nil
}

// flagRows parses "1,2,3;4,5,6" into rows of integers.
func flagRows(name, s string) ([][]int64, error) {
	var rows [][]int64
	for _, r := range strings.Split(s, ";") {
		var row []int64
		for _, f := range strings.Split(r, ",") {
			v, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
			if err != nil {
				return nil, usagef("--%s: %q is not an integer", name, strings.TrimSpace(f))
			}
			row = append(row, v)
		}
		rows = append(rows, row)
	}
	return rows, nil
}
