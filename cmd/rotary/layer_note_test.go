package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/safetensors"
)

// TestLayerKindsNote: cache and apply without --layer on a model whose layers differ say in one
// stderr line which layer's RoPE they used and which --layer gives each other kind (Gemma 3 used
// to give its sliding layers' cos/sin without a word); with --layer, or on a model whose layers
// all rotate alike, they say nothing.
func TestLayerKindsNote(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.safetensors")
	const T, H, D = 2, 8, 256
	in := writeTensors(t, dir, "in.safetensors",
		safetensors.FromInt64s("positions", []int{T}, []int64{0, 7}),
		safetensors.FromFloat32s("query", []int{T, H, D}, randomHeads(T*H*D, 1)),
		safetensors.FromFloat32s("key", []int{T, 4, D}, randomHeads(T*4*D, 2)))
	cohere := writeFile(t, dir, "cohere2.json", []byte(noRoPEConfigs[2].cfg))
	for _, c := range []struct {
		args []string
		want []string // nil: no stderr at all
	}{
		{[]string{"cache", "--model", "gemma-3-4b", "--positions", "4", "--out", out}, []string{"layer 0", "sliding_attention (base 10000, no scaling)", "full_attention (--layer 5)"}},
		{[]string{"apply", "--model", "gemma-3-4b", "--in", in, "--out", out}, []string{"layer 0", "sliding_attention", "full_attention (--layer 5)"}},
		{[]string{"apply", "--model", "gemma-3-4b", "--in", in, "--out", out, "--op", "rotary_embedding_gathered"}, []string{"full_attention (--layer 5)"}},
		{[]string{"golden", "--model", "gemma-3-4b", "--tokens", "2", "--out", out}, []string{"layer 0", "sliding_attention", "full_attention (--layer 5)"}},
		{[]string{"cache", "--model", "gemma-3-4b", "--positions", "4", "--out", out, "--layer", "0"}, nil},
		{[]string{"cache", "--model", "gemma-3-4b", "--positions", "4", "--out", out, "--layer", "5"}, nil},
		{[]string{"apply", "--model", "gemma-3-4b", "--in", in, "--out", out, "--layer", "5"}, nil},
		{[]string{"cache", "--model", "llama-3.1-8b", "--positions", "4", "--out", out}, nil},
		// gpt-oss names sliding and full layers but rotates them alike: nothing to say.
		{[]string{"cache", "--model", "gpt-oss-20b", "--positions", "4", "--out", out}, nil},
		// Cohere2's full-attention layers (every 4th) are unrotated.
		{[]string{"cache", "--config", cohere, "--positions", "4", "--out", out}, []string{"layer 0", "sliding_attention", "no RoPE (--layer 3)"}},
	} {
		code, _, stderr := runCLI(t, c.args...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", c.args, code, stderr)
			continue
		}
		if c.want == nil {
			if stderr != "" {
				t.Errorf("%v: stderr %q, want nothing", c.args, stderr)
			}
			continue
		}
		// Named by its command, as every other line of the tool's commands is.
		if strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "rotary "+c.args[0]+": note: ") {
			t.Errorf("%v: stderr %q: want one line starting %q", c.args, stderr, "rotary "+c.args[0]+": note: ")
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr %q lacks %q", c.args, stderr, w)
			}
		}
	}
}
