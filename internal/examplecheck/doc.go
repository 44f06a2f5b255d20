// Package examplecheck holds the checks every example's tests make: that
// its committed generated code is what goa gen writes from its design now
// (GeneratedCurrent), and that what it prints matches its golden file
// (Golden).
package examplecheck
