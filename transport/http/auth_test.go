package httpapi_test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/rs/zerolog"

	"atende/engine"
	"atende/persistence/ratelimit"
	"atende/persistence/redisstate"
	httpapi "atende/transport/http"
	"atende/transport/http/token"
)

func TestLogin(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		t.Run("success", func(t *testing.T) {
			tok, c, r := e.login(" ADMIN@example.com ", testPassword)
			r.wantStatus(t, http.StatusOK)
			var body struct {
				Token string `json:"token"`
				User  struct {
					ID           engine.ID  `json:"id"`
					Name         string     `json:"name"`
					Email        string     `json:"email"`
					Profile      string     `json:"profile"`
					CompanyID    engine.ID  `json:"companyId"`
					ConnectionID *engine.ID `json:"whatsappId"`
					Queues       []struct {
						ID    engine.ID `json:"id"`
						Name  string    `json:"name"`
						Color string    `json:"color"`
					} `json:"queues"`
				} `json:"user"`
			}
			r.json(t, &body)
			u := body.User
			if u.ID != e.ids["admin"] || u.Name != "Alice Admin" || u.Email != "admin@example.com" || u.Profile != "admin" ||
				u.CompanyID != co1 || u.ConnectionID != nil || len(u.Queues) != 2 || u.Queues[0].Name != "Suporte" ||
				u.Queues[0].Color != "#0000ff" {
				t.Fatalf("user %+v", u)
			}
			if strings.Contains(string(r.Body), "password") || strings.Contains(string(r.Body), "$2a$") {
				t.Fatalf("answer leaks the password hash: %s", r.Body)
			}
			if c == nil || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/auth" || c.Secure || c.MaxAge <= 0 {
				t.Fatalf("refresh cookie %+v", c)
			}
			// The access token carries the claims of the brief and works.
			claims, err := e.tokens.Parse(tok)
			if err != nil || claims.UserID() != e.ids["admin"] || claims.CompanyID != co1 || claims.Profile != "admin" ||
				claims.ID == "" || claims.IssuedAt == nil || !claims.ExpiresAt.Time.Equal(e.clock.Now().Add(15*time.Minute).Truncate(time.Second)) {
				t.Fatalf("claims %+v %v", claims, err)
			}
			e.get(tok, "/users/list").wantStatus(t, http.StatusOK)
		})
		t.Run("refused", func(t *testing.T) {
			tests := []struct {
				name   string
				body   any
				status int
				code   engine.Code
				field  string
				msg    string
			}{
				{"wrong password", map[string]string{"email": "ana@example.com", "password": "wrong-pass"}, 401, engine.ErrInvalidCredentials, "", ""},
				{"unknown e-mail", map[string]string{"email": "ghost@example.com", "password": testPassword}, 401, engine.ErrInvalidCredentials, "", ""},
				{"password case matters", map[string]string{"email": "bruno@example.com", "password": strings.ToUpper(testPassword)}, 401, engine.ErrInvalidCredentials, "", ""},
				{"missing e-mail", map[string]string{"password": testPassword}, 400, engine.ErrValidation, "email", engine.MsgRequired},
				{"missing password", map[string]string{"email": "bruno@example.com"}, 400, engine.ErrValidation, "password", engine.MsgRequired},
				{"malformed JSON", `{"email":`, 400, engine.ErrInvalidJSON, "", ""},
				{"wrong types", `{"email": 5, "password": true}`, 400, engine.ErrInvalidJSON, "", ""},
				{"array body", `[]`, 400, engine.ErrInvalidJSON, "", ""},
				{"empty body", ``, 400, engine.ErrInvalidJSON, "", ""},
				{"SQL in e-mail", map[string]string{"email": "' OR 1=1 --", "password": "x"}, 401, engine.ErrInvalidCredentials, "", ""},
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					r := e.do(req{method: "POST", path: "/auth/login", body: tc.body, remote: "10.9.9.9:1"})
					b := r.wantErr(t, tc.status, tc.code)
					if tc.field != "" && (b.Fields[tc.field] != tc.msg || b.Message != tc.msg) {
						t.Fatalf("fields %v message %q", b.Fields, b.Message)
					}
					if tc.code != engine.ErrValidation && b.Message != string(tc.code) {
						t.Fatalf("message %q", b.Message)
					}
					if r.cookie(httpapi.RefreshCookie) != nil {
						t.Fatal("refused login set a cookie")
					}
				})
			}
		})
	})
}

