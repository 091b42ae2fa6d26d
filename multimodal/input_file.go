package multimodal

import (
	"fmt"
	"strings"

	"github.com/rotary-go/rotary/internal/fileio"
	"github.com/rotary-go/rotary/safetensors"
)

// maxInputJSON bounds a JSON input file (256 MiB: tens of millions of token ids).
const maxInputJSON = 256 << 20

// ReadInputFile reads a processor's outputs from the file at path: a .json file (any case of
// the suffix; ParseInputJSON, at most 256 MiB) or else a safetensors file (ReadInput). shape
// is input_ids' shape in the file, [S] or [B, S]. Errors name the path; those of the contents
// wrap ErrInput, those of the safetensors format safetensors.ErrInvalid.
func ReadInputFile(path string) (Input, []int, error) {
	if strings.HasSuffix(strings.ToLower(path), ".json") {
		data, err := fileio.ReadFile(path, maxInputJSON)
		if err != nil {
			return Input{}, nil, fmt.Errorf("%s: %v", path, err)
		}
		in, shape, err := ParseInputJSON(data)
		if err != nil {
			return Input{}, nil, fmt.Errorf("%s: %w", path, err)
		}
		return in, shape, nil
	}
	f, err := safetensors.ReadFile(path)
	if err != nil {
		return Input{}, nil, err
	}
	in, shape, err := ReadInput(f)
	if err != nil {
		return Input{}, nil, fmt.Errorf("%s: %w", path, err)
	}
	return in, shape, nil
}
