package sio

import "errors"

// Decoding errors. Every decoder error wraps exactly one of these, so callers choose
// a close code with errors.Is.
var (
	// ErrTruncated: the packet ends before a required part.
	ErrTruncated = errors.New("sio: truncated packet")
	// ErrUnknownType: the type digit is not one the protocol defines.
	ErrUnknownType = errors.New("sio: unknown packet type")
	// ErrInvalidUTF8: a text frame that is not valid UTF-8.
	ErrInvalidUTF8 = errors.New("sio: invalid UTF-8")
	// ErrBadAckID: an ack id that is not a plain decimal in [0, 2^53-1], or one where
	// the packet type allows none (or requires one and has none).
	ErrBadAckID = errors.New("sio: bad ack id")
	// ErrBadNamespace: a namespace that is too long or not terminated properly.
	ErrBadNamespace = errors.New("sio: bad namespace")
	// ErrBadJSON: the payload is not valid JSON.
	ErrBadJSON = errors.New("sio: bad JSON payload")
	// ErrBadPayload: valid JSON of the wrong shape for the packet type (a CONNECT that
	// is not an object, an EVENT that is not an array, a DISCONNECT with data…).
	ErrBadPayload = errors.New("sio: payload of the wrong type")
	// ErrBadEventName: the first element of an EVENT is not a string, is empty, too
	// long, or one of the names Socket.IO reserves.
	ErrBadEventName = errors.New("sio: bad event name")
	// ErrTooManyArgs: an EVENT or ACK with more than MaxArgs arguments.
	ErrTooManyArgs = errors.New("sio: too many arguments")
	// ErrBinaryUnsupported: a BINARY_EVENT or BINARY_ACK packet; this gateway speaks
	// JSON only.
	ErrBinaryUnsupported = errors.New("sio: binary packets are not supported")
)
