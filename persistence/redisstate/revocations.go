package redisstate

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"atende/engine"
)

// Revocation is one message of the revocations broadcast.
type Revocation struct {
	UserID engine.ID
	// Session, when set, is one login of the user that ended (a logout): only that
	// session's sockets and tokens end. Empty: the user's credentials changed (the
	// engine.Revocations message).
	Session string
}

// SessionRevocations is engine.Revocations that also carries logouts. Subscribe
// (engine.Revocations) hears only credential changes; SubscribeAll hears both.
type SessionRevocations interface {
	engine.Revocations
	// EndSession tells every subscriber, on every node including this one, that
	// session of userID was logged out. At most once, like Publish.
	EndSession(ctx context.Context, userID engine.ID, session string) error
	// SubscribeAll is Subscribe for every message, credential changes (Session
	// empty) and logouts.
	SubscribeAll(ctx context.Context, fn func(Revocation)) (cancel func(), err error)
}

// checkSession refuses session ids that cannot travel in a message.
func checkSession(s string) error {
	if s == "" || len(s) > 200 || strings.ContainsAny(s, " \t\r\n") {
		return errors.New("revocations: session id must be 1–200 characters without blanks")
	}
	return nil
}

// encode is the wire form: the user id in decimal, then a space and the session.
func (r Revocation) encode() string {
	id := strconv.FormatInt(r.UserID, 10)
	if r.Session == "" {
		return id
	}
	return id + " " + r.Session
}

func decodeRevocation(p string) (Revocation, error) {
	id, session, _ := strings.Cut(p, " ")
	uid, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return Revocation{}, fmt.Errorf("revocations: malformed message %q", p)
	}
	return Revocation{UserID: uid, Session: session}, nil
}

// onlyUsers adapts an engine.Revocations callback to SubscribeAll.
func onlyUsers(fn func(engine.ID)) func(Revocation) {
	return func(r Revocation) {
		if r.Session == "" {
			fn(r.UserID)
		}
	}
}
