// Package jsonapi holds what the REST API and the channel adapters' routes share: the
// JSON answer and body rules, the realtime Publisher they announce through, and the
// payload of a connection made outside the REST routes. It imports only engine, so a
// channel adapter (transport/channel/*) needs no import of transport/http (the layer
// test forbids it).
package jsonapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"

	"atende/engine"
)

// Publisher sends a realtime event to the sockets of a tenant (the socket gateway
// implements it). Publish must not block on slow sockets.
type Publisher interface {
	Publish(companyID engine.ID, event string, payload any)
}

// WriteJSON answers v as JSON with status. A nil v with 204 writes no body; a value
// that cannot be encoded is a 500 ERR_INTERNAL, never a truncated 200.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	if status == http.StatusNoContent {
		w.WriteHeader(status)
		return
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, `{"error":"ERR_INTERNAL","message":"ERR_INTERNAL"}`+"\n")
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// RequireJSON refuses a body that is not declared application/json
// (ERR_UNSUPPORTED_MEDIA_TYPE): a browser form on another site can post text/plain,
// form-urlencoded or multipart without a preflight, but not application/json, so this
// rule closes cross-site posts to JSON routes.
func RequireJSON(r *http.Request) error {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return engine.E(engine.ErrUnsupportedMediaType)
	}
	return nil
}

// DecodeJSON reads one JSON value from the body into v. A body not declared
// application/json is ERR_UNSUPPORTED_MEDIA_TYPE; more than limit bytes is
// ERR_BODY_TOO_LARGE; an empty, malformed or mistyped body, or anything but white
// space after the value, is ERR_INVALID_JSON. Unknown fields are ignored (the web app
// sends whole objects back).
func DecodeJSON(r *http.Request, v any, limit int64) error {
	if err := RequireJSON(r); err != nil {
		return err
	}
	if r.Body == nil {
		return engine.E(engine.ErrInvalidJSON)
	}
	body := http.MaxBytesReader(nil, r.Body, limit)
	dec := json.NewDecoder(body)
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		if err != nil {
			if e := jsonError(err); engine.CodeOf(e) == engine.ErrBodyTooLarge {
				return e
			}
		}
		return engine.E(engine.ErrInvalidJSON)
	}
	return nil
}

func jsonError(err error) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return engine.Wrap(engine.ErrBodyTooLarge, err)
	}
	return engine.Wrap(engine.ErrInvalidJSON, err)
}

// ConnectionEvent is the payload of the realtime "whatsapp" event.
type ConnectionEvent struct {
	Action       string             `json:"action"` // update (also on create, as whaticket) | delete
	Whatsapp     *engine.Connection `json:"whatsapp,omitempty"`
	ConnectionID engine.ID          `json:"whatsappId,omitempty"`
}

// ConnectionCreated is the payload of the "whatsapp" event of a connection made
// outside the REST routes (a provider's registration: WABA, Facebook, Telegram):
// action update, as whaticket announces a new connection.
func ConnectionCreated(c engine.Connection) any {
	if c.Queues == nil {
		c.Queues = []engine.Queue{}
	}
	return ConnectionEvent{Action: "update", Whatsapp: &c}
}
