package sio

import "encoding/json"

// The encoders below produce Engine.IO message packets: `4` + a Socket.IO packet,
// ready to be the payload of one websocket text frame. They serve the root namespace
// unless told otherwise, which is all socket.io-client needs here.

// AppendConnect appends the CONNECT reply `40{"sid":…}`; pid, when not empty, is the
// private session id of connection-state recovery (socket.io v4.6+).
func AppendConnect(dst []byte, sid, pid string) []byte {
	dst = append(dst, byte(EngineMessage), byte(PacketConnect))
	dst = append(dst, `{"sid":`...)
	dst = AppendString(dst, sid)
	if pid != "" {
		dst = append(dst, `,"pid":`...)
		dst = AppendString(dst, pid)
	}
	return append(dst, '}')
}

// AppendConnectError appends CONNECT_ERROR `44[<nsp>,]{"message":…}`.
func AppendConnectError(dst []byte, nsp, message string) []byte {
	dst = append(dst, byte(EngineMessage), byte(PacketConnectError))
	dst = appendNamespace(dst, nsp)
	dst = append(dst, `{"message":`...)
	dst = AppendString(dst, message)
	return append(dst, '}')
}

// AppendDisconnect appends DISCONNECT `41` for the root namespace.
func AppendDisconnect(dst []byte) []byte {
	return append(dst, byte(EngineMessage), byte(PacketDisconnect))
}

// AppendEvent appends EVENT `42["name",args…]` for the root namespace. name must
// satisfy ValidEventName and every arg must be valid JSON; neither is checked here.
func AppendEvent(dst []byte, name string, args ...json.RawMessage) []byte {
	dst = append(dst, byte(EngineMessage), byte(PacketEvent), '[')
	dst = AppendString(dst, name)
	for _, a := range args {
		dst = append(dst, ',')
		dst = append(dst, a...)
	}
	return append(dst, ']')
}

// AppendAck appends ACK `43<id>[args…]` for the root namespace; every arg must be
// valid JSON.
func AppendAck(dst []byte, id uint64, args ...json.RawMessage) []byte {
	dst = append(dst, byte(EngineMessage), byte(PacketAck))
	dst = appendUint(dst, id)
	dst = append(dst, '[')
	for i, a := range args {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, a...)
	}
	return append(dst, ']')
}

func appendNamespace(dst []byte, nsp string) []byte {
	if nsp == "" || nsp == RootNamespace {
		return dst
	}
	dst = append(dst, nsp...)
	return append(dst, ',')
}
