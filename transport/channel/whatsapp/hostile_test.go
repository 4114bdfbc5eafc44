package whatsapp

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"go.mau.fi/whatsmeow/proto/waCommon"
	"go.mau.fi/whatsmeow/proto/waE2E"
	"go.mau.fi/whatsmeow/types"
	"go.mau.fi/whatsmeow/types/events"
	waLog "go.mau.fi/whatsmeow/util/log"
	"google.golang.org/protobuf/proto"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
)

func TestHostileEvents(t *testing.T) {
	r := newRig(t, dbtest.Open(t, db.SQLite), rigOpts{paired: true})
	huge := textEvent("BIG", strings.Repeat("á", MaxBodyBytes)) // 2× the limit in bytes
	noID := textEvent("", "x")
	longID := textEvent(strings.Repeat("9", 500), "x")
	nilMsg := textEvent("N", "")
	nilMsg.Message = nil
	empty := textEvent("E", "   ")
	unknown := textEvent("U", "")
	unknown.Message = &waE2E.Message{ReactionMessage: &waE2E.ReactionMessage{Text: proto.String("👍")}}
	status := textEvent("S", "x")
	status.Info.Chat = types.StatusBroadcastJID
	badUTF := textEvent("V", "a\xffb")
	noChat := textEvent("C", "x")
	noChat.Info.Chat = types.EmptyJID
	revoke := textEvent("R", "")
	revoke.Message = &waE2E.Message{ProtocolMessage: &waE2E.ProtocolMessage{Type: waE2E.ProtocolMessage_REVOKE.Enum(),
		Key: &waCommon.MessageKey{ID: proto.String("M1")}}}
	revokeNoKey := textEvent("R2", "")
	revokeNoKey.Message = &waE2E.Message{ProtocolMessage: &waE2E.ProtocolMessage{Type: waE2E.ProtocolMessage_REVOKE.Enum()}}
	revokeLongKey := textEvent("R3", "")
	revokeLongKey.Message = &waE2E.Message{ProtocolMessage: &waE2E.ProtocolMessage{Type: waE2E.ProtocolMessage_REVOKE.Enum(),
		Key: &waCommon.MessageKey{ID: proto.String(strings.Repeat("k", 500))}}}
	revokeBadUTF := textEvent("R4", "")
	revokeBadUTF.Message = &waE2E.Message{ProtocolMessage: &waE2E.ProtocolMessage{Type: waE2E.ProtocolMessage_REVOKE.Enum(),
		Key: &waCommon.MessageKey{ID: proto.String("a\xffb")}}}
	ephemeral := textEvent("R5", "")
	ephemeral.Message = &waE2E.Message{ProtocolMessage: &waE2E.ProtocolMessage{Type: waE2E.ProtocolMessage_EPHEMERAL_SETTING.Enum(),
		Key: &waCommon.MessageKey{ID: proto.String("M1")}}}
	mediaNoKey := textEvent("MK", "")
	mediaNoKey.Message = &waE2E.Message{VideoMessage: &waE2E.VideoMessage{}}

	for _, evt := range []any{
		nil, (*events.Message)(nil), (*events.Receipt)(nil), (*events.CallOffer)(nil), (*events.PairSuccess)(nil),
		(*events.LoggedOut)(nil), (*events.KeepAliveTimeout)(nil), (*events.TemporaryBan)(nil),
		&events.Message{}, &events.Receipt{}, &events.CallOffer{}, struct{}{}, "text", 42,
		noID, longID, nilMsg, empty, unknown, status, noChat, revoke, revokeNoKey, revokeLongKey, revokeBadUTF,
		ephemeral, mediaNoKey, badUTF, huge,
	} {
		if !r.client.dispatch(evt) {
			t.Errorf("%T refused", evt)
		}
	}
	r.sink.wait(t, "a revoke and 2 messages", func(s *recSink) bool { return len(s.inbound) == 3 })
	time.Sleep(50 * time.Millisecond)
	r.sink.mu.Lock()
	defer r.sink.mu.Unlock()
	if len(r.sink.inbound) != 3 {
		t.Fatalf("inbound = %d messages", len(r.sink.inbound))
	}
	// Only the well-formed revoke reaches the sink, as a deletion, not a message.
	if m := r.sink.inbound[0]; m.RevokedProviderID != "M1" || m.ProviderID != "R" || m.Body != "" {
		t.Errorf("revoke = %+v", m)
	}
	r.sink.inbound = r.sink.inbound[1:]
	if m := r.sink.inbound[0]; m.ProviderID != "V" || !utf8.ValidString(m.Body) || m.MediaType != "" {
		t.Errorf("bad utf-8 = %+v", m)
	}
	if m := r.sink.inbound[1]; m.ProviderID != "BIG" || len(m.Body) > MaxBodyBytes || !utf8.ValidString(m.Body) || len(m.Body) < MaxBodyBytes-1 {
		t.Errorf("huge body kept %d bytes", len(m.Body))
	}
	if len(r.sink.receipts) != 0 {
		t.Errorf("receipts %+v", r.sink.receipts)
	}
}

