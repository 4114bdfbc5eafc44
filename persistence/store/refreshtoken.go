package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"atende/engine"
	"atende/persistence/db"
)

// RefreshTokens implements engine.RefreshTokenStore on either dialect.
//
// Rotation is one transaction: read the token, mark it used only if it was not
// (UPDATE … WHERE used_at IS NULL), insert the child. Two rotations of one token race
// on that UPDATE: PostgreSQL's row lock and SQLite's write lock let exactly one win;
// the loser sees zero rows changed, which is reuse, and revokes the family.
//
// Safe for concurrent use.
type RefreshTokens struct {
	refBase
}

var _ engine.RefreshTokenStore = (*RefreshTokens)(nil)

// NewRefreshTokens returns the refresh-token store of d; a nil clock is the system clock.
func NewRefreshTokens(d *db.DB, clock engine.Clock) *RefreshTokens {
	return &RefreshTokens{refBase: newRefBase(d, clock)}
}

const refreshCols = `id, company_id, user_id, family_id, token_hash, parent_id, expires_at, used_at, revoked_at, created_at`

func scanRefresh(row refScanner) (engine.RefreshToken, error) {
	var t engine.RefreshToken
	var parent sql.NullInt64
	err := row.Scan(&t.ID, &t.CompanyID, &t.UserID, &t.FamilyID, &t.TokenHash, &parent,
		refTime{&t.ExpiresAt}, refNullTime{&t.UsedAt}, refNullTime{&t.RevokedAt}, refTime{&t.CreatedAt})
	t.ParentID = parent.Int64
	return t, err
}

// Insert implements engine.RefreshTokenStore.
func (s *RefreshTokens) Insert(ctx context.Context, t engine.RefreshToken) (engine.RefreshToken, error) {
	if t.CreatedAt.IsZero() {
		t.CreatedAt = s.now()
	}
	return s.insert(ctx, s.db.SQL, t)
}

