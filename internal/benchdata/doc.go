// Package benchdata reads the benchmark data that ships in the repository at
// bench/data (public tool catalogs and the labelled MetaTool retrieval set;
// bench/data/README.md says what each file is and under which licence).
//
// It is for tests only: the root module's quality and exact-name tests in
// search/ and the peer comparisons of the benchmark module in bench/ both
// read the data through it, so the two load, index and score the files the
// same way. No non-test package may import it, and the root go.mod may name
// no benchmark peer (guard tests check both).
//
// The data folder is found from the current directory, which is the package
// directory under go test: walk up to the directory whose go.mod declares
// the module github.com/quiver-go/quiver (passing the benchmark module's own
// go.mod) and take its bench/data. The data is part of every clone, so a test
// that needs it fails, never skips, when it is missing from a checkout. It
// skips only in a module download (the root module's tests run from the
// module cache), which does not hold bench/data: that folder belongs to the
// benchmark module, keeping the root module's download small. Typical use:
//
//	tools := benchdata.Tools(t, benchdata.MetaToolCatalogFile)
//	queries := benchdata.Queries(t)
package benchdata
