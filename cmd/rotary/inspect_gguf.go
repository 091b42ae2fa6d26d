package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rotary-go/rotary/check"
	"github.com/rotary-go/rotary/gguf"
	"github.com/rotary-go/rotary/hf"
)

// isGGUF says whether inspect's argument is a GGUF file: its name ends in .gguf, or it is a
// regular file that starts with the GGUF magic.
func isGGUF(path string) bool {
	if path == "" {
		return false
	}
	if strings.HasSuffix(strings.ToLower(path), ".gguf") {
		return true
	}
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	fh, err := os.Open(path)
	if err != nil {
		return false
	}
	defer fh.Close()
	var magic [4]byte
	_, err = io.ReadFull(fh, magic[:])
	return err == nil && string(magic[:]) == gguf.Magic
}

// ggufReport is what inspect adds for a GGUF file: how llama.cpp reads it.
type ggufReport struct {
	Version      uint32   `json:"version"`
	Architecture string   `json:"architecture"`
	RopeType     string   `json:"rope_type"`
	ScalingType  string   `json:"scaling_type,omitempty"`
	FactorTensor []string `json:"factor_tensors,omitempty"`
}

// loadGGUF reads a GGUF file and derives its RoPE as llama.cpp does, as an hf.Model so that
// inspect and check print and compare it as they do a config's.
func loadGGUF(path string) (*hf.Model, *gguf.RoPE, *gguf.File, error) {
	f, err := gguf.ReadFile(path)
	if err != nil {
		return nil, nil, nil, usageError{err}
	}
	r, err := f.RoPE()
	if err != nil {
		return nil, nil, nil, usagef("%s: %v", path, err)
	}
	model := &hf.Model{ModelType: r.Arch, TopModelType: r.Arch, Spec: r.Spec, NumLayers: r.NumLayers,
		NumHeads: r.NumHeads, NumKVHeads: r.NumKVHeads, HeadSize: r.Spec.HeadSize, Notes: r.Notes}
	return model, r, f, nil
}

// inspectGGUF is inspect of a GGUF file: the spec llama.cpp rotates by, in inspect's form,
// and the GGUF facts it came from.
func inspectGGUF(m modelFlags, asJSON bool, stdout io.Writer) error {
	switch {
	case m.preset != "":
		return usagef("--model %s and %s: a GGUF file is the model; give one", m.preset, m.config)
	case m.as != "":
		return usagef("--as %s: a framework's reading of a config.json; a GGUF file's rules are llama.cpp's", m.as)
	case m.rope != "main":
		return usagef("--rope %s: a GGUF file has one RoPE", m.rope)
	case m.dynamic != "" && m.dynamic != "static", m.longrope != "" && m.longrope != "config", m.style != "":
		return usagef("--dynamic, --longrope-factor and --style are rules for reading a config; a GGUF file's are llama.cpp's")
	}
	model, r, f, err := loadGGUF(m.config)
	if err != nil {
		return err
	}
	if model.NumLayers > 0 && m.layer >= model.NumLayers {
		return usagef("--layer %d: the model has %d layers (0..%d)", m.layer, model.NumLayers, model.NumLayers-1)
	}
	spec, err := model.Spec.ForLayer(m.layer)
	if err != nil {
		return usagef("--layer: %v", err)
	}
	rep, err := inspect(model, spec, m)
	if err != nil {
		return err
	}
	g := ggufReport{Version: f.Version, Architecture: r.Arch, RopeType: r.Type.String(), ScalingType: r.ScalingType, FactorTensor: r.Factors}
	if asJSON {
		obj, _ := snakeJSON(rep).(jsonObject)
		obj = append(obj, jsonMember{"gguf", snakeJSON(g)})
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(obj)
	}
	fmt.Fprintf(stdout, "%-22s %s\n", "gguf:", fmt.Sprintf("version %d, general.architecture %s, llama.cpp rope type %s (%s), %s", g.Version, g.Architecture, g.RopeType, pairingOf(r.Type), check.GGUFScalingType(g.ScalingType)))
	if len(g.FactorTensor) > 0 {
		fmt.Fprintf(stdout, "%-22s %s\n", "frequency factors:", strings.Join(g.FactorTensor, ", "))
	}
	printInspect(stdout, rep, spec)
	return nil
}

// pairingOf says which elements a llama.cpp rope type pairs.
func pairingOf(t gguf.RopeType) string {
	switch t {
	case gguf.RopeNorm:
		return "adjacent pairs 2i, 2i+1"
	case gguf.RopeMRoPE:
		return "pairs i, i+n_rot/2, sections in chunks"
	case gguf.RopeIMRoPE:
		return "pairs i, i+n_rot/2, sections interleaved"
	}
	return "pairs i, i+n_rot/2"
}
