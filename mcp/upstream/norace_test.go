//go:build !race

package upstream_test

// raceBuild builds the test server with the race detector when the test
// itself runs with it.
const raceBuild = false
