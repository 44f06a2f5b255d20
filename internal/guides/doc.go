// Package guides owns the tests that run the docs' guides as written: each
// test reads its guide's Markdown (docs/getting-started.md, …), writes the
// files its code blocks name into a temporary module, runs its shell
// blocks in order with the module proxy off, and compares what they print
// with the output the guide shows. A guide that stops compiling, loses a step or prints
// something else fails its test. The package has no code of its own.
//
// The conventions a guide follows, so that its test can read it:
//
//   - ```go title="design/design.go"``` (any language, with a title): a
//     file, written at that path relative to the current folder;
//   - ```sh```: commands, run with bash in the current folder, which a cd
//     in them changes for the blocks after;
//   - ```text```: the standard output of the sh block before it, compared
//     exactly (but for leading and trailing blank space);
//   - a line starting with "<!-- not run:": the blocks after it need what
//     the test cannot have (a provider's key, the network): their files
//     are written and type-checked (go vet), and no command runs.
//
// Blocks of other languages without a title (snippets) are not read.
package guides
