package token

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"atende/engine"
)

// Defaults of Config.
const (
	DefaultTTL       = 15 * time.Minute
	DefaultIssuer    = "atende"
	DefaultCacheTTL  = 5 * time.Second
	DefaultCacheSize = 10000
	MinSecretBytes   = 32
)

// Config tunes a Service. Zero values are documented per field.
type Config struct {
	// Secret signs access tokens (HS256); at least 32 bytes, required. Every node of a
	// cluster shares it.
	Secret []byte
	// TTL is an access token's lifetime; 0 means 15 minutes.
	TTL time.Duration
	// Issuer is the iss claim, checked on parse; "" means "atende".
	Issuer string
	// CacheTTL is how long a user's token version is trusted without reading the
	// user row again; 0 means 5 s. Forget drops an entry at once on this node.
	CacheTTL time.Duration
	// CacheSize bounds the number of cached users; 0 means 10000. A full cache is
	// emptied (cheap, and refilled by the next requests).
	CacheSize int
	// Ended keeps ended sessions in the database so that a restart (or a node that
	// missed the announcement) still refuses their tokens: Logout writes there, Sync
	// reads back. Nil keeps them in memory only (tests).
	Ended engine.EndedSessionStore
}

// UserLookup reads the token version of a user; engine.UserStore satisfies it.
type UserLookup interface {
	Auth(ctx context.Context, id engine.ID) (engine.UserAuth, error)
}

// Claims are the claims of an access token: sub is the user id.
type Claims struct {
	CompanyID    engine.ID   `json:"companyId"`
	Profile      string      `json:"profile"`
	QueueIDs     []engine.ID `json:"queueIds"`
	TokenVersion int         `json:"tokenVersion"`
	// Session is the login the token belongs to (its refresh-token family id): a
	// logout ends that session's sockets on every node, and its tokens here.
	// Empty in tokens issued without one.
	Session string `json:"sid,omitempty"`
	jwt.RegisteredClaims
}

// UserID is the sub claim as an id (0 when malformed).
func (c Claims) UserID() engine.ID {
	id, err := strconv.ParseInt(c.Subject, 10, 64)
	if err != nil || id <= 0 {
		return 0
	}
	return id
}

// Service issues and checks access tokens. Safe for concurrent use.
type Service struct {
	// static after New
	cfg    Config
	users  UserLookup
	clock  engine.Clock
	parser *jwt.Parser

	mu       sync.Mutex // guards cache, ended, onEnd, onForget
	cache    map[engine.ID]cacheEntry
	ended    map[string]time.Time // sessions logged out, until their last token expires
	onEnd    func(ctx context.Context, userID engine.ID, session string) error
	onForget func(userID engine.ID)
}

// cacheEntry is what the user row said about a user at a moment.
type cacheEntry struct {
	auth  engine.UserAuth
	gone  bool // no such user
	until time.Time
}

// New validates cfg. users and clock are required (engine.SystemClock{} in production).
func New(cfg Config, users UserLookup, clock engine.Clock) (*Service, error) {
	if len(cfg.Secret) < MinSecretBytes {
		return nil, fmt.Errorf("token: secret must be at least %d bytes", MinSecretBytes)
	}
	if users == nil || clock == nil {
		return nil, errors.New("token: users and clock are required")
	}
	if cfg.TTL < 0 || cfg.CacheTTL < 0 || cfg.CacheSize < 0 {
		return nil, errors.New("token: negative duration or size")
	}
	if cfg.TTL == 0 {
		cfg.TTL = DefaultTTL
	}
	if cfg.Issuer == "" {
		cfg.Issuer = DefaultIssuer
	}
	if cfg.CacheTTL == 0 {
		cfg.CacheTTL = DefaultCacheTTL
	}
	if cfg.CacheSize == 0 {
		cfg.CacheSize = DefaultCacheSize
	}
	return &Service{
		cfg:   cfg,
		users: users,
		clock: clock,
		parser: jwt.NewParser(
			jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
			jwt.WithExpirationRequired(),
			jwt.WithIssuer(cfg.Issuer),
			jwt.WithTimeFunc(clock.Now),
		),
		cache: map[engine.ID]cacheEntry{},
		ended: map[string]time.Time{},
	}, nil
}

// TTL is the access-token lifetime.
func (s *Service) TTL() time.Duration { return s.cfg.TTL }

// Issue signs an access token for u with its current profile, queues and token
// version, without a session (IssueSession).
func (s *Service) Issue(u engine.User) (string, error) { return s.IssueSession(u, "") }

