package telegram

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
	"atende/transport/channel/telegram/botfake"
	"atende/transport/media"
)

const botToken = "7000001:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"

// The shared test doubles (transport/channel/channeltest).
type (
	recSink    = channeltest.Sink
	fakeActors = channeltest.Actors
	testRouter = channeltest.Router
	syncBuffer = channeltest.SyncBuffer
)

type rig struct {
	t      *testing.T
	svc    *Service
	bot    *botfake.API
	actors *fakeActors
	conns  *connection.Store
	creds  *credentials.Store
	media  *media.Store
	srv    *httptest.Server
	router *testRouter
	logs   *syncBuffer
}

func newRig(t *testing.T, mode string) *rig {
	t.Helper()
	d := dbtest.Open(t, db.SQLite)
	dbtest.MustExec(t, d, `INSERT INTO companies (id, name) VALUES (1, 'A')`)
	ms, err := media.New(media.Config{Dir: t.TempDir(), Secret: bytes.Repeat([]byte("k"), 32)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ms.Close() })
	bot := botfake.New(botToken)
	t.Cleanup(bot.Close)
	r := &rig{t: t, bot: bot, actors: &fakeActors{}, conns: connection.New(d, nil), creds: credentials.New(d, nil), media: ms, logs: &syncBuffer{}}
	r.router = channeltest.NewRouter(engine.Principal{UserID: 1, CompanyID: 1, Profile: engine.ProfileAdmin})
	r.srv = httptest.NewServer(r.router.Mux)
	t.Cleanup(r.srv.Close)
	r.svc, err = New(Config{APIURL: bot.URL(), Mode: mode, PublicURL: r.srv.URL, PollTimeout: time.Second, RetryDelay: 20 * time.Millisecond,
		MaxBody: 64 << 10, CallTimeout: 5 * time.Second},
		Deps{Connections: r.conns, Credentials: r.creds, Media: ms, Actors: r.actors, Logger: zerolog.New(r.logs)})
	if err != nil {
		t.Fatal(err)
	}
	r.svc.Routes(r.router)
	return r
}

func (r *rig) call(method, path string, body any) (int, map[string]any) {
	r.t.Helper()
	return channeltest.Call(r.t, r.srv.URL, method, path, body)
}

// create makes the connection through POST /telegram and returns it with its channel.
func (r *rig) create() (engine.Connection, *Channel) {
	r.t.Helper()
	status, body := r.call("POST", "/telegram", map[string]string{"name": "Bot da loja", "token": botToken})
	if status != 200 {
		r.t.Fatalf("create: %d %v", status, body)
	}
	id, _ := body["id"].(float64)
	conn, err := r.conns.Get(context.Background(), 1, engine.ID(id))
	if err != nil {
		r.t.Fatal(err)
	}
	ch, err := r.svc.NewChannel(conn)
	if err != nil {
		r.t.Fatal(err)
	}
	return conn, ch.(*Channel)
}

// hook posts an update to the connection's web-hook with a secret header.
func (r *rig) hook(id engine.ID, secret, body string) int {
	r.t.Helper()
	req, _ := http.NewRequest("POST", r.srv.URL+"/telegram/webhook/"+itoa(id), bytes.NewReader([]byte(body)))
	if secret != "" {
		req.Header.Set("X-Telegram-Bot-Api-Secret-Token", secret)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// waitFor polls cond until it holds or 5 s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
