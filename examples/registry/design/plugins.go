package design

// The Quiver code generator, enabled for goa gen: codegen registers itself
// as a Goa plugin in its init.
import _ "github.com/quiver-go/quiver/codegen"
