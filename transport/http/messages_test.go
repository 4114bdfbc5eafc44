package httpapi_test

import (
	"bytes"
	"context"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"reflect"
	"strings"
	"testing"

	"atende/engine"
	httpapi "atende/transport/http"
)

// Small files whose content the media store recognises.
var (
	pngFile  = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{1}, 200)...)
	webmFile = append([]byte("\x1A\x45\xDF\xA3\x9f\x42\x86\x81\x01\x42\x82\x84webm"), bytes.Repeat([]byte{2}, 300)...)
	oggFile  = append([]byte("OggS\x00\x02"), bytes.Repeat([]byte{3}, 300)...)
	mp3File  = append([]byte("ID3\x04\x00\x00"), bytes.Repeat([]byte{4}, 300)...)
	pdfFile  = append([]byte("%PDF-1.4\n"), bytes.Repeat([]byte("0"), 300)...)
	htmlFile = []byte("<!DOCTYPE html><html><script>alert(1)</script></html>")
)

// formPart is one part of a multipart body: a field, or a file when fileName or
// content type is set.
type formPart struct {
	name, fileName, contentType string
	data                        []byte
}

func multipartBody(t *testing.T, parts ...formPart) ([]byte, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		disp := fmt.Sprintf(`form-data; name=%q`, p.name)
		if p.fileName != "" {
			disp += fmt.Sprintf(`; filename=%q`, p.fileName)
		}
		h.Set("Content-Disposition", disp)
		if p.contentType != "" {
			h.Set("Content-Type", p.contentType)
		}
		w, err := mw.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write(p.data)
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), mw.FormDataContentType()
}

func (e *ticketEnv) postForm(tok, path string, parts ...formPart) resp {
	e.t.Helper()
	body, ct := multipartBody(e.t, parts...)
	return e.do(req{method: "POST", path: path, token: tok, body: body, header: map[string]string{"Content-Type": ct}})
}

// sent returns the SendMessage commands of calls, failing on anything else.
func sent(t *testing.T, calls []call) []engine.SendMessage {
	t.Helper()
	var out []engine.SendMessage
	for _, c := range calls {
		m, ok := c.Cmd.(engine.SendMessage)
		if !ok {
			t.Fatalf("command %#v, want SendMessage", c.Cmd)
		}
		out = append(out, m)
	}
	return out
}

