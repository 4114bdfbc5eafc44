package whatsapp

import (
	"testing"

	"go.mau.fi/whatsmeow/proto/waCommon"
	"go.mau.fi/whatsmeow/proto/waE2E"
	"go.mau.fi/whatsmeow/types"
	"google.golang.org/protobuf/proto"

	"atende/persistence/db"
	"atende/persistence/db/dbtest"
)

func revokeEvent(id, revoked string, fromMe bool) any {
	e := textEvent(id, "")
	e.Info.IsFromMe = fromMe
	e.Message = &waE2E.Message{ProtocolMessage: &waE2E.ProtocolMessage{Type: waE2E.ProtocolMessage_REVOKE.Enum(),
		Key: &waCommon.MessageKey{ID: proto.String(revoked), FromMe: proto.Bool(fromMe)}}}
	return e
}

// A "delete for everyone" reaches the sink as a deletion of the named message, from
// the customer's number, after the message it deletes.
func TestInboundRevoke(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		r := newRig(t, d, rigOpts{paired: true})
		for _, evt := range []any{textEvent("M1", "oi"), revokeEvent("RV1", "M1", false), revokeEvent("RV2", "OUT7", true)} {
			if !r.client.dispatch(evt) {
				t.Fatalf("%T refused", evt)
			}
		}
		r.sink.wait(t, "message and two revokes", func(s *recSink) bool { return len(s.inbound) == 3 })
		r.sink.mu.Lock()
		defer r.sink.mu.Unlock()
		msg, customerRevoke, ownRevoke := r.sink.inbound[0], r.sink.inbound[1], r.sink.inbound[2]
		if msg.ProviderID != "M1" || msg.RevokedProviderID != "" || msg.Body != "oi" {
			t.Fatalf("message %+v", msg)
		}
		if customerRevoke.RevokedProviderID != "M1" || customerRevoke.ProviderID != "RV1" || customerRevoke.FromMe ||
			customerRevoke.From.Number != customer.User || customerRevoke.At.IsZero() {
			t.Fatalf("customer's revoke %+v", customerRevoke)
		}
		if ownRevoke.RevokedProviderID != "OUT7" || !ownRevoke.FromMe {
			t.Fatalf("own revoke %+v", ownRevoke)
		}
	})
}

func TestConvertRevokeGroup(t *testing.T) {
	group := types.NewJID("120363025246125888", types.GroupServer)
	ev := textEvent("RV", "")
	ev.Info.Chat, ev.Info.IsGroup = group, true
	ev.Message = &waE2E.Message{ProtocolMessage: &waE2E.ProtocolMessage{Type: waE2E.ProtocolMessage_REVOKE.Enum(),
		Key: &waCommon.MessageKey{ID: proto.String("M9")}}}
	in := convertMessage(ev)
	if in.kind != inRevoke || in.msg.RevokedProviderID != "M9" || !in.msg.From.IsGroup || in.msg.From.Number != group.User {
		t.Fatalf("group revoke %+v", in)
	}
}
