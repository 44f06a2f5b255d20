// Package boundedinput reads input files under a size limit, so that a
// command handed /dev/zero, an endless pipe or a multi-gigabyte file fails
// at once with an error that says so, instead of filling the memory.
//
// Open checks a regular file's size from its metadata before reading a
// byte; for anything else (a pipe, stdin, a device) and for a file that
// grows while it is read, the reader it returns fails with a
// *TooLargeError as soon as one byte more than the limit arrives. Limit
// does the same for a reader already open.
//
// Invariants:
//   - a reader never returns more than the limit's bytes: the byte that
//     crosses it is read, discarded and reported as a *TooLargeError;
//   - every error about size matches ErrTooLarge (errors.Is) and names the
//     source, the limit and, when known, the size;
//   - sizes are written and parsed in one format (FormatSize, ParseSize):
//     "64 MiB", "1.5 GiB", "512 B".
//
// Catalog files (package tools/catalogfile) and labelled query files
// (package search/eval, through the quiver command) are read with it.
package boundedinput
