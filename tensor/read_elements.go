package tensor

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// ReadElements fills the contiguous tensor t (of a dtype New makes) with its elements, read
// from r at off in a file's byte order (little-endian unless bigEndian), a megabyte at a time,
// so that no second copy of the data is held. A short read is an error saying where the
// file ended.
func ReadElements(r io.ReaderAt, off int64, t Tensor, bigEndian bool) error {
	size := t.DType.Size()
	n := t.Len()
	if size <= 0 || n < 0 || t.Check("t") != nil || !t.Contiguous() || t.Offset != 0 {
		return fmt.Errorf("read %v %s: want a contiguous tensor of a dtype New makes, from its first element", t.DType, ShapeString(t.Shape))
	}
	var order binary.ByteOrder = binary.LittleEndian
	if bigEndian {
		order = binary.BigEndian
	}
	buf := make([]byte, min(n*size, 1<<20))
	for done := 0; done < n; {
		k := min(n-done, len(buf)/size)
		b := buf[:k*size]
		if m, err := r.ReadAt(b, off+int64(done*size)); m != len(b) {
			if err == nil || errors.Is(err, io.EOF) {
				return fmt.Errorf("the file ended at byte %d, before its %d elements: did it change while being read?", off+int64(done*size+m), n)
			}
			return err
		}
		for i := range k {
			e := b[i*size:]
			switch t.DType {
			case F32:
				t.F32[done+i] = math.Float32frombits(order.Uint32(e))
			case F16, BF16:
				t.Bits[done+i] = order.Uint16(e)
			case F64:
				t.F64[done+i] = math.Float64frombits(order.Uint64(e))
			case I32:
				t.I32[done+i] = int32(order.Uint32(e))
			case I64:
				t.I64[done+i] = int64(order.Uint64(e))
			case I8:
				t.I8[done+i] = int8(e[0])
			case U8:
				t.U8[done+i] = e[0]
			}
		}
		done += k
	}
	return nil
}
