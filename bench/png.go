package bench

import "fmt"

// WritePNG draws the bandwidth ratio against tokens per backend and dtype.
func WritePNG(path string, results []Result) error {
	return fmt.Errorf("not yet")
}
