// Package jobs runs a node's one River client (riverqueue/river): the durable jobs of
// every package — schedule fires, campaign runs, flow timers, group batches, dashboard
// rebuilds — are worked by it, on river_job in our own database (riverpgxv5 on
// PostgreSQL, riversqlite on SQLite).
//
// Each package keeps its job args and workers and describes them as Kinds (a queue,
// how many of its jobs a node works at once, a Register function, periodic jobs);
// cmd/atende hands every package's Kinds to New, starts the client once the HTTP API
// exists and stops it before the actors and the API its jobs call go away.
//
// Why one client: River elects one leader among all started clients on the table for
// its maintenance, and the leader's rescuer discards a stuck job whose kind its client
// has no worker for. With one client per node working every kind, whichever node leads
// rescues (retries) the running job of a node that died, whatever its kind.
//
// A Client built without Kinds (NewInserter) only inserts and cancels jobs: it is
// never started, so it takes no part in the leader election. Stores use one to insert
// their jobs in their own transactions (InsertTx); the node's working client may be
// used the same way.
//
// A Client is safe for concurrent use.
package jobs
