package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsutil"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/store"
	httpapi "atende/transport/http"
	"atende/transport/http/token"
)

// dialRefused opens a socket with token and answers the CONNECT_ERROR the server
// sends and the close code that follows it.
func dialRefused(t *testing.T, base, token string) (string, ws.StatusCode) {
	t.Helper()
	u := strings.Replace(base, "http://", "ws://", 1) + "/socket.io/?EIO=4&transport=websocket"
	conn, br, _, err := ws.Dial(context.Background(), u)
	if err != nil {
		t.Fatalf("dial socket: %v", err)
	}
	defer conn.Close()
	c := &sioClient{t: t, conn: conn, rw: readWriter(conn, br)}
	if open := c.read(); !strings.HasPrefix(open, "0{") {
		t.Fatalf("open packet %q", open)
	}
	auth, _ := json.Marshal(map[string]any{"token": token})
	c.write("40" + string(auth))
	answer := c.read()
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	for b := []byte("2"); err == nil && string(b) == "2"; { // pings until the close
		b, err = wsutil.ReadServerText(c.rw)
	}
	var ce wsutil.ClosedError
	if !errors.As(err, &ce) {
		t.Fatalf("after %q: %v, want the server to close", answer, err)
	}
	return answer, ce.Code
}

// refreshSession rotates s's refresh cookie and answers the new session.
func refreshSession(t *testing.T, base string, s session) session {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/auth/refresh_token", nil)
	req.AddCookie(&http.Cookie{Name: s.cookie.Name, Value: s.cookie.Value})
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out struct {
		Token string `json:"token"`
	}
	if res.StatusCode != http.StatusOK || json.NewDecoder(res.Body).Decode(&out) != nil {
		t.Fatalf("refresh: %d", res.StatusCode)
	}
	for _, c := range res.Cookies() {
		if c.Name == httpapi.RefreshCookie {
			return session{token: out.Token, cookie: c, user: s.user}
		}
	}
	t.Fatal("refresh set no cookie")
	return session{}
}

// A socket outlives its access token: held past two token lifetimes and a whole
// ping round (when expired sockets used to be closed) it is open and receives
// events; reconnecting with the expired token is refused once and clearly; a
// refreshed token connects; logout closes the session's sockets at once.
func TestSocketOutlivesAccessToken(t *testing.T) {
	cfg := testConfig(t, dbtest.URL(t, db.SQLite))
	cfg.AccessTTL = 4 * time.Second
	ta := startApp(t, cfg)
	ana := loginSession(t, ta.base, "ana@atende.local", "atende123")
	s := dialSocket(t, ta.base, ana.token, 0)

	// 2 × 4 s of token lifetime, and the server's 18 s ping interval with a margin.
	hold := max(2*cfg.AccessTTL, 18*time.Second) + 4*time.Second
	select {
	case <-s.closed:
		t.Fatalf("socket closed while its session is valid: %v", s.closeErr)
	case <-time.After(hold):
	}
	ana.api(t, ta.base).call("GET", "/tickets?status=open&pageNumber=1", nil, http.StatusForbidden, nil) // the token did expire

	admin := login(t, ta.base, "admin@atende.local", "admin123")
	admin.call("POST", "/contacts", map[string]any{"name": "Cliente Tardio", "number": "5565999912345"}, http.StatusCreated, nil)
	s.waitEvent("a contact event after the token expired", func(ev sioEvent) bool {
		c, _ := ev.Body["contact"].(map[string]any)
		return ev.Name == "contact" && c != nil && c["name"] == "Cliente Tardio"
	})

	answer, code := dialRefused(t, ta.base, ana.token)
	if answer != `44{"message":"ERR_INVALID_TOKEN"}` || code != 1008 {
		t.Fatalf("reconnect with the expired token: %q then close %d", answer, code)
	}
	fresh := refreshSession(t, ta.base, ana)
	s2 := dialSocket(t, ta.base, fresh.token, 0)

	fresh.logout(t, ta.base)
	closedWith(t, "the socket of the expired token after logout", s, 1000)
	closedWith(t, "the socket of the refreshed token after logout", s2, 1000)
}

// A refresh token presented twice ends the session as logout does: its sockets
// close at once and its access tokens are refused.
func TestRefreshReuseClosesSockets(t *testing.T) {
	ta := startApp(t, testConfig(t, dbtest.URL(t, db.SQLite)))
	ana := loginSession(t, ta.base, "ana@atende.local", "atende123")
	other := loginSession(t, ta.base, "ana@atende.local", "atende123")
	s := dialSocket(t, ta.base, ana.token, 0)
	s2 := dialSocket(t, ta.base, other.token, 0)
	rotated := refreshSession(t, ta.base, ana)

	req, _ := http.NewRequest("POST", ta.base+"/auth/refresh_token", nil)
	req.AddCookie(&http.Cookie{Name: ana.cookie.Name, Value: ana.cookie.Value}) // the old cookie again
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("reuse answered %d", res.StatusCode)
	}
	closedWith(t, "the reused session's socket", s, 1000)
	stillOpen(t, "another login's socket", s2)
	for _, tok := range []string{ana.token, rotated.token} {
		(&api{t: t, base: ta.base, token: tok}).call("GET", "/tickets?status=open&pageNumber=1", nil, http.StatusForbidden, nil)
	}
	other.api(t, ta.base).call("GET", "/tickets?status=open&pageNumber=1", nil, http.StatusOK, nil)
}

// A node that missed the announcement of an ended session (Redis re-connecting, or
// the session ended by a node of another process) learns of it from the database at
// its next sync: the session's tokens are refused and its sockets closed there.
func TestEndedSessionSyncClosesSockets(t *testing.T) {
	cfg := testConfig(t, dbtest.URL(t, db.SQLite))
	ta := startApp(t, cfg)
	ana := loginSession(t, ta.base, "ana@atende.local", "atende123")
	other := loginSession(t, ta.base, "ana@atende.local", "atende123")
	s := dialSocket(t, ta.base, ana.token, 0)
	s2 := dialSocket(t, ta.base, other.token, 0)
	// The node's tokens, read with its secret.
	tokens, err := token.New(token.Config{Secret: []byte(cfg.JWTSecret)}, ta.stores.users, engine.SystemClock{})
	if err != nil {
		t.Fatal(err)
	}
	claims, err := tokens.Parse(ana.token)
	if err != nil {
		t.Fatal(err)
	}
	// What another node's logout writes, without telling this one.
	now := time.Now()
	if err := store.NewEndedSessions(ta.app.DB(), nil).End(context.Background(), engine.EndedSession{
		Session: claims.Session, UserID: ana.user, EndedAt: now, ExpiresAt: now.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	ana.api(t, ta.base).call("GET", "/tickets?status=open&pageNumber=1", nil, http.StatusOK, nil) // not known here yet
	stillOpen(t, "before the sync", s)
	if err := ta.app.SyncEndedSessions(context.Background()); err != nil {
		t.Fatal(err)
	}
	closedWith(t, "the ended session's socket after the sync", s, 1000)
	ana.api(t, ta.base).call("GET", "/tickets?status=open&pageNumber=1", nil, http.StatusForbidden, nil)
	stillOpen(t, "another session's socket", s2)
	other.api(t, ta.base).call("GET", "/tickets?status=open&pageNumber=1", nil, http.StatusOK, nil)
}
