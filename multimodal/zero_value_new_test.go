package multimodal

import (
	"fmt"
	"testing"

	"github.com/rotary-go/rotary/internal/zerotest"
	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/safetensors"
)

// TestZeroValueNew: RoPEIndexN, FlattenN, PositionTensors, ReadInput, ReadInputFile,
// ParseInputJSON, FamilyOptions, DefaultConfigWith, the Pixtral tables,
// the talker and JSON configs, and IndexVersion.String, called with zero configs of every kind,
// nil and ragged inputs and zero grids, return an error or a zero result and never panic.
func TestZeroValueNew(t *testing.T) {
	inputs := map[string]Input{
		"zero Input":        {},
		"nil row":           {InputIDs: [][]int64{nil}},
		"nil mask row":      {InputIDs: [][]int64{{1, 2}}, AttentionMask: [][]int64{nil}},
		"zero image grid":   {InputIDs: [][]int64{{1, 2}}, ImageGridTHW: [][3]int64{{}}},
		"zero video grid":   {InputIDs: [][]int64{{1, 2}}, VideoGridTHW: [][3]int64{{}}, SecondPerGridT: []float64{}},
		"audio, no ids":     {AudioSeqLens: []int64{0}, UseAudioInVideo: true},
		"audio in no video": {InputIDs: [][]int64{{1}}, AudioSeqLens: []int64{-1}, UseAudioInVideo: true},
	}
	checks := map[string]func() error{
		"FlattenN(nil)":      func() error { _ = FlattenN(nil); return nil },
		"FlattenN(nil rows)": func() error { _ = FlattenN(PositionsN{nil, {nil}}); return nil },
		"PositionTensors(nil rows)": func() error {
			_, err := PositionTensors(PositionsN{nil, {nil}}, nil, []int{0})
			return zerotest.WantErr(err)
		},
		"ReadInputFile(\"\")":  func() error { _, _, err := ReadInputFile(""); return zerotest.WantErr(err) },
		"ReadInput(nil)":       func() error { _, _, err := ReadInput(nil); return zerotest.WantErr(err) },
		"ReadInput(zero File)": func() error { _, _, err := ReadInput(&safetensors.File{}); return zerotest.WantErr(err) },
		"ReadInput(no frames)": func() error {
			// Audio lengths of 2^50 clips without a frame: no data, so the shape alone would size them.
			f := &safetensors.File{Tensors: []safetensors.Tensor{safetensors.FromInt64s("input_ids", []int{2}, []int64{1, 2}),
				{Name: "feature_attention_mask", DType: "BOOL", Shape: []int{1 << 50, 0}}}}
			_, _, err := ReadInput(f)
			return zerotest.WantErr(err)
		},
		"ParseInputJSON(nil)":     func() error { _, _, err := ParseInputJSON(nil); return zerotest.WantErr(err) },
		"ParseInputJSON({})":      func() error { _, _, err := ParseInputJSON([]byte("{}")); return zerotest.WantErr(err) },
		"PositionTensors(nil)":    func() error { _, err := PositionTensors(nil, nil, nil); return err },
		"FamilyOptions(\"\")":     func() error { _, err := FamilyOptions(""); return zerotest.WantErr(err) },
		"DefaultConfigWith(zero)": func() error { _, err := DefaultConfigWith(ReadOptions{}); return zerotest.WantErr(err) },
		"DefaultConfigWith(unknown)": func() error {
			_, err := DefaultConfigWith(ReadOptions{Kind: 255, Talker: true})
			return zerotest.WantErr(err)
		},
		"PixtralVisionPositions":  func() error { _, err := PixtralVisionPositions(nil, 0); return zerotest.WantErr(err) },
		"PixtralVisionPositions0": func() error { _, err := PixtralVisionPositions([][2]int64{{}}, 0); return zerotest.WantErr(err) },
		"PixtralVisionCosSin":     func() error { _, err := PixtralVisionCosSin(nil, 0, 0, 0, 0); return zerotest.WantErr(err) },
		"PixtralVisionCosSin0": func() error {
			_, err := PixtralVisionCosSin([][2]int64{{}}, 0, 0, 0, rope.Style(255))
			return zerotest.WantErr(err)
		},
		"ConfigFromJSON(nil)":     func() error { _, err := ConfigFromJSON(nil); return zerotest.WantErr(err) },
		"ConfigFromJSONAs(nil)":   func() error { _, err := ConfigFromJSONAs(nil, 0); return zerotest.WantErr(err) },
		"ConfigFromJSONWith(nil)": func() error { _, err := ConfigFromJSONWith(nil, ReadOptions{}); return zerotest.WantErr(err) },
		"ConfigFromJSON({})":      func() error { _, err := ConfigFromJSON([]byte("{}")); return zerotest.WantErr(err) },
		"IndexVersion.String":     func() error { _, _ = IndexVersion(0).String(), IndexVersion(255).String(); return nil },
	}
	for k := Kind(0); k <= HunYuanVL+1; k++ {
		k := k
		checks[fmt.Sprintf("DefaultTalkerConfig(%d)", k)] = func() error { _ = DefaultTalkerConfig(k); return nil }
		for _, cfg := range []Config{{Kind: k}, DefaultConfig(k), DefaultTalkerConfig(k)} {
			for name, in := range inputs {
				cfg, in := cfg, in
				checks[fmt.Sprintf("RoPEIndexN(kind %d %+v, %s)", k, cfg.Kind, name)] = func() error {
					_, _, _ = RoPEIndexN(cfg, in)
					_, _, _ = RoPEIndex(cfg, in)
					return nil
				}
			}
		}
	}
	zerotest.Run(t, checks)
}