func TestListMessages(t *testing.T) {
	eachTicketEnv(t, func(t *testing.T, e *ticketEnv) {
		setup := func(t *testing.T) {
			e.fixtures(t)
			e.w.system(t, tOpenAna, engine.ReceiveMessage{MessageID: 1, ProviderID: "a", Body: "oi"})
			e.w.system(t, tOpenAna, engine.ReceiveMessage{MessageID: 2, ProviderID: "b", Body: "foto", MediaType: "image", MediaURL: "1/0123456789abcdef0123456789abcdef.jpg"})
			e.w.system(t, tOpenAna, engine.ReceiveMessage{MessageID: 3, ProviderID: "c", Body: "link", MediaType: "image", MediaURL: "https://cdn.example.com/x.jpg"})
			e.w.system(t, tPending, engine.ReceiveMessage{MessageID: 4, ProviderID: "d", Body: "olá"})
			e.w.takeCalls()
		}
		type page struct {
			Messages   []engine.Message `json:"messages"`
			HasMore    bool             `json:"hasMore"`
			NextCursor string           `json:"nextCursor"`
			Ticket     *engine.Ticket   `json:"ticket"`
		}

		t.Run("the holder opening the chat marks it read", func(t *testing.T) {
			setup(t)
			r := e.get(e.tok("ana"), "/messages/"+id(tOpenAna))
			r.wantStatus(t, http.StatusOK)
			c := e.oneCall(t)
			if !reflect.DeepEqual(c.Cmd, engine.MarkRead{}) || c.Ticket != tOpenAna || c.P.UserID != e.ids["ana"] {
				t.Fatalf("command %+v", c)
			}
			var p page
			r.json(t, &p)
			if p.Ticket == nil || p.Ticket.ID != tOpenAna || p.Ticket.UnreadMessages != 0 || len(p.Messages) != 3 || !p.HasMore || p.NextCursor != "older" {
				t.Fatalf("page %s", r.Body)
			}
			for _, m := range p.Messages {
				if !m.Read {
					t.Fatalf("message %d not read after the mark: the handler did not wait", m.ID)
				}
			}
			if u := p.Messages[1].MediaURL; !signedMediaURL(u, "1/0123456789abcdef0123456789abcdef.jpg") {
				t.Fatalf("stored media not signed: %q", u)
			}
			if u := p.Messages[2].MediaURL; u != "https://cdn.example.com/x.jpg" {
				t.Fatalf("a provider link was changed: %q", u)
			}
			if e.w.lastMsgQ != (engine.MessageQuery{PageNumber: 1}) {
				t.Fatalf("message query %+v", e.w.lastMsgQ)
			}
			// Nothing left unread: the next visit asks nothing.
			e.get(e.tok("ana"), "/messages/"+id(tOpenAna)).wantStatus(t, http.StatusOK)
			e.noCall(t)
		})
		for _, tc := range []struct{ name, as, path string }{
			{"a supervisor looking in", "superv", "/messages/" + id(tOpenAna)},
			{"an older page", "ana", "/messages/" + id(tOpenAna) + "?pageNumber=2"},
			{"a cursor page", "ana", "/messages/" + id(tOpenAna) + "?cursor=older"},
			{"spying on a pending ticket", "ana", "/messages/" + id(tPending)},
		} {
			t.Run(tc.name+" leaves it unread", func(t *testing.T) {
				setup(t)
				r := e.get(e.tok(tc.as), tc.path)
				r.wantStatus(t, http.StatusOK)
				e.noCall(t)
				var p page
				r.json(t, &p)
				if p.Ticket == nil || p.Ticket.UnreadMessages == 0 {
					t.Fatalf("page %s", r.Body)
				}
			})
		}
		t.Run("the cursor is passed on", func(t *testing.T) {
			setup(t)
			e.get(e.tok("ana"), "/messages/"+id(tOpenAna)+"?cursor=abc&pageNumber=9").wantStatus(t, http.StatusOK)
			if e.w.lastMsgQ != (engine.MessageQuery{Cursor: "abc"}) {
				t.Fatalf("message query %+v", e.w.lastMsgQ)
			}
		})
		t.Run("refusals", func(t *testing.T) {
			setup(t)
			ana := e.tok("ana")
			for _, q := range []string{"?pageNumber=0", "?pageNumber=x", "?pageNumber=1001"} {
				b := e.get(ana, "/messages/"+id(tOpenAna)+q).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
				if b.Fields["pageNumber"] == "" {
					t.Fatalf("%s: fields %v", q, b.Fields)
				}
			}
			e.get(ana, "/messages/"+id(tOther)).wantErr(t, http.StatusNotFound, engine.ErrNoTicketFound)
			e.get(ana, "/messages/nope").wantErr(t, http.StatusNotFound, engine.ErrNoTicketFound)
			e.get(ana, "/allmessages/"+id(tOther)).wantErr(t, http.StatusNotFound, engine.ErrNoTicketFound)
			e.noCall(t)
		})
		t.Run("all messages", func(t *testing.T) {
			setup(t)
			r := e.get(e.tok("bruno"), "/allmessages/"+id(tOpenAna))
			r.wantStatus(t, http.StatusOK)
			var all struct {
				Messages []engine.Message `json:"messages"`
			}
			r.json(t, &all)
			if len(all.Messages) != 3 || !signedMediaURL(all.Messages[1].MediaURL, "1/0123456789abcdef0123456789abcdef.jpg") {
				t.Fatalf("all %s", r.Body)
			}
			e.noCall(t)
		})
	})
}

