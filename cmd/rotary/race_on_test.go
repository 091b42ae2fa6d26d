//go:build race

package main

// raceEnabled: the race detector multiplies time and memory, so the tests that measure either
// skip under it.
const raceEnabled = true
