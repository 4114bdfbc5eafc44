package channeltest

import (
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"time"
)

// This file holds what the providers' fakes (meta/graphfake, telegram/botfake) share:
// reading a multipart request, and queues of failures injected per route.

// ReadMultipart reads a multipart/form-data request: its fields, and the name and
// content of its file part. ok is false, and the body untouched, for any other
// Content-Type.
func ReadMultipart(r *http.Request) (fields map[string]string, fileName string, file []byte, ok bool) {
	ct, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct != "multipart/form-data" {
		return nil, "", nil, false
	}
	fields = map[string]string{}
	mr := multipart.NewReader(r.Body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if err != nil {
			break
		}
		b, _ := io.ReadAll(p)
		if p.FileName() != "" {
			fileName, file = p.FileName(), b
		} else {
			fields[p.FormName()] = string(b)
		}
	}
	return fields, fileName, file, true
}

// Failures are failures injected per route, each answered once, in turn. Not safe for
// concurrent use: the fake guards it with its own mutex.
type Failures[F any] map[string][]F

// Add queues fs on route.
func (q Failures[F]) Add(route string, fs ...F) { q[route] = append(q[route], fs...) }

// Next takes the next failure of route; nil when none is queued.
func (q Failures[F]) Next(route string) *F {
	fs := q[route]
	if len(fs) == 0 {
		return nil
	}
	q[route] = fs[1:]
	return &fs[0]
}

// AnswerRaw answers an injected failure that is not the provider's error body: with
// hang, the request was read and is never answered (the handler waits until the client
// gives up, at most a minute — the provider may have accepted it); with raw, the body
// raw with status (a gateway's page, or a 2xx the client cannot use). It reports
// whether it answered; false leaves the provider's error body to the caller.
func AnswerRaw(w http.ResponseWriter, r *http.Request, hang bool, status int, raw string) bool {
	switch {
	case hang:
		select {
		case <-r.Context().Done():
		case <-time.After(time.Minute):
		}
	case raw != "":
		w.WriteHeader(status)
		_, _ = io.WriteString(w, raw)
	default:
		return false
	}
	return true
}
