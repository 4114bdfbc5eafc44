package token_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"atende/engine"
	"atende/transport/http/token"
)

var secret = []byte("0123456789abcdef0123456789abcdef")

// fakeUsers answers Auth from a map and counts lookups.
type fakeUsers struct {
	mu    sync.Mutex
	rows  map[engine.ID]engine.UserAuth
	calls int
	err   error
}

func (f *fakeUsers) Auth(_ context.Context, id engine.ID) (engine.UserAuth, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.err != nil {
		return engine.UserAuth{}, f.err
	}
	a, ok := f.rows[id]
	if !ok {
		return a, engine.E(engine.ErrNoUserFound)
	}
	return a, nil
}

func (f *fakeUsers) set(id engine.ID, a engine.UserAuth) {
	f.mu.Lock()
	f.rows[id] = a
	f.mu.Unlock()
}

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func setup(t *testing.T, cfg token.Config) (*token.Service, *fakeUsers, *clock) {
	t.Helper()
	users := &fakeUsers{rows: map[engine.ID]engine.UserAuth{7: {UserID: 7, CompanyID: 3, TokenVersion: 2}}}
	clk := &clock{now: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)}
	if cfg.Secret == nil {
		cfg.Secret = secret
	}
	s, err := token.New(cfg, users, clk)
	if err != nil {
		t.Fatal(err)
	}
	return s, users, clk
}

var user7 = engine.User{ID: 7, CompanyID: 3, Profile: engine.ProfileSuperv, TokenVersion: 2,
	Queues: []engine.Queue{{ID: 4}, {ID: 9}}}

func TestNewRefusesBadConfig(t *testing.T) {
	users := &fakeUsers{}
	for name, cfg := range map[string]token.Config{
		"short secret": {Secret: []byte("short")},
		"negative ttl": {Secret: secret, TTL: -time.Second},
	} {
		if _, err := token.New(cfg, users, engine.SystemClock{}); err == nil {
			t.Fatalf("%s accepted", name)
		}
	}
	if _, err := token.New(token.Config{Secret: secret}, nil, engine.SystemClock{}); err == nil {
		t.Fatal("nil users accepted")
	}
}

func TestIssueAuthenticate(t *testing.T) {
	s, _, clk := setup(t, token.Config{})
	raw, err := s.Issue(user7)
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Authenticate(context.Background(), raw)
	if err != nil {
		t.Fatal(err)
	}
	if p.UserID != 7 || p.CompanyID != 3 || p.Profile != engine.ProfileSuperv || len(p.QueueIDs) != 2 || !p.InQueue(9) {
		t.Fatalf("principal %+v", p)
	}
	c, _ := s.Parse(raw)
	if c.ID == "" || c.Issuer != token.DefaultIssuer || !c.ExpiresAt.Time.Equal(clk.Now().Add(token.DefaultTTL)) {
		t.Fatalf("claims %+v", c)
	}
	other, _ := s.Issue(user7)
	if c2, _ := s.Parse(other); c2.ID == c.ID {
		t.Fatal("two tokens share a jti")
	}
	clk.add(token.DefaultTTL)
	if _, err := s.Authenticate(context.Background(), raw); engine.CodeOf(err) != engine.ErrInvalidToken {
		t.Fatalf("expired token: %v", err)
	}
}

