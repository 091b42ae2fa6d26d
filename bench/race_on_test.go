//go:build race

package bench

// raceEnabled: the race detector makes sync.Pool drop items on purpose, so allocation counts
// through pooled scratch are not meaningful under it.
const raceEnabled = true
