// Package shareddata locates the benchmark data that travels beside the
// repository (public tool catalogs and the labelled MetaTool retrieval set).
//
// The data is not part of the module: it lives in a shared/data folder next
// to the repository checkout, which CI provides and a user's clone usually
// does not. Tests and benchmarks that need it call Require, which skips them
// with instructions when the folder is absent.
//
// Lookup order:
//  1. the environment variable QUIVER_SHARED_DATA, when set;
//  2. otherwise <root>/../shared/data, where <root> is the nearest directory
//     at or above the current one whose go.mod declares the module
//     github.com/quiver-go/quiver.
package shareddata
