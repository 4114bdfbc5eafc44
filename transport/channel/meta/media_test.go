package meta

import (
	"context"
	"testing"

	"atende/engine"
)

// Heads of real containers the media store sniffs.
var (
	m4aBytes = append([]byte("\x00\x00\x00\x20ftypM4A \x00\x00\x00\x00M4A mp42isom\x00\x00\x00\x00"), make([]byte, 64)...)
	mp4Bytes = append([]byte("\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2\x00\x00\x00\x08free"), make([]byte, 64)...)
	pdfBytes = []byte("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n")
)

// Messenger and Instagram attachments of type audio, video and file are downloaded
// from their CDN link into the media store and recorded with their media type; one
// message per attachment, the text on the first. A link whose content the store
// refuses keeps the message as text.
func TestWebhookAttachmentsAudioVideoFile(t *testing.T) {
	r := newRig(t)
	fb, ig := r.connect()
	att := func(typ, path string) string {
		return `{"type":"` + typ + `","payload":{"url":"` + r.cdn.URL + path + `"}}`
	}
	events := `[{"sender":{"id":"24000000000002"},"recipient":{"id":"` + pageID + `"},"timestamp":1700000000000,
		"message":{"mid":"m_MED1","text":"segue","attachments":[` + att("audio", "/audioclip.mp4") + `,` + att("video", "/video.mp4") + `,` +
		att("file", "/exame.pdf") + `,` + att("video", "/page.html") + `]}}]`
	if s := r.postSigned(pageEvent("page", pageID, events)); s != 200 {
		t.Fatalf("page web-hook: %d", s)
	}
	in, _, _ := r.Actors.For(fb).Snapshot()
	if len(in) != 4 {
		t.Fatalf("inbound %+v", in)
	}
	want := []struct{ id, kind, body string }{
		{"m_MED1", engine.MediaAudio, "segue"},
		{"m_MED1/1", engine.MediaVideo, ""},
		{"m_MED1/2", engine.MediaDocument, ""},
	}
	ctx := context.Background()
	for i, w := range want {
		m := in[i]
		if m.ProviderID != w.id || m.MediaType != w.kind || m.Body != w.body || m.MediaPath == "" || m.From.Number != "fb:24000000000002" {
			t.Fatalf("attachment %d = %+v", i, m)
		}
		rc, f, err := r.Media.Open(ctx, 1, m.MediaPath)
		if err != nil || f.Type != w.kind {
			t.Fatalf("attachment %d stored as %+v: %v", i, f, err)
		}
		rc.Close()
	}
	if m := in[3]; m.ProviderID != "m_MED1/3" || m.MediaType != "" || m.MediaPath != "" || m.Body != "[video]" {
		t.Fatalf("refused attachment = %+v", m)
	}

	// A refused first attachment keeps the customer's text, not "[video]".
	captioned := `[{"sender":{"id":"24000000000002"},"recipient":{"id":"` + pageID + `"},"timestamp":1700000002000,
		"message":{"mid":"m_CAP","text":"veja isto","attachments":[` + att("video", "/page.html") + `]}}]`
	if s := r.postSigned(pageEvent("page", pageID, captioned)); s != 200 {
		t.Fatalf("captioned web-hook: %d", s)
	}
	in, _, _ = r.Actors.For(fb).Snapshot()
	if m := in[len(in)-1]; m.ProviderID != "m_CAP" || m.Body != "veja isto" || m.MediaType != "" || m.MediaPath != "" {
		t.Fatalf("refused captioned attachment = %+v", m)
	}

	// Instagram: the same attachment format (audio, video) on the instagram object.
	igEvents := `[{"sender":{"id":"IGSID2"},"recipient":{"id":"` + igID + `"},"timestamp":1700000001000,
		"message":{"mid":"aWdfMED","attachments":[` + att("audio", "/audioclip.mp4") + `,` + att("video", "/video.mp4") + `]}}]`
	r.graph.Lock()
	r.graph.Objects["IGSID2"] = map[string]any{"name": "Ana", "username": "ana", "id": "IGSID2"}
	r.graph.Unlock()
	if s := r.postSigned(pageEvent("instagram", igID, igEvents)); s != 200 {
		t.Fatalf("instagram web-hook: %d", s)
	}
	in, _, _ = r.Actors.For(ig).Snapshot()
	if len(in) != 2 || in[0].ProviderID != "aWdfMED" || in[0].MediaType != engine.MediaAudio || in[0].MediaPath == "" ||
		in[1].ProviderID != "aWdfMED/1" || in[1].MediaType != engine.MediaVideo || in[1].MediaPath == "" || in[0].From.Number != "ig:IGSID2" {
		t.Fatalf("instagram %+v", in)
	}
}
