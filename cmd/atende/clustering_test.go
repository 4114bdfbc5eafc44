package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsutil"
	"github.com/rs/zerolog"

	"atende/actors"
	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/redisstate"
	httpapi "atende/transport/http"
)

// announceUserChanges announces each user handed to its hook, in order, off the
// caller's goroutine, until the app closes.
func TestAnnounceUserChanges(t *testing.T) {
	ctx := context.Background()
	rev := redisstate.NewMemoryRevocations(zerolog.Nop())
	t.Cleanup(rev.Close)
	got := make(chan engine.ID, 4)
	cancel, err := rev.Subscribe(ctx, func(id engine.ID) { got <- id })
	if err != nil {
		t.Fatal(err)
	}
	defer cancel()
	a := &app{revocations: rev, log: zerolog.Nop()}
	routines := &actors.Routines{}
	t.Cleanup(routines.Close)
	hook := a.announceUserChanges(zerolog.Nop(), routines)
	hook(7)
	hook(9)
	for _, want := range []engine.ID{7, 9} {
		select {
		case id := <-got:
			if id != want {
				t.Fatalf("announced %d, want %d", id, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("user %d not announced", want)
		}
	}
	for i := len(a.closers) - 1; i >= 0; i-- {
		if err := a.closers[i](ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// countingSink fails with actors.ErrUnavailable a number of times, then answers.
type countingSink struct {
	fails int
	calls int
	err   error
}

func (s *countingSink) call() error {
	s.calls++
	if s.calls <= s.fails {
		return s.err
	}
	return nil
}
func (s *countingSink) Inbound(context.Context, engine.InboundMessage) error { return s.call() }
func (s *countingSink) Receipt(context.Context, engine.Receipt) error        { return s.call() }
func (s *countingSink) Status(context.Context, engine.StatusChange) error    { return s.call() }

func TestRetrySink(t *testing.T) {
	unavailable := errors.Join(errors.New("call connection/1"), actors.ErrUnavailable)
	// Undeliverable calls are retried until they go through.
	s := &countingSink{fails: 3, err: unavailable}
	if err := (retrySink{s}).Inbound(context.Background(), engine.InboundMessage{}); err != nil || s.calls != 4 {
		t.Fatalf("err %v after %d calls, want nil after 4", err, s.calls)
	}
	// So is an actor's ERR_UNAVAILABLE answer (a ticket on a leaving node).
	s = &countingSink{fails: 2, err: engine.Wrap(engine.ErrUnavailable, errors.New("no activation for ticket 9"))}
	if err := (retrySink{s}).Inbound(context.Background(), engine.InboundMessage{}); err != nil || s.calls != 3 {
		t.Fatalf("err %v after %d calls, want nil after 3", err, s.calls)
	}
	// The actor's other answers are not retried.
	s = &countingSink{fails: 5, err: engine.E(engine.ErrValidation)}
	if err := (retrySink{s}).Receipt(context.Background(), engine.Receipt{}); engine.CodeOf(err) != engine.ErrValidation || s.calls != 1 {
		t.Fatalf("err %v after %d calls", err, s.calls)
	}
	// An attempt that gets no answer is given up after clusterAttemptTimeout and
	// sent again.
	hung := &hangingSink{}
	start0 := time.Now()
	if err := (retrySink{hung}).Inbound(context.Background(), engine.InboundMessage{}); err != nil || hung.calls != 2 {
		t.Fatalf("err %v after %d calls", err, hung.calls)
	}
	if d := time.Since(start0); d < clusterAttemptTimeout || d > clusterAttemptTimeout+time.Second {
		t.Fatalf("answered after %v", d)
	}
	// The deadline ends the retries with the last error.
	s = &countingSink{fails: 1 << 30, err: unavailable}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := (retrySink{s}).Status(ctx, engine.StatusChange{}); !errors.Is(err, actors.ErrUnavailable) {
		t.Fatalf("err %v", err)
	}
	if d := time.Since(start); d < 250*time.Millisecond || d > 2*time.Second {
		t.Fatalf("gave up after %v", d)
	}
}

// hangingSink never answers its first call (a request lost with a dead node).
type hangingSink struct{ calls int }

func (s *hangingSink) Inbound(ctx context.Context, _ engine.InboundMessage) error {
	s.calls++
	if s.calls == 1 {
		<-ctx.Done()
		return errors.Join(ctx.Err(), actors.ErrUnavailable)
	}
	return nil
}
func (s *hangingSink) Receipt(context.Context, engine.Receipt) error     { return nil }
func (s *hangingSink) Status(context.Context, engine.StatusChange) error { return nil }

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
