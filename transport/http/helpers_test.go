package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
	"golang.org/x/crypto/bcrypt"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/ratelimit"
	"atende/persistence/store"
	httpapi "atende/transport/http"
	"atende/transport/http/token"
)

// Tenants and fixture ids. Company 1 has queues 11 (Vendas) and 12 (Suporte);
// company 2 has queue 21.
const (
	co1 engine.ID = 1
	co2 engine.ID = 2
)

const testPassword = "secret123"

var testSecret = []byte("0123456789abcdef0123456789abcdef-test")

// testClock is a settable clock shared by the server, the token service and stores.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// event is one realtime event the server published.
type event struct {
	Company engine.ID
	Name    string
	Payload map[string]any
}

// recPublisher records published events (payloads as JSON objects, as a socket sees them).
type recPublisher struct {
	mu     sync.Mutex
	events []event
}

func (p *recPublisher) Publish(companyID engine.ID, name string, payload any) {
	b, _ := json.Marshal(payload)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	p.mu.Lock()
	p.events = append(p.events, event{companyID, name, m})
	p.mu.Unlock()
}

// PublishTo records an event held to a permission like any other, with the
// permission under the payload key "_permission".
func (p *recPublisher) PublishTo(companyID engine.ID, name, permission string, payload any) {
	b, _ := json.Marshal(payload)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	m["_permission"] = permission
	p.mu.Lock()
	p.events = append(p.events, event{companyID, name, m})
	p.mu.Unlock()
}

func (p *recPublisher) take() []event {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.events
	p.events = nil
	return out
}

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// env is a server on a fresh database with two tenants and their staff.
type env struct {
	t        *testing.T
	d        *db.DB
	srv      *httpapi.Server
	h        http.Handler
	clock    *testClock
	users    *store.Users
	settings *store.Settings
	rts      *store.RefreshTokens
	tokens   *token.Service
	pub      *recPublisher
	logs     *syncBuffer
	metrics  *prometheus.Registry
	ids      map[string]engine.ID // fixture users by e-mail local part
	// built is what the server was built from, for restart.
	built struct {
		cfg  httpapi.Config
		deps httpapi.Deps
	}
}

// envOpts tweak an env before the server is built.
type envOpts struct {
	cfg   httpapi.Config
	users engine.UserStore // replaces the real store in Deps (wrappers)
	ready func(context.Context) error
	// deps, when set, wires more of Deps (stores built on the env's clock).
	deps func(e *env, d *httpapi.Deps)
}

// withDeps is an envOpts wiring more of Deps, with a larger body limit (64 KiB).
func withDeps(fn func(e *env, d *httpapi.Deps)) func(*envOpts) {
	return func(o *envOpts) { o.cfg.MaxBodyBytes, o.deps = 64<<10, fn }
}

func newEnv(t *testing.T, d *db.DB, opts ...func(*envOpts)) *env {
	t.Helper()
	o := envOpts{cfg: httpapi.Config{BcryptCost: bcrypt.MinCost, MaxBodyBytes: 4096}}
	for _, f := range opts {
		f(&o)
	}
	e := &env{
		t:       t,
		d:       d,
		clock:   &testClock{now: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)},
		pub:     &recPublisher{},
		logs:    &syncBuffer{},
		metrics: prometheus.NewRegistry(),
		ids:     map[string]engine.ID{},
	}
	e.users = store.NewUsers(d, e.clock)
	e.settings = store.NewSettings(d, e.clock)
	e.rts = store.NewRefreshTokens(d, e.clock)
	var err error
	e.tokens = e.newTokens()
	pairs, _ := ratelimit.NewAttempts(testPairPolicy, 0, e.clock)
	addr, _ := ratelimit.NewAttempts(testAddressPolicy, 0, e.clock)
	var users engine.UserStore = e.users
	if o.users != nil {
		users = o.users
	}
	deps := httpapi.Deps{
		Users:          users,
		Settings:       e.settings,
		RefreshTokens:  e.rts,
		Tokens:         e.tokens,
		PairLimiter:    pairs,
		AddressLimiter: addr,
		Publisher:      e.pub,
		Logger:         zerolog.New(e.logs),
		Clock:          e.clock,
		Metrics:        e.metrics,
		Ready:          o.ready,
	}
	if o.deps != nil {
		o.deps(e, &deps)
	}
	e.srv, err = httpapi.New(o.cfg, deps)
	if err != nil {
		t.Fatal(err)
	}
	e.built.cfg, e.built.deps = o.cfg, deps
	e.h = e.srv.Handler()
	e.seed()
	return e
}

