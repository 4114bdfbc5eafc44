// Package node assembles and runs one Atende server node: it opens and migrates the
// database, starts the journal and the projections, the actor node (alone or as a
// cluster member), the channel adapters, the realtime gateway, the REST API and the
// River worker, and shuts them down in reverse order.
//
// It also holds the policies and bridges that join those layers and belong to none
// of them: presence keeping, the web chat's cluster bridge and its retrying sink,
// the web chat's history and call queries, the socket join policy, the ticket
// targeting of WABA templates, and the announcer of user changes and logouts.
//
// node may import engine, goroutine, actors, persistence, transport, cluster and the
// embedded web app and docs; only cmd/ imports node (cmd/atende/layers_test.go holds
// both rules). cmd/atende reads the configuration into a Config, calls New and Run.
//
// Concurrency: New, Run and ServeOn are called once, from one goroutine; the
// inspection methods (DB, Metrics, WebchatStats…) may be called from any goroutine
// while the node serves. Its goroutines start through package goroutine or the
// actor node's actors.Routines; those a close must wait for are waited for by the
// closer that stops them.
package node
