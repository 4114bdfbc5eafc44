package sio

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestDecodeFrame(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    EngineType
		data    string
		wantErr error
	}{
		{name: "pong", in: "3", want: EnginePong},
		{name: "message", in: `42["a"]`, want: EngineMessage, data: `2["a"]`},
		{name: "close", in: "1", want: EngineClose},
		{name: "noop", in: "6", want: EngineNoop},
		{name: "pong with probe", in: "3probe", want: EnginePong, data: "probe"},
		{name: "empty", in: "", wantErr: ErrTruncated},
		{name: "unknown type 7", in: "7", wantErr: ErrUnknownType},
		{name: "letter type", in: "x", wantErr: ErrUnknownType},
		{name: "v3 binary marker", in: "b4AAAA", wantErr: ErrUnknownType},
		{name: "invalid utf8", in: "4\xff", wantErr: ErrInvalidUTF8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := DecodeFrame([]byte(tt.in))
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("DecodeFrame(%q) error = %v, want %v", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("DecodeFrame(%q): %v", tt.in, err)
			}
			if f.Type != tt.want || string(f.Data) != tt.data {
				t.Fatalf("DecodeFrame(%q) = %v %q, want %v %q", tt.in, f.Type, f.Data, tt.want, tt.data)
			}
		})
	}
}

func TestDecodePacket(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Packet
		wantErr error
	}{
		{name: "connect bare", in: "0", want: Packet{Type: PacketConnect, Namespace: "/"}},
		{name: "connect with auth", in: `0{"token":"abc"}`, want: Packet{Type: PacketConnect, Namespace: "/", Data: json.RawMessage(`{"token":"abc"}`)}},
		{name: "connect other namespace", in: `0/admin,{"token":"abc"}`, want: Packet{Type: PacketConnect, Namespace: "/admin", Data: json.RawMessage(`{"token":"abc"}`)}},
		{name: "connect other namespace no comma", in: `0/admin`, want: Packet{Type: PacketConnect, Namespace: "/admin"}},
		{name: "explicit root namespace", in: `2/,["a"]`, want: Packet{Type: PacketEvent, Namespace: "/", Data: json.RawMessage(`["a"]`)}},
		{name: "disconnect", in: "1", want: Packet{Type: PacketDisconnect, Namespace: "/"}},
		{name: "event", in: `2["joinChatBox","42"]`, want: Packet{Type: PacketEvent, Namespace: "/", Data: json.RawMessage(`["joinChatBox","42"]`)}},
		{name: "event with ack", in: `27["joinTickets","open"]`, want: Packet{Type: PacketEvent, Namespace: "/", ID: 7, HasID: true, Data: json.RawMessage(`["joinTickets","open"]`)}},
		{name: "event with ack zero", in: `20["x"]`, want: Packet{Type: PacketEvent, Namespace: "/", ID: 0, HasID: true, Data: json.RawMessage(`["x"]`)}},
		{name: "event max ack id", in: `29007199254740991["x"]`, want: Packet{Type: PacketEvent, Namespace: "/", ID: MaxAckID, HasID: true, Data: json.RawMessage(`["x"]`)}},
		{name: "ack", in: `312[{"ok":true}]`, want: Packet{Type: PacketAck, Namespace: "/", ID: 12, HasID: true, Data: json.RawMessage(`[{"ok":true}]`)}},
		{name: "connect error object", in: `4{"message":"x"}`, want: Packet{Type: PacketConnectError, Namespace: "/", Data: json.RawMessage(`{"message":"x"}`)}},
		{name: "connect error string", in: `4"x"`, want: Packet{Type: PacketConnectError, Namespace: "/", Data: json.RawMessage(`"x"`)}},

		{name: "empty", in: "", wantErr: ErrTruncated},
		{name: "unknown type", in: "9", wantErr: ErrUnknownType},
		{name: "binary event", in: `51-["a",{"_placeholder":true,"num":0}]`, wantErr: ErrBinaryUnsupported},
		{name: "binary ack", in: `61-0[{"_placeholder":true,"num":0}]`, wantErr: ErrBinaryUnsupported},
		{name: "ack id beyond 2^53", in: `29007199254740992["x"]`, wantErr: ErrBadAckID},
		{name: "ack id of 40 digits", in: `21234567890123456789012345678901234567890["x"]`, wantErr: ErrBadAckID},
		{name: "ack id leading zero", in: `207["x"]`, wantErr: ErrBadAckID},
		{name: "ack without id", in: `3[1]`, wantErr: ErrBadAckID},
		{name: "connect with ack id", in: `01{}`, wantErr: ErrBadAckID},
		{name: "namespace too long", in: "0/" + strings.Repeat("a", MaxNamespaceLen) + ",{}", wantErr: ErrBadNamespace},
		{name: "bad json", in: `2["a",`, wantErr: ErrBadJSON},
		{name: "truncated string", in: `2["a`, wantErr: ErrBadJSON},
		{name: "event object payload", in: `2{"a":1}`, wantErr: ErrBadPayload},
		{name: "event string payload", in: `2"joinChatBox"`, wantErr: ErrBadPayload},
		{name: "event empty array", in: `2[]`, wantErr: ErrBadEventName},
		{name: "event numeric name", in: `2[1,2]`, wantErr: ErrBadEventName},
		{name: "event null name", in: `2[null]`, wantErr: ErrBadEventName},
		{name: "event empty name", in: `2[""]`, wantErr: ErrBadEventName},
		{name: "event reserved name", in: `2["connect"]`, wantErr: ErrBadEventName},
		{name: "event too many args", in: `2["a"` + strings.Repeat(",1", MaxArgs+1) + `]`, wantErr: ErrTooManyArgs},
		{name: "connect array auth", in: `0[1]`, wantErr: ErrBadPayload},
		{name: "connect string auth", in: `0"tok"`, wantErr: ErrBadPayload},
		{name: "disconnect with data", in: `1{}`, wantErr: ErrBadPayload},
		{name: "ack object", in: `31{}`, wantErr: ErrBadPayload},
		{name: "connect error number", in: `41`, wantErr: ErrBadAckID},
		{name: "invalid utf8 in string", in: "2[\"a\xc3\x28\"]", wantErr: ErrInvalidUTF8},
		{name: "trailing garbage", in: `2["a"]x`, wantErr: ErrBadJSON},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := DecodePacket([]byte(tt.in))
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("DecodePacket(%q) error = %v, want %v", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("DecodePacket(%q): %v", tt.in, err)
			}
			if p.Type != tt.want.Type || p.Namespace != tt.want.Namespace || p.ID != tt.want.ID ||
				p.HasID != tt.want.HasID || string(p.Data) != string(tt.want.Data) {
				t.Fatalf("DecodePacket(%q) = %+v, want %+v", tt.in, p, tt.want)
			}
		})
	}
}

