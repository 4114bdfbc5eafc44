package engine

import (
	"context"
	"time"
)

// EndedSession is a login (its refresh-token family id) that ended before its tokens
// expired: a logout, or a refresh token presented twice. Access tokens issued to it
// are refused until ExpiresAt, when the last of them has expired anyway.
type EndedSession struct {
	Session   string
	UserID    ID
	EndedAt   time.Time
	ExpiresAt time.Time
}

// EndedSessionStore keeps ended sessions in the database, so that every node, and a
// node that restarts, refuses their tokens (persistence/store.EndedSessions).
type EndedSessionStore interface {
	// End records s; recording a session again keeps the later ExpiresAt.
	End(ctx context.Context, s EndedSession) error
	// Live lists the sessions whose ExpiresAt is after now.
	Live(ctx context.Context, now time.Time) ([]EndedSession, error)
	// Prune deletes the sessions whose ExpiresAt is not after now and answers how
	// many.
	Prune(ctx context.Context, now time.Time) (int64, error)
}
