package multimodal

import (
	"bytes"
	"encoding/json"
	"io"
)

// inputJSON is ParseInputJSON's object: the processor's outputs under their safetensors names,
// as numbers and lists.
type inputJSON struct {
	InputIDs            json.RawMessage `json:"input_ids"`
	AttentionMask       json.RawMessage `json:"attention_mask"`
	ImageGridTHW        [][]int64       `json:"image_grid_thw"`
	VideoGridTHW        [][]int64       `json:"video_grid_thw"`
	SecondPerGridTS     []float64       `json:"second_per_grid_ts"`
	VideoSecondPerGrid  []float64       `json:"video_second_per_grid"`
	AudioSeqLens        []int64         `json:"audio_seqlens"`
	AudioFeatureLengths []int64         `json:"audio_feature_lengths"`
}

// ParseInputJSON reads ReadInput's tensors from a JSON object, under the same names:
// input_ids as [S] or [B, S] integers, attention_mask of the same shape (optional),
// image_grid_thw and video_grid_thw as lists of [t, h, w], second_per_grid_ts or
// video_second_per_grid and audio_seqlens or audio_feature_lengths as lists. shape is
// input_ids' shape, [S] or [B, S]: rows of another length than the first, or a negative id,
// are refused as RoPEIndexN refuses them. Unknown keys and anything after the object are
// refused: a misspelt key or a second object would otherwise drop an input. Every error wraps
// ErrInput; a malformed document's message is encoding/json's.
func ParseInputJSON(data []byte) (in Input, shape []int, err error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f inputJSON
	if err := dec.Decode(&f); err != nil {
		return Input{}, nil, readErr("%v", err)
	}
	end := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		return Input{}, nil, readErr("data after the JSON object, which ends at byte %d: want one object", end)
	}
	ids, shape, err := jsonRows("input_ids", f.InputIDs)
	if err != nil {
		return Input{}, nil, err
	}
	if ids == nil {
		return Input{}, nil, readErr("input_ids: missing")
	}
	if len(ids) == 0 || len(ids[0]) == 0 {
		return Input{}, nil, readErr("input_ids: want at least one token")
	}
	if _, err := checkRows(ids, nil); err != nil { // rows of one length, as shape says
		return Input{}, nil, err
	}
	in.InputIDs = ids
	if in.AttentionMask, _, err = jsonRows("attention_mask", f.AttentionMask); err != nil {
		return Input{}, nil, err
	}
	for _, g := range []struct {
		name string
		in   [][]int64
		out  *[][3]int64
	}{{"image_grid_thw", f.ImageGridTHW, &in.ImageGridTHW}, {"video_grid_thw", f.VideoGridTHW, &in.VideoGridTHW}} {
		for i, row := range g.in {
			if len(row) != 3 {
				return Input{}, nil, readErr("%s[%d]: %d values: want [t, h, w]", g.name, i, len(row))
			}
			*g.out = append(*g.out, [3]int64{row[0], row[1], row[2]})
		}
	}
	if f.SecondPerGridTS != nil && f.VideoSecondPerGrid != nil {
		return Input{}, nil, readErr("second_per_grid_ts and video_second_per_grid: give one, not both")
	}
	in.SecondPerGridT = f.SecondPerGridTS
	if f.VideoSecondPerGrid != nil {
		in.SecondPerGridT = f.VideoSecondPerGrid
	}
	if f.AudioSeqLens != nil && f.AudioFeatureLengths != nil {
		return Input{}, nil, readErr("audio_seqlens and audio_feature_lengths: give the audio lengths once")
	}
	in.AudioSeqLens = f.AudioSeqLens
	if f.AudioFeatureLengths != nil {
		in.AudioSeqLens = f.AudioFeatureLengths
	}
	return in, shape, nil
}

// jsonRows reads [S] or [B, S] integers as rows; absent (or null) is nil.
func jsonRows(name string, raw json.RawMessage) ([][]int64, []int, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil, nil
	}
	var rows [][]int64
	if err := json.Unmarshal(raw, &rows); err == nil {
		if len(rows) == 0 {
			return nil, nil, readErr("%s: no rows", name)
		}
		return rows, []int{len(rows), len(rows[0])}, nil
	}
	var row []int64
	if err := json.Unmarshal(raw, &row); err != nil {
		return nil, nil, readErr("%s: want a list of integers or a list of such lists", name)
	}
	return [][]int64{row}, []int{len(row)}, nil
}