func TestLoginSecureCookie(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		_, c, r := e.login("ana@example.com", testPassword)
		r.wantStatus(t, http.StatusOK)
		if c == nil || !c.Secure {
			t.Fatalf("cookie %+v, want Secure", c)
		}
	}, func(o *envOpts) { o.cfg.CookieSecure = true })
}

func TestLoginRateLimit(t *testing.T) {
	// The env: 3 attempts per (address, e-mail) pair, then 30 s, 60 s… ; 6 failures
	// per address in 15 minutes (testPairPolicy, testAddressPolicy).
	eachEnv(t, func(t *testing.T, e *env) {
		attempt := func(email, pw, remote string) resp {
			return e.do(req{method: "POST", path: "/auth/login", remote: remote,
				body: map[string]string{"email": email, "password": pw}})
		}
		// refused checks a 429 that says to wait secs seconds.
		refused := func(t *testing.T, r resp, secs int) {
			t.Helper()
			r.wantErr(t, 429, engine.ErrTooManyAttempts)
			var b struct {
				RetryAfter int `json:"retryAfter"`
			}
			r.json(t, &b)
			if r.Header.Get("Retry-After") != strconv.Itoa(secs) || b.RetryAfter != secs {
				t.Fatalf("Retry-After %q, retryAfter %d; want %d", r.Header.Get("Retry-After"), b.RetryAfter, secs)
			}
		}
		t.Run("progressive delays per address and account", func(t *testing.T) {
			for range 3 {
				attempt("ana@example.com", "bad-pass", "10.0.0.1:1").wantErr(t, 401, engine.ErrInvalidCredentials)
			}
			// Even the right password waits now, from that address.
			refused(t, attempt("ana@example.com", testPassword, "10.0.0.1:2"), 30)
			refused(t, attempt("ANA@example.com", testPassword, "10.0.0.1:3"), 30)
			e.clock.Add(20 * time.Second)
			refused(t, attempt("ana@example.com", testPassword, "10.0.0.1:1"), 10)
			e.clock.Add(10 * time.Second)
			attempt("ana@example.com", "bad-pass", "10.0.0.1:1").wantErr(t, 401, engine.ErrInvalidCredentials)
			refused(t, attempt("ana@example.com", testPassword, "10.0.0.1:1"), 60) // doubled
			e.clock.Add(time.Minute)
			attempt("ana@example.com", testPassword, "10.0.0.1:1").wantStatus(t, 200)
			// A success forgets the pair's failures: no wait before the next (two more
			// reach the address's ceiling of 6 failures).
			for range 2 {
				attempt("ana@example.com", "bad-pass", "10.0.0.1:1").wantErr(t, 401, engine.ErrInvalidCredentials)
			}
		})
		t.Run("a guesser elsewhere cannot lock the owner out", func(t *testing.T) {
			for range 3 {
				attempt("superv@example.com", "guess", "10.0.3.1:1").wantErr(t, 401, engine.ErrInvalidCredentials)
			}
			for range 20 {
				refused(t, attempt("superv@example.com", "guess", "10.0.3.1:1"), 30)
			}
			attempt("superv@example.com", testPassword, "10.0.3.9:1").wantStatus(t, 200)
			// Another account from the guesser's address still goes (its own pair).
			attempt("bruno@example.com", testPassword, "10.0.3.1:1").wantStatus(t, 200)
		})
		t.Run("ceiling per address", func(t *testing.T) {
			// Successes do not count against the address.
			for range 8 {
				attempt("bruno@example.com", testPassword, "10.0.2.1:1").wantStatus(t, 200)
			}
			// Six failures spread over six unknown accounts from one address.
			for i := range 6 {
				attempt("nobody"+strconv.Itoa(i)+"@example.com", "x", "10.0.2.1:5555").wantErr(t, 401, engine.ErrInvalidCredentials)
				e.clock.Add(time.Minute)
			}
			// The oldest failure leaves the 15-minute window 9 minutes from now.
			refused(t, attempt("carol@example.com", testPassword, "10.0.2.1:6666"), 9*60)
			attempt("superv@example.com", testPassword, "10.0.2.2:1").wantStatus(t, 200)
			e.clock.Add(9 * time.Minute)
			attempt("superv@example.com", testPassword, "10.0.2.1:1").wantStatus(t, 200)
		})
	})
}

