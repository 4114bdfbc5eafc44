package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsutil"

	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	httpapi "atende/transport/http"
)

// session is one login: its access token and refresh cookie.
type session struct {
	token  string
	cookie *http.Cookie
	user   int64
}

func loginSession(t *testing.T, base, email, password string) session {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"email": email, "password": password})
	res, err := http.Post(base+"/auth/login", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out struct {
		Token string `json:"token"`
		User  struct {
			ID int64 `json:"id"`
		} `json:"user"`
	}
	if res.StatusCode != http.StatusOK || json.NewDecoder(res.Body).Decode(&out) != nil {
		t.Fatalf("login %s: %d", email, res.StatusCode)
	}
	for _, c := range res.Cookies() {
		if c.Name == httpapi.RefreshCookie {
			return session{token: out.Token, cookie: c, user: out.User.ID}
		}
	}
	t.Fatalf("login %s: no refresh cookie", email)
	return session{}
}

func (s session) api(t *testing.T, base string) *api {
	return &api{t: t, base: base, token: s.token, user: s.user}
}

func (s session) logout(t *testing.T, base string) {
	t.Helper()
	req, _ := http.NewRequest("DELETE", base+"/auth/logout", nil)
	req.AddCookie(&http.Cookie{Name: s.cookie.Name, Value: s.cookie.Value})
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNoContent {
		t.Fatalf("logout: %d", res.StatusCode)
	}
}

func closedWith(t *testing.T, what string, s *sioClient, code ws.StatusCode) {
	t.Helper()
	select {
	case <-s.closed:
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: socket still open", what)
	}
	var ce wsutil.ClosedError
	if !errors.As(s.closeErr, &ce) || ce.Code != code {
		t.Fatalf("%s: socket ended with %v, want close %d", what, s.closeErr, code)
	}
}

func stillOpen(t *testing.T, what string, s *sioClient) {
	t.Helper()
	select {
	case <-s.closed:
		t.Fatalf("%s: socket closed: %v", what, s.closeErr)
	default:
	}
}

// On a single node, logout closes that session's sockets (only), a user changed by
// an administrator has her sockets re-authenticate, and GET /presence shows who is
// online to supervisors: the code paths of the cluster, run in process.
func TestSessionsAndPresenceSingleNode(t *testing.T) {
	ta := startApp(t, testConfig(t, dbtest.URL(t, db.SQLite)))
	one := loginSession(t, ta.base, "ana@atende.local", "atende123")
	two := loginSession(t, ta.base, "ana@atende.local", "atende123")
	s1a, s1b := dialSocket(t, ta.base, one.token, 0), dialSocket(t, ta.base, one.token, 0)
	s2 := dialSocket(t, ta.base, two.token, 0)

	carla := login(t, ta.base, "carla@atende.local", "atende123") // superv: drawer-superv-items:view
	type presence struct {
		Users []struct {
			UserID   int64   `json:"userId"`
			QueueIDs []int64 `json:"queueIds"`
		} `json:"users"`
		Queues map[string][]int64 `json:"queues"`
	}
	online := func(user int64) bool {
		var p presence
		carla.call("GET", "/presence", nil, http.StatusOK, &p)
		for _, u := range p.Users {
			if u.UserID == user {
				return true
			}
		}
		return false
	}
	waitFor(t, "ana online", func() bool { return online(one.user) })
	one.api(t, ta.base).call("GET", "/presence", nil, http.StatusForbidden, nil) // an attendant may not
	(&api{t: t, base: ta.base}).call("GET", "/presence", nil, http.StatusUnauthorized, nil)

	one.logout(t, ta.base)
	closedWith(t, "session one, first socket", s1a, 1000)
	closedWith(t, "session one, second socket", s1b, 1000)
	stillOpen(t, "session two", s2)
	one.api(t, ta.base).call("GET", "/tickets?status=open&pageNumber=1", nil, http.StatusForbidden, nil) // its token is refused at once
	two.api(t, ta.base).call("GET", "/tickets?status=open&pageNumber=1", nil, http.StatusOK, nil)

	admin := login(t, ta.base, "admin@atende.local", "admin123")
	admin.call("PUT", fmt.Sprintf("/users/%d", two.user), map[string]any{"name": "Ana Atendente (editada)",
		"email": "ana@atende.local", "profile": "user"}, http.StatusOK, nil)
	closedWith(t, "ana's socket after the edit", s2, 4003)
	waitFor(t, "ana offline", func() bool { return !online(one.user) })
}

// A user coming online or leaving sends "presence" to the tenant's supervision screens
// (the wait panel reads its snapshot again on it); attendants' sockets never get it.
func TestPresenceEventsReachSupervisorsOnly(t *testing.T) {
	ta := startApp(t, testConfig(t, dbtest.URL(t, db.SQLite)))
	carla := loginSession(t, ta.base, "carla@atende.local", "atende123") // superv
	bruno := loginSession(t, ta.base, "bruno@atende.local", "atende123") // user
	supervisor := dialSocket(t, ta.base, carla.token, 0)
	attendant := dialSocket(t, ta.base, bruno.token, 0)
	isPresence := func(user int64) func(sioEvent) bool {
		return func(ev sioEvent) bool {
			id, _ := ev.Body["userId"].(float64)
			return ev.Name == "presence" && ev.Body["action"] == "update" && int64(id) == user
		}
	}
	// Bruno's own socket made him online: the supervisor hears of it.
	supervisor.waitEvent("bruno online", isPresence(bruno.user))

	ana := loginSession(t, ta.base, "ana@atende.local", "atende123")
	s := dialSocket(t, ta.base, ana.token, 0)
	supervisor.waitEvent("ana online", isPresence(ana.user))
	anaEvents := func() (n int) {
		for _, ev := range supervisor.received() {
			if isPresence(ana.user)(ev) {
				n++
			}
		}
		return n
	}
	before := anaEvents()
	s.conn.Close()
	waitFor(t, "ana offline", func() bool { return anaEvents() > before })
	for _, ev := range attendant.received() {
		if ev.Name == "presence" {
			t.Fatalf("an attendant's socket got %+v", ev)
		}
	}
}
