package waba

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/persistence/connection"
	"atende/persistence/credentials"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/transport/channel/channeltest"
	"atende/transport/channel/meta"
	"atende/transport/channel/meta/graphfake"
	"atende/transport/media"
)

const (
	appSecret   = "app-secret-0123456789"
	verifyToken = "verify-me"
	userToken   = "EAAG-user-token"
	phoneID     = "106540352242922"
	wabaID      = "102290129340398"
)

// The shared test doubles (transport/channel/channeltest).
type (
	recSink    = channeltest.Sink
	fakeActors = channeltest.Actors
	testRouter = channeltest.Router
	syncBuffer = channeltest.SyncBuffer
)

type rig struct {
	t       *testing.T
	svc     *Service
	graph   *graphfake.Fake
	actors  *fakeActors
	conns   *connection.Store
	creds   *credentials.Store
	media   *media.Store
	srv     *httptest.Server
	router  *testRouter
	tickets map[engine.ID]ticketTarget
}

type ticketTarget struct {
	conn   engine.ID
	number string
}

func (r *rig) TicketTarget(_ context.Context, p engine.Principal, ticketID engine.ID) (engine.ID, string, error) {
	t, ok := r.tickets[ticketID]
	if !ok || p.CompanyID != 1 {
		return 0, "", engine.E(engine.ErrNoTicketFound)
	}
	return t.conn, t.number, nil
}

func newRig(t *testing.T) (*rig, *syncBuffer) {
	t.Helper()
	d := dbtest.Open(t, db.SQLite)
	dbtest.MustExec(t, d, `INSERT INTO companies (id, name) VALUES (1, 'A'), (2, 'B')`)
	ms, err := media.New(media.Config{Dir: t.TempDir(), Secret: bytes.Repeat([]byte("k"), 32)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ms.Close() })
	g := graphfake.New(userToken)
	t.Cleanup(g.Close)
	logs := &syncBuffer{}
	r := &rig{t: t, graph: g, actors: &fakeActors{}, conns: connection.New(d, nil), creds: credentials.New(d, nil),
		media: ms, tickets: map[engine.ID]ticketTarget{}}
	r.svc, err = New(Config{GraphURL: g.URL(), GraphVersion: graphfake.Version, AppSecret: appSecret, VerifyToken: verifyToken,
		MaxBody: 64 << 10, CallTimeout: 5 * time.Second},
		Deps{Connections: r.conns, Credentials: r.creds, Media: ms, Actors: r.actors, Tickets: r, Logger: zerolog.New(logs)})
	if err != nil {
		t.Fatal(err)
	}
	tr := channeltest.NewRouter(engine.Principal{UserID: 1, CompanyID: 1, Profile: engine.ProfileAdmin})
	r.svc.Routes(tr)
	r.router = tr
	r.srv = httptest.NewServer(tr.Mux)
	t.Cleanup(r.srv.Close)
	return r, logs
}

// call sends a JSON request and decodes a JSON answer.
func (r *rig) call(method, path string, body any) (int, map[string]any) {
	r.t.Helper()
	return channeltest.Call(r.t, r.srv.URL, method, path, body)
}

// register creates the WABA connection through POST /wacloudapi.
func (r *rig) register() engine.ID {
	r.t.Helper()
	r.graph.Lock()
	r.graph.Objects[phoneID] = map[string]any{"display_phone_number": "+55 65 99999-0000", "verified_name": "Clínica Sol", "id": phoneID}
	r.graph.Unlock()
	status, body := r.call("POST", "/wacloudapi", map[string]string{"currWabaId": wabaID, "currWabaPhoneId": phoneID,
		"currPhoneNumber": "+55 65 99999-0000", "currVerifiedName": "Clínica Sol", "currWabaToken": userToken})
	if status != 200 {
		r.t.Fatalf("register: %d %v", status, body)
	}
	id, _ := body["id"].(float64)
	return engine.ID(id)
}

// post delivers a signed (or not) web-hook body.
func (r *rig) post(body []byte, signature string) int {
	r.t.Helper()
	req, _ := http.NewRequest("POST", r.srv.URL+"/waba/webhook", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if signature != "" {
		req.Header.Set("X-Hub-Signature-256", signature)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

func (r *rig) postSigned(body string) int {
	return r.post([]byte(body), meta.Sign(appSecret, []byte(body)))
}

// notify builds a Cloud API notification carrying messages and statuses JSON arrays.
func notify(messages, statuses string) string {
	v := `"messaging_product":"whatsapp","metadata":{"display_phone_number":"556599990000","phone_number_id":"` + phoneID + `"}`
	if messages != "" {
		v += `,"contacts":[{"profile":{"name":"Maria"},"wa_id":"5565988887777"}],"messages":` + messages
	}
	if statuses != "" {
		v += `,"statuses":` + statuses
	}
	return `{"object":"whatsapp_business_account","entry":[{"id":"` + wabaID + `","changes":[{"value":{` + v + `},"field":"messages"}]}]}`
}

func metaSign(body string) string { return meta.Sign(appSecret, []byte(body)) }