// countingUsers counts ByEmail calls: login makes one per attempt that reaches the
// password check (and so one bcrypt comparison).
type countingUsers struct {
	engine.UserStore
	n atomic.Int64
}

func (c *countingUsers) ByEmail(ctx context.Context, email string) (engine.User, error) {
	c.n.Add(1)
	return c.UserStore.ByEmail(ctx, email)
}

// openTestRedis connects to the test Redis (TEST_REDIS_URL, else the local one)
// under a fresh key prefix, removed at the end.
func openTestRedis(t *testing.T) *redisstate.Redis {
	t.Helper()
	url := os.Getenv("TEST_REDIS_URL")
	if url == "" {
		url = "redis://127.0.0.1:6379/0"
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	prefix := "atende-test:" + hex.EncodeToString(b[:]) + ":"
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r, err := redisstate.New(ctx, redisstate.Config{URL: url, Prefix: prefix, Logger: zerolog.Nop()})
	if err != nil {
		t.Fatalf("Redis at %s is required (set TEST_REDIS_URL): %v", url, err)
	}
	t.Cleanup(func() {
		keys, _ := r.Client().Keys(context.Background(), prefix+"*").Result()
		if len(keys) > 0 {
			_ = r.Client().Del(context.Background(), keys...).Err()
		}
		_ = r.Close()
	})
	return r
}

// TestLoginParallelGuesses sends 150 wrong passwords at once against one account
// limited to 5 attempts: only 5 reach the password check, on both limiters.
func TestLoginParallelGuesses(t *testing.T) {
	pair := engine.AttemptPolicy{Window: 24 * time.Hour, Free: 5, Delay: 30 * time.Second, MaxDelay: 15 * time.Minute}
	address := engine.AttemptPolicy{Window: 15 * time.Minute, Limit: 1000}
	limiters := map[string]func(t *testing.T, clock engine.Clock) (engine.AttemptLimiter, engine.AttemptLimiter){
		"memory": func(t *testing.T, clock engine.Clock) (engine.AttemptLimiter, engine.AttemptLimiter) {
			p, err1 := ratelimit.NewAttempts(pair, 0, clock)
			a, err2 := ratelimit.NewAttempts(address, 0, clock)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			return p, a
		},
		"redis": func(t *testing.T, clock engine.Clock) (engine.AttemptLimiter, engine.AttemptLimiter) {
			r := openTestRedis(t)
			p, err1 := r.AttemptLimiter("login-pair", pair, clock)
			a, err2 := r.AttemptLimiter("login-address", address, clock)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			return p, a
		},
	}
	for name, mk := range limiters {
		t.Run(name, func(t *testing.T) {
			var counters sync.Map // *env → *countingUsers
			eachEnv(t, func(t *testing.T, e *env) {
				var codes sync.Map // status → *atomic.Int64
				var wg sync.WaitGroup
				start := make(chan struct{})
				for range 150 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						<-start
						r := e.do(req{method: "POST", path: "/auth/login", remote: "10.7.0.1:1",
							body: map[string]string{"email": "ana@example.com", "password": "guess"}})
						n, _ := codes.LoadOrStore(r.Status, &atomic.Int64{})
						n.(*atomic.Int64).Add(1)
					}()
				}
				close(start)
				wg.Wait()
				got := map[any]int64{}
				codes.Range(func(k, v any) bool { got[k] = v.(*atomic.Int64).Load(); return true })
				if got[401] != 5 || got[429] != 145 || len(got) != 2 {
					t.Fatalf("answers %v, want 5×401 and 145×429", got)
				}
				users, _ := counters.Load(e)
				if n := users.(*countingUsers).n.Load(); n != 5 {
					t.Fatalf("%d attempts reached the password check, want 5", n)
				}
			}, func(o *envOpts) {
				o.deps = func(e *env, d *httpapi.Deps) {
					users := &countingUsers{UserStore: e.users}
					counters.Store(e, users)
					d.Users = users
					d.PairLimiter, d.AddressLimiter = mk(t, e.clock)
				}
			})
		})
	}
}

