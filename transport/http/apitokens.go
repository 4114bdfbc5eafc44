package httpapi

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"time"

	"atende/engine"
	"atende/transport/netlimit"
)

// The messaging API's tokens (docs/messaging-api.md). A token is "atk_" and 43
// characters of URL-safe base64 of 32 random bytes: 256 bits that no one guesses, so
// it is stored as its SHA-256 alone. A password hash (bcrypt) exists to slow down
// guessing low-entropy secrets offline; against 2^256 possibilities it adds nothing,
// and its ~50 ms per check would be paid on every API call and would need a lookup
// key beside it, since a salted hash cannot be found by value. SHA-256 lets the
// token be found with one indexed read.

// APILimiter shapes a token's sends: a bucket per key (Take answers false and the
// wait until a token is there). persistence/redisstate.TokenBuckets is the one a
// cluster shares; without it each node counts on its own (netlimit.Buckets).
type APILimiter interface {
	Take(ctx context.Context, key string) (ok bool, wait time.Duration, err error)
}

// MessagingDeps are the collaborators of the messaging API and its tokens. Nil
// APITokens or APISender answer 503 ERR_UNAVAILABLE on those routes.
type MessagingDeps struct {
	// APITokens keeps the tokens and the idempotency records of sends.
	APITokens engine.APITokenStore
	// APISender records a send on the contact's ticket and sends it through the
	// connection's outbound path (actors.ScheduleSender).
	APISender engine.ScheduleSender
	// APILimiter counts each token's sends; nil counts them in this process at
	// Config.APISendsPerMinute.
	APILimiter APILimiter
}

// localAPILimiter counts sends in this process: perMinute a minute, as many at once.
func localAPILimiter(perMinute int, clock engine.Clock) APILimiter {
	b := netlimit.NewBuckets(netlimit.PerMinute(float64(perMinute), perMinute), clock.Now)
	return bucketsLimiter{b}
}

type bucketsLimiter struct{ b *netlimit.Buckets }

func (l bucketsLimiter) Take(_ context.Context, key string) (bool, time.Duration, error) {
	ok, wait := l.b.Take(key)
	return ok, wait, nil
}

// apiTokenPrefix starts every token, so that a leaked one is recognisable (secret
// scanners) and a session JWT is never mistaken for one.
const apiTokenPrefix = "atk_"

// apiTokenShown is how much of a token the list keeps to tell tokens apart.
const apiTokenShown = len(apiTokenPrefix) + 6

// EventAPIToken is the socket event of a token change, sent to the tenant's
// administrators (api-tokens:manage): {action: "create"|"update", apiToken}. The
// secret is never in it.
const EventAPIToken = "apiToken"

type apiTokenEvent struct {
	Action   string          `json:"action"`
	APIToken engine.APIToken `json:"apiToken"`
}

// newAPIToken makes a secret and its stored hash and prefix.
func newAPIToken() (secret, hash, prefix string, err error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", "", "", fmt.Errorf("api token: random: %w", err)
	}
	secret = apiTokenPrefix + base64.RawURLEncoding.EncodeToString(b[:])
	return secret, hashAPIToken(secret), secret[:apiTokenShown], nil
}

// hashAPIToken is the stored form of a secret: hex SHA-256.
func hashAPIToken(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// wellFormedAPIToken reports whether raw can be a token at all, so that a JWT or
// garbage costs no database read.
func wellFormedAPIToken(raw string) bool {
	if !strings.HasPrefix(raw, apiTokenPrefix) || len(raw) != len(apiTokenPrefix)+43 {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(raw[len(apiTokenPrefix):])
	return err == nil
}

func (s *Server) apiTokenRoutes() {
	s.route("GET /apiTokens", s.authed(s.listAPITokens))
	s.route("POST /apiTokens", s.authed(s.createAPIToken))
	s.route("DELETE /apiTokens/{id}", s.authed(s.revokeAPIToken))
	s.route("POST /api/messages/send", s.public(s.apiSend))
}

func (s *Server) apiTokensReady(p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageAPITokens); err != nil {
		return err
	}
	if s.deps.APITokens == nil {
		return engine.Wrap(engine.ErrUnavailable, fmt.Errorf("no api token store"))
	}
	return nil
}

// listAPITokens: GET /apiTokens → the tenant's tokens, newest first, revoked ones
// included (without secrets). Needs api-tokens:manage (admin, super).
func (s *Server) listAPITokens(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := s.apiTokensReady(p); err != nil {
		return err
	}
	list, err := s.deps.APITokens.List(r.Context(), p.CompanyID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, list)
	return nil
}

// createdAPIToken is the answer of POST /apiTokens: the token and, this once, its
// secret.
type createdAPIToken struct {
	engine.APIToken
	Token string `json:"token"`
}

// createAPIToken: POST /apiTokens {name} → 201 {…token, token: secret}. The secret is
// answered here only; the server keeps its hash. Name 2 to 50 characters. Needs
// api-tokens:manage.
func (s *Server) createAPIToken(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := s.apiTokensReady(p); err != nil {
		return err
	}
	var in engine.APITokenInput
	if err := s.decodeJSON(r, &in); err != nil {
		return err
	}
	secret, hash, prefix, err := newAPIToken()
	if err != nil {
		return err
	}
	t, err := s.deps.APITokens.Create(r.Context(), p.CompanyID, p.UserID, in, hash, prefix)
	if err != nil {
		return err
	}
	s.publishAPIToken(p.CompanyID, "create", t)
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusCreated, createdAPIToken{APIToken: t, Token: secret})
	return nil
}

// revokeAPIToken: DELETE /apiTokens/{id} → 200 and the revoked token. From then on
// the messaging API refuses it, on every node (each call reads the token's row).
// Revoking a revoked token answers it unchanged. Needs api-tokens:manage.
func (s *Server) revokeAPIToken(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := s.apiTokensReady(p); err != nil {
		return err
	}
	id, err := pathID(r, "id", engine.ErrNoAPITokenFound)
	if err != nil {
		return err
	}
	t, err := s.deps.APITokens.Revoke(r.Context(), p.CompanyID, id)
	if err != nil {
		return err
	}
	s.publishAPIToken(p.CompanyID, "update", t)
	writeJSON(w, http.StatusOK, t)
	return nil
}

// publishAPIToken tells the tenant's administrators' screens; a publisher that
// cannot address a permission gets nothing (the list is theirs only).
func (s *Server) publishAPIToken(companyID engine.ID, action string, t engine.APIToken) {
	if pp, ok := s.deps.Publisher.(PermissionPublisher); ok {
		pp.PublishTo(companyID, EventAPIToken, engine.ActManageAPITokens, apiTokenEvent{Action: action, APIToken: t})
	}
}
