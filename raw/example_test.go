package raw_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/rotary-go/rotary/raw"
)

// A harness dumped a [2, 3] float32 query as 24 bytes with no header; the spec beside it says
// what they are.
func ExampleParseSpec() {
	dir, err := os.MkdirTemp("", "raw")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	var dump []byte
	for _, v := range []float32{1, 2, 3, 4, 5, 6} {
		dump = binary.LittleEndian.AppendUint32(dump, math.Float32bits(v))
	}
	path := filepath.Join(dir, "q.bin")
	if err := os.WriteFile(path, dump, 0o644); err != nil {
		panic(err)
	}

	spec, err := raw.ParseSpec("out.query=F32:2,3:" + path)
	if err != nil {
		panic(err)
	}
	q, err := spec.Read()
	if err != nil {
		panic(err)
	}
	fmt.Println(spec.Name, q.DType, q.Shape, q.F32)

	spec, _ = raw.ParseSpec("out.query=BF16:2,3:" + path)
	_, err = spec.Read()
	fmt.Println(err != nil)
	// Output:
	// out.query F32 [2 3] [1 2 3 4 5 6]
	// true
}