func TestSendMessage(t *testing.T) {
	eachTicketEnv(t, func(t *testing.T, e *ticketEnv) {
		ana := e.ids["ana"]
		t.Run("a reply", func(t *testing.T) {
			e.fixtures(t)
			r := e.post(e.tok("ana"), "/messages/"+id(tOpenAna), map[string]any{
				"body": "Olá! 'quote' \"; DROP TABLE messages;--", "fromMe": true, "read": true, "mediaUrl": "",
				"quotedMsg": map[string]any{"id": 5, "body": "whole message sent back"}, "sign": true})
			r.wantStatus(t, http.StatusCreated)
			c := e.oneCall(t)
			m := sent(t, []call{c})[0]
			want := engine.SendMessage{MessageID: m.MessageID, SenderID: ana, Body: "Olá! 'quote' \"; DROP TABLE messages;--", QuotedID: 5}
			if m != want || m.MessageID <= 9000 || c.Ticket != tOpenAna || c.P.UserID != ana {
				t.Fatalf("command %+v on %d, want %+v", m, c.Ticket, want)
			}
			var got engine.Message
			r.json(t, &got)
			if got.ID != m.MessageID || got.Body != want.Body || !got.FromMe || got.TicketID != tOpenAna {
				t.Fatalf("answer %s", r.Body)
			}
		})
		t.Run("quotedMsgId as a string", func(t *testing.T) {
			e.fixtures(t)
			e.post(e.tok("ana"), "/messages/"+id(tOpenAna), map[string]any{"body": "x", "quotedMsgId": "7"}).wantStatus(t, http.StatusCreated)
			if m := sent(t, e.w.takeCalls())[0]; m.QuotedID != 7 {
				t.Fatalf("quoted %d", m.QuotedID)
			}
		})
		t.Run("a body of exactly the limit", func(t *testing.T) {
			e.fixtures(t)
			body := strings.Repeat("é", httpapi.MaxMessageBodyRunes)
			e.post(e.tok("ana"), "/messages/"+id(tOpenAna), map[string]any{"body": body}).wantStatus(t, http.StatusCreated)
			if m := sent(t, e.w.takeCalls())[0]; m.Body != body {
				t.Fatal("body changed")
			}
		})
		t.Run("a stored file by its path or signed URL", func(t *testing.T) {
			e.fixtures(t)
			f, err := e.media.Save(context.Background(), co1, bytes.NewReader(pngFile), "a.png", "image/png")
			if err != nil {
				t.Fatal(err)
			}
			signed, _ := e.media.URL(co1, f.Path, 3600e9)
			for _, u := range []string{f.Path, signed, "https://atende.example.com" + signed} {
				r := e.post(e.tok("ana"), "/messages/"+id(tOpenAna), map[string]any{"body": "", "mediaUrl": u})
				r.wantStatus(t, http.StatusCreated)
				m := sent(t, e.w.takeCalls())[0]
				if m.MediaURL != f.Path || m.MediaType != engine.MediaImage || m.Body != "" {
					t.Fatalf("%s: command %+v", u, m)
				}
				var got engine.Message
				r.json(t, &got)
				if !signedMediaURL(got.MediaURL, f.Path) {
					t.Fatalf("answer media %q", got.MediaURL)
				}
			}
		})
		other, err := e.media.Save(context.Background(), co2, bytes.NewReader(pngFile), "b.png", "image/png")
		if err != nil {
			t.Fatal(err)
		}
		refused := []struct {
			name   string
			as     string
			ticket engine.ID
			body   any
			status int
			code   engine.Code
			field  string
			asked  bool
		}{
			{"no body", "ana", tOpenAna, map[string]any{"fromMe": true}, 400, engine.ErrValidation, "body", false},
			{"blank body", "ana", tOpenAna, map[string]any{"body": " \n\t "}, 400, engine.ErrValidation, "body", false},
			{"body too long", "ana", tOpenAna, map[string]any{"body": strings.Repeat("a", httpapi.MaxMessageBodyRunes+1)}, 400, engine.ErrValidation, "body", false},
			{"NUL in the body", "ana", tOpenAna, map[string]any{"body": "a\x00b"}, 400, engine.ErrValidation, "body", false},
			{"bad quoted id", "ana", tOpenAna, map[string]any{"body": "x", "quotedMsg": map[string]any{"id": "x"}}, 400, engine.ErrValidation, "quotedMsg", false},
			{"negative quotedMsgId", "ana", tOpenAna, map[string]any{"body": "x", "quotedMsgId": -2}, 400, engine.ErrValidation, "quotedMsgId", false},
			{"another tenant's file", "ana", tOpenAna, map[string]any{"mediaUrl": other.Path}, 400, engine.ErrValidation, "mediaUrl", false},
			{"a file that does not exist", "ana", tOpenAna, map[string]any{"mediaUrl": "1/0123456789abcdef0123456789abcdef.png"}, 400, engine.ErrValidation, "mediaUrl", false},
			{"a path out of the folder", "ana", tOpenAna, map[string]any{"mediaUrl": "1/../../etc/passwd"}, 400, engine.ErrValidation, "mediaUrl", false},
			{"a foreign link", "ana", tOpenAna, map[string]any{"mediaUrl": "https://evil.example.com/x.png"}, 400, engine.ErrValidation, "mediaUrl", false},
			{"body not a string", "ana", tOpenAna, `{"body":12}`, 400, engine.ErrInvalidJSON, "", false},
			{"fromMe not a flag", "ana", tOpenAna, `{"body":"x","fromMe":"yes"}`, 400, engine.ErrValidation, "fromMe", false},
			{"malformed", "ana", tOpenAna, `{"body":"x"`, 400, engine.ErrInvalidJSON, "", false},
			{"oversized", "ana", tOpenAna, `{"body":"` + strings.Repeat("a", 70<<10) + `"}`, 413, engine.ErrBodyTooLarge, "", false},
			{"another's ticket", "ana", tOpenBrun, map[string]any{"body": "x"}, 403, engine.ErrNoPermission, "", true},
			{"a closed ticket", "ana", tClosed, map[string]any{"body": "x"}, 409, engine.ErrInvalidTransition, "", true},
			{"a pending ticket", "ana", tPending, map[string]any{"body": "x"}, 409, engine.ErrInvalidTransition, "", true},
			{"another tenant's ticket", "ana", tOther, map[string]any{"body": "x"}, 404, engine.ErrNoTicketFound, "", true},
			{"not a ticket id", "ana", -1, map[string]any{"body": "x"}, 404, engine.ErrNoTicketFound, "", false},
		}
		for _, tc := range refused {
			t.Run(tc.name, func(t *testing.T) {
				e.fixtures(t)
				b := e.post(e.tok(tc.as), "/messages/"+id(tc.ticket), tc.body).wantErr(t, tc.status, tc.code)
				if tc.field != "" && b.Fields[tc.field] == "" {
					t.Fatalf("fields %v, want %s", b.Fields, tc.field)
				}
				if calls := e.w.takeCalls(); (len(calls) == 1) != tc.asked || len(calls) > 1 {
					t.Fatalf("commands %+v, asked %v", calls, tc.asked)
				}
			})
		}
	})
}

