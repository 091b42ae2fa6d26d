package check_test

import (
	"fmt"
	"io"
	"math"
	"testing"
	"time"

	"github.com/rotary-go/rotary/check"
	"github.com/rotary-go/rotary/gguf"
	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/internal/zerotest"
	rp "github.com/rotary-go/rotary/rope"
)

// TestZeroValueNew: Inspect and InspectGGUF with nil and zero models and files and layers out of
// range, every report's WriteText on nil and zero reports and a nil writer, SpecWords of zero
// and malformed specs, Guess of no findings and ParseDialects of empty and unknown lists return
// an error or a zero result and never panic.
func TestZeroValueNew(t *testing.T) {
	llama, err := hf.Preset("llama-3.1-8b")
	if err != nil {
		t.Fatal(err)
	}
	zerotest.Run(t, map[string]func() error{
		"Inspect(nil)":      func() error { _, err := check.Inspect(nil, hf.Selection{}); return zerotest.WantErr(err) },
		"Inspect(zero)":     func() error { _, err := check.Inspect(&hf.Model{}, hf.Selection{}); return zerotest.WantErr(err) },
		"Inspect(layer -1)": func() error { _, err := check.Inspect(llama, hf.Selection{Layer: -1}); return zerotest.WantErr(err) },
		"Inspect(layer max)": func() error {
			_, err := check.Inspect(llama, hf.Selection{Layer: math.MaxInt})
			return zerotest.WantErr(err)
		},
		"Inspect(rope 255)": func() error { _, err := check.Inspect(llama, hf.Selection{RoPE: 255}); return zerotest.WantErr(err) },
		"InspectGGUF(nil)":  func() error { _, err := check.InspectGGUF(nil, 0); return zerotest.WantErr(err) },
		"InspectGGUF(zero)": func() error { _, err := check.InspectGGUF(&gguf.File{}, -1); return zerotest.WantErr(err) },
		"WriteText": func() error {
			(*check.InspectReport)(nil).WriteText(io.Discard)
			(&check.InspectReport{}).WriteText(io.Discard)
			(&check.InspectReport{GGUF: &check.GGUFFacts{}, Indexer: &check.IndexerReport{}, InvFreq: []float64{1}, Rope: "indexer",
				Local: &rp.LocalRoPE{}, MRoPE: &rp.MRoPE{Sections: []int{-1, 1 << 40}}, DualChunk: &rp.DualChunk{}}).WriteText(io.Discard)
			r, err := check.Inspect(llama, hf.Selection{})
			if err != nil {
				return err
			}
			r.WriteText(nil)
			return nil
		},
		"WriteText(others)": func() error {
			(*check.FrameworksReport)(nil).WriteText(io.Discard)
			(&check.FrameworksReport{}).WriteText(nil)
			(&check.FrameworksReport{}).WriteText(io.Discard)
			(*check.GGUFReport)(nil).WriteText(io.Discard)
			(&check.GGUFReport{}).WriteText(nil)
			(&check.GGUFReport{}).WriteText(io.Discard)
			(*check.PrecisionReport)(nil).WriteText(io.Discard)
			(&check.PrecisionReport{}).WriteText(nil)
			(&check.PrecisionReport{}).WriteText(io.Discard)
			return nil
		},
		"SpecWords": func() error {
			_ = check.SpecWords(rp.Spec{})
			_ = check.SpecWords(rp.Spec{MRoPE: &rp.MRoPE{}, Local: &rp.LocalRoPE{}, DualChunk: &rp.DualChunk{}})
			_ = check.SpecWords(rp.Spec{HeadSize: 8, RotaryDim: 8, MRoPE: &rp.MRoPE{Sections: []int{-1, 1 << 40, 2}, GGMLFourth: true}})
			return nil
		},
		"Guess(nil)": func() error {
			if _, ok := check.Guess(nil); ok {
				return fmt.Errorf("a guess in no findings")
			}
			return nil
		},
		"ParseDialects": func() error {
			for _, s := range []string{"", ",", "?", "reference", "vllm", "vllm,vllm"} {
				if _, err := check.ParseDialects(s); err == nil {
					return fmt.Errorf("ParseDialects(%q): no error", s)
				}
			}
			return nil
		},
	})
}

// TestSpecWordsBounded: SpecWords of a spec whose rotary dim no valid spec has (Validate's head
// size limit is 65536) answers at once: the pairs it names are a valid spec's at most, not a
// loop over the number given.
func TestSpecWordsBounded(t *testing.T) {
	done := make(chan string, 1)
	go func() {
		done <- check.SpecWords(rp.Spec{HeadSize: 8, RotaryDim: 1 << 40, MRoPE: &rp.MRoPE{Sections: []int{1, 1, 1, 1}, Interleaved: true, GGMLFourth: true}})
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("SpecWords of rotary dim 2^40: no answer after 5 s")
	}
	if n := len(check.FourthRowPairs(&rp.MRoPE{Sections: []int{1, 1, 1, 1}, Interleaved: true, GGMLFourth: true}, 1<<40)); n > 1<<15 {
		t.Errorf("FourthRowPairs of 2^40 pairs: %d, want at most a valid spec's 32768", n)
	}
}
