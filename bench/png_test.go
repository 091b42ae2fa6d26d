package bench

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWritePNGRefusesSpecialFiles: --png goes through the same atomic replace as every other
// output, so a symlink is refused and left as it was, and a failed write leaves nothing.
func TestWritePNGRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.png")
	if err := os.Symlink(target, link); err != nil {
		t.Skip(err)
	}
	if err := WritePNG(link, nil); err == nil {
		t.Errorf("WritePNG over a symlink: no error")
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced: %v", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Errorf("the link's target changed: %q", b)
	}
	plain := filepath.Join(dir, "plain.png")
	if err := WritePNG(plain, nil); err != nil {
		t.Fatalf("WritePNG to a new file: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("directory holds %d entries after the writes, want 3 (no temporary file left)", len(entries))
	}
}

// TestPlotSaysWhatItShows: every panel labels both axes, says that higher is better, and
// explains the dashed reference line, in words that fit its legend column.
func TestPlotSaysWhatItShows(t *testing.T) {
	rs := []Result{
		{Op: "rotary_embedding", Model: "m", Backend: "cpu", DType: "F32", Tokens: 1, LimitRatio: 0.5},
		{Op: "rotary_embedding", Model: "m", Backend: "cpu", DType: "F32", Tokens: 16, LimitRatio: 0.9},
		{Op: "mrope", Model: "m", Backend: "native", DType: "BF16", Tokens: 4, LimitRatio: 0.1},
	}
	var drawn []string
	img := plot(rs, func(s string) { drawn = append(drawn, s) })
	count := func(s string) int {
		n := 0
		for _, d := range drawn {
			if d == s {
				n++
			}
		}
		return n
	}
	for _, s := range append([]string{yAxisLabel, xAxisLabel}, limitLegend...) {
		if n := count(s); n != 2 {
			t.Errorf("%q drawn %d times, want once per panel (2)", s, n)
		}
	}
	if !strings.Contains(yAxisLabel, "higher is better") || !strings.Contains(yAxisLabel, "limit_ratio") {
		t.Errorf("y axis label %q does not say what is measured and which way is better", yAxisLabel)
	}
	if !strings.Contains(strings.Join(limitLegend, " "), "1.0") {
		t.Errorf("legend %q does not name the reference line", limitLegend)
	}
	// The legend column is the panel's last 190 pixels less the 32 before the text; 7-pixel
	// glyphs.
	for _, s := range limitLegend {
		if len([]rune(s))*7 > 190-32 {
			t.Errorf("legend line %q is wider than its column", s)
		}
	}
	if img.Bounds().Dx() != 2*640 {
		t.Errorf("two panels side by side: width %d", img.Bounds().Dx())
	}
}

// TestPlotDegenerateResults: results no run produces (zero or negative tokens, infinite or NaN
// ratios) still give a picture and return; the tick loops used to spin forever on them.
func TestPlotDegenerateResults(t *testing.T) {
	for _, rs := range [][]Result{
		{{}},
		{{Op: "x", Tokens: -4, LimitRatio: 1}},
		{{Op: "x", Tokens: 16, LimitRatio: math.Inf(1)}},
		{{Op: "x", Tokens: 16, LimitRatio: math.NaN()}, {Op: "x", Tokens: 0, LimitRatio: -1}},
		{{Op: "x", Tokens: math.MaxInt, LimitRatio: 1}, {Op: "x", Tokens: 1, LimitRatio: 1}},
	} {
		done := make(chan struct{})
		go func() {
			defer close(done)
			if img := Plot(rs); img == nil || img.Bounds().Empty() {
				t.Errorf("Plot(%+v): no image", rs)
			}
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("Plot(%+v) did not return in 20 s", rs)
		}
	}
}