func TestSendFiles(t *testing.T) {
	eachTicketEnv(t, func(t *testing.T, e *ticketEnv) {
		ana := e.ids["ana"]
		path := "/messages/" + id(tOpenAna)
		t.Run("several files: one message each, in order, caption on the first", func(t *testing.T) {
			e.fixtures(t)
			before := len(e.storedFiles(t, co1))
			r := e.postForm(e.tok("ana"), path,
				formPart{name: "fromMe", data: []byte("true")},
				formPart{name: "medias", fileName: "foto.png", contentType: "image/png", data: pngFile},
				formPart{name: "medias", fileName: "audio-1.webm", contentType: "audio/webm;codecs=opus", data: webmFile},
				formPart{name: "medias", fileName: "contrato.pdf", contentType: "application/pdf", data: pdfFile},
				formPart{name: "body", data: []byte("veja")},
				formPart{name: "quotedMsgId", data: []byte("42")},
			)
			r.wantStatus(t, http.StatusCreated)
			calls := e.w.takeCalls()
			ms := sent(t, calls)
			if len(ms) != 3 {
				t.Fatalf("sent %+v", ms)
			}
			wantTypes := []string{engine.MediaImage, engine.MediaAudio, engine.MediaDocument}
			wantBodies := []string{"veja", "", "contrato.pdf"}
			for i, m := range ms {
				if m.MediaType != wantTypes[i] || m.Body != wantBodies[i] || m.SenderID != ana ||
					!strings.HasPrefix(m.MediaURL, "1/") || calls[i].Ticket != tOpenAna {
					t.Fatalf("message %d: %+v", i, m)
				}
				if (i == 0) != (m.QuotedID == 42) {
					t.Fatalf("message %d quotes %d", i, m.QuotedID)
				}
				if i > 0 && m.MessageID <= ms[i-1].MessageID {
					t.Fatal("ids out of order")
				}
			}
			if got := len(e.storedFiles(t, co1)) - before; got != 3 {
				t.Fatalf("%d files stored, want 3", got)
			}
			var answer []engine.Message
			r.json(t, &answer)
			if len(answer) != 3 || answer[1].ID != ms[1].MessageID || !strings.HasPrefix(answer[1].MediaURL, "/media/") || !strings.Contains(answer[1].MediaURL, "/1/") {
				t.Fatalf("answer %s", r.Body)
			}
		})
		for _, tc := range []struct {
			name, fileName, contentType string
			data                        []byte
		}{
			{"browser recording (webm)", "rec.webm", "audio/webm", webmFile},
			{"voice note (ogg)", "voz.ogg", "audio/ogg; codecs=opus", oggFile},
			{"mp3", "audio.mp3", "audio/mpeg", mp3File},
			{"audio with a lying type", "audio.mp3", "image/png", mp3File},
		} {
			t.Run(tc.name, func(t *testing.T) {
				e.fixtures(t)
				r := e.postForm(e.tok("ana"), path, formPart{name: "medias", fileName: tc.fileName, contentType: tc.contentType, data: tc.data})
				r.wantStatus(t, http.StatusCreated)
				m := sent(t, e.w.takeCalls())[0]
				if m.MediaType != engine.MediaAudio || m.Body != "" {
					t.Fatalf("command %+v", m)
				}
				var got engine.Message
				r.json(t, &got) // one file: one message, not an array
				if got.ID != m.MessageID || got.MediaType != engine.MediaAudio {
					t.Fatalf("answer %s", r.Body)
				}
			})
		}
		t.Run("text only", func(t *testing.T) {
			e.fixtures(t)
			e.postForm(e.tok("ana"), path, formPart{name: "body", data: []byte("só texto")}, formPart{name: "quotedMsg", data: []byte(`{"id":9}`)}).
				wantStatus(t, http.StatusCreated)
			if m := sent(t, e.w.takeCalls())[0]; m.Body != "só texto" || m.MediaType != "" || m.QuotedID != 9 {
				t.Fatalf("command %+v", m)
			}
		})

		many := make([]formPart, 11)
		for i := range many {
			many[i] = formPart{name: "medias", fileName: fmt.Sprintf("f%d.png", i), contentType: "image/png", data: pngFile}
		}
		big := append(append([]byte{}, pngFile...), bytes.Repeat([]byte{7}, testMaxImage)...)
		refused := []struct {
			name   string
			ticket engine.ID
			parts  []formPart
			raw    string // a raw body instead of parts
			status int
			code   engine.Code
			field  string
			asked  bool
		}{
			{"a refused type after a good file", tOpenAna, []formPart{
				{name: "medias", fileName: "ok.png", contentType: "image/png", data: pngFile},
				{name: "medias", fileName: "x.html", contentType: "text/html", data: htmlFile},
				{name: "medias", fileName: "ok2.png", contentType: "image/png", data: pngFile},
			}, "", 415, engine.ErrMediaTypeNotAllowed, "", false},
			{"an executable name", tOpenAna, []formPart{
				{name: "medias", fileName: "ok.png", contentType: "image/png", data: pngFile},
				{name: "medias", fileName: "run.exe", contentType: "application/octet-stream", data: pdfFile},
			}, "", 415, engine.ErrMediaTypeNotAllowed, "", false},
			{"an image over its limit after a good file", tOpenAna, []formPart{
				{name: "medias", fileName: "ok.png", contentType: "image/png", data: pngFile},
				{name: "medias", fileName: "big.png", contentType: "image/png", data: big},
			}, "", 413, engine.ErrMediaTooLarge, "", false},
			{"a request over the upload cap", tOpenAna, []formPart{
				{name: "medias", fileName: "ok.png", contentType: "image/png", data: pngFile},
				{name: "medias", fileName: "huge.pdf", contentType: "application/pdf", data: append(append([]byte{}, pdfFile...), bytes.Repeat([]byte("1"), testMaxUpload)...)},
			}, "", 413, engine.ErrBodyTooLarge, "", false},
			{"an empty file", tOpenAna, []formPart{{name: "medias", fileName: "vazio.png", contentType: "image/png"}}, "", 400, engine.ErrValidation, "media", false},
			{"too many files", tOpenAna, many, "", 400, engine.ErrValidation, "medias", false},
			{"no file and no body", tOpenAna, []formPart{{name: "fromMe", data: []byte("true")}}, "", 400, engine.ErrValidation, "body", false},
			{"a caption too long", tOpenAna, []formPart{
				{name: "medias", fileName: "ok.png", contentType: "image/png", data: pngFile},
				{name: "body", data: []byte(strings.Repeat("a", httpapi.MaxMessageBodyRunes+1))},
			}, "", 400, engine.ErrValidation, "body", false},
			{"a bad quoted id", tOpenAna, []formPart{
				{name: "medias", fileName: "ok.png", contentType: "image/png", data: pngFile},
				{name: "quotedMsgId", data: []byte("abc")},
			}, "", 400, engine.ErrValidation, "quotedMsgId", false},
			{"a cut form", tOpenAna, nil, "--b\r\nContent-Disposition: form-data; name=\"medias\"; filename=\"a.png\"\r\n\r\n\x89PNG", 400, engine.ErrInvalidJSON, "", false},
			{"another tenant's ticket", tOther, []formPart{{name: "medias", fileName: "ok.png", contentType: "image/png", data: pngFile}},
				"", 404, engine.ErrNoTicketFound, "", false},
			{"a ticket the sender may not reply on", tOpenBrun, []formPart{
				{name: "medias", fileName: "ok.png", contentType: "image/png", data: pngFile},
				{name: "medias", fileName: "ok2.png", contentType: "image/png", data: pngFile},
			}, "", 403, engine.ErrNoPermission, "", true},
		}
		for _, tc := range refused {
			t.Run(tc.name, func(t *testing.T) {
				e.fixtures(t)
				before := e.storedFiles(t, co1)
				var r resp
				if tc.raw != "" {
					r = e.do(req{method: "POST", path: "/messages/" + id(tc.ticket), token: e.tok("ana"), body: tc.raw,
						header: map[string]string{"Content-Type": "multipart/form-data; boundary=b"}})
				} else {
					r = e.postForm(e.tok("ana"), "/messages/"+id(tc.ticket), tc.parts...)
				}
				b := r.wantErr(t, tc.status, tc.code)
				if tc.field != "" && b.Fields[tc.field] == "" {
					t.Fatalf("fields %v, want %s", b.Fields, tc.field)
				}
				if calls := e.w.takeCalls(); (len(calls) == 1) != tc.asked || len(calls) > 1 {
					t.Fatalf("commands %+v, asked %v: nothing may be sent", calls, tc.asked)
				}
				if after := e.storedFiles(t, co1); len(after) != len(before) {
					t.Fatalf("files left behind: %v, before %v", after, before)
				}
			})
		}
	})
}

