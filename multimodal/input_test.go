package multimodal

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// file writes tensors as a safetensors file and parses it back, as ReadInput's callers get one.
func file(t testing.TB, tensors ...safetensors.Tensor) *safetensors.File {
	t.Helper()
	var buf bytes.Buffer
	if err := safetensors.Write(&buf, tensors, nil); err != nil {
		t.Fatal(err)
	}
	f, err := safetensors.Parse(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestReadInput: every tensor ReadInput reads, in each dtype it takes, lands in its Input field.
func TestReadInput(t *testing.T) {
	bf16 := []uint16{tensor.BF16FromFloat32(0.5), tensor.BF16FromFloat32(2)}
	for _, c := range []struct {
		name      string
		tensors   []safetensors.Tensor
		want      Input
		wantShape []int
	}{
		{"1-D I32 ids", []safetensors.Tensor{safetensors.FromInt32s("input_ids", []int{3}, []int32{7, 8, 9})},
			Input{InputIDs: [][]int64{{7, 8, 9}}}, []int{3}},
		{"2-D ids, BOOL mask, grids, F32 seconds", []safetensors.Tensor{
			safetensors.FromInt64s("input_ids", []int{2, 2}, []int64{1, 2, 3, 4}),
			{Name: "attention_mask", DType: "BOOL", Shape: []int{2, 2}, Data: []byte{1, 1, 0, 1}},
			safetensors.FromInt32s("image_grid_thw", []int{1, 3}, []int32{1, 4, 6}),
			safetensors.FromInt64s("video_grid_thw", []int{2, 3}, []int64{2, 2, 2, 4, 2, 2}),
			safetensors.FromFloat32s("second_per_grid_ts", []int{2}, []float32{0.5, 1}),
		}, Input{
			InputIDs:       [][]int64{{1, 2}, {3, 4}},
			AttentionMask:  [][]int64{{1, 1}, {0, 1}},
			ImageGridTHW:   [][3]int64{{1, 4, 6}},
			VideoGridTHW:   [][3]int64{{2, 2, 2}, {4, 2, 2}},
			SecondPerGridT: []float64{0.5, 1},
		}, []int{2, 2}},
		{"BF16 video_second_per_grid, I8 audio lengths", []safetensors.Tensor{
			safetensors.FromInt64s("input_ids", []int{1, 1}, []int64{5}),
			safetensors.FromUint16s("video_second_per_grid", "BF16", []int{2}, bf16),
			safetensors.FromInt8s("audio_feature_lengths", []int{2}, []int8{100, 50}),
		}, Input{InputIDs: [][]int64{{5}}, SecondPerGridT: []float64{0.5, 2}, AudioSeqLens: []int64{100, 50}}, []int{1, 1}},
		{"feature_attention_mask sums", []safetensors.Tensor{
			safetensors.FromInt64s("input_ids", []int{1}, []int64{5}),
			{Name: "feature_attention_mask", DType: "U8", Shape: []int{2, 3}, Data: []byte{1, 1, 0, 1, 0, 0}},
		}, Input{InputIDs: [][]int64{{5}}, AudioSeqLens: []int64{2, 1}}, []int{1}},
	} {
		in, shape, err := ReadInput(file(t, c.tensors...))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !reflect.DeepEqual(in, c.want) || !reflect.DeepEqual(shape, c.wantShape) {
			t.Errorf("%s: %+v %v, want %+v %v", c.name, in, shape, c.want, c.wantShape)
		}
	}
}

// TestReadInputBad: each malformed input is an error wrapping ErrInput that names the tensor.
func TestReadInputBad(t *testing.T) {
	ids := safetensors.FromInt64s("input_ids", []int{2}, []int64{1, 2})
	for _, c := range []struct {
		tensors []safetensors.Tensor
		want    string
	}{
		{nil, `missing tensor "input_ids"`},
		{[]safetensors.Tensor{safetensors.FromFloat32s("input_ids", []int{2}, []float32{1, 2})}, "input_ids: dtype F32: want I64 or I32"},
		{[]safetensors.Tensor{safetensors.FromInt64s("input_ids", []int{1, 1, 2}, []int64{1, 2})}, "want [B,S] or [S]"},
		{[]safetensors.Tensor{safetensors.FromInt64s("input_ids", []int{0}, nil)}, "want at least one token"},
		{[]safetensors.Tensor{ids, safetensors.FromInt64s("attention_mask", []int{1, 2}, []int64{1, 1})}, "attention_mask: shape [1 2]: want input_ids' shape [2]"},
		{[]safetensors.Tensor{ids, safetensors.FromFloat32s("attention_mask", []int{2}, []float32{1, 1})}, "attention_mask: dtype F32: want an integer type"},
		{[]safetensors.Tensor{ids, safetensors.FromInt64s("image_grid_thw", []int{2, 2}, []int64{1, 2, 3, 4})}, "image_grid_thw: shape [2 2]: want [N,3]"},
		{[]safetensors.Tensor{ids, safetensors.FromInt8s("video_grid_thw", []int{1, 3}, []int8{1, 2, 2})}, "video_grid_thw: dtype I8: want I64 or I32"},
		{[]safetensors.Tensor{ids, safetensors.FromFloat32s("second_per_grid_ts", []int{1}, []float32{1}), safetensors.FromFloat32s("video_second_per_grid", []int{1}, []float32{1})}, "give one, not both"},
		{[]safetensors.Tensor{ids, safetensors.FromFloat32s("second_per_grid_ts", []int{1, 1}, []float32{1})}, "second_per_grid_ts: shape [1 1]: want [N]"},
		{[]safetensors.Tensor{ids, safetensors.FromInt64s("second_per_grid_ts", []int{1}, []int64{1})}, "second_per_grid_ts: dtype I64: want F32, F64, BF16 or F16"},
		{[]safetensors.Tensor{ids, safetensors.FromInt64s("audio_seqlens", []int{1}, []int64{1}), safetensors.FromInt64s("audio_feature_lengths", []int{1}, []int64{1})}, "give the audio lengths once"},
		{[]safetensors.Tensor{ids, safetensors.FromInt64s("audio_seqlens", []int{1, 1}, []int64{1})}, "audio_seqlens: shape [1 1]: want [N]"},
		{[]safetensors.Tensor{ids, safetensors.FromInt64s("feature_attention_mask", []int{3}, []int64{1, 1, 1})}, "want [N, frames]"},
		{[]safetensors.Tensor{ids, safetensors.FromInt64s("feature_attention_mask", []int{1, 2}, []int64{1, 2})}, "feature_attention_mask[0][1] = 2: want 0 or 1"},
	} {
		_, _, err := ReadInput(file(t, c.tensors...))
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrInput) {
			t.Errorf("%v: error %v, want ErrInput containing %q", c.tensors, err, c.want)
		}
	}
	// A file built by hand, whose data does not match its shape, and no file at all.
	short := &safetensors.File{Tensors: []safetensors.Tensor{{Name: "input_ids", DType: "I64", Shape: []int{4}, Data: make([]byte, 8)}}}
	mask := &safetensors.File{Tensors: []safetensors.Tensor{ids, {Name: "attention_mask", DType: "BOOL", Shape: []int{2}, Data: []byte{1}}}}
	for _, f := range []*safetensors.File{short, mask, nil} {
		if _, _, err := ReadInput(f); err == nil || !errors.Is(err, ErrInput) {
			t.Errorf("ReadInput(%v): error %v, want ErrInput", f, err)
		}
	}
}

// TestParseInputJSON: the JSON form reads as the safetensors form does.
func TestParseInputJSON(t *testing.T) {
	in, shape, err := ParseInputJSON([]byte(`{"input_ids": [[1, 2], [3, 4]], "attention_mask": [[1, 1], [0, 1]],
		"image_grid_thw": [[1, 4, 6]], "video_second_per_grid": [0.5], "audio_feature_lengths": [100]}`))
	want := Input{InputIDs: [][]int64{{1, 2}, {3, 4}}, AttentionMask: [][]int64{{1, 1}, {0, 1}},
		ImageGridTHW: [][3]int64{{1, 4, 6}}, SecondPerGridT: []float64{0.5}, AudioSeqLens: []int64{100}}
	if err != nil || !reflect.DeepEqual(in, want) || !reflect.DeepEqual(shape, []int{2, 2}) {
		t.Errorf("got %+v %v %v, want %+v [2 2]", in, shape, err, want)
	}
	in, shape, err = ParseInputJSON([]byte(`{"input_ids": [7, 8, 9], "second_per_grid_ts": [1], "audio_seqlens": [3]}`))
	want = Input{InputIDs: [][]int64{{7, 8, 9}}, SecondPerGridT: []float64{1}, AudioSeqLens: []int64{3}}
	if err != nil || !reflect.DeepEqual(in, want) || !reflect.DeepEqual(shape, []int{3}) {
		t.Errorf("1-D: got %+v %v %v, want %+v [3]", in, shape, err, want)
	}
	for _, c := range []struct{ js, want string }{
		{`{"input_ids": [1], "image_grid": [[1, 2, 2]]}`, `unknown field "image_grid"`},
		{`{}`, "input_ids: missing"},
		{`{"input_ids": []}`, "input_ids: no rows"},
		{`{"input_ids": [[]]}`, "want at least one token"},
		{`{"input_ids": [[[1]]]}`, "input_ids: want a list of integers or a list of such lists"},
		{`{"input_ids": [1], "attention_mask": "x"}`, "attention_mask: want a list"},
		{`{"input_ids": [1], "video_grid_thw": [[1, 2]]}`, "video_grid_thw[0]: 2 values: want [t, h, w]"},
		{`{"input_ids": [1], "second_per_grid_ts": [1], "video_second_per_grid": [1]}`, "give one, not both"},
		{`{"input_ids": [1], "audio_seqlens": [1], "audio_feature_lengths": [1]}`, "give the audio lengths once"},
		{`[1`, "unexpected EOF"},
	} {
		_, _, err := ParseInputJSON([]byte(c.js))
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrInput) {
			t.Errorf("%s: error %v, want ErrInput containing %q", c.js, err, c.want)
		}
	}
}

