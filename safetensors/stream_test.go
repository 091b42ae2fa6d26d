package safetensors

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// TestStream: a tensor written by Stream reads back as the same bytes as one given in Data; a
// Stream that writes another count, or a tensor with both, is refused.
func TestStream(t *testing.T) {
	data := []byte{1, 2, 3, 4, 5, 6, 7, 8}
	in := []Tensor{
		{Name: "a", DType: "F32", Shape: []int{2}, Stream: func(w io.Writer) error {
			if _, err := w.Write(data[:3]); err != nil {
				return err
			}
			_, err := w.Write(data[3:])
			return err
		}},
		{Name: "b", DType: "U8", Shape: []int{2}, Data: []byte{9, 10}},
	}
	var buf bytes.Buffer
	if err := Write(&buf, in, nil); err != nil {
		t.Fatal(err)
	}
	f, err := Parse(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if a, _ := f.Get("a"); !bytes.Equal(a.Data, data) {
		t.Errorf("a: %v, want %v", a.Data, data)
	}
	if b, _ := f.Get("b"); !bytes.Equal(b.Data, []byte{9, 10}) {
		t.Errorf("b: %v", b.Data)
	}
	short := []Tensor{{Name: "a", DType: "F32", Shape: []int{2}, Stream: func(w io.Writer) error { _, err := w.Write(data[:7]); return err }}}
	if err := Write(io.Discard, short, nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("a Stream one byte short: %v, want ErrInvalid", err)
	}
	both := []Tensor{{Name: "a", DType: "F32", Shape: []int{2}, Data: data, Stream: func(io.Writer) error { return nil }}}
	if err := Write(io.Discard, both, nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("Data and Stream: %v, want ErrInvalid", err)
	}
}
