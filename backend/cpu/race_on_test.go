//go:build race

package cpu_test

// raceEnabled: the race detector instruments every element access of the Go reference kernels,
// and under it the full sweeps took most of go test's default timeout on a loaded 2-core
// machine. Under it the sweeps shrink to fewer sizes and values; the tests that split calls
// across the pool, which are what it is here for, keep every case, and the ordinary go test runs
// the full sweeps.
const raceEnabled = true
