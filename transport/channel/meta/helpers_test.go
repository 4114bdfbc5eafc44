package meta

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"atende/engine"
	"atende/transport/channel/channeltest"
	"atende/transport/channel/meta/graphfake"
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

// recSink records what a channel delivers (channeltest.Sink).
type recSink = channeltest.Sink

// rig is a Service on the shared test rig, against a Graph fake and a CDN serving
// attachments.
type rig struct {
	channeltest.Rig
	svc   *Service
	graph *graphfake.Fake
	cdn   *httptest.Server
}

func newRig(t *testing.T) *rig {
	t.Helper()
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
	r := &rig{Rig: channeltest.NewRig(t, "A", "B"), graph: g, cdn: cdn}
	var err error
	r.svc, err = New(Config{GraphURL: g.URL(), GraphVersion: graphfake.Version, AppID: ourApp, AppSecret: appSecret, VerifyToken: verifyToken,
		MaxBody: 64 << 10, CallTimeout: 5 * time.Second},
		r.Deps())
	if err != nil {
		t.Fatal(err)
	}
	r.svc.Routes(r.Router)
	return r
}

// connect runs POST /facebook with addInstagram and returns the facebook and
// instagram connection ids of the first page.
func (r *rig) connect() (fb, ig engine.ID) {
	r.T.Helper()
	status, body := r.Call("POST", "/facebook", map[string]any{"facebookUserId": "1000", "facebookUserToken": userToken, "addInstagram": true})
	if status != 200 {
		r.T.Fatalf("connect: %d %v", status, body)
	}
	for _, c := range body["connections"].([]any) {
		m := c.(map[string]any)
		id := engine.ID(m["id"].(float64))
		cred, _ := r.Creds.Get(context.Background(), id)
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
	r.T.Helper()
	return channeltest.Post(r.T, r.Srv.URL+"/meta/webhook", body, "X-Hub-Signature-256", sig)
}

func (r *rig) postSigned(body string) int { return r.post([]byte(body), Sign(appSecret, []byte(body))) }

// pageEvent wraps messaging events for an entry of object.
func pageEvent(object, entryID, events string) string {
	return `{"object":"` + object + `","entry":[{"id":"` + entryID + `","time":1700000000000,"messaging":` + events + `}]}`
}
