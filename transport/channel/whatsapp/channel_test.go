package whatsapp

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.mau.fi/whatsmeow/proto/waE2E"
	"go.mau.fi/whatsmeow/types"
	"go.mau.fi/whatsmeow/types/events"
	"google.golang.org/protobuf/proto"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
)

func TestPairingFlow(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		r := newRig(t, d, rigOpts{})
		if r.dev.ID != nil {
			t.Fatal("fresh connection got a paired device")
		}
		// whatsmeow's QR channel (registered by Start) turns the pair-device refs into codes.
		r.client.dispatch(&events.QR{Codes: []string{"2@ref1,noise,identity,adv", "2@ref2,noise,identity,adv"}})
		r.sink.wait(t, "qrcode", func(s *recSink) bool { return s.lastStatus().Status == engine.ConnQRCode })
		if got := r.sink.lastStatus().QRCode; got != "2@ref1,noise,identity,adv" {
			t.Fatalf("QR code = %q", got)
		}
		// The phone scanned: whatsmeow stores the device id, then emits PairSuccess.
		jid := ownJID
		jid.Device = 12
		savePaired(t, r.dev, jid)
		r.client.dispatch(&events.PairSuccess{ID: jid, Platform: "android"})
		r.sink.wait(t, "PAIRING", func(s *recSink) bool { return s.lastStatus().Status == engine.ConnPairing })
		r.client.dispatch(&events.Connected{})
		r.sink.wait(t, "CONNECTED", func(s *recSink) bool { return s.lastStatus().Status == engine.ConnConnected })
		if n := r.sink.lastStatus().Number; n != ownJID.User {
			t.Fatalf("connected number = %q", n)
		}
		bound, err := r.devices.Bound(ctx, 1)
		if err != nil || bound != jid {
			t.Fatalf("bound = %v, %v; want %v", bound, err, jid)
		}
		// A restart loads the paired device: no QR code, OPENING then (on connect) CONNECTED.
		if err := r.ch.Stop(ctx); err != nil {
			t.Fatal(err)
		}
		if err := r.ch.Start(ctx, r.sink); err != nil {
			t.Fatal(err)
		}
		if r.dev.ID == nil || *r.dev.ID != jid {
			t.Fatalf("restart loaded device %v", r.dev.ID)
		}
		r.sink.wait(t, "OPENING", func(s *recSink) bool { return s.lastStatus().Status == engine.ConnOpening })
	})
}

func TestQRTimeoutAndLogout(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		r := newRig(t, d, rigOpts{})
		r.client.dispatch(&events.QR{Codes: []string{"2@a"}})
		r.sink.wait(t, "qrcode", func(s *recSink) bool { return s.lastStatus().Status == engine.ConnQRCode })
		// The server closes the socket before a scan: the QR channel reports a timeout.
		r.client.dispatch(&events.Disconnected{})
		r.sink.wait(t, "TIMEOUT", func(s *recSink) bool { return s.lastStatus().Status == engine.ConnTimeout })
	})
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		r := newRig(t, d, rigOpts{paired: true})
		r.client.dispatch(&events.LoggedOut{Reason: events.ConnectFailureLoggedOut})
		r.sink.wait(t, "DISCONNECTED", func(s *recSink) bool { return s.lastStatus().Status == engine.ConnDisconnected })
		if !strings.Contains(r.sink.lastStatus().Reason, "logged out") {
			t.Fatalf("reason %q", r.sink.lastStatus().Reason)
		}
		if bound, _ := r.devices.Bound(ctx, 1); !bound.IsEmpty() {
			t.Fatalf("device still bound to %v", bound)
		}
		devs, err := r.devices.Container().GetAllDevices(ctx)
		if err != nil || len(devs) != 0 {
			t.Fatalf("devices left: %d, %v", len(devs), err)
		}
	})
}

