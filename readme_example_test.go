package rotary_test

import (
	"fmt"
	"log"
	"os"
	"strings"
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/tensor"
)

// Example_readme is the README's Go snippet, verbatim between the markers (TestReadmeSnippet
// holds the two equal), so the snippet compiles and runs as written.
func Example_readme() {
	// README snippet begins
	spec := rotary.Spec{HeadSize: 128, RotaryDim: 128, Base: 500000, Style: rotary.NeoX, MaxPositions: 8192}
	// A model's config (hf.LoadFile) may give its layers different RoPEs: see NewLayers below.
	emb, err := rotary.New(spec) // validates, builds the float64-exact cache
	if err != nil {
		log.Fatal(err)
	}
	positions := tensor.FromI64([]int64{0, 1, 2}, 3)
	qBits := make([]uint16, 3*32*128) // bfloat16 bits: tensor.BF16FromFloat32s(qBits, q32)
	kBits := make([]uint16, 3*8*128)
	q := tensor.FromBits(tensor.BF16, qBits, 3, 32, 128) // [T, H, D] or [T, H·D]; F32, F16, BF16
	k := tensor.FromBits(tensor.BF16, kBits, 3, 8, 128)  // GQA: any head count
	if err := emb.Forward(positions, q, k); err != nil { // in place, vLLM RotaryEmbedding.forward
		log.Fatal(err)
	}

	// The hoisted gather: once per forward pass, then every layer.
	var cs rotary.CosSin
	if err := emb.Gather(positions, &cs); err != nil {
		log.Fatal(err)
	}
	for range 2 { // layers
		if err := cs.Apply(q, k); err != nil {
			log.Fatal(err)
		}
	}

	// Explicit cos/sin for rotary.ApplyRotaryEmb (npu_rotary_mul), BSND [1, T, 1, d]: the
	// gathered rows at full width in the model's pairing.
	cos, sin := tensor.Zeros(tensor.F32, 1, 3, 1, 128), tensor.Zeros(tensor.F32, 1, 3, 1, 128)
	if err := cs.FullWidth(spec.Style, cos, sin); err != nil {
		log.Fatal(err)
	}
	// README snippet ends

	// Output:
}

// Example_readmeLayers is the README's per-layer snippet (TestReadmeSnippet): a model whose
// layers differ, through NewLayers.
func Example_readmeLayers() {
	// README layers snippet begins
	m, err := hf.Preset("llama-4-scout-17b-16e") // or hf.LoadFile("config.json")
	if err != nil {
		log.Fatal(err)
	}
	// One cos/sin table per distinct layer RoPE: Llama 4 rotates three layers in four.
	model, err := rotary.NewLayers(m.Spec, m.NumLayers, rotary.WithCacheLen(8192))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(model.NumLayers(), "layers,", model.Distinct(), "distinct RoPEs")

	positions := tensor.FromI64([]int64{0, 1, 2}, 3)
	var cs rotary.LayersCosSin
	if err := model.Gather(positions, &cs); err != nil { // once per forward pass
		log.Fatal(err)
	}
	q := tensor.FromF32(make([]float32, 3*m.NumHeads*m.HeadSize), 3, m.NumHeads, m.HeadSize)
	k := tensor.FromF32(make([]float32, 3*m.NumKVHeads*m.HeadSize), 3, m.NumKVHeads, m.HeadSize)
	for l := range model.NumLayers() {
		if err := cs.Apply(l, q, k); err != nil { // layer l's RoPE; NoPE layers: untouched
			log.Fatal(err)
		}
		// The position-dependent query scale is its own op; the layers tell where it applies.
		if r := model.QueryScale(l); r.Kind != rotary.QueryScaleNone {
			p := rotary.QueryScaleParams{Positions: positions, Query: q, Rule: r}
			if err := rotary.QueryScale(nil, p); err != nil {
				log.Fatal(err)
			}
		}
	}
	// README layers snippet ends

	// Output: 48 layers, 2 distinct RoPEs
}

// TestReadmeSnippet: each of the README's Go snippets is its Example's body, line for line.
func TestReadmeSnippet(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("readme_example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ heading, marker string }{
		{"## The Go API\n\n", "README snippet"},
		{"### A model whose layers differ\n\n", "README layers snippet"},
	} {
		_, rest, ok := strings.Cut(string(readme), c.heading)
		if !ok {
			t.Fatalf("README: no heading %q", c.heading)
		}
		_, rest, ok = strings.Cut(rest, "```go\n")
		if !ok {
			t.Fatalf("README: no ```go block under %q", c.heading)
		}
		snippet, _, ok := strings.Cut(rest, "```\n")
		if !ok {
			t.Fatalf("README: the Go block under %q does not end", c.heading)
		}
		_, body, _ := strings.Cut(string(src), "\t// "+c.marker+" begins\n")
		body, _, _ = strings.Cut(body, "\t// "+c.marker+" ends\n")
		var lines []string
		for _, l := range strings.SplitAfter(body, "\n") {
			lines = append(lines, strings.TrimPrefix(l, "\t"))
		}
		if want := strings.Join(lines, ""); snippet != want {
			t.Errorf("README's Go snippet under %q differs from its Example:\n--- README\n%s--- Example\n%s", c.heading, snippet, want)
		}
	}
}
