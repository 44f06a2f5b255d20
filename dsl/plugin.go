package dsl

// The DSL imports its generator: a design that uses Quiver's DSL gets
// Quiver's code from goa gen without importing the plugin itself.
import _ "github.com/quiver-go/quiver/codegen"