func (s *RefreshTokens) insert(ctx context.Context, q refQuerier, t engine.RefreshToken) (engine.RefreshToken, error) {
	t.CreatedAt = t.CreatedAt.UTC().Truncate(time.Microsecond)
	t.ExpiresAt = t.ExpiresAt.UTC().Truncate(time.Microsecond)
	err := q.QueryRowContext(ctx, `INSERT INTO refresh_tokens (company_id, user_id, family_id, token_hash, parent_id,
		expires_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
		t.CompanyID, t.UserID, t.FamilyID, t.TokenHash, nullID(t.ParentID), s.ts(t.ExpiresAt), s.ts(t.CreatedAt)).Scan(&t.ID)
	if err != nil {
		return t, fmt.Errorf("insert refresh token of user %d: %w", t.UserID, err)
	}
	return t, nil
}

// Rotate implements engine.RefreshTokenStore.
func (s *RefreshTokens) Rotate(ctx context.Context, oldHash, newHash string, now, expiresAt time.Time) (engine.RefreshToken, error) {
	var child, old engine.RefreshToken
	reused := false
	err := s.db.Tx(ctx, func(tx *sql.Tx) error {
		var err error
		old, err = scanRefresh(tx.QueryRowContext(ctx, `SELECT `+refreshCols+` FROM refresh_tokens WHERE token_hash = $1`, oldHash))
		if errors.Is(err, sql.ErrNoRows) {
			return engine.Wrap(engine.ErrSessionExpired, errors.New("unknown refresh token"))
		}
		if err != nil {
			return fmt.Errorf("rotate refresh token: %w", err)
		}
		switch {
		case old.RevokedAt != nil:
			return engine.Wrap(engine.ErrSessionExpired, errors.New("refresh token revoked"))
		case old.UsedAt != nil:
			reused = true
		case !now.Before(old.ExpiresAt):
			return engine.Wrap(engine.ErrSessionExpired, errors.New("refresh token expired"))
		}
		if !reused {
			res, err := tx.ExecContext(ctx, `UPDATE refresh_tokens SET used_at = $1 WHERE id = $2 AND used_at IS NULL AND revoked_at IS NULL`,
				s.ts(now), old.ID)
			if err != nil {
				return fmt.Errorf("rotate refresh token: %w", err)
			}
			n, err := refAffected(res)
			if err != nil {
				return fmt.Errorf("rotate refresh token: %w", err)
			}
			reused = n == 0
		}
		if reused {
			// Commit the revocation; the error is answered after the commit.
			return s.revokeFamily(ctx, tx, old.FamilyID, now)
		}
		child, err = s.insert(ctx, tx, engine.RefreshToken{
			CompanyID: old.CompanyID,
			UserID:    old.UserID,
			FamilyID:  old.FamilyID,
			TokenHash: newHash,
			ParentID:  old.ID,
			ExpiresAt: expiresAt,
			CreatedAt: now,
		})
		return err
	})
	if err != nil {
		return engine.RefreshToken{}, err
	}
	if reused {
		// The session that ended: the caller ends its access tokens and sockets too.
		ended := engine.RefreshToken{CompanyID: old.CompanyID, UserID: old.UserID, FamilyID: old.FamilyID}
		return ended, engine.Wrap(engine.ErrSessionExpired, engine.ErrRefreshReused)
	}
	return child, nil
}

func (s *RefreshTokens) revokeFamily(ctx context.Context, q refQuerier, family string, now time.Time) error {
	if _, err := q.ExecContext(ctx, `UPDATE refresh_tokens SET revoked_at = $1 WHERE family_id = $2 AND revoked_at IS NULL`,
		s.ts(now), family); err != nil {
		return fmt.Errorf("revoke refresh family: %w", err)
	}
	return nil
}

// RevokeFamily implements engine.RefreshTokenStore.
func (s *RefreshTokens) RevokeFamily(ctx context.Context, hash string, now time.Time) (engine.RefreshToken, error) {
	t, err := scanRefresh(s.db.SQL.QueryRowContext(ctx, `SELECT `+refreshCols+` FROM refresh_tokens WHERE token_hash = $1`, hash))
	if errors.Is(err, sql.ErrNoRows) {
		return engine.RefreshToken{}, nil
	}
	if err != nil {
		return engine.RefreshToken{}, fmt.Errorf("revoke refresh family: %w", err)
	}
	return t, s.revokeFamily(ctx, s.db.SQL, t.FamilyID, now)
}

// RevokeUser implements engine.RefreshTokenStore.
func (s *RefreshTokens) RevokeUser(ctx context.Context, companyID, userID engine.ID, now time.Time) error {
	if _, err := s.db.SQL.ExecContext(ctx, `UPDATE refresh_tokens SET revoked_at = $1
		WHERE company_id = $2 AND user_id = $3 AND revoked_at IS NULL`, s.ts(now), companyID, userID); err != nil {
		return fmt.Errorf("revoke refresh tokens of user %d: %w", userID, err)
	}
	return nil
}

// Family lists the tokens of a family in creation order (for tests and audits).
func (s *RefreshTokens) Family(ctx context.Context, family string) ([]engine.RefreshToken, error) {
	rows, err := s.db.SQL.QueryContext(ctx, `SELECT `+refreshCols+` FROM refresh_tokens WHERE family_id = $1 ORDER BY id`, family)
	if err != nil {
		return nil, fmt.Errorf("refresh family: %w", err)
	}
	defer rows.Close()
	var out []engine.RefreshToken
	for rows.Next() {
		t, err := scanRefresh(rows)
		if err != nil {
			return nil, fmt.Errorf("refresh family: %w", err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// ByHash reads one token (for tests and audits); ErrNotFound when unknown.
func (s *RefreshTokens) ByHash(ctx context.Context, hash string) (engine.RefreshToken, error) {
	t, err := scanRefresh(s.db.SQL.QueryRowContext(ctx, `SELECT `+refreshCols+` FROM refresh_tokens WHERE token_hash = $1`, hash))
	if errors.Is(err, sql.ErrNoRows) {
		return t, engine.E(engine.ErrNotFound)
	}
	if err != nil {
		return t, fmt.Errorf("refresh token by hash: %w", err)
	}
	return t, nil
}

// Purge deletes tokens that expired before t and returns how many. An expired token
// can no longer be rotated, so its row only served reuse detection, which an expired
// token does not need. Call it now and then (hourly, from cmd/atende).
func (s *RefreshTokens) Purge(ctx context.Context, before time.Time) (int64, error) {
	res, err := s.db.SQL.ExecContext(ctx, `DELETE FROM refresh_tokens WHERE expires_at < $1`, s.ts(before.UTC()))
	if err != nil {
		return 0, fmt.Errorf("purge refresh tokens: %w", err)
	}
	return refAffected(res)
}
