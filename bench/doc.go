// Package bench is the benchmark suite behind `rotary bench`: ops × backends ×
// dtypes × token counts on real model shapes, each timed against a plain copy of the same byte
// count on the same threads in the same run. The ratio t(copy)/t(op) is the figure to quote:
// absolute numbers drift between machines, the ratio much less.
package bench
