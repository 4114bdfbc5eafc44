// Package socket is Atende's realtime gateway: a websocket server on gobwas/ws that
// speaks the Socket.IO v4 wire protocol (Engine.IO protocol 4, Socket.IO protocol 5)
// over the websocket transport only, so that unmodified socket.io-client v3 and v4
// connect with transports: ['websocket']. The codec lives in package sio.
//
// # Wiring
//
//	hub, _ := socket.NewHub(socket.HubConfig{Logger: log})
//	srv, _ := socket.NewServer(socket.Config{Hub: hub, Authenticator: authn, Authorizer: authz, Logger: log})
//	mux.Handle("/socket.io/", srv)
//	…
//	hub.Publish(socket.Event{Tenant: companyID, Rooms: []socket.Room{socket.ChatBoxRoom(ticketID)},
//		Name: "appMessage", Payload: payload})
//	…
//	srv.Shutdown(ctx)
//
// # Wire subset
//
// Handshake: GET /socket.io/?EIO=4&transport=websocket, optionally &token=… and
// &lastSeq=N. socket.io-client v3 (engine.io-client 4) and v4 (engine.io-client 6)
// both send EIO=4; v2 clients send EIO=3 and get HTTP 400 {"code":5,…}; polling gets
// {"code":0,"message":"Transport unknown"}.
//
// Before the upgrade each handshake passes Config.Gate (package netlimit): beyond the
// open sockets allowed per client address, or the new ones per second, it gets HTTP
// 429 {"code":3,"message":"too many connections from this address"}; beyond the
// node's total or rate, 503; both with Retry-After in seconds. A socket holds its
// place until it ends.
//
// The server then sends the open packet 0{"sid","upgrades":[],"pingInterval",
// "pingTimeout","maxPayload"}, pings "2" every PingInterval and expects pong "3"
// within PingTimeout. The client sends CONNECT 40 with an optional auth object
// {"token","lastSeq"} (v4.6+ adds "pid" and "offset"); the token is the query's
// token= if present, else auth.token, "Bearer " prefix allowed. Missing: CONNECT_ERROR
// 44{"message":"ERR_SESSION_EXPIRED"}; refused: ERR_INVALID_TOKEN (or
// ERR_SESSION_EXPIRED when the Authenticator says so); both then close with 1008.
// Accepted: 40{"sid","pid"}. Namespaces other than "/" get
// 44/<nsp>,{"message":"Invalid namespace"}. One Socket.IO session per websocket: the
// client's DISCONNECT 41 closes the websocket.
//
// Client events, each answered through its ack when the client asks for one
// ({"ok":true,"seq":N} or {"error":"ERR_…"}): joinChatBox(ticketId),
// leaveChatBox(ticketId), joinTickets(status: open|pending|closed), leaveTickets(status),
// joinNotification(), leaveNotification(). Joins ask the Authorizer. Unknown events
// and bad arguments answer ERR_VALIDATION. Every socket is also in its company room
// and its user room from CONNECT on. Config.Events (package call) serves further
// events (call.join, call.signal) and may answer a socket alone with Peer.Emit,
// unnumbered. A call guest (Principal.Call set: a customer on a video call link) is
// in no room at all and every join is ERR_NO_PERMISSION. Binary packets (5, 6) and binary frames close
// with 1003. Close codes are listed in errors.go (CloseSlowConsumer 4008,
// ClosePingTimeout 4001, CloseMessageTooBig 1009…).
//
// # Rooms, sequence numbers and replay
//
// Rooms are keyed by (tenant, Room): a socket joins only rooms of its principal's
// company, and an event reaches only rooms of its Event.Tenant, so tenants never
// share a room. Every published event gets its tenant's next sequence number, put
// into the payload as "seq" (and, with HubConfig.AppendOffset, as a trailing string
// argument, the socket.io v4.6+ "offset"). A Backlog keeps a bounded window of them.
//
// Reconnect flow: the client remembers the highest seq it saw — from events and from
// join acks, whose "seq" says "you have every event of this room up to N" — and
// reconnects with auth {"token","lastSeq":N} (or query lastSeq=N, or v4.6+'s offset);
// no number, or 0, means a fresh client: no replay.
// On CONNECT it is replayed the missed events of its company and user rooms and of
// the rooms it declared in auth "rooms" (the join events it is about to repeat), as
// one stream in seq order; on each join of a room not yet joined, before the ack,
// those of the joined room that it did not already get through a room it was in:
// seq > N, in order, filtered like live events (older, then, than what the CONNECT
// replayed — which is why clients declare their rooms). If the
// backlog no longer covers N, or more than min(MaxReplay, QueueSize/2) events were
// missed, or N is not a number, the socket gets instead one event
// resync {"reason","seq"}: refetch what is shown, take seq as the new last number;
// no further replay happens on that socket. Replay and live events meet under the
// tenant's lock, so nothing is lost or doubled in between. The server replies a
// fresh pid on every CONNECT, so socket.recovered is always false: the client
// re-joins its rooms after each reconnect.
//
// # Concurrency
//
// Each socket is a wsconn.Conn (the websocket core shared with the web chat) with
// this package's Engine.IO / Socket.IO protocol as its handler. It has exactly two
// goroutines, started through a goroutine.Group that refuses once Shutdown began: a
// reader (reads frames, handles packets, calls Authenticator and Authorizer, so those
// may block it up to AuthTimeout) and a writer (the only code that writes to the
// connection: every queued frame in one writev, then at the end the close frame).
// Whichever ends last closes the connection and takes the socket out of the hub. One
// server goroutine, the pinger, queues the Engine.IO ping to an eighth of the sockets
// every PingInterval/8, so an idle socket holds no timer; the reader's deadline is
// moved to PingInterval+PingTimeout on every pong, and a client that misses it is
// closed with ClosePingTimeout (4001).
//
// The outbound queue is bounded (QueueSize frames); pushing to a full queue never
// waits — the socket is closed with CloseSlowConsumer (4008) and logged at warn, and
// its client reconnects and resyncs. No DISCONNECT 41 is sent then, because 41 tells
// socket.io-client not to reconnect; 41 is only sent by Hub.Disconnect. A write that
// takes longer than WriteTimeout ends the socket the same way.
//
// Hub.Publish is safe from any goroutine and never waits on a socket: it takes the
// tenant's lock, appends to the backlog, encodes one frame, and pushes it to each
// member's queue. One tenant's publishes and joins are serialised by that lock;
// tenants proceed in parallel. Filters run under it and must not block.
package socket