// newTokens is a token service on the env's users and ended-session table, with
// nothing in memory.
func (e *env) newTokens() *token.Service {
	e.t.Helper()
	s, err := token.New(token.Config{Secret: testSecret, CacheTTL: time.Second,
		Ended: store.NewEndedSessions(e.d, e.clock)}, e.users, e.clock)
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

// restart replaces the server and its token service by new ones over the same
// database, as a restarted process starts: the token service syncs the ended
// sessions first, and answers what that sync found.
func (e *env) restart() []engine.EndedSession {
	e.t.Helper()
	e.tokens = e.newTokens()
	ended, err := e.tokens.Sync(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	deps := e.built.deps
	deps.Tokens, deps.Metrics = e.tokens, prometheus.NewRegistry()
	srv, err := httpapi.New(e.built.cfg, deps)
	if err != nil {
		e.t.Fatal(err)
	}
	e.srv, e.h = srv, srv.Handler()
	return ended
}

// The env's login limits: 3 attempts per (address, e-mail) pair before delays of 30 s
// doubling up to 15 min; 6 failures per address within 15 minutes.
var (
	testPairPolicy    = engine.AttemptPolicy{Window: 24 * time.Hour, Free: 3, Delay: 30 * time.Second, MaxDelay: 15 * time.Minute}
	testAddressPolicy = engine.AttemptPolicy{Window: 15 * time.Minute, Limit: 6}
)

// seed creates the tenants, queues and staff.
func (e *env) seed() {
	t := e.t
	dbtest.MustExec(t, e.d, `INSERT INTO companies (id, name) VALUES (1, 'Um'), (2, 'Dois')`)
	dbtest.MustExec(t, e.d, `INSERT INTO queues (id, company_id, name, color, created_at, updated_at) VALUES
		(11, 1, 'Vendas', '#00ff00', '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z'),
		(12, 1, 'Suporte', '#0000ff', '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z'),
		(21, 2, 'Outra', '#00ff00', '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z')`)
	hash, _ := bcrypt.GenerateFromPassword([]byte(testPassword), bcrypt.MinCost)
	for _, f := range []struct {
		co      engine.ID
		name    string
		local   string
		profile string
		queues  []engine.ID
	}{
		{co1, "Sofia Super", "super", engine.ProfileSuper, nil},
		{co1, "Alice Admin", "admin", engine.ProfileAdmin, []engine.ID{11, 12}},
		{co1, "Marcos Manager", "manager", engine.ProfileManager, nil},
		{co1, "Sara Superv", "superv", engine.ProfileSuperv, []engine.ID{11}},
		{co1, "Ana User", "ana", engine.ProfileUser, []engine.ID{11}},
		{co1, "Bruno Plus", "bruno", engine.ProfileUserPlus, []engine.ID{12}},
		{co2, "Zeca Admin", "admin2", engine.ProfileAdmin, []engine.ID{21}},
		{co2, "Zilda User", "user2", engine.ProfileUser, nil},
	} {
		u, err := e.users.Create(context.Background(), engine.NewUser{CompanyID: f.co, Name: f.name,
			Email: f.local + "@example.com", PasswordHash: string(hash), Profile: f.profile, QueueIDs: f.queues})
		if err != nil {
			t.Fatal(err)
		}
		e.ids[f.local] = u.ID
	}
}

// tok issues an access token for a fixture user as it is now.
func (e *env) tok(local string) string {
	e.t.Helper()
	u, err := e.users.Get(context.Background(), e.company(local), e.ids[local])
	if err != nil {
		e.t.Fatal(err)
	}
	raw, err := e.tokens.Issue(u)
	if err != nil {
		e.t.Fatal(err)
	}
	return raw
}

func (e *env) company(local string) engine.ID {
	if strings.HasSuffix(local, "2") {
		return co2
	}
	return co1
}

// resp is a recorded answer.
type resp struct {
	Status int
	Header http.Header
	Body   []byte
	Resp   *http.Response
}

func (r resp) json(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %q: %v", r.Body, err)
	}
}

func (r resp) obj(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	r.json(t, &m)
	return m
}

// errBody is an error answer.
type errBody struct {
	Error   string            `json:"error"`
	Message string            `json:"message"`
	Fields  map[string]string `json:"fields"`
}

// wantErr fails unless r is status with error code.
func (r resp) wantErr(t *testing.T, status int, code engine.Code) errBody {
	t.Helper()
	var b errBody
	if r.Status != status {
		t.Fatalf("status %d (%s), want %d %s", r.Status, r.Body, status, code)
	}
	r.json(t, &b)
	if b.Error != string(code) {
		t.Fatalf("error %q (%s), want %s", b.Error, r.Body, code)
	}
	return b
}

func (r resp) wantStatus(t *testing.T, status int) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d (%s), want %d", r.Status, r.Body, status)
	}
}

