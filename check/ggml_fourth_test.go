package check

import (
	"strings"
	"testing"

	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/rope"
)

// TestGGMLFourthCacheMode: a model read with llama.cpp's IMROPE layout (a GGUF's, as cmd/rotary's
// loadGGUF makes it) launched on npu_mrope: neither cache mode turns the pairs on llama.cpp's
// fourth position row by it, so both are an error, and neither is offered as the fix.
func TestGGMLFourthCacheMode(t *testing.T) {
	spec := rope.Spec{HeadSize: 128, RotaryDim: 128, Base: 5e6, Style: rope.NeoX, MaxPositions: 262144,
		MRoPE: &rope.MRoPE{Sections: []int{24, 20, 20, 0}, Interleaved: true, GGMLFourth: true}}
	for _, mode := range []string{"default", "interleave"} {
		c := checker{launch: Launch{CacheMode: mode}}
		c.model(&hf.Model{ModelType: "qwen3vl", Spec: spec, NumLayers: 36, NumHeads: 32, NumKVHeads: 8, HeadSize: 128})
		var got []Finding
		for _, f := range c.findings {
			if f.Code == "mrope-cache-mode" {
				got = append(got, f)
			}
		}
		if len(got) != 1 || got[0].Severity != Error || !strings.Contains(got[0].What, "fourth position") ||
			strings.Contains(got[0].Fix, "use cache_mode") {
			t.Errorf("cache_mode %s: %+v", mode, got)
		}
	}
}
