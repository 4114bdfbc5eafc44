package sio

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// goldenFrames are the frames the server writes, one golden file each. socket.io-client
// v3 and v4 accept every one of them (the Node conformance test in test/socketio
// drives the same encoders against the real clients).
func goldenFrames() []struct {
	name  string
	frame []byte
} {
	return []struct {
		name  string
		frame []byte
	}{
		{name: "open", frame: AppendOpen(nil, Open{SID: "c2lkMQ", PingInterval: 18000, PingTimeout: 20000, MaxPayload: 1000000})},
		{name: "ping", frame: AppendEngine(nil, EnginePing)},
		{name: "connect", frame: AppendConnect(nil, "U0lEMQ", "")},
		{name: "connect_with_pid", frame: AppendConnect(nil, "U0lEMQ", "UElEMQ")},
		{name: "connect_error", frame: AppendConnectError(nil, "/", "ERR_SESSION_EXPIRED")},
		{name: "connect_error_namespace", frame: AppendConnectError(nil, "/admin", "Invalid namespace")},
		{name: "disconnect", frame: AppendDisconnect(nil)},
		{name: "event", frame: AppendEvent(nil, "ticket", json.RawMessage(`{"action":"update","ticket":{"id":42},"seq":7}`))},
		{name: "event_with_offset", frame: AppendEvent(nil, "appMessage", json.RawMessage(`{"action":"create","seq":8}`), json.RawMessage(`"8"`))},
		{name: "event_escaped_name", frame: AppendEvent(nil, "a\"b\\c\n\x01\xff", json.RawMessage(`{}`))},
		{name: "ack_ok", frame: AppendAck(nil, 3, json.RawMessage(`{"ok":true,"seq":7}`))},
		{name: "ack_error", frame: AppendAck(nil, 9007199254740991, json.RawMessage(`{"error":"ERR_NO_PERMISSION"}`))},
		{name: "ack_empty", frame: AppendAck(nil, 0)},
	}
}

func TestGoldenFrames(t *testing.T) {
	for _, g := range goldenFrames() {
		t.Run(g.name, func(t *testing.T) {
			path := filepath.Join("testdata", "golden", g.name+".frame")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, g.frame, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("read golden (run with -update to create): %v", err)
			}
			if !bytes.Equal(g.frame, want) {
				t.Fatalf("frame %s:\n got %s\nwant %s", g.name, g.frame, want)
			}
		})
	}
}

// TestGoldenFramesDecode checks that every frame the server writes decodes as the
// packet it claims to be, with the strict decoder a client-side test would use.
func TestGoldenFramesDecode(t *testing.T) {
	for _, g := range goldenFrames() {
		t.Run(g.name, func(t *testing.T) {
			f, err := DecodeFrame(g.frame)
			if err != nil {
				t.Fatalf("DecodeFrame(%s): %v", g.frame, err)
			}
			switch f.Type {
			case EngineOpen:
				var o Open
				if err := json.Unmarshal(f.Data, &o); err != nil {
					t.Fatalf("open payload: %v", err)
				}
				if o.Upgrades == nil || len(o.Upgrades) != 0 {
					t.Fatalf("upgrades = %#v, want []", o.Upgrades)
				}
			case EnginePing:
			case EngineMessage:
				if _, err := DecodePacket(f.Data); err != nil {
					t.Fatalf("DecodePacket(%s): %v", f.Data, err)
				}
			default:
				t.Fatalf("unexpected frame type %v", f.Type)
			}
		})
	}
}

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", "quote\"back\\slash", "ctl\x00\x1f\x7f", "tab\tnl\ncr\r", "ünïcödé ✓", "bad\xffutf8", "\u2028\u2029", "<html>&"} {
		t.Run(fmt.Sprintf("%q", s), func(t *testing.T) {
			got := AppendString(nil, s)
			var back string
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatalf("AppendString(%q) = %s, not JSON: %v", s, got, err)
			}
			want := strings.ToValidUTF8(s, "\uFFFD")
			if back != want {
				t.Fatalf("round trip of %q = %q, want %q", s, back, want)
			}
		})
	}
}