func TestRefreshRotation(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		refresh := func(c *http.Cookie) resp {
			return e.do(req{method: "POST", path: "/auth/refresh_token", cookie: c})
		}
		_, c0, r := e.login("ana@example.com", testPassword)
		r.wantStatus(t, 200)

		r1 := refresh(c0)
		r1.wantStatus(t, 200)
		c1 := r1.cookie(httpapi.RefreshCookie)
		var a struct {
			Token string `json:"token"`
			User  struct {
				ID engine.ID `json:"id"`
			} `json:"user"`
		}
		r1.json(t, &a)
		if c1 == nil || c1.Value == c0.Value || a.Token == "" || a.User.ID != e.ids["ana"] {
			t.Fatalf("refresh answer %s cookie %+v", r1.Body, c1)
		}
		e.get(a.Token, "/users/list").wantStatus(t, 200)

		r2 := refresh(c1)
		r2.wantStatus(t, 200)
		c2 := r2.cookie(httpapi.RefreshCookie)

		// c0 comes back: reuse. Refused, cookie cleared, whole family revoked.
		reuse := refresh(c0)
		reuse.wantErr(t, 401, engine.ErrSessionExpired)
		if cl := reuse.cookie(httpapi.RefreshCookie); cl == nil || cl.MaxAge >= 0 {
			t.Fatalf("reuse did not clear the cookie: %+v", cl)
		}
		refresh(c2).wantErr(t, 401, engine.ErrSessionExpired)
		refresh(c1).wantErr(t, 401, engine.ErrSessionExpired)

		// Other sessions of the same user (another login) are not affected.
		_, other, _ := e.login("ana@example.com", testPassword)
		refresh(other).wantStatus(t, 200)

		t.Run("no cookie", func(t *testing.T) {
			refresh(nil).wantErr(t, 401, engine.ErrSessionExpired)
			refresh(&http.Cookie{Name: httpapi.RefreshCookie, Value: "forged"}).wantErr(t, 401, engine.ErrSessionExpired)
		})
		t.Run("expired", func(t *testing.T) {
			_, c, _ := e.login("bruno@example.com", testPassword)
			e.clock.Add(7*24*time.Hour + time.Second)
			refresh(c).wantErr(t, 401, engine.ErrSessionExpired)
		})
		t.Run("new claims after a change", func(t *testing.T) {
			tok, c, _ := e.login("bruno@example.com", testPassword)
			r := e.put(e.tok("admin"), "/users/"+id(e.ids["bruno"]), map[string]any{
				"name": "Bruno Plus", "email": "bruno@example.com", "profile": "superv", "queueIds": []int{11, 12}})
			r.wantStatus(t, 200)
			// The old access token is refused at once (this node forgot its cache entry).
			e.get(tok, "/users/list").wantErr(t, 403, engine.ErrInvalidToken)
			rr := refresh(c)
			rr.wantStatus(t, 200)
			var a struct {
				Token string `json:"token"`
			}
			rr.json(t, &a)
			claims, err := e.tokens.Parse(a.Token)
			if err != nil || claims.Profile != "superv" || len(claims.QueueIDs) != 2 {
				t.Fatalf("claims %+v %v", claims, err)
			}
			e.get(a.Token, "/users/list").wantStatus(t, 200)
		})
		t.Run("deleted user", func(t *testing.T) {
			_, c, _ := e.login("superv@example.com", testPassword)
			e.del(e.tok("admin"), "/users/"+id(e.ids["superv"])).wantStatus(t, 204)
			refresh(c).wantErr(t, 401, engine.ErrSessionExpired)
		})
	})
}

func TestLogout(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		tok, c, _ := e.login("ana@example.com", testPassword)
		r := e.do(req{method: "DELETE", path: "/auth/logout", cookie: c, token: tok})
		r.wantStatus(t, 204)
		if cl := r.cookie(httpapi.RefreshCookie); cl == nil || cl.MaxAge >= 0 || cl.Path != "/auth" {
			t.Fatalf("cookie not cleared: %+v", cl)
		}
		e.do(req{method: "POST", path: "/auth/refresh_token", cookie: c}).wantErr(t, 401, engine.ErrSessionExpired)
		// Without a cookie, or twice, logout still succeeds.
		e.do(req{method: "DELETE", path: "/auth/logout"}).wantStatus(t, 204)
		e.do(req{method: "DELETE", path: "/auth/logout", cookie: c}).wantStatus(t, 204)
	})
}