func TestStalledAndRestored(t *testing.T) {
	r := newRig(t, dbtest.Open(t, db.SQLite), rigOpts{paired: true})
	r.client.dispatch(&events.KeepAliveTimeout{ErrorCount: 1, LastSuccess: time.Now()})
	r.client.dispatch(&events.KeepAliveTimeout{ErrorCount: 5, LastSuccess: time.Now().Add(-2 * time.Minute)})
	r.client.dispatch(&events.KeepAliveTimeout{ErrorCount: 6, LastSuccess: time.Now().Add(-2 * time.Minute)})
	r.sink.wait(t, "STALLED", func(s *recSink) bool { return s.lastStatus().Status == engine.ConnStalled })
	r.client.dispatch(&events.KeepAliveRestored{})
	r.sink.wait(t, "CONNECTED", func(s *recSink) bool { return s.lastStatus().Status == engine.ConnConnected })
	n := 0
	for _, s := range r.sink.statuses {
		if s.Status == engine.ConnStalled {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("STALLED reported %d times", n)
	}
}

func TestInbound(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		r := newRig(t, d, rigOpts{paired: true})
		r.client.dispatch(textEvent("M1", "Olá"))
		ext := textEvent("M2", "")
		ext.Message = &waE2E.Message{ExtendedTextMessage: &waE2E.ExtendedTextMessage{Text: proto.String("respondendo"),
			ContextInfo: &waE2E.ContextInfo{StanzaID: proto.String("OUT1")}}}
		r.client.dispatch(ext)
		img := textEvent("M3", "")
		img.Message = &waE2E.Message{ImageMessage: &waE2E.ImageMessage{Caption: proto.String("foto"), Mimetype: proto.String("image/png"),
			DirectPath: proto.String("/v/t62/abc"), MediaKey: []byte{1, 2}, FileLength: proto.Uint64(70)}}
		r.client.dispatch(img)
		echo := textEvent("M4", "enviado do celular")
		echo.Info.IsFromMe, echo.Info.Sender = true, ownJID
		r.client.dispatch(echo)
		group := textEvent("M5", "no grupo")
		group.Info.Chat, group.Info.IsGroup = types.NewJID("120363025246125888", types.GroupServer), true
		r.client.dispatch(group)
		lid := textEvent("M6", "via lid")
		lid.Info.Chat = types.NewJID("123456789012345", types.HiddenUserServer)
		lid.Info.SenderAlt = customer
		r.client.dispatch(lid)

		r.sink.wait(t, "6 messages", func(s *recSink) bool { return len(s.inbound) == 6 })
		in := r.sink.inbound
		if m := in[0]; m.ProviderID != "M1" || m.Body != "Olá" || m.From.Number != "5511988887777" || m.From.Name != "Maria" || m.FromMe || m.At.Unix() != 1700000000 {
			t.Errorf("text = %+v", m)
		}
		if m := in[1]; m.Body != "respondendo" || m.QuotedProviderID != "OUT1" {
			t.Errorf("quoted = %+v", m)
		}
		if m := in[2]; m.MediaType != engine.MediaImage || m.MediaPath == "" || m.Body != "foto" || !strings.HasPrefix(m.MediaPath, "3/") {
			t.Errorf("image = %+v", m)
		} else if rc, f, err := r.media.Open(context.Background(), 3, m.MediaPath); err != nil || f.Type != engine.MediaImage {
			t.Errorf("stored image: %+v %v", f, err)
		} else {
			rc.Close()
		}
		if m := in[3]; !m.FromMe || m.From.Number != "5511988887777" || m.From.Name != "" {
			t.Errorf("echo = %+v", m)
		}
		if m := in[4]; !m.From.IsGroup || m.From.Number != "120363025246125888" || m.From.Name != "" {
			t.Errorf("group = %+v", m)
		}
		if m := in[5]; m.From.Number != "5511988887777" {
			t.Errorf("lid = %+v", m)
		}
	})
}

func TestInboundMediaDownloadFails(t *testing.T) {
	r := newRig(t, dbtest.Open(t, db.SQLite), rigOpts{paired: true})
	r.client.media = nil
	doc := textEvent("D1", "")
	doc.Message = &waE2E.Message{DocumentMessage: &waE2E.DocumentMessage{FileName: proto.String("nota.pdf"),
		DirectPath: proto.String("/v/x"), MediaKey: []byte{1}}}
	r.client.dispatch(doc)
	r.sink.wait(t, "message", func(s *recSink) bool { return len(s.inbound) == 1 })
	if m := r.sink.inbound[0]; m.MediaType != "" || m.MediaPath != "" || m.ProviderID != "D1" {
		t.Fatalf("message = %+v", m)
	}
}

func TestReceipts(t *testing.T) {
	r := newRig(t, dbtest.Open(t, db.SQLite), rigOpts{paired: true})
	src := types.MessageSource{Chat: customer, Sender: customer}
	r.client.dispatch(&events.Receipt{MessageSource: src, MessageIDs: []types.MessageID{"A", "B"}, Type: types.ReceiptTypeRead})
	r.client.dispatch(&events.Receipt{MessageSource: src, MessageIDs: []types.MessageID{"C"}, Type: types.ReceiptTypeDelivered})
	r.client.dispatch(&events.Receipt{MessageSource: src, MessageIDs: []types.MessageID{"D"}, Type: types.ReceiptTypePlayed})
	self := src
	self.IsFromMe = true
	r.client.dispatch(&events.Receipt{MessageSource: self, MessageIDs: []types.MessageID{"E"}, Type: types.ReceiptTypeReadSelf})
	r.client.dispatch(&events.Receipt{MessageSource: src, MessageIDs: []types.MessageID{"F"}, Type: types.ReceiptTypeRetry})
	r.sink.wait(t, "4 receipts", func(s *recSink) bool { return len(s.receipts) == 4 })
	want := []engine.Receipt{{ProviderID: "A", Ack: engine.AckRead}, {ProviderID: "B", Ack: engine.AckRead}, {ProviderID: "C", Ack: engine.AckSent}, {ProviderID: "D", Ack: engine.AckPlayed}}
	for i, w := range want {
		if r.sink.receipts[i] != w {
			t.Errorf("receipt %d = %+v, want %+v", i, r.sink.receipts[i], w)
		}
	}
}

