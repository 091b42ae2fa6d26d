// Package bench is the benchmark suite behind `rotary bench`: ops × backends × dtypes × token
// counts on real model shapes, each timed in the same run and on the same threads against the
// limit, a pass that loads and stores exactly the bytes the op reads and writes with no
// arithmetic between (limit_ratio = t(limit)/t(op), 1.0 at the limit), and against a plain copy
// of the same byte count (ratio = t(copy)/t(op)). The ratios are the figures to quote: absolute
// numbers drift between machines, the ratios much less.
package bench