// A refresh token presented a second time ends its session as logout does: the
// access tokens of that login are refused at once and the end is announced (the
// sockets close), while another login of the same user goes on.
func TestRefreshReuseEndsTheSession(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		var mu sync.Mutex
		var ended []string
		e.tokens.OnSessionEnd(func(_ context.Context, uid engine.ID, session string) error {
			mu.Lock()
			defer mu.Unlock()
			ended = append(ended, fmt.Sprint(uid, "/", session))
			return nil
		})
		refresh := func(c *http.Cookie) resp {
			return e.do(req{method: "POST", path: "/auth/refresh_token", cookie: c})
		}
		tok0, c0, _ := e.login("ana@example.com", testPassword)
		other, _, _ := e.login("ana@example.com", testPassword)
		r1 := refresh(c0)
		r1.wantStatus(t, 200)
		var a struct{ Token string }
		r1.json(t, &a)
		e.get(a.Token, "/users/list").wantStatus(t, 200)

		refresh(c0).wantErr(t, 401, engine.ErrSessionExpired) // the thief, or the victim, replays c0
		claims, _ := e.tokens.Parse(tok0)
		mu.Lock()
		if want := fmt.Sprint(e.ids["ana"], "/", claims.Session); len(ended) != 1 || ended[0] != want {
			t.Fatalf("announced %v, want [%s]", ended, want)
		}
		mu.Unlock()
		for _, tok := range []string{tok0, a.Token} {
			e.get(tok, "/users/list").wantErr(t, 403, engine.ErrInvalidToken)
		}
		e.get(other, "/users/list").wantStatus(t, 200)
		// It is recorded: a restarted server refuses them too.
		e.restart()
		e.get(a.Token, "/users/list").wantErr(t, 403, engine.ErrInvalidToken)
		e.get(other, "/users/list").wantStatus(t, 200)
	})
}

// A logout is remembered across a restart until the session's tokens expire; then
// the record is pruned.
func TestLogoutSurvivesRestart(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		tok, c, _ := e.login("ana@example.com", testPassword)
		other, _, _ := e.login("bruno@example.com", testPassword)
		e.do(req{method: "DELETE", path: "/auth/logout", cookie: c}).wantStatus(t, 204)
		e.get(tok, "/users/list").wantErr(t, 403, engine.ErrInvalidToken)
		e.clock.Add(14 * time.Minute)
		claims, _ := e.tokens.Parse(tok)
		if ended := e.restart(); len(ended) != 1 || ended[0].Session != claims.Session || ended[0].UserID != e.ids["ana"] {
			t.Fatalf("the restarted node's sync found %+v, want the session of ana", ended)
		}
		e.get(tok, "/users/list").wantErr(t, 403, engine.ErrInvalidToken)
		e.get(other, "/users/list").wantStatus(t, 200)
		// A restart that ran no sync would have taken it (what this test guards).
		plain, err := token.New(token.Config{Secret: testSecret}, e.users, e.clock)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := plain.Authenticate(context.Background(), tok); err != nil {
			t.Fatalf("the token is not otherwise refused: %v", err)
		}
		// Once the token expired, the record goes.
		e.clock.Add(time.Minute)
		if _, err := e.tokens.Sync(context.Background()); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := e.d.SQL.QueryRow(`SELECT COUNT(*) FROM ended_sessions`).Scan(&n); err != nil || n != 0 {
			t.Fatalf("%d ended sessions left after expiry (%v)", n, err)
		}
	})
}

// Logout ends the session its cookie belongs to: the access tokens of that login are
// refused at once, its other logins are not, and the session is announced (the hook
// cmd/atende sets to close its sockets on every node) with the user and family.
func TestLogoutEndsTheSession(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		var ended []string
		e.tokens.OnSessionEnd(func(_ context.Context, uid engine.ID, session string) error {
			ended = append(ended, fmt.Sprint(uid, "/", session))
			return nil
		})
		tok, c, _ := e.login("ana@example.com", testPassword)
		other, _, _ := e.login("ana@example.com", testPassword)
		claims, err := e.tokens.Parse(tok)
		if err != nil || claims.Session == "" {
			t.Fatalf("access token without a session: %+v %v", claims, err)
		}
		rt, err := e.rts.ByHash(context.Background(), sha256Hex(c.Value))
		if err != nil || rt.FamilyID != claims.Session {
			t.Fatalf("session %q, refresh family %q (%v)", claims.Session, rt.FamilyID, err)
		}
		// A refreshed token keeps the session.
		r := e.do(req{method: "POST", path: "/auth/refresh_token", cookie: c})
		r.wantStatus(t, 200)
		c = r.cookie(httpapi.RefreshCookie)
		var body struct{ Token string }
		r.json(t, &body)
		if rc, _ := e.tokens.Parse(body.Token); rc.Session != claims.Session {
			t.Fatalf("refreshed token's session %q, want %q", rc.Session, claims.Session)
		}
		e.do(req{method: "DELETE", path: "/auth/logout", cookie: c}).wantStatus(t, 204)
		if want := fmt.Sprint(e.ids["ana"], "/", claims.Session); len(ended) != 1 || ended[0] != want {
			t.Fatalf("announced %v, want [%s]", ended, want)
		}
		e.get(tok, "/users/list").wantErr(t, 403, engine.ErrInvalidToken)
		e.get(body.Token, "/users/list").wantErr(t, 403, engine.ErrInvalidToken)
		e.get(other, "/users/list").wantStatus(t, 200)
	})
}

