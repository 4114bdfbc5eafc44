package cloud

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/transport/ingest"
)

func TestDeliver(t *testing.T) {
	parse := func(b []byte) (string, error) {
		if string(b) == "junk" {
			return "", errors.New("not JSON")
		}
		return string(b), nil
	}
	cases := []struct {
		name, body string
		deliver    error
		status     int
		answer     string
		retryAfter string
		delivered  bool
	}{
		{name: "durable", body: "ok", status: 200, delivered: true},
		{name: "unparsable", body: "junk", status: 400, answer: "bad update\n"},
		{name: "not durable", body: "ok", deliver: errors.New("journal down"), status: 500, answer: "try again\n", delivered: true},
		{name: "node too busy", body: "ok", deliver: fmt.Errorf("inbound m1: %w", engine.Wrap(engine.ErrUnavailable, &ingest.Overload{Reason: ingest.ReasonBusy, RetryAfter: 3 * time.Second})),
			status: 503, answer: `{"error":"ERR_UNAVAILABLE","retryAfter":3}` + "\n", retryAfter: "3", delivered: true},
		{name: "actor timed out", body: "ok", deliver: engine.Wrap(engine.ErrUnavailable, errors.New("connection actor: future: timeout")),
			status: 503, answer: `{"error":"ERR_UNAVAILABLE","retryAfter":2}` + "\n", retryAfter: "2", delivered: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var logs strings.Builder
			w := httptest.NewRecorder()
			delivered := false
			Deliver(context.Background(), w, Hook{Log: zerolog.New(&logs), Bad: "bad update", Retry: "provider will retry"}, []byte(c.body), parse,
				func(_ context.Context, n string) error {
					delivered = n == c.body
					return c.deliver
				})
			if w.Code != c.status || w.Body.String() != c.answer || delivered != c.delivered {
				t.Fatalf("answer %d %q, delivered %v", w.Code, w.Body.String(), delivered)
			}
			if got := w.Header().Get("Retry-After"); got != c.retryAfter {
				t.Fatalf("Retry-After %q, want %q", got, c.retryAfter)
			}
			if c.deliver != nil && !strings.Contains(logs.String(), "provider will retry") {
				t.Fatalf("failure not logged: %s", logs.String())
			}
		})
	}
}

// store is an engine.MediaStore whose Save answers err.
type store struct {
	engine.MediaStore
	err error
}

func (s store) Save(_ context.Context, _ engine.ID, r io.Reader, _, _ string) (engine.MediaFile, error) {
	_, _ = io.Copy(io.Discard, r)
	return engine.MediaFile{Path: "1/a.png"}, s.err
}

func TestSaveMedia(t *testing.T) {
	cases := []struct {
		name    string
		err     error
		path    string
		refused bool
		fails   bool
	}{
		{name: "saved", path: "1/a.png"},
		{name: "too large", err: engine.E(engine.ErrMediaTooLarge), refused: true},
		{name: "type not allowed", err: engine.E(engine.ErrMediaTypeNotAllowed), refused: true},
		{name: "empty file", err: &engine.Error{Code: engine.ErrValidation, Fields: map[string]string{"media": engine.MsgRequired}}, refused: true},
		{name: "disk full", err: errors.New("disk full"), fails: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			refused := false
			path, err := SaveMedia(context.Background(), store{err: c.err}, 1, strings.NewReader("x"), "a.png", "image/png",
				func(error) { refused = true })
			if path != c.path || refused != c.refused || (err != nil) != c.fails {
				t.Fatalf("path %q refused %v err %v", path, refused, err)
			}
		})
	}
}

func TestMultipart(t *testing.T) {
	body, ctype, err := Multipart(map[string]string{"chat_id": "42"}, multipart.FileContentDisposition("photo", "a.png"), "",
		strings.NewReader("0123456789"), 4)
	if err != nil {
		t.Fatal(err)
	}
	_, params, _ := mime.ParseMediaType(ctype)
	req := httptest.NewRequest(http.MethodPost, "/", body)
	req.Header.Set("Content-Type", ctype)
	mr := multipart.NewReader(req.Body, params["boundary"])
	got := map[string]string{}
	for {
		p, err := mr.NextPart()
		if err != nil {
			break
		}
		b, _ := io.ReadAll(p)
		got[p.FormName()+"|"+p.FileName()+"|"+p.Header.Get("Content-Type")] = string(b)
	}
	want := map[string]string{"chat_id||": "42", "photo|a.png|application/octet-stream": "0123"}
	if len(got) != len(want) {
		t.Fatalf("parts %v", got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("part %s = %q, want %q (all %v)", k, got[k], v, got)
		}
	}
}

func TestOutcomeUnknown(t *testing.T) {
	err := errors.Join(errors.New("ctx"), &OutcomeUnknownError{Err: errors.New("reset")})
	if !IsOutcomeUnknown(err) || IsOutcomeUnknown(errors.New("reset")) {
		t.Fatal("IsOutcomeUnknown")
	}
	if !GatewayUnknown(502, false) || GatewayUnknown(502, true) || GatewayUnknown(500, false) {
		t.Fatal("GatewayUnknown")
	}
}

func TestInteractive(t *testing.T) {
	temp := fmt.Errorf("graph: %w: timeout", engine.ErrChannelTemporary)
	if err := Interactive(temp); engine.CodeOf(err) != engine.ErrUnavailable || !errors.Is(err, engine.ErrChannelTemporary) {
		t.Fatalf("temporary: %v", err)
	}
	refused := engine.Wrap(engine.ErrChannelRefused, errors.New("(#131047)"))
	if err := Interactive(refused); err != refused {
		t.Fatalf("refused: %v", err)
	}
	if Interactive(nil) != nil {
		t.Fatal("nil is not an error")
	}
}