// IssueSession signs an access token for u that belongs to session (the login's
// refresh-token family id), so that Logout can end it everywhere.
func (s *Service) IssueSession(u engine.User, session string) (string, error) {
	now := s.clock.Now()
	var jti [16]byte
	_, _ = rand.Read(jti[:])
	c := Claims{
		CompanyID:    u.CompanyID,
		Profile:      u.Profile,
		QueueIDs:     u.QueueIDs(),
		TokenVersion: u.TokenVersion,
		Session:      session,
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    s.cfg.Issuer,
			Subject:   strconv.FormatInt(u.ID, 10),
			IssuedAt:  jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(s.cfg.TTL)),
			ID:        hex.EncodeToString(jti[:]),
		},
	}
	raw, err := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(s.cfg.Secret)
	if err != nil {
		return "", fmt.Errorf("sign access token: %w", err)
	}
	return raw, nil
}

// Parse checks raw's signature, algorithm, issuer and expiry and returns its claims.
// Any failure is ErrInvalidToken.
func (s *Service) Parse(raw string) (Claims, error) {
	var c Claims
	if _, err := s.parser.ParseWithClaims(raw, &c, func(*jwt.Token) (any, error) { return s.cfg.Secret, nil }); err != nil {
		return Claims{}, engine.Wrap(engine.ErrInvalidToken, err)
	}
	if c.UserID() == 0 || c.CompanyID <= 0 || !engine.IsProfile(c.Profile) {
		return Claims{}, engine.Wrap(engine.ErrInvalidToken, errors.New("malformed claims"))
	}
	return c, nil
}

// Authenticate parses raw and checks it against the user row's tenant and token
// version (cached for Config.CacheTTL): a deleted user, or one whose profile, queues
// or password changed since the token was issued, is refused with ErrInvalidToken
// (the client refreshes and gets a token with the new claims, or is signed out).
// The principal's profile and queues are the token's.
func (s *Service) Authenticate(ctx context.Context, raw string) (engine.Principal, error) {
	p, _, err := s.AuthenticateClaims(ctx, raw)
	return p, err
}

// AuthenticateClaims is Authenticate that also answers the token's claims (its
// expiry and session), verifying the token once.
func (s *Service) AuthenticateClaims(ctx context.Context, raw string) (engine.Principal, Claims, error) {
	c, err := s.Parse(raw)
	if err != nil {
		return engine.Principal{}, Claims{}, err
	}
	uid := c.UserID()
	e, err := s.lookup(ctx, uid)
	if err != nil {
		return engine.Principal{}, Claims{}, err
	}
	if e.gone || e.auth.CompanyID != c.CompanyID || e.auth.TokenVersion != c.TokenVersion {
		return engine.Principal{}, Claims{}, engine.Wrap(engine.ErrInvalidToken, errors.New("token version is stale"))
	}
	if c.Session != "" && s.sessionEnded(c.Session) {
		return engine.Principal{}, Claims{}, engine.Wrap(engine.ErrInvalidToken, errors.New("session logged out"))
	}
	return engine.Principal{UserID: uid, CompanyID: c.CompanyID, Profile: c.Profile, QueueIDs: c.QueueIDs}, c, nil
}

// Forget drops the cached row of a user, then calls the OnForget hook (which tells
// the other nodes); call it after changing or deleting the user.
func (s *Service) Forget(userID engine.ID) {
	s.mu.Lock()
	delete(s.cache, userID)
	fn := s.onForget
	s.mu.Unlock()
	if fn != nil {
		fn(userID)
	}
}

// ForgetLocal drops the cached row of a user on this node only, without the hook:
// for a node told by another that the user changed.
func (s *Service) ForgetLocal(userID engine.ID) {
	s.mu.Lock()
	delete(s.cache, userID)
	s.mu.Unlock()
}

// OnForget sets what Forget calls after dropping the user's row here: cmd/atende
// announces the change to every node (which call ForgetLocal and have the user's
// sockets authenticate again). fn runs on the caller's goroutine (a request's): it
// must not block.
func (s *Service) OnForget(fn func(userID engine.ID)) {
	s.mu.Lock()
	s.onForget = fn
	s.mu.Unlock()
}

// OnSessionEnd sets what Logout calls after marking a session ended here: cmd/atende
// announces it to every node (which call SessionEnded and close its sockets).
func (s *Service) OnSessionEnd(fn func(ctx context.Context, userID engine.ID, session string) error) {
	s.mu.Lock()
	s.onEnd = fn
	s.mu.Unlock()
}

