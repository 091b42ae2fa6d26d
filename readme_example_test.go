package rotary_test

import (
	"log"
	"os"
	"strings"
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/tensor"
)

// Example_readme is the README's Go snippet, verbatim between the markers (TestReadmeSnippet
// holds the two equal), so the snippet compiles and runs as written.
func Example_readme() {
	// README snippet begins
	spec := rotary.Spec{HeadSize: 128, RotaryDim: 128, Base: 500000, Style: rotary.NeoX, MaxPositions: 8192}
	// or: m, err := hf.LoadFile("config.json"); spec := m.Spec
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

// TestReadmeSnippet: the README's Go snippet is Example_readme's body, line for line.
func TestReadmeSnippet(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "## The Go API\n\n```go\n")
	if !ok {
		t.Fatal("README: no ```go block under ## The Go API")
	}
	snippet, _, ok := strings.Cut(rest, "```\n")
	if !ok {
		t.Fatal("README: the Go block does not end")
	}
	src, err := os.ReadFile("readme_example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(string(src), "\t// README snippet begins\n")
	body, _, _ = strings.Cut(body, "\t// README snippet ends\n")
	var lines []string
	for _, l := range strings.SplitAfter(body, "\n") {
		lines = append(lines, strings.TrimPrefix(l, "\t"))
	}
	if want := strings.Join(lines, ""); snippet != want {
		t.Errorf("README's Go snippet differs from Example_readme:\n--- README\n%s--- Example_readme\n%s", snippet, want)
	}
}
