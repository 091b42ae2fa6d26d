package check

import (
	"errors"

	"github.com/rotary-go/rotary/gguf"
	"github.com/rotary-go/rotary/hf"
)

// GGUFFacts are what a GGUF file's InspectReport adds: how llama.cpp reads the file.
type GGUFFacts struct {
	Version      uint32   `json:"version"`
	Architecture string   `json:"architecture"`
	RopeType     string   `json:"rope_type"`
	ScalingType  string   `json:"scaling_type,omitempty"`
	FactorTensor []string `json:"factor_tensors,omitempty"`
}

// InspectGGUF reports layer's RoPE of a GGUF file as llama.cpp derives it (gguf.File.RoPE,
// whose error it returns as is), in Inspect's form, with the facts of the file it came from.
// A layer the file does not have is an *hf.SelectionError, as Inspect's. It never panics.
func InspectGGUF(f *gguf.File, layer int) (*InspectReport, error) {
	if f == nil {
		return nil, errors.New("check: InspectGGUF needs a GGUF file, got nil")
	}
	r, err := f.RoPE()
	if err != nil {
		return nil, err
	}
	model := &hf.Model{ModelType: r.Arch, TopModelType: r.Arch, Spec: r.Spec, NumLayers: r.NumLayers,
		NumHeads: r.NumHeads, NumKVHeads: r.NumKVHeads, HeadSize: r.Spec.HeadSize, Notes: r.Notes}
	rep, err := Inspect(model, hf.Selection{Layer: layer})
	if err != nil {
		return nil, err
	}
	rep.GGUF = &GGUFFacts{Version: f.Version, Architecture: r.Arch, RopeType: r.Type.String(), ScalingType: r.ScalingType, FactorTensor: r.Factors}
	return rep, nil
}