func TestParseRefusals(t *testing.T) {
	s, _, _ := setup(t, token.Config{})
	otherIssuer, _, _ := setup(t, token.Config{Issuer: "someone-else"})
	foreign, _ := otherIssuer.Issue(user7)
	unknownProfile := user7
	unknownProfile.Profile = "root"
	badProfile, _ := s.Issue(unknownProfile)
	noCompany := user7
	noCompany.CompanyID = 0
	badCompany, _ := s.Issue(noCompany)
	for name, raw := range map[string]string{
		"empty": "", "garbage": "a.b.c", "other issuer": foreign, "unknown profile": badProfile, "no company": badCompany,
	} {
		if _, err := s.Parse(raw); engine.CodeOf(err) != engine.ErrInvalidToken {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

func TestAuthenticateChecksTheUserRow(t *testing.T) {
	ctx := context.Background()
	s, users, clk := setup(t, token.Config{CacheTTL: 5 * time.Second})
	raw, _ := s.Issue(user7)
	for range 3 {
		if _, err := s.Authenticate(ctx, raw); err != nil {
			t.Fatal(err)
		}
	}
	if users.calls != 1 {
		t.Fatalf("%d lookups within the cache TTL, want 1", users.calls)
	}
	// The row changes: still accepted until the cache entry expires or is forgotten.
	users.set(7, engine.UserAuth{UserID: 7, CompanyID: 3, TokenVersion: 3})
	if _, err := s.Authenticate(ctx, raw); err != nil {
		t.Fatalf("within TTL: %v", err)
	}
	clk.add(5 * time.Second)
	if _, err := s.Authenticate(ctx, raw); engine.CodeOf(err) != engine.ErrInvalidToken {
		t.Fatalf("stale version after TTL: %v", err)
	}
	users.set(7, engine.UserAuth{UserID: 7, CompanyID: 3, TokenVersion: 2})
	s.Forget(7)
	if _, err := s.Authenticate(ctx, raw); err != nil {
		t.Fatalf("after Forget: %v", err)
	}
	// Another tenant's row with the same id (impossible in one database, but checked).
	users.set(7, engine.UserAuth{UserID: 7, CompanyID: 4, TokenVersion: 2})
	s.Forget(7)
	if _, err := s.Authenticate(ctx, raw); engine.CodeOf(err) != engine.ErrInvalidToken {
		t.Fatalf("company mismatch: %v", err)
	}
	// A deleted user; the negative answer is cached too.
	users.mu.Lock()
	delete(users.rows, 7)
	users.mu.Unlock()
	s.Forget(7)
	before := users.calls
	for range 2 {
		if _, err := s.Authenticate(ctx, raw); engine.CodeOf(err) != engine.ErrInvalidToken {
			t.Fatalf("deleted user: %v", err)
		}
	}
	if users.calls != before+1 {
		t.Fatalf("deleted user looked up %d times", users.calls-before)
	}
	// A store failure is not a token problem: it surfaces as an internal error.
	users.err = errors.New("db down")
	s.Forget(7)
	if _, err := s.Authenticate(ctx, raw); err == nil || engine.CodeOf(err) != engine.ErrInternal {
		t.Fatalf("store failure: %v", err)
	}
}

func TestCacheEvictionKeepsWorking(t *testing.T) {
	ctx := context.Background()
	s, users, _ := setup(t, token.Config{CacheSize: 2})
	for id := engine.ID(1); id <= 5; id++ {
		users.set(id, engine.UserAuth{UserID: id, CompanyID: 3, TokenVersion: 2})
		u := user7
		u.ID = id
		raw, _ := s.Issue(u)
		if _, err := s.Authenticate(ctx, raw); err != nil {
			t.Fatal(err)
		}
	}
	if users.calls != 5 {
		t.Fatalf("lookups %d", users.calls)
	}
}

// Forget calls the OnForget hook after dropping the row; ForgetLocal drops it only.
func TestForgetHook(t *testing.T) {
	ctx := context.Background()
	s, users, _ := setup(t, token.Config{CacheTTL: time.Hour})
	raw, _ := s.Issue(user7)
	var hooked []engine.ID
	s.OnForget(func(uid engine.ID) {
		// The row is already forgotten when the hook runs.
		before := users.calls
		if _, err := s.Authenticate(ctx, raw); err != nil {
			t.Errorf("in hook: %v", err)
		}
		if users.calls != before+1 {
			t.Error("hook ran before the row was forgotten")
		}
		hooked = append(hooked, uid)
	})
	if _, err := s.Authenticate(ctx, raw); err != nil {
		t.Fatal(err)
	}
	s.Forget(7)
	if len(hooked) != 1 || hooked[0] != 7 {
		t.Fatalf("hook calls %v", hooked)
	}
	users.set(7, engine.UserAuth{UserID: 7, CompanyID: 3, TokenVersion: 3})
	s.ForgetLocal(7)
	if len(hooked) != 1 {
		t.Fatalf("ForgetLocal called the hook: %v", hooked)
	}
	if _, err := s.Authenticate(ctx, raw); engine.CodeOf(err) != engine.ErrInvalidToken {
		t.Fatalf("after ForgetLocal the stale version is refused: %v", err)
	}
}

// A token carries its session; Logout refuses that session's tokens until they
// expire, leaves the user's other sessions alone and calls the hook.
func TestSessionLogout(t *testing.T) {
	s, _, clk := setup(t, token.Config{})
	ctx := context.Background()
	one, _ := s.IssueSession(user7, "fam-1")
	two, _ := s.IssueSession(user7, "fam-2")
	none, _ := s.Issue(user7)
	if c, _ := s.Parse(one); c.Session != "fam-1" {
		t.Fatalf("session claim %q", c.Session)
	}
	var hooked []string
	s.OnSessionEnd(func(_ context.Context, uid engine.ID, session string) error {
		hooked = append(hooked, fmt.Sprint(uid, "/", session))
		return nil
	})
	if err := s.Logout(ctx, 7, ""); err != nil || len(hooked) != 0 {
		t.Fatalf("empty session: %v %v", err, hooked)
	}
	if err := s.Logout(ctx, 7, "fam-1"); err != nil {
		t.Fatal(err)
	}
	if len(hooked) != 1 || hooked[0] != "7/fam-1" {
		t.Fatalf("hook calls %v", hooked)
	}
	if _, err := s.Authenticate(ctx, one); engine.CodeOf(err) != engine.ErrInvalidToken {
		t.Fatalf("logged-out session's token: %v", err)
	}
	for _, raw := range []string{two, none} {
		if _, err := s.Authenticate(ctx, raw); err != nil {
			t.Fatalf("other session refused: %v", err)
		}
	}
	// Another node hears of a logout through SessionEnded.
	s.SessionEnded("fam-2")
	if _, err := s.Authenticate(ctx, two); engine.CodeOf(err) != engine.ErrInvalidToken {
		t.Fatalf("session ended elsewhere: %v", err)
	}
	clk.add(token.DefaultTTL) // its tokens have expired anyway; the entry is dropped
	fresh, _ := s.IssueSession(user7, "fam-2")
	if _, err := s.Authenticate(ctx, fresh); err != nil {
		t.Fatalf("the ended session is still remembered after its tokens' lifetime: %v", err)
	}
}
