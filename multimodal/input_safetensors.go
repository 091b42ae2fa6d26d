package multimodal

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// readError is an error of ReadInput and ParseInputJSON: it wraps ErrInput, and its message is
// the problem alone, naming the tensor or key.
type readError struct{ msg string }

func (e readError) Error() string { return e.msg }

func (e readError) Unwrap() error { return ErrInput }

func readErr(format string, args ...any) error {
	return readError{fmt.Sprintf(format, args...)}
}

// ReadInput reads a multimodal processor's outputs from a safetensors file, under their Hugging
// Face names:
//
//   - input_ids, I64 or I32, [B, S] or [S] (one row): Input.InputIDs;
//   - attention_mask (optional), an integer type (I64, I32, I8, U8) or BOOL, input_ids' shape;
//   - image_grid_thw and video_grid_thw (optional), I64 or I32, [N, 3];
//   - second_per_grid_ts or video_second_per_grid (optional, one of them), F32, F64, BF16 or
//     F16, [N]: Input.SecondPerGridT;
//   - the Omni families' audio lengths (optional, one of them): audio_seqlens or
//     audio_feature_lengths (an integer type, [N]: feature frames per audio), or
//     feature_attention_mask (an integer type or BOOL of 0s and 1s, [N, frames ≥ 1]), whose row sums
//     are the lengths (Qwen2_5OmniThinkerForConditionalGeneration: audio_feature_lengths =
//     feature_attention_mask.sum(-1)).
//
// shape is input_ids' shape in the file, [S] or [B, S]: the shape of a positions row. Other
// tensors are ignored; Input.UseAudioInVideo is left false. Every error wraps ErrInput and
// names the tensor and what was expected.
func ReadInput(f *safetensors.File) (in Input, shape []int, err error) {
	if f == nil {
		return Input{}, nil, readErr("safetensors file: nil: want a parsed file holding input_ids")
	}
	ids, shape, err := readIDs(f)
	if err != nil {
		return Input{}, nil, err
	}
	in.InputIDs = ids
	if in.AttentionMask, err = readMask(f, shape); err != nil {
		return Input{}, nil, err
	}
	if in.ImageGridTHW, err = readGrids(f, "image_grid_thw"); err != nil {
		return Input{}, nil, err
	}
	if in.VideoGridTHW, err = readGrids(f, "video_grid_thw"); err != nil {
		return Input{}, nil, err
	}
	if in.SecondPerGridT, err = readSeconds(f); err != nil {
		return Input{}, nil, err
	}
	if in.AudioSeqLens, err = readAudioLengths(f); err != nil {
		return Input{}, nil, err
	}
	return in, shape, nil
}

// readInts decodes an integer tensor (I64, I32, I8, U8 or BOOL) to int64.
func readInts(t safetensors.Tensor) ([]int64, error) {
	var out []int64
	var err error
	switch t.DType {
	case "I64":
		out, err = t.Int64s()
	case "I32":
		var v []int32
		v, err = t.Int32s()
		out = widen[int64](v)
	case "I8":
		var v []int8
		v, err = t.Int8s()
		out = widen[int64](v)
	case "U8", "BOOL":
		if n := t.NumElements(); n < 0 || n != len(t.Data) {
			return nil, readErr("%s: shape %v does not match its %d bytes", t.Name, t.Shape, len(t.Data))
		}
		out = widen[int64](t.Data)
	default:
		return nil, readErr("%s: dtype %s: want an integer type (I64, I32, I8, U8, BOOL)", t.Name, t.DType)
	}
	if err != nil {
		return nil, readErr("%v", err)
	}
	return out, nil
}

// widen converts v element by element: integers to int64, float32s to float64.
func widen[U int64 | float64, T int8 | int32 | uint8 | float32](v []T) []U {
	out := make([]U, len(v))
	for i, x := range v {
		out[i] = U(x)
	}
	return out
}

// readIDs reads input_ids as [B][S] and returns its shape in the file.
func readIDs(f *safetensors.File) ([][]int64, []int, error) {
	t, ok := f.Get("input_ids")
	if !ok {
		return nil, nil, readErr("missing tensor %q", "input_ids")
	}
	if t.DType != "I64" && t.DType != "I32" {
		return nil, nil, readErr("input_ids: dtype %s: want I64 or I32", t.DType)
	}
	var b, s int
	switch len(t.Shape) {
	case 1:
		b, s = 1, t.Shape[0]
	case 2:
		b, s = t.Shape[0], t.Shape[1]
	default:
		return nil, nil, readErr("input_ids: shape %v: want [B,S] or [S]", t.Shape)
	}
	if b < 1 || s < 1 {
		return nil, nil, readErr("input_ids: shape %v: want at least one token", t.Shape)
	}
	flat, err := readInts(t)
	if err != nil {
		return nil, nil, err
	}
	return splitRows(flat, b, s), slices.Clone(t.Shape), nil
}

