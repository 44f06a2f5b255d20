//go:build !race

package boltstore_test

// raceBuild: the test binary has no race detector (see race_test.go).
const raceBuild = false
