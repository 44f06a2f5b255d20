package design

// The Quiver code generator, enabled for goa gen: codegen registers itself
// as a Goa plugin in its init. The import lives in this file alone, apart
// from the declarations, so that the declaration files still import the two
// DSLs only (design_test.go checks both).
import _ "github.com/quiver-go/quiver/codegen"
