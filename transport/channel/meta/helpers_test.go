package meta

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
	"atende/transport/channel/meta/graphfake"
	"atende/transport/media"
)

const (
	appSecret   = "app-secret-0123456789"
	verifyToken = "verify-me"
	ourApp      = 1517000000
	userToken   = "EAAG-user"
	pageToken   = "EAAG-page-1"
	pageID      = "110000000000001"
	igID        = "17841400000000001"
)

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
	graph  *graphfake.Fake
	actors *fakeActors
	conns  *connection.Store
	creds  *credentials.Store
	media  *media.Store
	srv    *httptest.Server
	router *testRouter
	logs   *syncBuffer
	cdn    *httptest.Server
}

func newRig(t *testing.T) *rig {
	t.Helper()
	d := dbtest.Open(t, db.SQLite)
	dbtest.MustExec(t, d, `INSERT INTO companies (id, name) VALUES (1, 'A'), (2, 'B')`)
	ms, err := media.New(media.Config{Dir: t.TempDir(), Secret: bytes.Repeat([]byte("k"), 32)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ms.Close() })
	g := graphfake.New(userToken, pageToken)
	t.Cleanup(g.Close)
	g.AppSecret = appSecret
	g.Pages["1000"] = []graphfake.Page{{ID: pageID, Name: "Loja Sol", Token: pageToken, InstagramID: igID},
		{ID: "110000000000002", Name: "Sem Instagram", Token: pageToken}}
	// The CDN serving attachment URLs (scontent.xx.fbcdn.net).
	cdn := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/gone.png":
			http.NotFound(w, r)
		case "/audioclip.mp4": // Messenger voice clips: audio in an MP4 container
			w.Header().Set("Content-Type", "audio/mp4")
			_, _ = w.Write(m4aBytes)
		case "/video.mp4":
			w.Header().Set("Content-Type", "video/mp4")
			_, _ = w.Write(mp4Bytes)
		case "/exame.pdf":
			w.Header().Set("Content-Type", "application/pdf")
			_, _ = w.Write(pdfBytes)
		case "/page.html": // not a media file at all
			w.Header().Set("Content-Type", "video/mp4")
			_, _ = w.Write([]byte("<!DOCTYPE html><html><script>alert(1)</script></html>"))
		default:
			w.Header().Set("Content-Type", "image/png")
			_, _ = w.Write(pngBytes)
		}
	}))
	t.Cleanup(cdn.Close)
	r := &rig{t: t, graph: g, actors: &fakeActors{}, conns: connection.New(d, nil), creds: credentials.New(d, nil), media: ms, logs: &syncBuffer{}, cdn: cdn}
	r.svc, err = New(Config{GraphURL: g.URL(), GraphVersion: graphfake.Version, AppID: ourApp, AppSecret: appSecret, VerifyToken: verifyToken,
		MaxBody: 64 << 10, CallTimeout: 5 * time.Second},
		Deps{Connections: r.conns, Credentials: r.creds, Media: ms, Actors: r.actors, Logger: zerolog.New(r.logs)})
	if err != nil {
		t.Fatal(err)
	}
	r.router = channeltest.NewRouter(engine.Principal{UserID: 1, CompanyID: 1, Profile: engine.ProfileAdmin})
	r.svc.Routes(r.router)
	r.srv = httptest.NewServer(r.router.Mux)
	t.Cleanup(r.srv.Close)
	return r
}

func (r *rig) call(method, path string, body any) (int, map[string]any) {
	r.t.Helper()
	return channeltest.Call(r.t, r.srv.URL, method, path, body)
}

// connect runs POST /facebook with addInstagram and returns the facebook and
// instagram connection ids of the first page.
func (r *rig) connect() (fb, ig engine.ID) {
	r.t.Helper()
	status, body := r.call("POST", "/facebook", map[string]any{"facebookUserId": "1000", "facebookUserToken": userToken, "addInstagram": true})
	if status != 200 {
		r.t.Fatalf("connect: %d %v", status, body)
	}
	for _, c := range body["connections"].([]any) {
		m := c.(map[string]any)
		id := engine.ID(m["id"].(float64))
		cred, _ := r.creds.Get(context.Background(), id)
		switch {
		case m["channel"] == "facebook" && cred.ExternalID == pageID:
			fb = id
		case m["channel"] == "instagram":
			ig = id
		}
	}
	return fb, ig
}

func (r *rig) post(body []byte, sig string) int {
	r.t.Helper()
	req, _ := http.NewRequest("POST", r.srv.URL+"/meta/webhook", bytes.NewReader(body))
	if sig != "" {
		req.Header.Set("X-Hub-Signature-256", sig)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

func (r *rig) postSigned(body string) int { return r.post([]byte(body), Sign(appSecret, []byte(body))) }

// pageEvent wraps messaging events for an entry of object.
func pageEvent(object, entryID, events string) string {
	return `{"object":"` + object + `","entry":[{"id":"` + entryID + `","time":1700000000000,"messaging":` + events + `}]}`
}