// splitRows cuts flat into b rows of s.
func splitRows(flat []int64, b, s int) [][]int64 {
	out := make([][]int64, b)
	for i := range out {
		out[i] = flat[i*s : (i+1)*s : (i+1)*s]
	}
	return out
}

func readMask(f *safetensors.File, shape []int) ([][]int64, error) {
	t, ok := f.Get("attention_mask")
	if !ok {
		return nil, nil
	}
	if !slices.Equal(t.Shape, shape) {
		return nil, readErr("attention_mask: shape %v: want input_ids' shape %v", t.Shape, shape)
	}
	flat, err := readInts(t)
	if err != nil {
		return nil, err
	}
	b, s := 1, shape[0]
	if len(shape) == 2 {
		b, s = shape[0], shape[1]
	}
	return splitRows(flat, b, s), nil
}

func readGrids(f *safetensors.File, name string) ([][3]int64, error) {
	t, ok := f.Get(name)
	if !ok {
		return nil, nil
	}
	if t.DType != "I64" && t.DType != "I32" {
		return nil, readErr("%s: dtype %s: want I64 or I32", name, t.DType)
	}
	if len(t.Shape) != 2 || t.Shape[1] != 3 {
		return nil, readErr("%s: shape %v: want [N,3] (t, h, w per row)", name, t.Shape)
	}
	flat, err := readInts(t)
	if err != nil {
		return nil, err
	}
	grids := make([][3]int64, t.Shape[0])
	for i := range grids {
		copy(grids[i][:], flat[3*i:])
	}
	return grids, nil
}

func readSeconds(f *safetensors.File) ([]float64, error) {
	t, ok := f.Get("second_per_grid_ts")
	if alt, has := f.Get("video_second_per_grid"); has {
		if ok {
			return nil, readErr("second_per_grid_ts and video_second_per_grid: give one, not both")
		}
		t, ok = alt, true
	}
	if !ok {
		return nil, nil
	}
	if len(t.Shape) != 1 {
		return nil, readErr("%s: shape %v: want [N]", t.Name, t.Shape)
	}
	var out []float64
	var err error
	switch t.DType {
	case "F64":
		out, err = t.Float64s()
	case "F32":
		var v []float32
		v, err = t.Float32s()
		out = widen[float64](v)
	case "BF16", "F16":
		if n := t.NumElements(); n < 0 || 2*n != len(t.Data) {
			return nil, readErr("%s: shape %v does not match its %d bytes", t.Name, t.Shape, len(t.Data))
		}
		d := tensor.BF16
		if t.DType == "F16" {
			d = tensor.F16
		}
		out = make([]float64, len(t.Data)/2)
		for i := range out {
			out[i] = float64(tensor.ToFloat32(d, binary.LittleEndian.Uint16(t.Data[2*i:])))
		}
	default:
		return nil, readErr("%s: dtype %s: want F32, F64, BF16 or F16", t.Name, t.DType)
	}
	if err != nil {
		return nil, readErr("%v", err)
	}
	return out, nil
}

// readAudioLengths reads the Omni families' audio lengths (see ReadInput). None of the tensors
// holding them: nil. More than one: an error.
func readAudioLengths(f *safetensors.File) ([]int64, error) {
	var found []safetensors.Tensor
	for _, name := range []string{"audio_seqlens", "audio_feature_lengths", "feature_attention_mask"} {
		if t, ok := f.Get(name); ok {
			found = append(found, t)
		}
	}
	switch len(found) {
	case 0:
		return nil, nil
	case 1:
	default:
		return nil, readErr("%s and %s: give the audio lengths once", found[0].Name, found[1].Name)
	}
	t := found[0]
	if t.Name == "feature_attention_mask" {
		if len(t.Shape) != 2 {
			return nil, readErr("feature_attention_mask: shape %v: want [N, frames]", t.Shape)
		}
		if t.Shape[0] > 0 && t.Shape[1] < 1 {
			// No data to check the count against: N alone would size the lengths.
			return nil, readErr("feature_attention_mask: shape %v: want at least one frame per audio", t.Shape)
		}
		flat, err := readInts(t)
		if err != nil {
			return nil, err
		}
		lens := make([]int64, t.Shape[0])
		for i := range lens {
			for j, v := range flat[i*t.Shape[1] : (i+1)*t.Shape[1]] {
				if v != 0 && v != 1 {
					return nil, readErr("feature_attention_mask[%d][%d] = %d: want 0 or 1", i, j, v)
				}
				lens[i] += v
			}
		}
		return lens, nil
	}
	if len(t.Shape) != 1 {
		return nil, readErr("%s: shape %v: want [N]", t.Name, t.Shape)
	}
	return readInts(t)
}
