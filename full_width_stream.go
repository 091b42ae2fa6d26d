package rotary

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// FullWidthStream is CosSin.FullWidth's rows for more tokens than are worth holding at once:
// cos and sin at full rotary width, in one pairing and dtype, for the tokens of a positions
// tensor (StreamFullWidth) or for positions 0..n−1 (StreamFullWidthRange), written as
// little-endian bytes a chunk of tokens at a time. It is what rotary cache --gather writes:
// the explicit cos/sin of apply_rotary_emb (torch_npu npu_rotary_mul) and
// kv_rmsnorm_rope_cache for a whole sequence.
type FullWidthStream struct {
	emb       *Embedding
	positions tensor.Tensor // [T] or [rows, T]; the zero Tensor for 0..tokens−1
	tokens    int
	max       int64 // the largest position: every chunk is gathered as part of one call
	style     Style
	dtype     tensor.DType
}

// StreamFullWidth returns the stream of e's cos and sin at positions, int32 or int64 [T] (or
// [rows, T] for MRoPE, as Gather takes them; any view), in style's pairing (NeoX or GPTJ) and
// dtype d (F32, BF16 or F16, rounded once to nearest even). Every position is checked as
// Gather checks it before StreamFullWidth returns, so that a bad one is reported here rather
// than by a write. The rows are one Gather's over every position, chunk after chunk: the
// table and the per-call frequencies (LongRoPE's long factors, dynamic NTK per call) follow the
// largest of them all. positions must not change until the stream has been written.
func (e *Embedding) StreamFullWidth(positions tensor.Tensor, style Style, d tensor.DType) (*FullWidthStream, error) {
	if err := positions.Check("positions"); err != nil {
		return nil, err
	}
	if r := positions.Rank(); r != 1 && r != 2 {
		return nil, fmt.Errorf("positions: shape %s: want [T] or [rows,T]", tensor.ShapeString(positions.Shape))
	}
	s, err := e.fullWidthStream(style, d)
	if err != nil {
		return nil, err
	}
	s.positions, s.tokens = positions, positions.Shape[positions.Rank()-1]
	for first := 0; first < s.tokens; first += streamChunk {
		k := min(streamChunk, s.tokens-first)
		p, err := ops.NewPositions(s.window(first, k), k, e.positionRows(), ops.NoLimit)
		if err != nil {
			return nil, err
		}
		s.max = max(s.max, p.Max)
	}
	return s, nil
}

// StreamFullWidthRange is StreamFullWidth at positions 0..n−1, which it makes a chunk at a
// time rather than holding n of them.
func (e *Embedding) StreamFullWidthRange(n int, style Style, d tensor.DType) (*FullWidthStream, error) {
	if n < 0 {
		return nil, fmt.Errorf("n %d: want a token count ≥ 0", n)
	}
	s, err := e.fullWidthStream(style, d)
	if err != nil {
		return nil, err
	}
	s.tokens, s.max = n, int64(max(n-1, 0))
	return s, nil
}

func (e *Embedding) fullWidthStream(style Style, d tensor.DType) (*FullWidthStream, error) {
	if err := e.ready(); err != nil {
		return nil, err
	}
	if style != NeoX && style != GPTJ {
		return nil, fmt.Errorf("style: %v: want NeoX or GPTJ", style)
	}
	if d != tensor.F32 && d != tensor.BF16 && d != tensor.F16 {
		return nil, fmt.Errorf("dtype %v: want F32, BF16 or F16", d)
	}
	return &FullWidthStream{emb: e, style: style, dtype: d}, nil
}

// Tokens is the number of tokens the stream writes rows for (0 for a nil stream).
func (s *FullWidthStream) Tokens() int {
	if s == nil {
		return 0
	}
	return s.tokens
}

// WriteCos writes the cos rows to w: Tokens()·RotaryDim elements of the stream's dtype,
// little-endian, row after row. It fails as Gather and FullWidth do (a dual-chunk embedding,
// or a spec without RoPE), or for a nil w, before writing anything; a failed write of w ends it.
func (s *FullWidthStream) WriteCos(w io.Writer) error { return s.write(w, false) }

// WriteSin writes the sin rows as WriteCos writes the cos rows.
func (s *FullWidthStream) WriteSin(w io.Writer) error { return s.write(w, true) }

var errNilStream = errors.New("rotary: the FullWidthStream is nil: make it with Embedding.StreamFullWidth")

func (s *FullWidthStream) write(w io.Writer, sin bool) error {
	if s == nil || s.emb == nil {
		return errNilStream
	}
	if w == nil {
		return errNilWriter
	}
	d := s.emb.spec.RotaryDim
	rows := min(streamChunk, s.tokens)
	cos, err := tensor.New(s.dtype, rows, d)
	if err != nil {
		return err
	}
	sn, _ := tensor.New(s.dtype, rows, d)
	var seq []int64
	if s.positions.IsZero() {
		seq = make([]int64, rows)
	}
	var cs CosSin
	buf := make([]byte, 0, rows*d*s.dtype.Size())
	for first := 0; first < s.tokens; first += streamChunk {
		k := min(streamChunk, s.tokens-first)
		p := s.window(first, k)
		if seq != nil {
			for i := range k {
				seq[i] = int64(first + i)
			}
			p = tensor.FromI64(seq[:k], k)
		}
		if err := s.emb.gatherCall(p, &cs, s.max); err != nil {
			return err
		}
		c, sv := leadingRows(cos, k), leadingRows(sn, k)
		if err := cs.FullWidth(s.style, c, sv); err != nil {
			return err
		}
		out := c
		if sin {
			out = sv
		}
		buf = appendElements(buf[:0], out)
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

// window is the view of s.positions' tokens first..first+k−1 (the zero Tensor for a range).
func (s *FullWidthStream) window(first, k int) tensor.Tensor {
	p := s.positions
	if p.IsZero() {
		return p
	}
	last := p.Rank() - 1
	v := p
	v.Shape, v.Strides = slices.Clone(p.Shape), make([]int, p.Rank())
	for j := range v.Strides {
		v.Strides[j] = p.Stride(j)
	}
	v.Shape[last] = k
	if k > 0 {
		v.Offset += first * p.Stride(last)
	}
	return v
}

// leadingRows is the first k rows of the contiguous [rows, d] tensor t, sharing its storage.
func leadingRows(t tensor.Tensor, k int) tensor.Tensor {
	n := k * t.Shape[1]
	v := tensor.Tensor{DType: t.DType, Shape: []int{k, t.Shape[1]}}
	if t.DType == tensor.F32 {
		v.F32 = t.F32[:n]
	} else {
		v.Bits = t.Bits[:n]
	}
	return v
}

// appendElements appends t's elements (F32, or 16-bit floats' bits) in little-endian order.
func appendElements(b []byte, t tensor.Tensor) []byte {
	if t.DType == tensor.F32 {
		return appendF32s(b, t.F32)
	}
	for _, v := range t.Bits {
		b = binary.LittleEndian.AppendUint16(b, v)
	}
	return b
}
