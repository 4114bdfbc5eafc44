// Package call relays the signalling of video calls between the two parties of a
// call: the attendant (a staff socket of the realtime gateway, package socket) and
// the customer (a call guest: a gateway socket authenticated by the call link's
// token, which joins no room). Media flows browser to browser (WebRTC); the server
// only passes offers, answers, ICE candidates and hold/unhold/end between them.
//
// # Tokens
//
// A call is not stored: Tokens.Issue signs two tokens (HMAC-SHA256 over the call
// id, tenant, ticket, attendant, role and expiry) — one in the link sent to the
// customer through the ticket's channel, one for the attendant's call window. Every
// node that shares the secret verifies them, so a call works on any node.
//
// # Events (Socket.IO, on the gateway)
//
// Client → server, each answered through its ack ({"ok":true,…} or {"error":"ERR_…"}):
//
//	call.join   [{"token":"<attendant token>"}]  staff; a guest sends no argument
//	call.signal [{"callId","type":"offer"|"answer","sdp"}]
//	            [{"callId","type":"candidate","candidate":{"candidate","sdpMid","sdpMLineIndex"}}]
//	            [{"callId","type":"hold"|"unhold"|"end"}]
//
// Server → client, event "call": the other party's signal as sent, plus "from"
// ("attendant" or "customer"); and {"callId","type":"joined","from"} when the
// other party joins (or is already there when one joins), {"type":"gone"} when its
// socket ended without an end, {"type":"replaced"} to a socket whose place in the
// call another socket of the same party took.
//
// # Parties
//
// A party is a Party: a gateway socket (HandleEvent and Closed adapt socket.Peer)
// or a web chat widget socket (package webchat, through JoinCustomer, Signal and
// Leave, with the same frames wrapped in its own protocol). The rules below are the
// relay's, whatever the transport.
//
// A signal reaches only the other party of the same call and tenant. With
// Config.Bus (a cluster) every relay message crosses the bus once and each node
// hands it to the sockets it holds; without, the relay delivers in process.
//
// # Concurrency
//
// Relay's methods are safe for concurrent use; they never block on a socket
// (socket.Peer.Emit queues). Bus messages are handled one at a time by Deliver.
package call