// Logout ends session of userID (a logout, or its refresh token presented twice):
// it is recorded in Config.Ended until the last of its access tokens expires (TTL
// from now), this node refuses its tokens from now on, and the OnSessionEnd hook
// tells the others. An empty session does nothing. An error recording it is
// returned before anything else happens (the caller may retry); an error of the
// hook is returned after the session ended here.
func (s *Service) Logout(ctx context.Context, userID engine.ID, session string) error {
	if session == "" {
		return nil
	}
	now := s.clock.Now()
	if s.cfg.Ended != nil {
		if err := s.cfg.Ended.End(ctx, engine.EndedSession{Session: session, UserID: userID, EndedAt: now,
			ExpiresAt: now.Add(s.cfg.TTL)}); err != nil {
			return fmt.Errorf("logout: %w", err)
		}
	}
	s.endUntil(session, now.Add(s.cfg.TTL))
	s.mu.Lock()
	fn := s.onEnd
	s.mu.Unlock()
	if fn == nil {
		return nil
	}
	if err := fn(ctx, userID, session); err != nil {
		return fmt.Errorf("%w: %w", ErrNotAnnounced, err)
	}
	return nil
}

// ErrNotAnnounced is the cause of a Logout error when the session ended (recorded,
// refused here) but the OnSessionEnd hook failed: the other nodes learn of it at
// their next Sync instead.
var ErrNotAnnounced = errors.New("session end not announced to the other nodes")

// SessionEnded makes this node refuse the access tokens of session until the last
// of them expires (at most TTL from now): what another node's Logout announces.
func (s *Service) SessionEnded(session string) {
	if session == "" {
		return
	}
	s.endUntil(session, s.clock.Now().Add(s.cfg.TTL))
}

// endUntil refuses session's tokens until until (keeping a later time already set).
func (s *Service) endUntil(session string, until time.Time) {
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.ended) >= s.cfg.CacheSize {
		for k, u := range s.ended {
			if !now.Before(u) {
				delete(s.ended, k)
			}
		}
	}
	if until.After(s.ended[session]) {
		s.ended[session] = until
	}
}

// Sync reads the ended sessions of Config.Ended that have not expired, refuses their
// tokens here, and answers those this node did not know of: run at start (a
// restart remembers logouts) and now and then (a node that missed an announcement
// learns of it; the caller closes those sessions' sockets). It also prunes the
// expired ones. Without Config.Ended it does nothing.
func (s *Service) Sync(ctx context.Context) ([]engine.EndedSession, error) {
	if s.cfg.Ended == nil {
		return nil, nil
	}
	now := s.clock.Now()
	if _, err := s.cfg.Ended.Prune(ctx, now); err != nil {
		return nil, fmt.Errorf("sync ended sessions: %w", err)
	}
	live, err := s.cfg.Ended.Live(ctx, now)
	if err != nil {
		return nil, fmt.Errorf("sync ended sessions: %w", err)
	}
	var fresh []engine.EndedSession
	for _, e := range live {
		s.mu.Lock()
		_, known := s.ended[e.Session]
		s.mu.Unlock()
		if !known {
			fresh = append(fresh, e)
		}
		s.endUntil(e.Session, e.ExpiresAt)
	}
	return fresh, nil
}

func (s *Service) sessionEnded(session string) bool {
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	until, ok := s.ended[session]
	if ok && !now.Before(until) {
		delete(s.ended, session)
		return false
	}
	return ok
}

func (s *Service) lookup(ctx context.Context, uid engine.ID) (cacheEntry, error) {
	now := s.clock.Now()
	s.mu.Lock()
	e, ok := s.cache[uid]
	s.mu.Unlock()
	if ok && now.Before(e.until) {
		return e, nil
	}
	a, err := s.users.Auth(ctx, uid)
	switch {
	case err == nil:
		e = cacheEntry{auth: a}
	case engine.CodeOf(err) == engine.ErrNoUserFound:
		e = cacheEntry{gone: true}
	default:
		return cacheEntry{}, fmt.Errorf("check token of user %d: %w", uid, err)
	}
	e.until = now.Add(s.cfg.CacheTTL)
	s.mu.Lock()
	if len(s.cache) >= s.cfg.CacheSize {
		clear(s.cache)
	}
	s.cache[uid] = e
	s.mu.Unlock()
	return e, nil
}
