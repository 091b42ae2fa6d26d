package check

import (
	"slices"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/hf"
)

// TestParseDialects: a list of two or more framework dialects, repeats dropped; the reference
// reading, an unknown name or a list of one is refused, naming the word and what is wanted.
func TestParseDialects(t *testing.T) {
	got, err := ParseDialects("hf, vllm,hf")
	if err != nil || !slices.Equal(got, []hf.Dialect{hf.DialectHF, hf.DialectVLLM}) {
		t.Errorf("hf, vllm,hf: %v, %v", got, err)
	}
	for _, c := range []struct{ list, err string }{
		{"hf", `"hf": want at least two dialects`},
		{"hf,hf", `"hf,hf": want at least two dialects`},
		{"hf,tgi", `dialect "tgi": want hf, hf-4.57, vllm`},
		{"hf,reference", `dialect "reference": the reference reading is not a framework`},
		{"hf,", `dialect "": want`},
		{"", `dialect "": want`},
	} {
		if _, err := ParseDialects(c.list); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%q: %v, want %q", c.list, err, c.err)
		}
	}
}

// TestFrameworksAllDialects: nil dialects compare every one (hf.Dialects), as Frameworks says.
func TestFrameworksAllDialects(t *testing.T) {
	data, err := hf.PresetJSON("phi-3-mini-128k")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Frameworks(data, hf.ParseOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, d := range hf.Dialects() {
		want = append(want, string(d))
	}
	if !slices.Equal(r.Dialects, want) || len(r.Rows) == 0 {
		t.Errorf("nil dialects: %v, %d rows; want %v and phi-3's LongRoPE rows", r.Dialects, len(r.Rows), want)
	}
}
