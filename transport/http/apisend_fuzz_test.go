package httpapi

import (
	"bytes"
	"io"
	"net/http/httptest"
	"testing"

	"atende/engine"
)

// FuzzAPISendBody feeds hostile bodies to the messaging API's body reader: it must
// never panic, and answer either a send or a catalogue error (never an internal one);
// at most one file is ever stored, and a field never exceeds its cap.
func FuzzAPISendBody(f *testing.F) {
	const boundary = "XyZ"
	mp := func(parts string) []byte {
		return []byte(parts + "--" + boundary + "--\r\n")
	}
	field := func(name, v string) string {
		return "--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + name + "\"\r\n\r\n" + v + "\r\n"
	}
	file := func(name, v string) string {
		return "--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + name + "\"; filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\n" + v + "\r\n"
	}
	ctJSON, ctForm := "application/json", "multipart/form-data; boundary="+boundary
	f.Add(ctJSON, []byte(`{"number":"5565999990000","body":"oi"}`))
	f.Add(ctJSON, []byte(`{"number":5565999990000,"body":"oi","whatsappId":"3"}`))
	f.Add(ctJSON, []byte(`{"number":{"a":1},"body":[1]}`))
	f.Add(ctJSON, []byte(`{"number":"5565999990000","body":"oi"}{"x":1}`))
	f.Add(ctJSON, []byte(`{"whatsappId":-1}`))
	f.Add(ctJSON, []byte("\xff\xfe"))
	f.Add(ctForm, mp(field("number", "5565999990000")+field("body", "oi")+file("medias", "\x89PNG")))
	f.Add(ctForm, mp(file("medias", "a")+file("medias", "b")))
	f.Add(ctForm, mp(field("whatsappId", `{"id":2}`)+field("fromMe", "true")))
	f.Add(ctForm, []byte("--"+boundary+"\r\nContent-Disposition: form-data; name=\"body\"\r\n\r\nunterminated"))
	f.Add("multipart/form-data", []byte("no boundary"))
	f.Add("text/plain", []byte("number=1"))
	f.Fuzz(func(t *testing.T, contentType string, body []byte) {
		r := httptest.NewRequest("POST", "/api/messages/send", bytes.NewReader(body))
		r.Header.Set("Content-Type", contentType)
		saved := 0
		in, err := readAPISend(r, 1<<16, func(rd io.Reader, name, ct string) (engine.MediaFile, error) {
			saved++
			if _, err := io.Copy(io.Discard, io.LimitReader(rd, 1<<20)); err != nil {
				return engine.MediaFile{}, engine.Wrap(engine.ErrInvalidJSON, err)
			}
			return engine.MediaFile{Path: "1/x.png", Type: engine.MediaImage, Name: name}, nil
		})
		if saved > 1 {
			t.Fatalf("%d files stored for one send", saved)
		}
		if err != nil {
			if c := engine.CodeOf(err); c == engine.ErrInternal {
				t.Fatalf("internal error for hostile input: %v", err)
			}
			return
		}
		if len(in.Number) > maxFieldBytes || len(in.Body) > 1<<16 || in.ConnectionID < 0 {
			t.Fatalf("read %+v", in)
		}
	})
}
