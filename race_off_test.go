//go:build !race

package rotary_test

const raceEnabled = false
