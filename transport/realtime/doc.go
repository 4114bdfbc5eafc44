// Package realtime turns the journal into socket events. Each node runs one
// Publisher: it tails every journal event in position order, waits until the read
// models have applied it, and publishes the matching Socket.IO event (ticket,
// appMessage, whatsappSession, contact…) to the node's hub, numbered with the event's
// journal position. Positions are the same on every node, so a client that reconnects
// anywhere with its last number is replayed exactly what it missed; and fan-out
// crosses the network once per node (each node reads the journal once).
//
// Reference-data changes that have no stream of their own (contacts, users, queues,
// tags…) reach every node the same way: Bus implements the REST API's Publisher by
// appending them to the tenant's stream "realtime/<companyId>".
//
// One journal event yields at most one socket event, so a number names one event.
// A ticket that changes status or holder is one event with a lead frame (see
// socket.Event.Lead): whaticket's "delete" to the status room it left, before the
// "update" to the room it entered.
// Concurrency: Publisher runs one goroutine; Bus is safe for concurrent use.
package realtime
