package socket

import (
	"context"
	"time"
)

// Principal is who a socket belongs to, as the Authenticator establishes it. The
// wiring adapts engine's principal to it; the gateway uses CompanyID to scope rooms
// and hands the whole value to Authorizer and Filter.
type Principal struct {
	UserID    int64
	CompanyID int64   // the tenant; must be positive
	Profile   string  // user, userplus, superv, manager, admin, super
	QueueIDs  []int64 // the user's queues
	// ExpiresAt, when set, is when the socket must authenticate again: it is closed
	// with CloseReauthenticate then (checked on every ping, so within
	// Config.PingInterval). Zero: never. cmd/atende sets it one refresh-token
	// lifetime ahead, not the access token's expiry: a socket outlives its access
	// token while its user and session are valid.
	ExpiresAt time.Time
	// Session is the login the socket's token belongs to (token.Claims.Session):
	// Hub.EndSession closes the sockets of one session on logout. Empty: none.
	Session string
	// Call, when set, makes the socket a call guest (a customer on the public call
	// page, package call): it joins no room, not even its company's, so it receives
	// no tenant event, and every join is refused with ERR_NO_PERMISSION; it may only
	// send the Config.Events handler's events. UserID is 0.
	Call string
}

// Guest reports whether p is a call guest.
func (p Principal) Guest() bool { return p.Call != "" }

// InQueue reports whether queueID is one of p's queues.
func (p Principal) InQueue(queueID int64) bool {
	for _, q := range p.QueueIDs {
		if q == queueID {
			return true
		}
	}
	return false
}

// Authenticator turns the handshake token into a Principal. The token is the
// handshake query's token= or else the CONNECT auth's "token", with any "Bearer "
// prefix removed. The CONNECT_ERROR answered on failure is the code of an
// *engine.Error with ErrSessionExpired (expired token), ErrUnavailable or ErrInternal
// (the check itself failed: the client may retry); ERR_UNAVAILABLE when the context
// times out; ERR_INVALID_TOKEN for any other error. Called from a socket's reader
// goroutine with a context bounded by Config.AuthTimeout; it may block that long.
type Authenticator interface {
	Authenticate(ctx context.Context, token string) (Principal, error)
}

// AuthenticatorFunc adapts a function to Authenticator.
type AuthenticatorFunc func(ctx context.Context, token string) (Principal, error)

// Authenticate calls f.
func (f AuthenticatorFunc) Authenticate(ctx context.Context, token string) (Principal, error) {
	return f(ctx, token)
}

// Authorizer decides whether p may join room (of p's own tenant: rooms are always
// scoped to p.CompanyID). Return nil to allow; an *engine.Error to refuse with its
// code (engine.ErrNoPermission, engine.ErrNoTicketFound…); any other error refuses
// with ERR_INTERNAL and is logged. Called from the socket's reader goroutine with a
// context bounded by Config.AuthTimeout.
type Authorizer interface {
	AuthorizeJoin(ctx context.Context, p Principal, room Room) error
}

// AuthorizerFunc adapts a function to Authorizer.
type AuthorizerFunc func(ctx context.Context, p Principal, room Room) error

// AuthorizeJoin calls f.
func (f AuthorizerFunc) AuthorizeJoin(ctx context.Context, p Principal, room Room) error {
	return f(ctx, p, room)
}