func TestBlockedSinkDoesNotBlockHandler(t *testing.T) {
	r := newRig(t, dbtest.Open(t, db.SQLite), rigOpts{paired: true, queue: 8})
	r.sink.block = make(chan struct{})
	start := time.Now()
	refused := 0
	for i := range 50 {
		if !r.client.dispatch(textEvent("Q"+strings.Repeat("x", i%3)+string(rune('A'+i%26))+string(rune('a'+i/26)), "oi")) {
			refused++
		}
	}
	// Session events still get through while messages wait.
	r.client.dispatch(&events.Connected{})
	if d := time.Since(start); d > time.Second {
		t.Fatalf("51 dispatches took %v with a blocked sink", d)
	}
	// One message is held by the sink, 8 wait in the queue; the rest were refused, so
	// whatsmeow does not acknowledge them and WhatsApp redelivers them.
	if refused < 50-9-1 || refused > 50-8 {
		t.Fatalf("refused %d of 50", refused)
	}
	close(r.sink.block)
	r.sink.wait(t, "queued messages", func(s *recSink) bool { return len(s.inbound) == 50-refused })
	r.sink.wait(t, "CONNECTED", func(s *recSink) bool {
		for _, st := range s.statuses {
			if st.Status == engine.ConnConnected {
				return true
			}
		}
		return false
	})
}

func TestJIDFor(t *testing.T) {
	for in, want := range map[string]string{
		"5511988887777":      "5511988887777@s.whatsapp.net",
		"120363025246125888": "120363025246125888@g.us",
		"5511988887777-1600": "5511988887777-1600@g.us",
		"":                   "",
		"55 11":              "",
		"-1":                 "",
		"1--2":               "",
		"+5511":              "",
		"abc@s.whatsapp.net": "",
	} {
		j, ok := jidFor(in)
		got := ""
		if ok {
			got = j.String()
		}
		if got != want {
			t.Errorf("jidFor(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzConvertMessage feeds arbitrary protobuf bytes and addressing to the converter.
func FuzzConvertMessage(f *testing.F) {
	seed, _ := proto.Marshal(&waE2E.Message{ExtendedTextMessage: &waE2E.ExtendedTextMessage{Text: proto.String("oi"),
		ContextInfo: &waE2E.ContextInfo{StanzaID: proto.String("X")}}})
	f.Add(seed, "ID1", "5511988887777", "s.whatsapp.net", false, false)
	f.Add([]byte{0x0a, 0x02, 'h', 'i'}, "", "", "g.us", true, true)
	f.Add([]byte{0xff, 0xff}, "\xff", "1-2", "lid", false, true)
	f.Fuzz(func(t *testing.T, raw []byte, id, user, server string, group, fromMe bool) {
		var m waE2E.Message
		if proto.Unmarshal(raw, &m) != nil {
			return
		}
		chat := types.NewJID(user, server)
		in := convertMessage(&events.Message{Info: types.MessageInfo{ID: types.MessageID(id),
			MessageSource: types.MessageSource{Chat: chat, Sender: chat, IsGroup: group, IsFromMe: fromMe}}, Message: &m})
		if in.kind != inMessage {
			return
		}
		msg := in.msg
		if msg.ProviderID == "" || msg.From.Number == "" || len(msg.Body) > MaxBodyBytes || !utf8.ValidString(msg.Body) ||
			!utf8.ValidString(msg.ProviderID) || !utf8.ValidString(msg.QuotedProviderID) {
			t.Fatalf("bad conversion %+v", msg)
		}
		_ = convertReceipt(&events.Receipt{MessageSource: types.MessageSource{Chat: chat}, MessageIDs: []types.MessageID{types.MessageID(id)}})
	})
}

// BenchmarkHandlerText is the time whatsmeow's event handler spends on a text message
// (conversion and hand-off to the queue), through whatsmeow's own dispatcher.
func BenchmarkHandlerText(b *testing.B) {
	r := newRig(b, dbtest.Open(b, db.SQLite), rigOpts{paired: true, queue: 1 << 20})
	evs := make([]*events.Message, b.N)
	for i := range evs {
		evs[i] = textEvent(fmt.Sprintf("B%d", i), "Olá, tudo bem?")
	}
	b.ResetTimer()
	for i := range b.N {
		if !r.client.dispatch(evs[i]) {
			b.Fatal("refused")
		}
	}
}

// Every attempt to send one message uses one WhatsApp id, on both databases: the
// first recorded wins, later generators are not used.
func TestSentIDIsStable(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		devs, err := OpenDevices(ctx, d.SQL, string(d.Dialect), waLog.Noop)
		if err != nil {
			t.Fatal(err)
		}
		first, err := devs.SentID(ctx, 1, 42, func() string { return "3EB0AAA" })
		if err != nil || first != "3EB0AAA" {
			t.Fatalf("first: %q %v", first, err)
		}
		again, err := devs.SentID(ctx, 1, 42, func() string { return "3EB0BBB" })
		if err != nil || again != "3EB0AAA" {
			t.Fatalf("second attempt: %q %v, want the first id", again, err)
		}
		other, err := devs.SentID(ctx, 2, 42, func() string { return "3EB0CCC" })
		if err != nil || other != "3EB0CCC" {
			t.Fatalf("another connection's message 42: %q %v", other, err)
		}
	})
}
