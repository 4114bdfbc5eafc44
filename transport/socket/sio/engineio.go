package sio

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// EngineType is an Engine.IO (protocol 4) packet type, as its wire digit.
type EngineType byte

// Engine.IO packet types.
const (
	EngineOpen    EngineType = '0'
	EngineClose   EngineType = '1'
	EnginePing    EngineType = '2'
	EnginePong    EngineType = '3'
	EngineMessage EngineType = '4'
	EngineUpgrade EngineType = '5'
	EngineNoop    EngineType = '6'
)

// EngineProtocol is the Engine.IO protocol revision spoken here (query EIO=4).
const EngineProtocol = 4

func (t EngineType) String() string {
	switch t {
	case EngineOpen:
		return "open"
	case EngineClose:
		return "close"
	case EnginePing:
		return "ping"
	case EnginePong:
		return "pong"
	case EngineMessage:
		return "message"
	case EngineUpgrade:
		return "upgrade"
	case EngineNoop:
		return "noop"
	}
	return fmt.Sprintf("EngineType(%d)", byte(t))
}

// Frame is one decoded Engine.IO packet. Data aliases the decoded input.
type Frame struct {
	Type EngineType
	Data []byte // everything after the type digit; for EngineMessage, a Socket.IO packet
}

// DecodeFrame decodes the text of one websocket frame as an Engine.IO packet.
func DecodeFrame(b []byte) (Frame, error) {
	if len(b) == 0 {
		return Frame{}, fmt.Errorf("decode engine.io packet: %w", ErrTruncated)
	}
	if !utf8.Valid(b) {
		return Frame{}, fmt.Errorf("decode engine.io packet: %w", ErrInvalidUTF8)
	}
	t := EngineType(b[0])
	if t < EngineOpen || t > EngineNoop {
		return Frame{}, fmt.Errorf("decode engine.io packet type %q: %w", b[0], ErrUnknownType)
	}
	return Frame{Type: t, Data: b[1:]}, nil
}

// Open is the handshake the server sends first (the Engine.IO open packet).
type Open struct {
	SID          string   `json:"sid"`
	Upgrades     []string `json:"upgrades"`
	PingInterval int64    `json:"pingInterval"` // milliseconds
	PingTimeout  int64    `json:"pingTimeout"`  // milliseconds
	MaxPayload   int64    `json:"maxPayload"`   // bytes
}

// AppendOpen appends the open packet `0{…}` for o. A nil Upgrades is sent as [].
func AppendOpen(dst []byte, o Open) []byte {
	if o.Upgrades == nil {
		o.Upgrades = []string{}
	}
	b, err := json.Marshal(o)
	if err != nil {
		// Open holds strings and integers only; Marshal cannot fail on it.
		panic(fmt.Sprintf("sio: marshal open packet: %v", err))
	}
	dst = append(dst, byte(EngineOpen))
	return append(dst, b...)
}

// AppendEngine appends a payload-less Engine.IO packet (ping, pong, close, noop).
func AppendEngine(dst []byte, t EngineType) []byte {
	return append(dst, byte(t))
}
