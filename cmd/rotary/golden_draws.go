package main

// The draws and config readings several ops' golden inputs share; each op makes its own
// inputs in its apply_<op>.go (applyOp.golden).

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/rotary-go/rotary/tensor"
)

// int8s is a tensor of uniform int8 values (the draw's top byte): an int8 cache's old contents.
func (g *goldenGen) int8s(name string, shape ...int) tensor.Tensor {
	n := g.elements(name, shape...)
	if n < 0 {
		return tensor.Tensor{}
	}
	v := make([]int8, n)
	for i := range v {
		v[i] = int8(g.rng.Uint64() >> 56)
	}
	return tensor.FromI8(v, shape...)
}

// scales are F32 per-channel quantisation scales 32·(1.5 + v), v uniform in (−1, 1): 16 to 80,
// so that the normalised part (|y| up to a few) and the rotated rope part (|y| < 2) use the int8
// range and some values saturate.
func (g *goldenGen) scales(n int) tensor.Tensor {
	v := make([]float32, n)
	for i := range v {
		v[i] = 32 * (1.5 + g.uniform())
	}
	return tensor.FromF32(v, n)
}

// offsets are F32 per-channel quantisation offsets 8·v, v uniform in (−1, 1).
func (g *goldenGen) offsets(n int) tensor.Tensor {
	v := make([]float32, n)
	for i := range v {
		v[i] = 8 * g.uniform()
	}
	return tensor.FromF32(v, n)
}

// shuffled is a seeded permutation of 0..n−1 (Fisher–Yates).
func (g *goldenGen) shuffled(n int) []int64 {
	v := make([]int64, n)
	for i := range v {
		v[i] = int64(i)
	}
	for i := n - 1; i > 0; i-- {
		j := g.intn(int64(i + 1))
		v[i], v[j] = v[j], v[i]
	}
	return v
}

// configRMSNormEps is the config's rms_norm_eps (text_config's first) as a flag value, when it is
// a finite number ≥ 0.
func configRMSNormEps(configJSON []byte) (string, bool) {
	var c struct {
		Eps        *float64 `json:"rms_norm_eps"`
		TextConfig *struct {
			Eps *float64 `json:"rms_norm_eps"`
		} `json:"text_config"`
	}
	if json.Unmarshal(configJSON, &c) != nil {
		return "", false
	}
	eps := c.Eps
	if c.TextConfig != nil && c.TextConfig.Eps != nil {
		eps = c.TextConfig.Eps
	}
	if eps == nil || !(*eps >= 0) || math.IsInf(*eps, 0) {
		return "", false
	}
	return strconv.FormatFloat(*eps, 'g', -1, 64), true
}

// kvLoraRank is the config's kv_lora_rank (DeepSeek MLA's compressed kv width), or
// goldenKVLoraRank.
func kvLoraRank(configJSON []byte) int {
	var c struct {
		Rank       int `json:"kv_lora_rank"`
		TextConfig *struct {
			Rank int `json:"kv_lora_rank"`
		} `json:"text_config"`
	}
	if json.Unmarshal(configJSON, &c) != nil {
		return goldenKVLoraRank
	}
	switch {
	case c.TextConfig != nil && c.TextConfig.Rank > 0 && c.TextConfig.Rank <= 1<<16:
		return c.TextConfig.Rank
	case c.Rank > 0 && c.Rank <= 1<<16:
		return c.Rank
	}
	return goldenKVLoraRank
}
