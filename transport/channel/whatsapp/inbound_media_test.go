package whatsapp

import (
	"context"
	"strings"
	"testing"

	"go.mau.fi/whatsmeow/proto/waE2E"
	"google.golang.org/protobuf/proto"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
)

// Heads of real containers, as the media store sniffs them: an Ogg/Opus voice note
// (what WhatsApp records) and an MP4 video.
var (
	oggOpus = []byte("OggS\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x01\x02\x03\x04\x00\x00\x00\x00\x11\x22\x33\x44\x01\x13OpusHead\x01\x01\x38\x01\x80\xbb\x00\x00\x00\x00\x00")
	mp4Head = []byte("\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2\x00\x00\x00\x08free\x00\x00\x00\x08mdat")
)

// setMedia is what the next download returns (guarded like the client's other state).
func (o *offlineClient) setMedia(b []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.media = b
}

// A voice note and a video are downloaded through the client, sniffed and stored by
// the media store under the tenant, and reach the sink with their type, path and
// (for the video) caption.
func TestInboundAudioAndVideo(t *testing.T) {
	r := newRig(t, dbtest.Open(t, db.SQLite), rigOpts{paired: true})
	ctx := context.Background()

	r.client.setMedia(oggOpus)
	ptt := textEvent("AUD1", "")
	ptt.Message = &waE2E.Message{AudioMessage: &waE2E.AudioMessage{Mimetype: proto.String("audio/ogg; codecs=opus"),
		PTT: proto.Bool(true), Seconds: proto.Uint32(3), DirectPath: proto.String("/v/t62.7117-24/aud"),
		MediaKey: []byte{1, 2, 3}, FileLength: proto.Uint64(uint64(len(oggOpus)))}}
	if !r.client.dispatch(ptt) {
		t.Fatal("audio message not accepted by the handler")
	}
	r.sink.wait(t, "the voice note", func(s *recSink) bool { return len(s.inbound) == 1 })

	r.client.setMedia(mp4Head)
	vid := textEvent("VID1", "")
	vid.Message = &waE2E.Message{VideoMessage: &waE2E.VideoMessage{Caption: proto.String("olha isso"),
		Mimetype: proto.String("video/mp4"), Seconds: proto.Uint32(5), DirectPath: proto.String("/v/t62.7161-24/vid"),
		MediaKey: []byte{4, 5, 6}, FileLength: proto.Uint64(uint64(len(mp4Head)))}}
	if !r.client.dispatch(vid) {
		t.Fatal("video message not accepted by the handler")
	}
	r.sink.wait(t, "the video", func(s *recSink) bool { return len(s.inbound) == 2 })

	r.sink.mu.Lock()
	in := append([]engine.InboundMessage(nil), r.sink.inbound...)
	r.sink.mu.Unlock()
	checks := []struct {
		m         engine.InboundMessage
		id, kind  string
		body, ext string
	}{
		{in[0], "AUD1", engine.MediaAudio, "", ".ogg"},
		{in[1], "VID1", engine.MediaVideo, "olha isso", ".mp4"},
	}
	for _, c := range checks {
		m := c.m
		if m.ProviderID != c.id || m.MediaType != c.kind || m.Body != c.body || m.From.Number != "5511988887777" ||
			!strings.HasPrefix(m.MediaPath, "3/") || !strings.HasSuffix(m.MediaPath, c.ext) {
			t.Errorf("%s = %+v", c.id, m)
			continue
		}
		rc, f, err := r.media.Open(ctx, 3, m.MediaPath)
		if err != nil || f.Type != c.kind {
			t.Errorf("%s stored as %+v: %v", c.id, f, err)
			continue
		}
		rc.Close()
	}
}

// An audio WhatsApp hands over with a file the media store refuses (not audio at
// all) keeps the message, as text, rather than losing it.
func TestInboundAudioRefusedByStore(t *testing.T) {
	r := newRig(t, dbtest.Open(t, db.SQLite), rigOpts{paired: true})
	r.client.setMedia([]byte("<html><script>alert(1)</script></html>"))
	a := textEvent("AUD2", "")
	a.Message = &waE2E.Message{AudioMessage: &waE2E.AudioMessage{Mimetype: proto.String("audio/ogg"),
		DirectPath: proto.String("/v/x"), MediaKey: []byte{1}, FileLength: proto.Uint64(40)}}
	r.client.dispatch(a)
	var m engine.InboundMessage
	r.sink.wait(t, "the message", func(s *recSink) bool {
		if len(s.inbound) == 1 {
			m = s.inbound[0]
		}
		return len(s.inbound) == 1
	})
	// Kept as text that says what it was: a voice note has no caption.
	if m.ProviderID != "AUD2" || m.MediaType != "" || m.MediaPath != "" || m.Body != "[audio]" {
		t.Fatalf("message = %+v", m)
	}
}

// WhatsApp delivers a message again when our ack did not reach it (reconnect, full
// queue). The adapter does not de-duplicate — the ticket actor does, on the provider
// id — so each delivery must reach the sink under the same provider id and content,
// media included (a fresh download, a stable id).
func TestRedeliverySameProviderID(t *testing.T) {
	r := newRig(t, dbtest.Open(t, db.SQLite), rigOpts{paired: true})
	r.client.dispatch(textEvent("3EB0RE1", "de novo"))
	r.client.dispatch(textEvent("3EB0RE1", "de novo"))
	r.client.setMedia(oggOpus)
	mk := func() any {
		e := textEvent("3EB0RE2", "")
		e.Message = &waE2E.Message{AudioMessage: &waE2E.AudioMessage{Mimetype: proto.String("audio/ogg; codecs=opus"), PTT: proto.Bool(true),
			DirectPath: proto.String("/v/aud"), MediaKey: []byte{9}, FileLength: proto.Uint64(uint64(len(oggOpus)))}}
		return e
	}
	r.client.dispatch(mk())
	r.client.dispatch(mk())
	r.sink.wait(t, "4 deliveries", func(s *recSink) bool { return len(s.inbound) == 4 })
	in := r.sink.inbound
	for i, want := range []string{"3EB0RE1", "3EB0RE1", "3EB0RE2", "3EB0RE2"} {
		if in[i].ProviderID != want {
			t.Fatalf("delivery %d under %q, want %q: %+v", i, in[i].ProviderID, want, in)
		}
	}
	if in[0] != in[1] {
		t.Errorf("text re-delivery differs:\n%+v\n%+v", in[0], in[1])
	}
	if in[2].MediaType != engine.MediaAudio || in[3].MediaType != engine.MediaAudio || in[2].MediaPath == "" || in[3].MediaPath == "" ||
		in[2].From != in[3].From || !in[2].At.Equal(in[3].At) {
		t.Errorf("audio re-delivery:\n%+v\n%+v", in[2], in[3])
	}
}