func TestWhisper(t *testing.T) {
	eachTicketEnv(t, func(t *testing.T, e *ticketEnv) {
		e.fixtures(t)
		ana := e.tok("ana")
		r := e.post(ana, "/messages/whisper/"+id(tOpenAna), map[string]any{"body": "cliente difícil", "fromMe": true})
		r.wantStatus(t, http.StatusCreated)
		c := e.oneCall(t)
		w, ok := c.Cmd.(engine.AddWhisper)
		if !ok || w.SenderID != e.ids["ana"] || w.Body != "cliente difícil" || w.MessageID <= 9000 || c.Ticket != tOpenAna {
			t.Fatalf("command %#v", c)
		}
		var got engine.Message
		r.json(t, &got)
		if got.ID != w.MessageID || got.MediaType != engine.MediaWhisper {
			t.Fatalf("answer %s", r.Body)
		}
		b := e.post(ana, "/messages/whisper/"+id(tOpenAna), map[string]any{"body": ""}).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
		if b.Fields["body"] != engine.MsgRequired {
			t.Fatalf("fields %v", b.Fields)
		}
		e.post(ana, "/messages/whisper/"+id(tOpenAna), `{"body":["x"]}`).wantErr(t, http.StatusBadRequest, engine.ErrInvalidJSON)
		e.noCall(t)
		e.post(ana, "/messages/whisper/"+id(tOpenBrun), map[string]any{"body": "x"}).wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
		e.post(e.tok("admin2"), "/messages/whisper/"+id(tOpenAna), map[string]any{"body": "x"}).wantErr(t, http.StatusNotFound, engine.ErrNoTicketFound)
	})
}

