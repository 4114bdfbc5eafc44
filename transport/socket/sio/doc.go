// Package sio is the wire codec of Atende's realtime gateway: the subset of the
// Engine.IO protocol 4 and Socket.IO protocol 5 that socket.io-client v3 and v4 speak
// over the websocket transport.
//
// Every Engine.IO packet travels in one websocket text frame: a type digit followed by
// its payload. Server and client use these:
//
//	0{"sid":"…","upgrades":[],"pingInterval":18000,"pingTimeout":20000,"maxPayload":1000000}  open (server)
//	1                   close (client)
//	2                   ping (server, every pingInterval)
//	3                   pong (client, within pingTimeout)
//	4<socket.io packet> message (both)
//	6                   noop (ignored)
//
// A Socket.IO packet is `<type>[<namespace>,][<ack id>][<JSON>]`:
//
//	0{"token":"…"}        CONNECT from the client, optional auth object
//	0{"sid":"…","pid":"…"}  CONNECT reply from the server
//	1                     DISCONNECT
//	2["name",…args]       EVENT; 2<id>[…] asks for an acknowledgement
//	3<id>[…args]          ACK of event <id>
//	4{"message":"…"}      CONNECT_ERROR (server)
//	5, 6                  BINARY_EVENT, BINARY_ACK: refused (ErrBinaryUnsupported)
//
// The decoders are strict: truncated packets, unknown types, ack ids beyond 2^53-1,
// invalid JSON, payloads of the wrong JSON type, reserved or non-string event names,
// too many event arguments and invalid UTF-8 all return an error wrapping one of the
// Err… values; they never panic (fuzz tests hold them to it). Decoded values alias
// the input bytes: copy what you keep.
//
// The encoders append to a caller-owned slice and expect JSON arguments that are
// already valid (callers validate once, at the edge). Everything in this package is
// pure and safe for concurrent use.
//
// Fuzz one target at a time, naming this package (go test refuses -fuzz with a
// pattern that matches several packages, such as ./transport/socket/...):
//
//	go test -run=XXX -fuzz=FuzzDecodePacket -fuzztime=20s ./transport/socket/sio
//
// Targets: FuzzDecodeFrame, FuzzDecodePacket, FuzzDecodeEvent, FuzzSplitArray,
// FuzzObjectFields, FuzzDecodeString, FuzzAppendString; FuzzHandle in package socket
// drives the server's packet handling.
package sio
