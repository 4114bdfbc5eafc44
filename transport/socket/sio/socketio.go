package sio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// PacketType is a Socket.IO (protocol 5) packet type, as its wire digit.
type PacketType byte

// Socket.IO packet types.
const (
	PacketConnect      PacketType = '0'
	PacketDisconnect   PacketType = '1'
	PacketEvent        PacketType = '2'
	PacketAck          PacketType = '3'
	PacketConnectError PacketType = '4'
	PacketBinaryEvent  PacketType = '5'
	PacketBinaryAck    PacketType = '6'
)

// SocketProtocol is the Socket.IO protocol revision spoken here (socket.io v3 and v4).
const SocketProtocol = 5

// Limits the decoders enforce. They are far above what socket.io-client produces.
const (
	// MaxAckID is the largest ack id accepted: JavaScript's Number.MAX_SAFE_INTEGER,
	// beyond which the client could not match its own ids.
	MaxAckID = 1<<53 - 1
	// MaxNamespaceLen bounds a namespace, in bytes, slash included.
	MaxNamespaceLen = 256
	// MaxEventNameLen bounds an event name, in bytes.
	MaxEventNameLen = 256
	// MaxArgs bounds the arguments of an EVENT (name excluded) or an ACK.
	MaxArgs = 32
)

// RootNamespace is the only namespace this gateway serves.
const RootNamespace = "/"

// reserved are the event names socket.io-client refuses to emit or receive.
var reserved = map[string]bool{
	"connect":        true,
	"connect_error":  true,
	"disconnect":     true,
	"disconnecting":  true,
	"newListener":    true,
	"removeListener": true,
}

func (t PacketType) String() string {
	switch t {
	case PacketConnect:
		return "CONNECT"
	case PacketDisconnect:
		return "DISCONNECT"
	case PacketEvent:
		return "EVENT"
	case PacketAck:
		return "ACK"
	case PacketConnectError:
		return "CONNECT_ERROR"
	case PacketBinaryEvent:
		return "BINARY_EVENT"
	case PacketBinaryAck:
		return "BINARY_ACK"
	}
	return fmt.Sprintf("PacketType(%d)", byte(t))
}

// Packet is one decoded Socket.IO packet. Namespace and Data alias the input.
type Packet struct {
	Type      PacketType
	Namespace string          // "/" when the packet names none
	ID        uint64          // ack id; meaningful only when HasID
	HasID     bool            // the packet carries an ack id
	Data      json.RawMessage // nil when the packet has no payload
}

// DecodePacket decodes a Socket.IO packet: the data of an Engine.IO message.
func DecodePacket(b []byte) (Packet, error) {
	var p Packet
	if len(b) == 0 {
		return p, fmt.Errorf("decode socket.io packet: %w", ErrTruncated)
	}
	if !utf8.Valid(b) {
		return p, fmt.Errorf("decode socket.io packet: %w", ErrInvalidUTF8)
	}
	p.Type = PacketType(b[0])
	switch {
	case p.Type == PacketBinaryEvent || p.Type == PacketBinaryAck:
		return p, fmt.Errorf("decode socket.io %s: %w", p.Type, ErrBinaryUnsupported)
	case p.Type < PacketConnect || p.Type > PacketBinaryAck:
		return p, fmt.Errorf("decode socket.io packet type %q: %w", b[0], ErrUnknownType)
	}
	rest := b[1:]

	// Namespace: "/…" up to a comma, or to the end of the packet.
	p.Namespace = RootNamespace
	if len(rest) > 0 && rest[0] == '/' {
		end := bytes.IndexByte(rest, ',')
		nsp := rest
		if end >= 0 {
			nsp, rest = rest[:end], rest[end+1:]
		} else {
			rest = nil
		}
		if len(nsp) > MaxNamespaceLen {
			return p, fmt.Errorf("decode socket.io %s: namespace of %d bytes: %w", p.Type, len(nsp), ErrBadNamespace)
		}
		p.Namespace = string(nsp)
	}

	// Ack id: a run of decimal digits.
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	if n > 0 {
		id, err := parseAckID(rest[:n])
		if err != nil {
			return p, fmt.Errorf("decode socket.io %s: %w", p.Type, err)
		}
		p.ID, p.HasID = id, true
		rest = rest[n:]
	}
	switch p.Type {
	case PacketEvent:
	case PacketAck:
		if !p.HasID {
			return p, fmt.Errorf("decode socket.io ACK without id: %w", ErrBadAckID)
		}
	default:
		if p.HasID {
			return p, fmt.Errorf("decode socket.io %s with an ack id: %w", p.Type, ErrBadAckID)
		}
	}

	if len(rest) > 0 {
		if !json.Valid(rest) {
			return p, fmt.Errorf("decode socket.io %s payload: %w", p.Type, ErrBadJSON)
		}
		p.Data = json.RawMessage(rest)
	}
	if err := checkShape(p); err != nil {
		return p, err
	}
	return p, nil
}

