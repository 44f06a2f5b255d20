//go:build !race

package search_test

// raceEnabled reports whether the tests were built with the race detector.
const raceEnabled = false
