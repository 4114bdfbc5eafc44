// Package flow keeps the Bizflow flows of the tenants (Store, engine.FlowStore), the
// hint table of unfinished runs (Runs) and the durable wait timeouts of running flows
// (Timers, River jobs of kind "flow.timeout"). The runs themselves live in the
// journal (streams flow/<ticketId>), written by the flow actor (actors/flow.go).
//
// Every method is safe for concurrent use; every query is scoped to a tenant.
package flow
