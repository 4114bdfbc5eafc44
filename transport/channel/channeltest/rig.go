package channeltest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/persistence/connection"
	"atende/persistence/credentials"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/transport/channel/cloud"
	"atende/transport/ingest"
	"atende/transport/media"
)

// This file holds what the adapters' test rigs share: their stores, the server of
// their routes and the web-hook posts.

// Stores are what an adapter's rig persists to: connections and credentials on a
// new SQLite database, and a media store in a temporary directory. All are closed at
// the test's cleanup.
type Stores struct {
	Conns *connection.Store
	Creds *credentials.Store
	Media *media.Store
}

// NewStores opens the stores with the named companies, ids 1, 2, … in order.
func NewStores(t testing.TB, companies ...string) Stores {
	t.Helper()
	d := dbtest.Open(t, db.SQLite)
	rows := make([]string, len(companies))
	for i, name := range companies {
		rows[i] = fmt.Sprintf("(%d, '%s')", i+1, name)
	}
	dbtest.MustExec(t, d, `INSERT INTO companies (id, name) VALUES `+strings.Join(rows, ", "))
	ms, err := media.New(media.Config{Dir: t.TempDir(), Secret: bytes.Repeat([]byte("k"), 32)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ms.Close() })
	return Stores{Conns: connection.New(d, nil), Creds: credentials.New(d, nil), Media: ms}
}

// Rig is what every adapter's test rig holds: its stores, the stand-in connection
// actors, the server of its routes (Router, acting for Admin) and the log buffer.
// Adapters embed it next to their service and their provider's fake.
type Rig struct {
	T *testing.T
	Stores
	Actors    *Actors
	Router    *Router
	Srv       *httptest.Server
	Logs      *SyncBuffer
	Published *Published
}

// Published records realtime events (a jsonapi.Publisher).
type Published struct {
	mu     sync.Mutex
	Events []PublishedEvent
}

// PublishedEvent is one recorded event.
type PublishedEvent struct {
	CompanyID engine.ID
	Event     string
	Payload   any
}

// Publish implements jsonapi.Publisher.
func (p *Published) Publish(companyID engine.ID, event string, payload any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.Events = append(p.Events, PublishedEvent{companyID, event, payload})
}

// Take returns the events recorded so far and forgets them.
func (p *Published) Take() []PublishedEvent {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.Events
	p.Events = nil
	return out
}

// NewRig opens the stores with companies (NewStores) and starts the server (Serve).
func NewRig(t *testing.T, companies ...string) Rig {
	t.Helper()
	r := Rig{T: t, Stores: NewStores(t, companies...), Actors: &Actors{}, Logs: &SyncBuffer{}, Published: &Published{}}
	r.Router, r.Srv = Serve(t)
	return r
}

// Call sends method path to the rig's server (see Call).
func (r *Rig) Call(method, path string, body any) (int, map[string]any) {
	r.T.Helper()
	return Call(r.T, r.Srv.URL, method, path, body)
}

// Deps are the rig's stores and actors, and a logger writing to Logs: what an
// adapter's New takes.
func (r *Rig) Deps() cloud.Deps {
	return cloud.Deps{Connections: r.Conns, Credentials: r.Creds, Media: r.Media, Actors: r.Actors, Publisher: r.Published,
		Logger: zerolog.New(r.Logs)}
}

// Admin is the principal the rigs' authed routes act for: an admin of company 1.
var Admin = engine.Principal{UserID: 1, CompanyID: 1, Profile: engine.ProfileAdmin}

// Serve starts a server of a new router acting for Admin, closed at cleanup. Register
// the adapter's routes on the router.
func Serve(t testing.TB) (*Router, *httptest.Server) {
	t.Helper()
	r := NewRouter(Admin)
	srv := httptest.NewServer(r.Mux)
	t.Cleanup(srv.Close)
	return r, srv
}

// Post POSTs body to url with headers given as name, value pairs (a pair with an empty
// value is left out) and returns the status.
func Post(t testing.TB, url string, body []byte, headers ...string) int {
	t.Helper()
	return PostAnswer(t, url, body, headers...).Status
}

// Answer is what a POST was answered: the status, the Retry-After header and the
// body, trimmed.
type Answer struct {
	Status     int
	RetryAfter string
	Body       string
}

// PostAnswer is Post that returns the whole answer.
func PostAnswer(t testing.TB, url string, body []byte, headers ...string) Answer {
	t.Helper()
	req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] != "" {
			req.Header.Set(headers[i], headers[i+1])
		}
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return Answer{Status: res.StatusCode, RetryAfter: res.Header.Get("Retry-After"), Body: strings.TrimSpace(string(b))}
}

// Admit puts the rig's web-hook sinks behind a new admission control shaped by cfg
// (Actors.Admission), as cmd/atende does, and returns it.
func (r *Rig) Admit(cfg ingest.Config) *ingest.Limiter {
	r.T.Helper()
	lim, err := ingest.New(cfg)
	if err != nil {
		r.T.Fatal(err)
	}
	r.Actors.Mu.Lock()
	r.Actors.Admission = lim
	r.Actors.Mu.Unlock()
	return lim
}