func (r resp) cookie(name string) *http.Cookie {
	for _, c := range r.Resp.Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// req describes a request.
type req struct {
	method, path string
	body         any // string/[]byte sent raw, anything else as JSON
	token        string
	cookie       *http.Cookie
	header       map[string]string
	remote       string
}

func (e *env) do(q req) resp {
	e.t.Helper()
	var body io.Reader
	switch b := q.body.(type) {
	case nil:
	case string:
		body = strings.NewReader(b)
	case []byte:
		body = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		body = bytes.NewReader(raw)
	}
	r := httptest.NewRequest(q.method, q.path, body)
	if body != nil {
		// What a JSON client declares; q.header may replace it (multipart, hostile types).
		r.Header.Set("Content-Type", "application/json")
	}
	if q.token != "" {
		r.Header.Set("Authorization", "Bearer "+q.token)
	}
	if q.cookie != nil {
		r.AddCookie(q.cookie)
	}
	for k, v := range q.header {
		r.Header.Set(k, v)
	}
	if q.remote != "" {
		r.RemoteAddr = q.remote
	}
	w := httptest.NewRecorder()
	e.h.ServeHTTP(w, r)
	res := w.Result()
	b, _ := io.ReadAll(res.Body)
	return resp{Status: res.StatusCode, Header: res.Header, Body: b, Resp: res}
}

// get, post, put and del are shorthands with a token.
func (e *env) get(tok, path string) resp { return e.do(req{method: "GET", path: path, token: tok}) }
func (e *env) post(tok, path string, body any) resp {
	return e.do(req{method: "POST", path: path, token: tok, body: body})
}
func (e *env) put(tok, path string, body any) resp {
	return e.do(req{method: "PUT", path: path, token: tok, body: body})
}
func (e *env) del(tok, path string) resp { return e.do(req{method: "DELETE", path: path, token: tok}) }

// login logs a fixture user in and returns the access token and refresh cookie.
func (e *env) login(email, password string) (string, *http.Cookie, resp) {
	e.t.Helper()
	r := e.do(req{method: "POST", path: "/auth/login", body: map[string]string{"email": email, "password": password}})
	if r.Status != http.StatusOK {
		return "", nil, r
	}
	var a struct {
		Token string `json:"token"`
	}
	r.json(e.t, &a)
	return a.Token, r.cookie(httpapi.RefreshCookie), r
}

// eachEnv runs fn on a fresh env per dialect.
// The tests of different functions run in parallel, each on its own databases.
func eachEnv(t *testing.T, fn func(t *testing.T, e *env), opts ...func(*envOpts)) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) { fn(t, newEnv(t, d, opts...)) })
}
