// Package catalog owns one planning activity's tool surface: the tools an
// agent may use this step after policy filtering, with the wire names a
// model reads, the definitions it is advertised, and the admission decision
// for each call it makes.
//
// A [Catalog] is built once per planning activity and never changes; concurrent
// runs each build their own. Its [Snapshot] is plain data that travels with the
// workflow, so admission — which runs in deterministic workflow code — asks
// the same surface the planner saw.
package catalog
