package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// TestApplyGatheredEqualsRotaryEmbedding: the hoisted gather gives rotary_embedding's bytes, for
// a plain model, an MRoPE model with 3-D positions and a GPT-J model, in every dtype.
func TestApplyGatheredEqualsRotaryEmbedding(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		model string
		pos   tensor.Tensor
	}{
		{"llama-3.1-8b", tensor.FromI64([]int64{0, 5, 9000, 131071}, 4)},
		{"qwen2-vl-7b", tensor.FromI64([]int64{0, 1, 2, 3, 0, 1, 1, 3, 0, 2, 1, 3}, 3, 4)},
		{"glm-4-9b", tensor.FromI64([]int64{7, 6, 5, 8191}, 4)},
	} {
		for _, d := range []tensor.DType{tensor.F32, tensor.BF16, tensor.F16} {
			in := writeTensors(t, dir, "in.safetensors", toFile("positions", c.pos),
				encodeAs(d, "query", []int{4, 2, 128}, randomHeads(4*2*128, 5)),
				encodeAs(d, "key", []int{4, 1, 128}, randomHeads(4*128, 6)))
			var outs [2][]byte
			for i, op := range []string{"rotary_embedding", "rotary_embedding_gathered"} {
				out := filepath.Join(dir, op+".safetensors")
				if code, _, stderr := runCLI(t, "apply", "--model", c.model, "--op", op, "--in", in, "--out", out); code != 0 {
					t.Fatalf("%s %v %s: exit %d: %s", c.model, d, op, code, stderr)
				}
				b, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				outs[i] = b
			}
			if !bytes.Equal(outs[0], outs[1]) {
				t.Errorf("%s %v: rotary_embedding_gathered differs from rotary_embedding", c.model, d)
			}
			if f, err := safetensors.Parse(outs[1]); err != nil || len(f.Names()) != 2 {
				t.Errorf("%s %v: output %v, %v: want query and key", c.model, d, f, err)
			}
		}
	}
}
