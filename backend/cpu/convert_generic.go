//go:build (!amd64 && !arm64) || purego

package cpu

import "github.com/rotary-go/rotary/tensor"

// Without assembly the bulk conversions do nothing; Go does every element.

func widenAsm(isa, tensor.DType, []float32, []uint16) int { return 0 }

func narrowAsm(isa, tensor.DType, []uint16, []float32) int { return 0 }
