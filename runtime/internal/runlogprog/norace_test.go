//go:build !race

package main

// raceBuild builds the test program with the race detector when the test
// itself runs with it.
const raceBuild = false
