package socket

import (
	"bytes"
	"context"
	"testing"

	"github.com/gobwas/ws"

	"atende/transport/socket/sio"
)

// FuzzHandle feeds hostile text messages, one per line, to a socket's packet
// handling (no network underneath) and checks that it never panics and only ever
// queues well-formed frames.
func FuzzHandle(f *testing.F) {
	for _, s := range []string{
		"40{\"token\":\"alice\"}\n420[\"joinChatBox\",\"42\"]\n421[\"joinTickets\",\"open\"]\n42[\"leaveChatBox\",42]\n41",
		"40{\"token\":\"Bearer alice\",\"lastSeq\":\"12\"}\n3\n42[\"joinNotification\"]",
		"40{\"token\":\"alice\",\"lastSeq\":3,\"rooms\":[[\"joinTickets\",\"open\"],[\"joinChatBox\",\"666\"],[],\"x\",[1],[\"joinChatBox\",{}]]}\n43[]",
		"40{\"token\":\"alice\",\"rooms\":{\"joinTickets\":\"open\"}}\n40{\"token\":\"alice\",\"rooms\":[[\"joinNotification\"],[\"joinNotification\"]]}",
		"40{\"token\":\"alice\",\"pid\":\"x\",\"offset\":\"abc\"}\n427[\"joinChatBox\",{}]",
		"40/admin,{}\n40{\"token\":\"nobody\"}",
		"42[\"joinChatBox\"]\n40",
		"40{\"token\":\"alice\"}\n451-[\"a\",{\"_placeholder\":true,\"num\":0}]",
		"40{\"token\":\"alice\"}\n40{\"token\":\"alice\"}\n1\n6\n2probe",
		"40{\"token\":\"alice\"}\n4299999999999999999[\"x\"]\n43[]",
	} {
		f.Add([]byte(s))
	}
	srv, err := NewServer(Config{Authenticator: testAuthenticator, Authorizer: testAuthorizer})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	f.Fuzz(func(t *testing.T, in []byte) {
		c := newConn(srv, newMemConn(), nil, "fuzz")
		for _, msg := range bytes.Split(in, []byte{'\n'}) {
			c.handle(msg)
		}
		for _, fr := range c.ws.Pending() {
			h, err := ws.ReadHeader(bytes.NewReader(fr))
			if err != nil || h.OpCode != ws.OpText && h.OpCode != ws.OpPong || h.Masked {
				t.Fatalf("queued a bad frame %q: %+v %v", fr, h, err)
			}
			payload := fr[len(fr)-int(h.Length):]
			if h.OpCode != ws.OpText {
				continue
			}
			ef, err := sio.DecodeFrame(payload)
			if err != nil {
				t.Fatalf("queued %q: %v", payload, err)
			}
			if ef.Type == sio.EngineMessage {
				if _, err := sio.DecodePacket(ef.Data); err != nil {
					t.Fatalf("queued %q: %v", payload, err)
				}
			}
		}
		if c.tenant != 0 {
			srv.hub.detach(c)
		}
	})
}
