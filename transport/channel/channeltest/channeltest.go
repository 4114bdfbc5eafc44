// Package channeltest holds the test doubles the cloud channel adapters' tests share
// (waba, meta, telegram): a recording sink that de-duplicates as the ticket actor
// does, a stand-in for actors.Connections, a router that serves an adapter's routes
// the way transport/http does, and a buffer safe for a logger and a test to share;
// the rig every adapter test builds on (Rig: stores, server, web-hook posts); and what
// the providers' fakes (meta/graphfake, telegram/botfake) share. Only tests and those
// fakes import it.
package channeltest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"testing"

	"atende/engine"
	"atende/transport/ingest"
)

// Sink records what a channel delivers. FailN makes the next n Inbound calls fail,
// with FailWith (nil: a plain error, not a retryable one); Stored counts distinct provider ids, as the ticket actor stores each once. Tests
// reading the fields while a channel runs hold Mu.
type Sink struct {
	Mu       sync.Mutex
	Messages []engine.InboundMessage
	Receipts []engine.Receipt
	Statuses []engine.StatusChange
	FailN    int
	FailWith error
	Seen     map[string]bool // provider ids stored
	Stored   int
}

func (s *Sink) Inbound(_ context.Context, m engine.InboundMessage) error {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	if s.FailN > 0 {
		s.FailN--
		if s.FailWith != nil {
			return s.FailWith
		}
		return errors.New("journal unavailable")
	}
	s.Messages = append(s.Messages, m)
	if s.Seen == nil {
		s.Seen = map[string]bool{}
	}
	if !s.Seen[m.ProviderID] {
		s.Seen[m.ProviderID] = true
		s.Stored++
	}
	return nil
}

func (s *Sink) Receipt(_ context.Context, r engine.Receipt) error {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	s.Receipts = append(s.Receipts, r)
	return nil
}

func (s *Sink) Status(_ context.Context, st engine.StatusChange) error {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	s.Statuses = append(s.Statuses, st)
	return nil
}

// Snapshot copies what the sink holds: messages, receipts and the stored count.
func (s *Sink) Snapshot() ([]engine.InboundMessage, []engine.Receipt, int) {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	return append([]engine.InboundMessage(nil), s.Messages...), append([]engine.Receipt(nil), s.Receipts...), s.Stored
}

// Actors stands for actors.Connections: one recording sink per connection, and the
// connections started and restarted. With Admission set, Sink hands out the
// recording sinks behind the node's admission control, as cmd/atende gives them to
// the web-hooks.
type Actors struct {
	Mu        sync.Mutex
	Sinks     map[engine.ID]*Sink
	Started   []engine.ID
	Restarts  []engine.ID
	Admission *ingest.Limiter
}

func (a *Actors) Start(_ context.Context, id engine.ID) (engine.Connection, error) {
	a.Mu.Lock()
	defer a.Mu.Unlock()
	a.Started = append(a.Started, id)
	return engine.Connection{ID: id}, nil
}

func (a *Actors) Restart(_ context.Context, id engine.ID) error {
	a.Mu.Lock()
	defer a.Mu.Unlock()
	a.Restarts = append(a.Restarts, id)
	return nil
}

func (a *Actors) Sink(id engine.ID) engine.ChannelSink {
	a.Mu.Lock()
	l := a.Admission
	a.Mu.Unlock()
	if l != nil {
		return l.Sink(id, a.For(id))
	}
	return a.For(id)
}

// For is connection id's sink, made on first use.
func (a *Actors) For(id engine.ID) *Sink {
	a.Mu.Lock()
	defer a.Mu.Unlock()
	if a.Sinks == nil {
		a.Sinks = map[engine.ID]*Sink{}
	}
	if a.Sinks[id] == nil {
		a.Sinks[id] = &Sink{}
	}
	return a.Sinks[id]
}

// Router serves an adapter's routes the way transport/http does: authed routes act
// for the fixed principal P and answer errors as {"error": code, "fields": …}.
type Router struct {
	Mux *http.ServeMux
	P   engine.Principal
}

// NewRouter serves on a new mux for principal p.
func NewRouter(p engine.Principal) *Router { return &Router{Mux: http.NewServeMux(), P: p} }

func (r *Router) Authed(pattern string, h func(http.ResponseWriter, *http.Request, engine.Principal) error) {
	r.Mux.HandleFunc(pattern, func(w http.ResponseWriter, req *http.Request) {
		if err := h(w, req, r.P); err != nil {
			body := map[string]any{"error": engine.ErrInternal}
			var e *engine.Error
			if errors.As(err, &e) {
				body["error"] = e.Code
				if len(e.Fields) > 0 {
					body["fields"] = e.Fields
				}
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(engine.CodeOf(err).HTTPStatus())
			_ = json.NewEncoder(w).Encode(body)
		}
	})
}

func (r *Router) Public(pattern string, h http.Handler) { r.Mux.Handle(pattern, h) }

// SyncBuffer is a bytes.Buffer a logger writes while a test reads it.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Call sends method path to the server at base with body — a string as is, anything
// else as JSON — and returns the status and the decoded JSON answer (nil when none).
func Call(t testing.TB, base, method, path string, body any) (int, map[string]any) {
	t.Helper()
	var rd *bytes.Reader
	if s, ok := body.(string); ok {
		rd = bytes.NewReader([]byte(s))
	} else {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, base+path, rd)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out
}
