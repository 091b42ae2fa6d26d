package golden

import (
	"fmt"
	"io"
	"strings"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// Call is one run of an op: its input tensors, the model's RoPE when the op reads one, and
// its parameters.
type Call struct {
	// Inputs are the tensors by the names the op reads (a bundle's, without the out.* ones).
	// The ops that update in place write into them.
	Inputs map[string]tensor.Tensor
	// Source names the inputs in errors ("IN.safetensors").
	Source     string
	Dispatcher *ops.Dispatcher // nil: ops.Default
	// Spec is the chosen layer's RoPE and Model the model, for an op that reads one (Model nil
	// otherwise); Layer is the layer's number.
	Spec  rotary.Spec
	Model *hf.Model
	Layer int
	// Strict makes positions past the model's cos/sin cache an error instead of a note.
	Strict bool
	Args   Args
	// Notes receives one line per warning or note, each ending in a newline (nil: dropped).
	Notes io.Writer
}

// Run runs op name (a registry name or another stack's name for it) on c and returns its
// outputs, named as a bundle names them after OutPrefix.
func Run(name string, c Call) ([]safetensors.Tensor, error) {
	op, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("--op %q: want one of %s", name, strings.Join(Names(), ", "))
	}
	args, err := c.Args.Normalize()
	if err != nil {
		return nil, err
	}
	if err := op.CheckParams(args.given); err != nil {
		return nil, err
	}
	if op.Model == ModelRequired && c.Model == nil {
		return nil, fmt.Errorf("--op %s: rotates by a model's RoPE: want Call.Model", op.Name)
	}
	c.Args = args
	if c.Notes == nil {
		c.Notes = io.Discard
	}
	if c.Inputs == nil {
		c.Inputs = map[string]tensor.Tensor{}
	}
	return op.run(&c)
}

// tensor returns input name, or an error naming it and the source.
func (c *Call) tensor(name string) (tensor.Tensor, error) {
	t, ok := c.Inputs[name]
	if !ok {
		return tensor.Tensor{}, fmt.Errorf("%s: missing tensor %q", c.Source, name)
	}
	return t, nil
}

// inputsNamed fetches the named input tensors in order.
func (c *Call) inputsNamed(names ...string) ([]tensor.Tensor, error) {
	out := make([]tensor.Tensor, len(names))
	for i, n := range names {
		t, err := c.tensor(n)
		if err != nil {
			return nil, err
		}
		out[i] = t
	}
	return out, nil
}

// embedding builds the model's embedding for one call at the given positions. It holds no
// cache rows: the rows a call reads are computed for its tokens (bit for bit what a cache would
// hold), so time and memory follow the token count, never the largest position. A position
// at or past max_position_embeddings is a note (an error under Strict).
func (c *Call) embedding(positions tensor.Tensor) (*rotary.Embedding, error) {
	if err := c.checkPositions(positions); err != nil {
		return nil, err
	}
	return rotary.New(c.Spec, rotary.WithCacheLen(0), rotary.WithDispatcher(c.Dispatcher))
}

// checkPositions notes (or, under Strict, refuses) positions the model was not built for:
// vLLM sizes its cos/sin cache to max_position_embeddings (original × factor for YaRN and
// static dynamic NTK, which Spec.DefaultCacheLen mirrors) and would index past it.
func (c *Call) checkPositions(positions tensor.Tensor) error {
	limit := int64(c.Spec.DefaultCacheLen())
	if limit <= 0 || c.Spec.NoRoPE || (positions.DType != tensor.I32 && positions.DType != tensor.I64) {
		return nil // no max to compare with, or no cos/sin to look up; bad positions are the op's to refuse
	}
	largest := int64(-1)
	for i := range positions.Len() {
		largest = max(largest, positions.Int64At(i))
	}
	if largest < limit {
		return nil
	}
	msg := fmt.Sprintf("positions: %d is at or past the model's %d positions (%s: vLLM's cos/sin cache has no row for it)", largest, limit, cacheLenSource(c.Spec))
	if c.Strict {
		return fmt.Errorf("%s", msg)
	}
	fmt.Fprintf(c.Notes, "warning: %s; --strict makes this an error\n", msg)
	return nil
}

// cacheLenSource says where Spec.DefaultCacheLen's count comes from, in the config's terms.
func cacheLenSource(s rotary.Spec) string {
	n := s.DefaultCacheLen()
	switch {
	case s.DualChunk != nil && n == s.DualChunk.ChunkSize && n != s.MaxPositions:
		return "dual_chunk_attention_config's chunk_size"
	case n == s.MaxPositions:
		return "max_position_embeddings"
	}
	return fmt.Sprintf("original_max_position_embeddings %d × %s factor %g", s.OriginalMax(), s.Scaling.Type, s.Scaling.Factor)
}

// toFile is an op's result as a safetensors tensor, encoded as it is written
// (safetensors.Streamed), so that an output is never held twice. The ops' results are
// well-formed views of the dtypes a file holds; anything Streamed refuses comes back with no
// dtype, which safetensors.Write then refuses naming the tensor, before anything is written.
func toFile(name string, t tensor.Tensor) safetensors.Tensor {
	st, err := safetensors.Streamed(name, t)
	if err != nil {
		return safetensors.Tensor{Name: name}
	}
	return st
}

// queryKey is the outputs of an op that rotates query and, when given, key in place.
func queryKey(query, key tensor.Tensor) []safetensors.Tensor {
	out := []safetensors.Tensor{toFile("query", query)}
	if !key.IsZero() {
		out = append(out, toFile("key", key))
	}
	return out
}
