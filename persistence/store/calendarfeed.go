package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"atende/engine"
	"atende/persistence/db"
)

// CalendarFeeds keeps each user's calendar subscription link (the /googlecalendar
// page; docs/calendar.md). A link carries a random secret; the table holds only the
// secret's SHA-256, one row per user, so issuing a new link replaces the row and the
// old link stops working at once, on every node.
//
// Safe for concurrent use.
type CalendarFeeds struct {
	refBase
}

// NewCalendarFeeds returns the calendar link store of d; a nil clock is the system
// clock.
func NewCalendarFeeds(d *db.DB, clock engine.Clock) *CalendarFeeds {
	return &CalendarFeeds{refBase: newRefBase(d, clock)}
}

// calendarSecretBytes is the entropy of a link's secret: 256 bits, so a plain SHA-256
// (no salt, no slow hash) is enough to keep a database read from yielding a link.
const calendarSecretBytes = 32

// CalendarFeedHash is how a link's secret is looked up: hex SHA-256.
func CalendarFeedHash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// Issue makes a new secret for userID's link, replacing (and so revoking) any earlier
// one, and answers the secret, which is not kept.
func (s *CalendarFeeds) Issue(ctx context.Context, companyID, userID engine.ID) (string, time.Time, error) {
	buf := make([]byte, calendarSecretBytes)
	if _, err := rand.Read(buf); err != nil {
		return "", time.Time{}, fmt.Errorf("calendar link secret: %w", err)
	}
	secret := base64.RawURLEncoding.EncodeToString(buf)
	now := s.now()
	_, err := s.db.SQL.ExecContext(ctx, `INSERT INTO calendar_feeds (company_id, user_id, token_hash, created_at)
		VALUES ($1, $2, $3, $4)
		ON CONFLICT (company_id, user_id) DO UPDATE SET token_hash = excluded.token_hash, created_at = excluded.created_at`,
		companyID, userID, CalendarFeedHash(secret), s.ts(now))
	if err != nil {
		return "", time.Time{}, fmt.Errorf("issue calendar link of user %d: %w", userID, err)
	}
	return secret, now, nil
}

// Issued answers when userID's current link was issued; ok is false when the user has
// none.
func (s *CalendarFeeds) Issued(ctx context.Context, companyID, userID engine.ID) (at time.Time, ok bool, err error) {
	err = s.db.SQL.QueryRowContext(ctx, `SELECT created_at FROM calendar_feeds WHERE company_id = $1 AND user_id = $2`,
		companyID, userID).Scan(refTime{&at})
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, fmt.Errorf("read calendar link of user %d: %w", userID, err)
	}
	return at, true, nil
}

// Revoke removes userID's link; removing none is not an error.
func (s *CalendarFeeds) Revoke(ctx context.Context, companyID, userID engine.ID) error {
	if _, err := s.db.SQL.ExecContext(ctx, `DELETE FROM calendar_feeds WHERE company_id = $1 AND user_id = $2`,
		companyID, userID); err != nil {
		return fmt.Errorf("revoke calendar link of user %d: %w", userID, err)
	}
	return nil
}

// Resolve finds whose link secret is: ErrNoCalendarFeed when no current link has it.
// The caller still checks that the user may log in (a disabled tenant keeps its rows).
func (s *CalendarFeeds) Resolve(ctx context.Context, secret string) (companyID, userID engine.ID, err error) {
	if secret == "" || len(secret) > 2*calendarSecretBytes {
		return 0, 0, engine.E(engine.ErrNoCalendarFeed)
	}
	err = s.db.SQL.QueryRowContext(ctx, `SELECT company_id, user_id FROM calendar_feeds WHERE token_hash = $1`,
		CalendarFeedHash(secret)).Scan(&companyID, &userID)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, engine.E(engine.ErrNoCalendarFeed)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("resolve calendar link: %w", err)
	}
	return companyID, userID, nil
}