func TestCalls(t *testing.T) {
	offer := &events.CallOffer{BasicCallMeta: types.BasicCallMeta{From: customer, CallID: "CALL1"}}
	t.Run("disabled", func(t *testing.T) {
		r := newRig(t, dbtest.Open(t, db.SQLite), rigOpts{paired: true, settings: settingsStub{acceptCalls: "disabled"}})
		r.client.dispatch(offer)
		deadline := time.Now().Add(5 * time.Second)
		for len(r.client.sentCopy()) == 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		sent := r.client.sentCopy()
		if len(sent) != 1 || sent[0].to != customer || sent[0].msg.GetConversation() != DefaultCallRejectMessage {
			t.Fatalf("sent = %+v", sent)
		}
		if len(r.client.rejected) != 1 || r.client.rejected[0] != "CALL1" {
			t.Fatalf("rejected = %v", r.client.rejected)
		}
	})
	t.Run("enabled", func(t *testing.T) {
		r := newRig(t, dbtest.Open(t, db.SQLite), rigOpts{paired: true, settings: settingsStub{acceptCalls: "enabled"}})
		r.client.dispatch(offer)
		r.client.dispatch(textEvent("after", "x")) // the queue is FIFO: once this arrives, the call was handled
		r.sink.wait(t, "message", func(s *recSink) bool { return len(s.inbound) == 1 })
		if len(r.client.sentCopy()) != 0 || len(r.client.rejected) != 0 {
			t.Fatalf("call was rejected with calls enabled")
		}
	})
}

func TestSendIdempotent(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		r := newRig(t, d, rigOpts{paired: true})
		out := engine.OutboundMessage{MessageID: 501, To: "5511988887777", Body: "Oi!", QuotedProviderID: "IN9"}
		r.client.sendErr = errors.New("socket closed")
		_, err := r.ch.Send(ctx, out)
		if !errors.Is(err, engine.ErrChannelTemporary) {
			t.Fatalf("failed send: %v, want temporary", err)
		}
		r.client.sendErr = nil
		id1, err := r.ch.Send(ctx, out)
		if err != nil {
			t.Fatal(err)
		}
		id2, err := r.ch.Send(ctx, out)
		if err != nil || id2 != id1 || !strings.HasPrefix(id1, "3EB0") {
			t.Fatalf("ids %q %q %v", id1, id2, err)
		}
		other, _ := r.ch.Send(ctx, engine.OutboundMessage{MessageID: 502, To: "5511988887777", Body: "b"})
		if other == id1 {
			t.Fatal("two messages share an id")
		}
		sent := r.client.sentCopy()
		if len(sent) != 3 || sent[0].id != id1 || sent[0].to != customer {
			t.Fatalf("sent %+v", sent)
		}
		ext := sent[0].msg.GetExtendedTextMessage()
		if ext.GetText() != "Oi!" || ext.GetContextInfo().GetStanzaID() != "IN9" || ext.GetContextInfo().GetParticipant() != customer.String() {
			t.Fatalf("quoted reply = %v", sent[0].msg)
		}
		if _, err := r.ch.Send(ctx, engine.OutboundMessage{MessageID: 503, To: "not a number"}); err == nil || errors.Is(err, engine.ErrChannelTemporary) {
			t.Fatalf("bad number: %v", err)
		}
	})
}

func TestSendMediaAndGroup(t *testing.T) {
	ctx := context.Background()
	r := newRig(t, dbtest.Open(t, db.SQLite), rigOpts{paired: true})
	f, err := r.media.Save(ctx, 3, strings.NewReader(string(pngBytes(t))), "a.png", "image/png")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.ch.Send(ctx, engine.OutboundMessage{MessageID: 9, To: "120363025246125888", Body: "veja", MediaType: engine.MediaImage, MediaPath: f.Path}); err != nil {
		t.Fatal(err)
	}
	sent := r.client.sentCopy()
	if len(sent) != 1 || sent[0].to.Server != types.GroupServer || sent[0].msg.GetImageMessage().GetCaption() != "veja" || r.client.uploads != 1 {
		t.Fatalf("sent %+v uploads %d", sent, r.client.uploads)
	}
}

func TestSendWhileDisconnected(t *testing.T) {
	r := newRig(t, dbtest.Open(t, db.SQLite), rigOpts{})
	_, err := r.ch.Send(context.Background(), engine.OutboundMessage{MessageID: 1, To: "5511988887777", Body: "x"})
	if !errors.Is(err, engine.ErrChannelTemporary) {
		t.Fatalf("err = %v", err)
	}
}

func TestWipeCredentials(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		r := newRig(t, d, rigOpts{paired: true})
		if err := r.ch.WipeCredentials(ctx); err != nil {
			t.Fatal(err)
		}
		devs, _ := r.devices.Container().GetAllDevices(ctx)
		if bound, _ := r.devices.Bound(ctx, 1); !bound.IsEmpty() || len(devs) != 0 {
			t.Fatalf("left bound=%v devices=%d", bound, len(devs))
		}
		// The next Start pairs afresh.
		if err := r.ch.Start(ctx, r.sink); err != nil {
			t.Fatal(err)
		}
		if r.dev.ID != nil {
			t.Fatal("wiped connection still has a device")
		}
	})
}
