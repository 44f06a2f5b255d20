//go:build race

package boltstore_test

// raceBuild: the test binary has the race detector, so the programs it
// builds do too (their packages are then already compiled in the cache).
const raceBuild = true
