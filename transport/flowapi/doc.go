// Package flowapi serves the Bizflow REST routes (/flows, docs/api.md, "Bizflow flows"):
// list, read, create, update and delete a tenant's flows, for profiles with
// flows:manage. Every change is announced on the socket as the "flow" event to the
// tenant's sockets that may manage flows. Handlers are safe for concurrent use.
package flowapi
