package main

import (
	"fmt"

	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// fromFile converts a safetensors tensor into a tensor view with its own memory.
func fromFile(t safetensors.Tensor) (tensor.Tensor, error) {
	d, err := tensor.ParseDType(t.DType)
	if err != nil {
		return tensor.Tensor{}, fmt.Errorf("%s: %v", t.Name, err)
	}
	shape := append([]int(nil), t.Shape...)
	switch d {
	case tensor.F32:
		v, err := t.Float32s()
		return tensor.FromF32(v, shape...), err
	case tensor.F16, tensor.BF16:
		v, err := t.Uint16s()
		return tensor.FromBits(d, v, shape...), err
	case tensor.F64:
		v, err := t.Float64s()
		return tensor.FromF64(v, shape...), err
	case tensor.I32:
		v, err := t.Int32s()
		return tensor.FromI32(v, shape...), err
	case tensor.I64:
		v, err := t.Int64s()
		return tensor.FromI64(v, shape...), err
	case tensor.I8:
		v, err := t.Int8s()
		return tensor.FromI8(v, shape...), err
	}
	return tensor.Tensor{}, fmt.Errorf("%s: dtype %s is not supported here", t.Name, t.DType)
}

// toFile converts a contiguous tensor view into a safetensors tensor.
func toFile(name string, t tensor.Tensor) safetensors.Tensor {
	shape := append([]int(nil), t.Shape...)
	switch t.DType {
	case tensor.F32:
		return safetensors.FromFloat32s(name, shape, t.F32)
	case tensor.F16, tensor.BF16:
		return safetensors.FromUint16s(name, t.DType.String(), shape, t.Bits)
	case tensor.F64:
		return safetensors.FromFloat64s(name, shape, t.F64)
	case tensor.I32:
		return safetensors.FromInt32s(name, shape, t.I32)
	case tensor.I64:
		return safetensors.FromInt64s(name, shape, t.I64)
	case tensor.I8:
		return safetensors.FromInt8s(name, shape, t.I8)
	}
	panic("toFile: unsupported dtype " + t.DType.String())
}

// readInputs reads a safetensors file into views keyed by name.
func readInputs(path string) (map[string]tensor.Tensor, error) {
	f, err := safetensors.ReadFile(path)
	if err != nil {
		return nil, usageError{err}
	}
	out := make(map[string]tensor.Tensor, len(f.Tensors))
	for _, st := range f.Tensors {
		t, err := fromFile(st)
		if err != nil {
			return nil, usagef("%s: %v", path, err)
		}
		out[st.Name] = t
	}
	return out, nil
}
