package waba

import (
	"context"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/transport/channel/channeltest"
	"atende/transport/channel/meta"
	"atende/transport/channel/meta/graphfake"
)

const (
	appSecret   = "app-secret-0123456789"
	verifyToken = "verify-me"
	userToken   = "EAAG-user-token"
	phoneID     = "106540352242922"
	wabaID      = "102290129340398"
)

// recSink records what a channel delivers (channeltest.Sink).
type recSink = channeltest.Sink

// rig is a Service on the shared test rig, against a Graph fake; it is the Service's
// Tickets too.
type rig struct {
	channeltest.Rig
	svc     *Service
	graph   *graphfake.Fake
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

func newRig(t *testing.T) (*rig, *channeltest.SyncBuffer) {
	t.Helper()
	g := graphfake.New(userToken)
	t.Cleanup(g.Close)
	r := &rig{Rig: channeltest.NewRig(t, "A", "B"), graph: g, tickets: map[engine.ID]ticketTarget{}}
	var err error
	r.svc, err = New(Config{GraphURL: g.URL(), GraphVersion: graphfake.Version, AppSecret: appSecret, VerifyToken: verifyToken,
		MaxBody: 64 << 10, CallTimeout: 5 * time.Second},
		Deps{Connections: r.Conns, Credentials: r.Creds, Media: r.Media, Actors: r.Actors, Tickets: r, Publisher: r.Published, Logger: zerolog.New(r.Logs)})
	if err != nil {
		t.Fatal(err)
	}
	r.svc.Routes(r.Router)
	return r, r.Logs
}

// register creates the WABA connection through POST /wacloudapi.
func (r *rig) register() engine.ID {
	r.T.Helper()
	r.graph.Lock()
	r.graph.Objects[phoneID] = map[string]any{"display_phone_number": "+55 65 99999-0000", "verified_name": "Clínica Sol", "id": phoneID}
	r.graph.Unlock()
	status, body := r.Call("POST", "/wacloudapi", map[string]string{"currWabaId": wabaID, "currWabaPhoneId": phoneID,
		"currPhoneNumber": "+55 65 99999-0000", "currVerifiedName": "Clínica Sol", "currWabaToken": userToken})
	if status != 200 {
		r.T.Fatalf("register: %d %v", status, body)
	}
	id, _ := body["id"].(float64)
	return engine.ID(id)
}

// post delivers a signed (or not) web-hook body.
func (r *rig) post(body []byte, signature string) int {
	r.T.Helper()
	return channeltest.Post(r.T, r.Srv.URL+"/waba/webhook", body,
		"Content-Type", "application/json", "X-Hub-Signature-256", signature)
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
