// Package sourceguard holds tests that read the module's own Go source and
// fail when a copy the project removed comes back: a model-facing message
// written twice, a helper declared in several packages, a forbidden
// import. Copies too short for a duplicate finder to see are caught here by
// name or by text. The package has no non-test code.
package sourceguard