// parseAckID parses a run of digits as an ack id in [0, MaxAckID] without leading zeros.
func parseAckID(d []byte) (uint64, error) {
	if len(d) > 1 && d[0] == '0' {
		return 0, fmt.Errorf("ack id %.20q has a leading zero: %w", d, ErrBadAckID)
	}
	if len(d) > 16 { // MaxAckID has 16 digits
		return 0, fmt.Errorf("ack id of %d digits: %w", len(d), ErrBadAckID)
	}
	var id uint64
	for _, c := range d {
		id = id*10 + uint64(c-'0')
	}
	if id > MaxAckID {
		return 0, fmt.Errorf("ack id %d beyond 2^53-1: %w", id, ErrBadAckID)
	}
	return id, nil
}

// checkShape checks the JSON type of the payload against the packet type, as
// socket.io-parser's isPayloadValid does, and the event name of an EVENT.
func checkShape(p Packet) error {
	kind := jsonKind(p.Data)
	switch p.Type {
	case PacketConnect:
		if kind != 0 && kind != '{' {
			return fmt.Errorf("decode socket.io CONNECT: auth is not an object: %w", ErrBadPayload)
		}
	case PacketDisconnect:
		if kind != 0 {
			return fmt.Errorf("decode socket.io DISCONNECT: unexpected payload: %w", ErrBadPayload)
		}
	case PacketConnectError:
		if kind != '{' && kind != '"' {
			return fmt.Errorf("decode socket.io CONNECT_ERROR: payload is not an object or string: %w", ErrBadPayload)
		}
	case PacketAck:
		if kind != '[' {
			return fmt.Errorf("decode socket.io ACK: payload is not an array: %w", ErrBadPayload)
		}
		if _, err := SplitArray(p.Data, MaxArgs); err != nil {
			return fmt.Errorf("decode socket.io ACK: %w", err)
		}
	case PacketEvent:
		if kind != '[' {
			return fmt.Errorf("decode socket.io EVENT: payload is not an array: %w", ErrBadPayload)
		}
		if _, _, err := DecodeEvent(p.Data); err != nil {
			return err
		}
	}
	return nil
}

// DecodeEvent splits the payload of an EVENT into its name and arguments. The
// arguments alias data.
func DecodeEvent(data json.RawMessage) (name string, args []json.RawMessage, err error) {
	if jsonKind(data) != '[' {
		return "", nil, fmt.Errorf("decode event: payload is not an array: %w", ErrBadPayload)
	}
	if !json.Valid(data) {
		return "", nil, fmt.Errorf("decode event: %w", ErrBadJSON)
	}
	elems, err := SplitArray(data, MaxArgs+1)
	if err != nil {
		return "", nil, fmt.Errorf("decode event: %w", err)
	}
	if len(elems) == 0 {
		return "", nil, fmt.Errorf("decode event: no name: %w", ErrBadEventName)
	}
	name, ok := DecodeString(elems[0])
	if !ok {
		return "", nil, fmt.Errorf("decode event: name is not a string: %w", ErrBadEventName)
	}
	if name == "" || len(name) > MaxEventNameLen || reserved[name] || !utf8.ValidString(name) {
		return "", nil, fmt.Errorf("decode event name %.40q: %w", name, ErrBadEventName)
	}
	return name, elems[1:], nil
}

// ValidEventName reports whether name may be sent as an event: non-empty, at most
// MaxEventNameLen bytes of valid UTF-8 and not reserved by Socket.IO.
func ValidEventName(name string) bool {
	return name != "" && len(name) <= MaxEventNameLen && !reserved[name] && utf8.ValidString(name)
}
