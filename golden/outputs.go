package golden

import (
	"sort"
	"strings"

	"github.com/rotary-go/rotary/tensor"
)

// OutPrefix marks a bundle's expected outputs: the op's output NAME is the tensor out.NAME.
const OutPrefix = "out."

// CandidateOutput is a candidate's tensor for the bundle's output name (without OutPrefix),
// and the name it has in candidate: out.NAME when candidate holds it (a candidate that is
// itself a bundle holds its input under NAME), else NAME; ok is false when it holds neither.
func CandidateOutput(candidate map[string]tensor.Tensor, name string) (t tensor.Tensor, found string, ok bool) {
	if t, ok := candidate[OutPrefix+name]; ok {
		return t, OutPrefix + name, true
	}
	t, ok = candidate[name]
	return t, name, ok
}

// Outputs is the names of the expected outputs s holds (out.NAME, NAME not empty), sorted;
// none for a nil or empty Set, or one that is not a bundle.
func (s *Set) Outputs() []string {
	if s == nil {
		return nil
	}
	var names []string
	for n := range s.Tensors {
		if strings.HasPrefix(n, OutPrefix) && len(n) > len(OutPrefix) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}
