package npy_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rotary-go/rotary/npy"
	"github.com/rotary-go/rotary/tensor"
)

// A harness's tensors go to a directory np.load reads (BF16 as uint16 bits, which
// .view(ml_dtypes.bfloat16) turns back into bfloat16) and come back as tensor.Tensor.
func ExampleReadDir() {
	tmp, err := os.MkdirTemp("", "npy")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "bundle")

	q := tensor.FromBits(tensor.BF16, []uint16{0x3f80, 0xbf80, 0x4000, 0x0000}, 1, 2, 2)
	pos := tensor.FromI64([]int64{7}, 1)
	tensors := map[string]tensor.Tensor{"query": q, "positions": pos}
	if err := npy.WriteDir(dir, tensors, nil, map[string]string{"op": "rotary_embedding"}); err != nil {
		panic(err)
	}

	d, err := npy.ReadDir(dir)
	if err != nil {
		panic(err)
	}
	back := d.Tensors["query"]
	fmt.Println(d.Names, d.Metadata["op"])
	fmt.Println(back.DType, back.Shape, back.Float64At(1), back.Float64At(2))

	b, _ := os.ReadFile(filepath.Join(dir, "query.npy"))
	fmt.Printf("%s\n", b[10:bytes.IndexByte(b, '}')+1])
	// Output:
	// [positions query] rotary_embedding
	// BF16 [1 2 2] -1 2
	// {'descr': '<u2', 'fortran_order': False, 'shape': (1, 2, 2), }
}