func TestDeleteMessage(t *testing.T) {
	eachTicketEnv(t, func(t *testing.T, e *ticketEnv) {
		e.fixtures(t)
		ana := e.tok("ana")
		var m engine.Message
		r := e.post(ana, "/messages/"+id(tOpenAna), map[string]any{"body": "ops"})
		r.wantStatus(t, http.StatusCreated)
		r.json(t, &m)
		e.w.system(t, tOpenAna, engine.ReceiveMessage{MessageID: 77, ProviderID: "in", Body: "cliente"})
		e.w.takeCalls()

		for _, tc := range []struct {
			name, as, path string
			status         int
			code           engine.Code
			asked          bool
		}{
			{"another tenant", "admin2", "/messages/" + id(m.ID), 404, engine.ErrNoMessageFound, false},
			{"no such message", "ana", "/messages/123456", 404, engine.ErrNoMessageFound, false},
			{"not an id", "ana", "/messages/x", 404, engine.ErrNoMessageFound, false},
			{"a bad ticket hint", "ana", "/messages/" + id(m.ID) + "?ticketId=abc", 400, engine.ErrValidation, false},
			{"the wrong ticket hint", "ana", "/messages/" + id(m.ID) + "?ticketId=" + id(tPending), 404, engine.ErrNoMessageFound, true},
			{"someone else's message", "superv", "/messages/" + id(m.ID), 403, engine.ErrNoPermission, true},
			{"a customer's message", "ana", "/messages/77", 403, engine.ErrNoPermission, true},
			{"a stranger to the ticket", "bruno", "/messages/" + id(m.ID), 403, engine.ErrNoPermission, true},
		} {
			t.Run(tc.name, func(t *testing.T) {
				e.del(e.tok(tc.as), tc.path).wantErr(t, tc.status, tc.code)
				if calls := e.w.takeCalls(); (len(calls) == 1) != tc.asked || len(calls) > 1 {
					t.Fatalf("commands %+v, asked %v", calls, tc.asked)
				}
			})
		}

		e.del(ana, "/messages/"+id(m.ID)).wantStatus(t, http.StatusNoContent)
		c := e.oneCall(t)
		if want := (engine.DeleteMessage{MessageID: m.ID, ByUserID: e.ids["ana"]}); c.Cmd != want || c.Ticket != tOpenAna {
			t.Fatalf("command %+v, want %+v on %d", c, want, tOpenAna)
		}
		var all struct {
			Messages []engine.Message `json:"messages"`
		}
		e.get(ana, "/allmessages/"+id(tOpenAna)).json(t, &all)
		if len(all.Messages) == 0 || all.Messages[0].ID != m.ID || !all.Messages[0].IsDeleted {
			t.Fatalf("after delete %+v", all.Messages)
		}
		// With the ticket named, the read model is not asked; deleting again changes nothing.
		e.del(ana, "/messages/"+id(m.ID)+"?ticketId="+id(tOpenAna)).wantStatus(t, http.StatusNoContent)
		e.oneCall(t)
	})
}
