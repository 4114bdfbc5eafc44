package store

import (
	"context"
	"fmt"
	"time"

	"atende/engine"
	"atende/persistence/db"
)

// EndedSessions implements engine.EndedSessionStore on either dialect (table
// ended_sessions). Safe for concurrent use.
type EndedSessions struct {
	refBase
}

var _ engine.EndedSessionStore = (*EndedSessions)(nil)

// NewEndedSessions returns the ended-session store of d; a nil clock is the system clock.
func NewEndedSessions(d *db.DB, clock engine.Clock) *EndedSessions {
	return &EndedSessions{refBase: newRefBase(d, clock)}
}

// End implements engine.EndedSessionStore.
func (s *EndedSessions) End(ctx context.Context, e engine.EndedSession) error {
	if e.Session == "" {
		return fmt.Errorf("end session of user %d: empty session id", e.UserID)
	}
	if e.EndedAt.IsZero() {
		e.EndedAt = s.now()
	}
	// Both dialects compare the stored form (timestamptz, fixed-width text) in time order.
	_, err := s.db.SQL.ExecContext(ctx, `INSERT INTO ended_sessions (session_id, user_id, ended_at, expires_at)
		VALUES ($1, $2, $3, $4)
		ON CONFLICT (session_id) DO UPDATE SET expires_at = excluded.expires_at
		WHERE ended_sessions.expires_at < excluded.expires_at`,
		e.Session, e.UserID, s.ts(e.EndedAt.UTC().Truncate(time.Microsecond)), s.ts(e.ExpiresAt.UTC().Truncate(time.Microsecond)))
	if err != nil {
		return fmt.Errorf("end session of user %d: %w", e.UserID, err)
	}
	return nil
}

// Live implements engine.EndedSessionStore.
func (s *EndedSessions) Live(ctx context.Context, now time.Time) ([]engine.EndedSession, error) {
	rows, err := s.db.SQL.QueryContext(ctx, `SELECT session_id, user_id, ended_at, expires_at FROM ended_sessions
		WHERE expires_at > $1 ORDER BY ended_at, session_id`, s.ts(now))
	if err != nil {
		return nil, fmt.Errorf("list ended sessions: %w", err)
	}
	defer rows.Close()
	var out []engine.EndedSession
	for rows.Next() {
		var e engine.EndedSession
		if err := rows.Scan(&e.Session, &e.UserID, refTime{&e.EndedAt}, refTime{&e.ExpiresAt}); err != nil {
			return nil, fmt.Errorf("list ended sessions: %w", err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list ended sessions: %w", err)
	}
	return out, nil
}

// Prune implements engine.EndedSessionStore.
func (s *EndedSessions) Prune(ctx context.Context, now time.Time) (int64, error) {
	res, err := s.db.SQL.ExecContext(ctx, `DELETE FROM ended_sessions WHERE expires_at <= $1`, s.ts(now))
	if err != nil {
		return 0, fmt.Errorf("prune ended sessions: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("prune ended sessions: %w", err)
	}
	return n, nil
}
