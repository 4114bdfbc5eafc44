package waba

import (
	"context"
	"strings"
	"testing"

	"atende/engine"
	"atende/transport/channel/meta/graphfake"
)

// Heads of real containers the media store sniffs: a WhatsApp voice note (Ogg/Opus)
// and an MP4 video.
var (
	oggOpus  = append([]byte("OggS\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x01\x02\x03\x04\x00\x00\x00\x00\x11\x22\x33\x44\x01\x13OpusHead\x01\x01\x38\x01"), make([]byte, 32)...)
	mp4Bytes = append([]byte("\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2\x00\x00\x00\x08free"), make([]byte, 64)...)
)

// Audio (a voice note) and video messages are fetched through GET /{media-id} and the
// returned URL, stored by the media store and recorded with their type; the video
// keeps its caption. A re-delivery of both is stored once.
func TestWebhookInboundAudioVideo(t *testing.T) {
	r, _ := newRig(t)
	id := r.register()
	r.graph.Lock()
	r.graph.Media["9001"] = graphfake.MediaItem{MIME: "audio/ogg; codecs=opus", Data: oggOpus}
	r.graph.Media["9002"] = graphfake.MediaItem{MIME: "video/mp4", Data: mp4Bytes}
	r.graph.Unlock()
	body := notify(`[
		{"from":"5565988887777","id":"wamid.AV1","timestamp":"1700000000","type":"audio","audio":{"mime_type":"audio/ogg; codecs=opus","sha256":"x","id":"9001","voice":true}},
		{"from":"5565988887777","id":"wamid.AV2","timestamp":"1700000001","type":"video","video":{"caption":"o vídeo","mime_type":"video/mp4","sha256":"y","id":"9002"}}]`, "")
	for i := 0; i < 2; i++ {
		if s := r.postSigned(body); s != 200 {
			t.Fatalf("delivery %d answered %d", i, s)
		}
	}
	in, _, stored := r.Actors.For(id).Snapshot()
	if len(in) != 4 || stored != 2 {
		t.Fatalf("%d delivered, %d stored: %+v", len(in), stored, in)
	}
	ctx := context.Background()
	for _, c := range []struct {
		m              engine.InboundMessage
		id, kind, body string
		ext            string
	}{
		{in[0], "wamid.AV1", engine.MediaAudio, "", ".ogg"},
		{in[1], "wamid.AV2", engine.MediaVideo, "o vídeo", ".mp4"},
	} {
		if c.m.ProviderID != c.id || c.m.MediaType != c.kind || c.m.Body != c.body || !strings.HasSuffix(c.m.MediaPath, c.ext) {
			t.Fatalf("%s = %+v", c.id, c.m)
		}
		f, info, err := r.Media.Open(ctx, 1, c.m.MediaPath)
		if err != nil || info.Type != c.kind {
			t.Fatalf("%s stored as %+v: %v", c.id, info, err)
		}
		f.Close()
	}
	if len(r.graph.Requests("GET /9001")) != 2 {
		t.Fatalf("audio media id looked up %d times", len(r.graph.Requests("GET /9001")))
	}
}
