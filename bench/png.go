package bench

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"math"
	"sort"

	"github.com/rotary-go/rotary/internal/fileio"
	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// WritePNG draws limit_ratio against tokens (log scale), one panel per op and model, one line
// per backend and dtype, with the 1.0 line (the limit) marked. Each panel labels its axes,
// says that higher is better and what the dashed reference line is.
func WritePNG(path string, results []Result) error {
	return fileio.WriteFile(path, 0o644, func(w io.Writer) error { return EncodePNG(w, results) })
}

// EncodePNG writes the image WritePNG draws to w.
func EncodePNG(w io.Writer, results []Result) error { return png.Encode(w, Plot(results)) }

type panelKey struct{ op, model string }

// Plot renders the results as an image (see WritePNG). Results no run produces (fewer than one
// token, a negative or non-finite limit ratio) are left out.
func Plot(results []Result) *image.RGBA { return plot(results, nil) }

// plot is Plot; text, when set, is given every string drawn (for tests).
func plot(results []Result, text func(string)) *image.RGBA {
	panels := map[panelKey][]Result{}
	var keys []panelKey
	for _, r := range results {
		// A run never measures these; drawn, they would stretch the axes without end.
		if r.Tokens < 1 || math.IsNaN(r.LimitRatio) || math.IsInf(r.LimitRatio, 0) || r.LimitRatio < 0 {
			continue
		}
		k := panelKey{r.Op, r.Model}
		if _, ok := panels[k]; !ok {
			keys = append(keys, k)
		}
		panels[k] = append(panels[k], r)
	}
	const pw, ph = 640, 360
	cols := min(2, max(1, len(keys)))
	rows := (len(keys) + cols - 1) / cols
	img := image.NewRGBA(image.Rect(0, 0, cols*pw, max(1, rows)*ph))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	for i, k := range keys {
		origin := image.Pt((i%cols)*pw, (i/cols)*ph)
		drawPanel(img, image.Rectangle{Min: origin, Max: origin.Add(image.Pt(pw, ph))}, k, panels[k], text)
	}
	return img
}

var palette = []color.RGBA{
	{0x1f, 0x77, 0xb4, 0xff}, {0xd6, 0x27, 0x28, 0xff}, {0x2c, 0xa0, 0x2c, 0xff}, {0xff, 0x7f, 0x0e, 0xff},
	{0x94, 0x67, 0xbd, 0xff}, {0x8c, 0x56, 0x4b, 0xff}, {0xe3, 0x77, 0xc2, 0xff}, {0x7f, 0x7f, 0x7f, 0xff},
	{0xbc, 0xbd, 0x22, 0xff}, {0x17, 0xbe, 0xcf, 0xff},
}

// The panel's words: what the axes measure and what the dashed line is, so that a PNG read
// on its own says what it shows.
const (
	yAxisLabel = "limit_ratio = t(limit) / t(op): higher is better"
	xAxisLabel = "tokens (log scale)"
)

// limitLegend explains the dashed line at 1.0, one legend line each.
var limitLegend = []string{"1.0 = the limit:", "the op's loads and", "stores, no arithmetic"}