// TestFamilyOptions: a family name chooses the Kind, _talker the talker, and DefaultConfigWith
// gives the defaults, refusing a talker where the family has none.
func TestFamilyOptions(t *testing.T) {
	for _, c := range []struct {
		family string
		want   ReadOptions
	}{
		{"qwen2_vl", ReadOptions{Kind: Qwen2VL}},
		{"qwen3_vl_text", ReadOptions{Kind: Qwen3VL}},
		{"qwen2_5_omni_talker", ReadOptions{Kind: Qwen25Omni, Talker: true}},
		{"qwen3_omni_moe_thinker", ReadOptions{Kind: Qwen3Omni}},
	} {
		o, err := FamilyOptions(c.family)
		if err != nil || o != c.want {
			t.Errorf("FamilyOptions(%q) = %+v, %v; want %+v", c.family, o, err, c.want)
		}
		cfg, err := DefaultConfigWith(o)
		want := DefaultConfig(o.Kind)
		if o.Talker {
			want = DefaultTalkerConfig(o.Kind)
		}
		if err != nil || !reflect.DeepEqual(cfg, want) {
			t.Errorf("DefaultConfigWith(%+v) = %+v, %v; want %+v", o, cfg, err, want)
		}
	}
	for _, f := range []string{"", "llama", "minicpmv4_6"} {
		if _, err := FamilyOptions(f); err == nil {
			t.Errorf("FamilyOptions(%q): no error", f)
		}
	}
	for _, o := range []ReadOptions{{}, {Kind: Qwen2VL, Talker: true}, {Kind: kindEnd}} {
		if _, err := DefaultConfigWith(o); err == nil || !errors.Is(err, ErrConfig) {
			t.Errorf("DefaultConfigWith(%+v): error %v, want ErrConfig", o, err)
		}
	}
	for k := Qwen2VL; k < kindEnd; k++ {
		if _, err := DefaultConfigWith(ReadOptions{Kind: k}); err != nil {
			t.Errorf("%v: %v", k, err)
		}
	}
}

