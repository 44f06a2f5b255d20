// Package expr holds the expressions a Quiver design evaluates to —
// toolsets, tools, agents and their uses — with their validation and
// finalization. It is Goa plugin code: the root registers with Goa's eval
// engine, runs after Goa's own root (services must exist before the agents
// declared in them are walked), and reports errors that point at the design
// file.
//
// It builds no code; codegen reads the finalized expressions.
package expr