func drawPanel(img *image.RGBA, r image.Rectangle, k panelKey, rs []Result, text func(string)) {
	label := func(img *image.RGBA, x, y int, s string, c color.Color) {
		if text != nil {
			text(s)
		}
		drawText(img, x, y, s, c)
	}
	plot := image.Rect(r.Min.X+50, r.Min.Y+46, r.Max.X-190, r.Max.Y-40)
	label(img, r.Min.X+50, r.Min.Y+16, k.op+" / "+k.model, color.Black)
	label(img, r.Min.X+8, r.Min.Y+36, yAxisLabel, color.Black)
	series := map[string][]Result{}
	var names []string
	minT, maxT, maxR := math.Inf(1), math.Inf(-1), 1.2
	for _, x := range rs {
		name := x.Backend + " " + x.DType
		if _, ok := series[name]; !ok {
			names = append(names, name)
		}
		series[name] = append(series[name], x)
		minT, maxT = math.Min(minT, float64(x.Tokens)), math.Max(maxT, float64(x.Tokens))
		maxR = math.Max(maxR, x.LimitRatio*1.05)
	}
	sort.Strings(names)
	lx := func(t float64) int {
		if maxT <= minT {
			return (plot.Min.X + plot.Max.X) / 2
		}
		return plot.Min.X + int(math.Log2(t/minT)/math.Log2(maxT/minT)*float64(plot.Dx()))
	}
	ly := func(v float64) int { return plot.Max.Y - int(v/maxR*float64(plot.Dy())) }
	gray := color.RGBA{0xcc, 0xcc, 0xcc, 0xff}
	// axes, grid and ticks
	line(img, plot.Min.X, plot.Max.Y, plot.Max.X, plot.Max.Y, color.Black)
	line(img, plot.Min.X, plot.Min.Y, plot.Min.X, plot.Max.Y, color.Black)
	for v := 0.0; v <= maxR; v += tickStep(maxR) {
		y := ly(v)
		line(img, plot.Min.X+1, y, plot.Max.X, y, gray)
		label(img, r.Min.X+8, y+4, fmt.Sprintf("%.2g", v), color.Black)
	}
	y1 := ly(1)
	for x := plot.Min.X; x < plot.Max.X; x += 6 {
		line(img, x, y1, min(x+3, plot.Max.X), y1, color.Black) // the limit
	}
	for t := minT; t <= maxT*1.0001; t *= 2 {
		if t != minT && t != maxT && !isPow(t, 4) {
			continue
		}
		x := lx(t)
		line(img, x, plot.Max.Y, x, plot.Max.Y+4, color.Black)
		label(img, x-8, plot.Max.Y+16, fmt.Sprint(int(t)), color.Black)
	}
	label(img, plot.Min.X+plot.Dx()/2-60, r.Max.Y-8, xAxisLabel, color.Black)
	for i, name := range names {
		c := palette[i%len(palette)]
		pts := series[name]
		sort.Slice(pts, func(a, b int) bool { return pts[a].Tokens < pts[b].Tokens })
		for j, p := range pts {
			x, y := lx(float64(p.Tokens)), ly(p.LimitRatio)
			dot(img, x, y, c)
			if j > 0 {
				thick(img, lx(float64(pts[j-1].Tokens)), ly(pts[j-1].LimitRatio), x, y, c)
			}
		}
		ly0 := plot.Min.Y + 10 + i*16
		thick(img, plot.Max.X+10, ly0, plot.Max.X+28, ly0, c)
		label(img, plot.Max.X+32, ly0+4, name, color.Black)
	}
	ly0 := plot.Min.Y + 10 + len(names)*16 + 8
	for x := plot.Max.X + 10; x < plot.Max.X+28; x += 6 {
		line(img, x, ly0, x+3, ly0, color.Black)
	}
	for i, s := range limitLegend {
		label(img, plot.Max.X+32, ly0+4+i*14, s, color.Black)
	}
}

func isPow(t, b float64) bool {
	l := math.Log(t) / math.Log(b)
	return math.Abs(l-math.Round(l)) < 1e-9
}

func tickStep(maxR float64) float64 {
	switch {
	case maxR <= 1.5:
		return 0.25
	case maxR <= 3:
		return 0.5
	}
	return 1
}

func drawText(img *image.RGBA, x, y int, s string, c color.Color) {
	d := font.Drawer{Dst: img, Src: image.NewUniform(c), Face: basicfont.Face7x13, Dot: fixed.P(x, y)}
	d.DrawString(s)
}

func line(img *image.RGBA, x0, y0, x1, y1 int, c color.Color) {
	dx, dy := abs(x1-x0), -abs(y1-y0)
	sx, sy := sign(x1-x0), sign(y1-y0)
	e := dx + dy
	for {
		img.Set(x0, y0, c)
		if x0 == x1 && y0 == y1 {
			return
		}
		e2 := 2 * e
		if e2 >= dy {
			e += dy
			x0 += sx
		}
		if e2 <= dx {
			e += dx
			y0 += sy
		}
	}
}

func thick(img *image.RGBA, x0, y0, x1, y1 int, c color.Color) {
	for o := -1; o <= 1; o++ {
		line(img, x0, y0+o, x1, y1+o, c)
	}
}

func dot(img *image.RGBA, x, y int, c color.Color) {
	for i := -3; i <= 3; i++ {
		for j := -3; j <= 3; j++ {
			if i*i+j*j <= 9 {
				img.Set(x+i, y+j, c)
			}
		}
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

func sign(v int) int {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}