// FuzzReadInput: no file and no JSON document makes the readers panic, and what they accept
// has input_ids of the shape they report, every row of its length.
func FuzzReadInput(f *testing.F) {
	f.Add([]byte(`{"input_ids": [[1, 2]], "attention_mask": [[1, 0]], "image_grid_thw": [[1, 2, 2]]}`))
	var buf bytes.Buffer
	safetensors.Write(&buf, []safetensors.Tensor{
		safetensors.FromInt64s("input_ids", []int{1, 2}, []int64{1, 2}),
		{Name: "feature_attention_mask", DType: "BOOL", Shape: []int{1, 2}, Data: []byte{1, 1}},
		safetensors.FromUint16s("second_per_grid_ts", "F16", []int{1}, []uint16{0x3c00}),
	}, nil)
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		check := func(in Input, shape []int, err error) {
			if err != nil {
				if !errors.Is(err, ErrInput) {
					t.Fatalf("error %v does not wrap ErrInput", err)
				}
				return
			}
			if rows := len(in.InputIDs); len(shape) == 1 && rows != 1 || len(shape) == 2 && rows != shape[0] || len(shape) == 0 || len(shape) > 2 {
				t.Fatalf("shape %v for %d rows", shape, rows)
			}
			for i, row := range in.InputIDs {
				if len(row) != shape[len(shape)-1] {
					t.Fatalf("shape %v, but row %d has %d tokens", shape, i, len(row))
				}
			}
		}
		check(ParseInputJSON(data))
		if sf, err := safetensors.Parse(data); err == nil {
			check(ReadInput(sf))
		}
	})
}

// TestParseInputJSONShapes: the JSON form is refused where it is no [S] or [B, S] tensor, whose
// shape ParseInputJSON returns: input_ids whose rows differ in length, and anything after the
// object (a second document would be dropped).
func TestParseInputJSONShapes(t *testing.T) {
	for _, c := range []struct{ js, want string }{
		{`{"input_ids": [[1, 2], [3]]}`, "input_ids row 1 has 1 tokens, row 0 has 2: want equal-length rows"},
		{`{"input_ids": [1]} {"input_ids": [2]}`, "after the JSON object"},
		{`{"input_ids": [1]} x`, "after the JSON object"},
	} {
		_, _, err := ParseInputJSON([]byte(c.js))
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrInput) {
			t.Errorf("%s: error %v, want ErrInput containing %q", c.js, err, c.want)
		}
	}
	if _, _, err := ParseInputJSON([]byte("{\"input_ids\": [1]}\n\t ")); err != nil {
		t.Errorf("white space after the object: %v", err)
	}
}
