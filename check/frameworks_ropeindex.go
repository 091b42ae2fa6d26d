package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/multimodal"
)

// ropeIndexRows compares the dialects' get_rope_index versions. The rule moves positions, not
// the spec, so it is measured on positions: a canonical prompt with one video, as is and
// left-padded, run through each version. A config that is no Qwen-VL family's reads alike.
func ropeIndexRows(data []byte, dialects []hf.Dialect, r *FrameworksReport) []FrameworkRow {
	var groups []*readingGroup
	for _, d := range dialects {
		rd, ok := d.Reading(hf.RuleRopeIndex)
		if !ok {
			if r.Unverified == nil {
				r.Unverified = map[string][]string{}
			}
			r.Unverified[string(d)] = append(r.Unverified[string(d)], string(hf.RuleRopeIndex))
			if _, done := r.applies[hf.RuleRopeIndex]; !done && r.applies != nil {
				if cfg, ok := ropeIndexConfig(data); ok {
					_, r.applies[hf.RuleRopeIndex] = ropeIndexDiff(cfg, multimodal.IndexV457, multimodal.IndexUnified)
				} else {
					r.applies[hf.RuleRopeIndex] = false
				}
			}
			continue
		}
		i := slices.IndexFunc(groups, func(g *readingGroup) bool { return g.choices[0] == rd.Choice })
		if i < 0 {
			groups = append(groups, &readingGroup{choices: []string{rd.Choice}})
			i = len(groups) - 1
		}
		g := groups[i]
		g.dialects = append(g.dialects, string(d))
		if !slices.Contains(g.follows, rd.Follows) {
			g.follows = append(g.follows, rd.Follows)
		}
	}
	if len(groups) < 2 {
		return nil
	}
	cfg, ok := ropeIndexConfig(data)
	if !ok {
		return nil
	}
	var rows []FrameworkRow
	for i, a := range groups {
		for _, b := range groups[i+1:] {
			what, differ := ropeIndexDiff(cfg, multimodal.IndexVersionOf(a.choices[0]), multimodal.IndexVersionOf(b.choices[0]))
			if !differ {
				continue
			}
			rows = append(rows, FrameworkRow{Rule: hf.RuleRopeIndex, A: a.side(), B: b.side(),
				Comparison: Comparison{FirstPosition: -1, Structure: what, Divergent: true}})
		}
	}
	return rows
}

// ropeIndexConfig is the multimodal config of data when its family is one whose get_rope_index
// versions were read; ok is false for any other (no multimodal positions to compute, or one
// rule for all versions).
func ropeIndexConfig(data []byte) (multimodal.Config, bool) {
	cfg, err := multimodal.ConfigFromJSON(data)
	if err != nil {
		return cfg, false
	}
	switch cfg.Kind {
	case multimodal.Qwen2VL, multimodal.Qwen25VL, multimodal.Qwen3VL, multimodal.Qwen35:
		return cfg, true
	}
	return cfg, false
}

// ropeIndexPrompt is two text tokens, one video of grid (4, 2m, 2m) (Qwen3-VL's and Qwen3.5's
// as four frames, each behind a timestamp token and between vision_start and vision_end, as
// their processors lay them out; the others' behind one vision_start), vision_end and a text
// token, left-padded by pad masked tokens.
func ropeIndexPrompt(cfg multimodal.Config, pad int) (multimodal.Input, int) {
	special := []int64{cfg.ImageTokenID, cfg.VideoTokenID, cfg.VisionStartTokenID}
	next := int64(0)
	text := func() int64 {
		for next++; slices.Contains(special, next); next++ {
		}
		return next
	}
	const frames = 4
	per := 4 // (2m/m)²
	var row, mask []int64
	for range pad {
		row, mask = append(row, text()), append(mask, 0)
	}
	push := func(ids ...int64) {
		for _, id := range ids {
			row, mask = append(row, id), append(mask, 1)
		}
	}
	push(text(), text())
	end := text()
	videoStart := -1
	if cfg.Kind == multimodal.Qwen3VL || cfg.Kind == multimodal.Qwen35 {
		for range frames {
			push(text(), cfg.VisionStartTokenID)
			if videoStart < 0 {
				videoStart = len(row)
			}
			for range per {
				push(cfg.VideoTokenID)
			}
			push(end)
		}
	} else {
		push(cfg.VisionStartTokenID)
		videoStart = len(row)
		for range frames * per {
			push(cfg.VideoTokenID)
		}
		push(end)
	}
	push(text())
	m := cfg.SpatialMergeSize
	in := multimodal.Input{InputIDs: [][]int64{row}, VideoGridTHW: [][3]int64{{frames, 2 * m, 2 * m}}}
	if pad > 0 {
		in.AttentionMask = [][]int64{mask}
	}
	return in, videoStart
}

// ropeIndexDiff runs the canonical prompt, unpadded then padded, under both versions and says
// in words where they first part; differ is false when neither prompt's positions or
// rope_deltas differ.
func ropeIndexDiff(cfg multimodal.Config, va, vb multimodal.IndexVersion) (string, bool) {
	var parts []string
	for _, pad := range []int{0, 2} {
		in, videoStart := ropeIndexPrompt(cfg, pad)
		ca, cb := cfg, cfg
		ca.RopeIndex, cb.RopeIndex = va, vb
		pa, da, errA := multimodal.RoPEIndex(ca, in)
		pb, db, errB := multimodal.RoPEIndex(cb, in)
		if errA != nil || errB != nil {
			parts = append(parts, fmt.Sprintf("the canonical prompt fails: %v / %v", errA, errB))
			continue
		}
		seq := len(in.InputIDs[0])
		prompt := fmt.Sprintf("a %d-token prompt with one video (grid %v from token %d)", seq, in.VideoGridTHW[0], videoStart)
		if pad > 0 {
			prompt = fmt.Sprintf("that prompt left-padded by %d", pad)
			if len(parts) == 0 {
				prompt = fmt.Sprintf("a %d-token prompt with one video (grid %v from token %d) left-padded by %d", seq-pad, in.VideoGridTHW[0], videoStart-pad, pad)
			}
		}
		first, firstUnpadded := -1, -1
		for s := range seq {
			if pa[0][0][s] != pb[0][0][s] || pa[1][0][s] != pb[1][0][s] || pa[2][0][s] != pb[2][0][s] {
				if first < 0 {
					first = s
				}
				if s >= pad {
					firstUnpadded = s
					break
				}
			}
		}
		if first < 0 && da[0] == db[0] {
			continue
		}
		at := func(p multimodal.Positions3) string {
			return fmt.Sprintf("(%d, %d, %d)", p[0][0][first], p[1][0][first], p[2][0][first])
		}
		switch {
		case first < 0:
			parts = append(parts, fmt.Sprintf("on %s, positions alike, rope_delta %d vs %d", prompt, da[0], db[0]))
		default:
			what := "a text token after the video"
			switch {
			case first < pad:
				what = "a padded slot"
			case first >= videoStart && in.InputIDs[0][first] == cfg.VideoTokenID:
				what = "a video token"
			}
			part := fmt.Sprintf("on %s, token %d (%s) has (t, h, w) %s vs %s", prompt, first, what, at(pa), at(pb))
			if pad > 0 && firstUnpadded < 0 {
				part += " and the unpadded tokens alike"
			}
			parts = append(parts, fmt.Sprintf("%s, rope_delta %d vs %d", part, da[0], db[0]))
		}
	}
	if len(parts) == 0 {
		return "", false
	}
	return "get_rope_index positions differ (the spec does not): " + strings.Join(parts, "; "), true
}
