package native

// MRoPEAxis is the position axis of pair i: chunked (Qwen2-VL) takes consecutive runs of
// sections; interleaved (Qwen3-VL, as Hugging Face defines it) takes axis 1 for i%3 == 1 while
// i < 3·s1, axis 2 for i%3 == 2 while i < 3·s2, and axis 0 otherwise. A fourth section, when
// present, extends the chunked form.
func MRoPEAxis(i int, sections []int, interleaved bool) int {
	if interleaved {
		switch {
		case i%3 == 1 && i < 3*sections[1]:
			return 1
		case i%3 == 2 && i < 3*sections[2]:
			return 2
		}
		return 0
	}
	for a, s := range sections {
		if i < s {
			return a
		}
		i -= s
	}
	return len(sections) - 1
}