func TestDecodeEvent(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		wantName string
		wantArgs []string
		wantErr  error
	}{
		{name: "no args", in: `["joinNotification"]`, wantName: "joinNotification"},
		{name: "string arg", in: `["joinChatBox","42"]`, wantName: "joinChatBox", wantArgs: []string{`"42"`}},
		{name: "mixed args with blanks", in: ` [ "e" , 1 , {"a":[1,2,"]"]} , null , "x\"y" ] `, wantName: "e",
			wantArgs: []string{`1`, `{"a":[1,2,"]"]}`, `null`, `"x\"y"`}},
		{name: "escaped name", in: `["jo\u0069n"]`, wantName: "join"},
		{name: "not an array", in: `{"a":1}`, wantErr: ErrBadPayload},
		{name: "empty", in: ``, wantErr: ErrBadPayload},
		{name: "invalid", in: `["a",]`, wantErr: ErrBadJSON},
		{name: "name object", in: `[{"a":1}]`, wantErr: ErrBadEventName},
		{name: "name too long", in: `["` + strings.Repeat("n", MaxEventNameLen+1) + `"]`, wantErr: ErrBadEventName},
		{name: "reserved disconnecting", in: `["disconnecting"]`, wantErr: ErrBadEventName},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name, args, err := DecodeEvent(json.RawMessage(tt.in))
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("DecodeEvent(%q) error = %v, want %v", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("DecodeEvent(%q): %v", tt.in, err)
			}
			if name != tt.wantName || len(args) != len(tt.wantArgs) {
				t.Fatalf("DecodeEvent(%q) = %q %q, want %q %q", tt.in, name, args, tt.wantName, tt.wantArgs)
			}
			for i := range args {
				if string(args[i]) != tt.wantArgs[i] {
					t.Fatalf("arg %d = %s, want %s", i, args[i], tt.wantArgs[i])
				}
			}
		})
	}
}

func TestSplitArrayRejectsMalformed(t *testing.T) {
	for _, in := range []string{``, `[`, `[1`, `[1,`, `[,1]`, `[1,]`, `["a]`, `[1]]`, `[[1]`, `{}`, `[1 2]`} {
		t.Run(in, func(t *testing.T) {
			if _, err := SplitArray([]byte(in), 10); !errors.Is(err, ErrBadJSON) {
				t.Fatalf("SplitArray(%q) error = %v, want ErrBadJSON", in, err)
			}
		})
	}
}

func TestDecodeString(t *testing.T) {
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{in: `"plain"`, want: "plain", ok: true},
		{in: ` "blanks" `, want: "blanks", ok: true},
		{in: `"esc\"aped\\\u0041\n"`, want: "esc\"aped\\A\n", ok: true},
		{in: `"ünï"`, want: "ünï", ok: true},
		{in: `""`, want: "", ok: true},
		{in: `42`},
		{in: `null`},
		{in: `"unterminated`},
		{in: `"a" "b"`},
		{in: "\"ctl\x01\""},
		{in: `"bad \x escape"`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := DecodeString([]byte(tt.in))
			if got != tt.want || ok != tt.ok {
				t.Fatalf("DecodeString(%s) = %q %v, want %q %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestObjectFields(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    string // key=value;…
		wantErr error
	}{
		{name: "auth", in: `{"token":"Bearer x","lastSeq":12,"pid":"p","offset":"9"}`, want: `token="Bearer x";lastSeq=12;pid="p";offset="9";`},
		{name: "empty", in: ` { } `, want: ``},
		{name: "nested and blanks", in: "{ \"a\" : {\"b\":[1,\"}\"]} ,\n\"c\":null}", want: `a={"b":[1,"}"]};c=null;`},
		{name: "escaped key", in: `{"tok\u0065n":"x"}`, want: `token="x";`},
		{name: "array", in: `[1]`, wantErr: ErrBadPayload},
		{name: "missing colon", in: `{"a" 1}`, wantErr: ErrBadJSON},
		{name: "missing value", in: `{"a":}`, wantErr: ErrBadJSON},
		{name: "unterminated", in: `{"a":1`, wantErr: ErrBadJSON},
		{name: "non-string key", in: `{1:2}`, wantErr: ErrBadJSON},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			err := ObjectFields([]byte(tt.in), func(k string, v json.RawMessage) {
				b.WriteString(k + "=" + string(v) + ";")
			})
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("error %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil || b.String() != tt.want {
				t.Fatalf("fields %q (%v), want %q", b.String(), err, tt.want)
			}
		})
	}
}
