package compare

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/rotary-go/rotary/ops"
)

// Axes says what the dimensions of a file's tensors are: the op that made them (a
// golden bundle's __metadata__ "op", canonical) and its layout ("layout"), when known.
type Axes struct {
	Op, Layout string // the canonical op name; its layout, upper case
	HeadSize   int    // the op's --head-size, which splits a [T,H·D] query or key into heads
	CacheMode  string // kv_rmsnorm_rope_cache's --cache-mode, upper case; "" is its default, Norm
}

func AxesOf(md map[string]string) Axes {
	c := Axes{Layout: strings.ToUpper(md["layout"])}
	if op, ok := ops.Canonical(md["op"]); ok {
		c.Op = op
	}
	// rotary golden records the op's flags as apply_args, a JSON list of strings; a "layout"
	// of the metadata's own wins over theirs.
	var args []string
	if json.Unmarshal([]byte(md["apply_args"]), &args) == nil {
		fromMetadata := c.Layout != ""
		for i := 0; i+1 < len(args); i++ {
			switch strings.TrimLeft(args[i], "-") {
			case "layout":
				if !fromMetadata {
					c.Layout = strings.ToUpper(args[i+1])
				}
			case "head-size":
				c.HeadSize, _ = strconv.Atoi(args[i+1])
			case "cache-mode":
				c.CacheMode = strings.ToUpper(args[i+1])
			}
		}
	}
	return c
}

// locate is the shape in which an element of tensor name is located, and its axes: a [T,H·D]
// query or key is split into heads when the op's head size is known.
func (c Axes) locate(name string, shape []int) ([]int, []string) {
	base := strings.TrimPrefix(name, "out.")
	if (base == "query" || base == "key") && len(shape) == 2 && c.HeadSize > 0 && shape[1]%c.HeadSize == 0 {
		shape = []int{shape[0], shape[1] / c.HeadSize, c.HeadSize}
	}
	return shape, c.axes(name, shape)
}

// axes names the dimensions of tensor name (an "out." prefix ignored) of the given shape.
// query and key are [T,H,D] or [T,H·D] in every op of this tool that has them; the other
// names follow their op's layout; anything else is dim0, dim1, ...
func (c Axes) axes(name string, shape []int) []string {
	name = strings.TrimPrefix(name, "out.")
	rank := len(shape)
	var named []string
	switch {
	case name == "query" || name == "key":
		switch rank {
		case 3:
			named = []string{"token", "head", "dim"}
		case 2:
			named = []string{"token", "head·dim"}
		}
	case c.Op == "apply_rotary_emb" || c.Op == "apply_rotary_emb_backward":
		switch name {
		case "out", "x", "dx", "dy", "cos", "sin", "dcos", "dsin": // cos/sin: the layout with one head
			named = layoutAxes(c.Layout, rank)
		}
	case c.Op == "apply_rotary_emb_thd" || c.Op == "apply_rotary_emb_thd_backward":
		if (name == "out" || name == "x" || name == "dx" || name == "dy") && rank == 3 {
			named = []string{"token", "head", "dim"}
		}
	case c.Op == "interleave_rope":
		if (name == "out" || name == "x") && rank == 4 {
			named = []string{"batch", "head", "seq", "dim"}
		}
	case c.Op == "kv_rmsnorm_rope_cache" && rank == 4:
		// torch_npu npu_kv_rmsnorm_rope_cache: the caches are [batch, 1, cache_length, D] in
		// Norm mode and [block_num, block_size, 1, D] in the paged ones; the FRACTAL_NZ modes
		// keep them in another memory order, which no such names describe.
		switch {
		case name == "k_rope" || name == "c_kv":
			named = []string{"batch", "head", "seq", "dim"}
		case name != "k_cache" && name != "ckv_cache":
		case c.CacheMode == "" || c.CacheMode == "NORM":
			named = []string{"batch", "head", "slot", "dim"}
		case c.CacheMode == "PA" || c.CacheMode == "PA_BNSD" || c.CacheMode == "PA_BLK_BNSD" || c.CacheMode == "PA_BLK_BSND":
			named = []string{"block", "slot", "head", "dim"}
		}
	}
	if named != nil {
		return named
	}
	out := make([]string, rank)
	for i := range out {
		out[i] = "dim" + strconv.Itoa(i)
	}
	return out
}

// layoutAxes names the dimensions of apply_rotary_emb's x in a layout (torch_npu
// npu_rotary_mul's BSND, BNSD, SBND; TND for packed tokens).
func layoutAxes(layout string, rank int) []string {
	named := map[string][]string{
		"BSND": {"batch", "seq", "head", "dim"},
		"BNSD": {"batch", "head", "seq", "dim"},
		"SBND": {"seq", "batch", "head", "dim"},
		"THD":  {"token", "head", "dim"},
		"TND":  {"token", "head", "dim"},
	}[layout]
	if len(named) != rank {
		return nil
	}
	return named
}
