// Package typos makes the misspellings the search tests and benchmarks
// measure forgiveness with: one-edit typos of tool names and typo-perturbed
// copies of labelled queries. Every function takes its random source, and
// [New] seeds one with [Seed], so a committed test or benchmark always sees
// the same typos.
//
// It is test support: nothing in the product imports it.
package typos
