package call

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"atende/engine"
	"atende/transport/socket"
)

// Role is a party of a call.
type Role string

// The two parties.
const (
	Attendant Role = "attendant"
	Customer  Role = "customer"
)

// Claims is what a call token says.
type Claims struct {
	Call      string    // the call id: 22 characters of base64url (128 random bits)
	Tenant    int64     // company id
	Ticket    int64     // the ticket the call was started from
	User      int64     // the attendant who started it
	Role      Role      // whose token it is
	ExpiresAt time.Time // after this the token joins nothing
}

// Token errors; the relay answers them as ERR_INVALID_TOKEN and ERR_SESSION_EXPIRED.
var (
	ErrBadToken = errors.New("call token: malformed or bad signature")
	ErrExpired  = errors.New("call token: expired")
)

// tokenPrefix tells a call token from a login token at the gateway's door.
const tokenPrefix = "call1."

// maxToken bounds what Verify looks at.
const maxToken = 512

// Tokens signs and verifies call tokens. Static after construction.
type Tokens struct {
	key [32]byte
	now func() time.Time
}

// NewTokens derives the signing key from secret (at least 16 bytes; every node of a
// cluster must use the same). now may be nil (time.Now).
func NewTokens(secret []byte, now func() time.Time) (*Tokens, error) {
	if len(secret) < 16 {
		return nil, errors.New("call tokens: secret shorter than 16 bytes")
	}
	if now == nil {
		now = time.Now
	}
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("atende call token key v1"))
	t := &Tokens{now: now}
	copy(t.key[:], m.Sum(nil))
	return t, nil
}

// Invite is a started call: its id and the two parties' tokens.
type Invite struct {
	Call      string
	Customer  string // for the link sent to the customer
	Attendant string // for the attendant's call window
	ExpiresAt time.Time
}

// Issue starts a call of tenant's ticket by attendant user, both tokens valid for ttl.
func (t *Tokens) Issue(tenant, ticket, user int64, ttl time.Duration) (Invite, error) {
	if tenant <= 0 || ticket <= 0 || user <= 0 || ttl <= 0 {
		return Invite{}, fmt.Errorf("call tokens: issue: bad tenant %d, ticket %d, user %d or ttl %s", tenant, ticket, user, ttl)
	}
	var id [16]byte
	if _, err := rand.Read(id[:]); err != nil {
		return Invite{}, fmt.Errorf("call tokens: random id: %w", err)
	}
	c := Claims{Call: base64.RawURLEncoding.EncodeToString(id[:]), Tenant: tenant, Ticket: ticket, User: user,
		ExpiresAt: t.now().Add(ttl).Truncate(time.Second)}
	c.Role = Customer
	cust := t.sign(c)
	c.Role = Attendant
	return Invite{Call: c.Call, Customer: cust, Attendant: t.sign(c), ExpiresAt: c.ExpiresAt}, nil
}

// claimsWire is the signed payload.
type claimsWire struct {
	C string `json:"c"`
	T int64  `json:"t"`
	K int64  `json:"k"`
	U int64  `json:"u"`
	R Role   `json:"r"`
	E int64  `json:"e"`
}

func (t *Tokens) sign(c Claims) string {
	b, _ := json.Marshal(claimsWire{C: c.Call, T: c.Tenant, K: c.Ticket, U: c.User, R: c.Role, E: c.ExpiresAt.Unix()})
	body := base64.RawURLEncoding.EncodeToString(b)
	return tokenPrefix + body + "." + base64.RawURLEncoding.EncodeToString(t.mac(body))
}

func (t *Tokens) mac(body string) []byte {
	m := hmac.New(sha256.New, t.key[:])
	m.Write([]byte(tokenPrefix))
	m.Write([]byte(body))
	return m.Sum(nil)
}

// IsToken reports whether s has the shape of a call token (not whether it is valid).
func IsToken(s string) bool { return strings.HasPrefix(s, tokenPrefix) }

// Verify checks s's signature and expiry and returns its claims: ErrBadToken for
// anything not signed by these Tokens, ErrExpired (with the claims) once expired.
func (t *Tokens) Verify(s string) (Claims, error) {
	if len(s) > maxToken || !IsToken(s) {
		return Claims{}, ErrBadToken
	}
	body, sig, ok := strings.Cut(s[len(tokenPrefix):], ".")
	if !ok {
		return Claims{}, ErrBadToken
	}
	got, err := base64.RawURLEncoding.Strict().DecodeString(sig)
	if err != nil || !hmac.Equal(got, t.mac(body)) {
		return Claims{}, ErrBadToken
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(body)
	if err != nil {
		return Claims{}, ErrBadToken
	}
	var w claimsWire
	if err := json.Unmarshal(raw, &w); err != nil {
		return Claims{}, ErrBadToken
	}
	c := Claims{Call: w.C, Tenant: w.T, Ticket: w.K, User: w.U, Role: w.R, ExpiresAt: time.Unix(w.E, 0)}
	if !validCallID(c.Call) || c.Tenant <= 0 || c.Ticket <= 0 || c.User <= 0 || (c.Role != Attendant && c.Role != Customer) {
		return Claims{}, ErrBadToken
	}
	if !t.now().Before(c.ExpiresAt) {
		return c, ErrExpired
	}
	return c, nil
}

// tokenCode is the client-facing code of a Verify error.
func tokenCode(err error) *engine.Error {
	if errors.Is(err, ErrExpired) {
		return engine.E(engine.ErrSessionExpired)
	}
	return engine.E(engine.ErrInvalidToken)
}

// validCallID: 22 characters of the base64url alphabet.
func validCallID(s string) bool {
	if len(s) != 22 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// GuestPrincipal is the gateway principal of a customer token: a call guest of the
// token's tenant, authenticated until the token's expiry plus one call session
// (a call answered just before the link expires still gets its time). Other
// tokens are refused with ERR_INVALID_TOKEN, expired ones with ERR_SESSION_EXPIRED.
func GuestPrincipal(t *Tokens, tok string) (socket.Principal, error) {
	c, err := t.Verify(tok)
	if err != nil {
		return socket.Principal{}, tokenCode(err)
	}
	if c.Role != Customer {
		return socket.Principal{}, engine.E(engine.ErrInvalidToken)
	}
	return socket.Principal{CompanyID: c.Tenant, Call: c.Call, ExpiresAt: c.ExpiresAt.Add(SessionLimit)}, nil
}

// SessionLimit is the call session timer of spec section 9: a connected call ends
// after 600 s (the call machine ends it in both browsers).
const SessionLimit = 600 * time.Second
