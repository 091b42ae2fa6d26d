package rope_test

import (
	"fmt"

	"github.com/rotary-go/rotary/rope"
)

// The inverse frequencies and attention factor of Llama 3.1's scaled RoPE.
func ExampleSpec_Frequencies() {
	spec := rope.Spec{HeadSize: 128, RotaryDim: 128, Base: 500000, MaxPositions: 131072, Scaling: rope.Scaling{
		Type: rope.ScalingLlama3, Factor: 8, LowFreqFactor: 1, HighFreqFactor: 4, OriginalMaxPositions: 8192,
	}}
	if err := spec.Validate(); err != nil {
		fmt.Println(err)
		return
	}
	inv, attention := spec.Frequencies(-1)
	fmt.Printf("%d pairs, inv_freq[0] %.6g, inv_freq[63] %.6g, attention %g\n", len(inv), inv[0], inv[63], attention)
	// Output: 64 pairs, inv_freq[0] 1, inv_freq[63] 3.06893e-07, attention 1
}

// A spec whose angles would not be finite is refused, naming the parameter.
func ExampleSpec_Validate() {
	spec := rope.Spec{HeadSize: 128, RotaryDim: 128, Base: 5e-324, MaxPositions: 4096}
	fmt.Println(spec.Validate())
	// Output: invalid rope spec: base (rope_theta) 5e-324: want a finite number > 1
}