func TestAccessToken(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		other, err := token.New(token.Config{Secret: []byte("another-secret-another-secret-32b!")}, e.users, e.clock)
		if err != nil {
			t.Fatal(err)
		}
		ana, _ := e.users.Get(context.Background(), co1, e.ids["ana"])
		forged, _ := other.Issue(ana)
		none := jwt.NewWithClaims(jwt.SigningMethodNone, jwt.MapClaims{"sub": strconv.FormatInt(ana.ID, 10),
			"companyId": 1, "profile": "super", "tokenVersion": 0, "iss": "atende",
			"exp": e.clock.Now().Add(time.Hour).Unix()})
		noneRaw, _ := none.SignedString(jwt.UnsafeAllowNoneSignatureType)
		good := e.tok("ana")
		// A token whose claims were edited (profile raised) keeps the old signature.
		parts := strings.Split(good, ".")
		tampered := parts[0] + "." + strings.TrimRight(parts[1], "=") + "x." + parts[2]

		tests := []struct {
			name   string
			header string
			status int
			code   engine.Code
		}{
			{"missing", "", 401, engine.ErrSessionExpired},
			{"bearer without token", "Bearer ", 401, engine.ErrSessionExpired},
			{"bearer null", "Bearer null", 401, engine.ErrSessionExpired},
			{"other scheme", "Basic YWRtaW46YWRtaW4=", 403, engine.ErrInvalidToken},
			{"garbage", "Bearer not.a.jwt", 403, engine.ErrInvalidToken},
			{"other secret", "Bearer " + forged, 403, engine.ErrInvalidToken},
			{"alg none", "Bearer " + noneRaw, 403, engine.ErrInvalidToken},
			{"tampered", "Bearer " + tampered, 403, engine.ErrInvalidToken},
			{"valid", "Bearer " + good, 200, ""},
			{"lower-case scheme", "bearer " + good, 200, ""},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				h := map[string]string{}
				if tc.header != "" {
					h["Authorization"] = tc.header
				}
				r := e.do(req{method: "GET", path: "/users/list", header: h})
				if tc.code == "" {
					r.wantStatus(t, tc.status)
					return
				}
				r.wantErr(t, tc.status, tc.code)
			})
		}
		t.Run("expired", func(t *testing.T) {
			tok := e.tok("bruno")
			e.clock.Add(15*time.Minute + time.Second)
			e.get(tok, "/users/list").wantErr(t, 403, engine.ErrInvalidToken)
		})
		t.Run("deleted user", func(t *testing.T) {
			tok := e.tok("manager")
			e.get(tok, "/users/list").wantStatus(t, 200) // cached as valid
			e.del(e.tok("admin"), "/users/"+id(e.ids["manager"])).wantStatus(t, 204)
			e.get(tok, "/users/list").wantErr(t, 403, engine.ErrInvalidToken)
		})
		t.Run("changed on another node", func(t *testing.T) {
			// A change this node's server did not make is seen once the cache entry expires.
			tok := e.tok("bruno")
			e.get(tok, "/users/list").wantStatus(t, 200)
			bump := engine.UserChange{BumpTokenVersion: true}
			if _, err := e.users.Update(context.Background(), co1, e.ids["bruno"], bump); err != nil {
				t.Fatal(err)
			}
			e.clock.Add(2 * time.Second) // env CacheTTL is 1 s
			e.get(tok, "/users/list").wantErr(t, 403, engine.ErrInvalidToken)
		})
	})
}

func id(v engine.ID) string { return strconv.FormatInt(v, 10) }

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
