// Package examplecheck holds the checks every example's tests make: that
// its committed generated code is what goa gen writes from its design now
// (GeneratedCurrent), and that what it prints matches its golden file
// (Golden). Tests that edit a design use its parts: CopyModule copies the
// module to a temporary directory, GoaCLI builds the goa CLI go.mod
// requires, GoaGen runs it in the copy, Go runs the go command there.
package examplecheck
