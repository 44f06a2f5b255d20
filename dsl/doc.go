// Package dsl is Quiver's design language, a Goa plugin: design packages
// dot-import it beside Goa's DSL and declare toolsets, tools and agents once.
//
//	import (
//		. "goa.design/goa/v3/dsl"
//		. "github.com/quiver-go/quiver/dsl"
//	)
//
//	var Records = Toolset("records", func() {
//		Tool("search", "Search records by text", func() {
//			Args(func() { Attribute("query", String); Required("query") })
//		})
//	})
//
//	var _ = Service("assistant", func() {
//		Agent("reader", "Find and read records.", func() {
//			Use(Records, func() { Deferred("search") })
//		})
//	})
//
// Goa's own functions (Description, Title, Meta, Attribute, Required,
// Example, …) work on Quiver's expressions; this package never redefines
// them. Misuse of a Quiver function is reported with the function's name
// and the design file's location.
//
// Importing this package enables Quiver's code generator (package codegen)
// for goa gen: a design needs no other import to get Quiver's code. The
// generator depends on the expressions, never on this package or on
// anything that runs agents, so the declarations stay free of runtime
// imports.
package dsl
