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

// APITokens implements engine.APITokenStore on either dialect.
//
// Safe for concurrent use.
type APITokens struct {
	refBase
}

var _ engine.APITokenStore = (*APITokens)(nil)

// NewAPITokens returns the API token store of d; a nil clock is the system clock.
func NewAPITokens(d *db.DB, clock engine.Clock) *APITokens {
	return &APITokens{refBase: newRefBase(d, clock)}
}

// apiSendKeep is how long an Idempotency-Key is remembered: a retry within a day of
// the first call sends nothing new; the same key a day later is a new send.
const apiSendKeep = 24 * time.Hour

// apiTokenTouch is how stale last_used_at may get before a use writes it again: one
// write a minute per token at most, not one per call.
const apiTokenTouch = time.Minute

const apiTokenCols = `id, company_id, user_id, name, prefix, created_at, last_used_at, revoked_at`

func scanAPIToken(row refScanner) (engine.APIToken, error) {
	var t engine.APIToken
	err := row.Scan(&t.ID, &t.CompanyID, &t.UserID, &t.Name, &t.Prefix, refTime{&t.CreatedAt},
		refNullTime{&t.LastUsedAt}, refNullTime{&t.RevokedAt})
	return t, err
}

// List implements engine.APITokenStore.
func (s *APITokens) List(ctx context.Context, companyID engine.ID) ([]engine.APIToken, error) {
	rows, err := s.db.SQL.QueryContext(ctx, `SELECT `+apiTokenCols+` FROM api_tokens WHERE company_id = $1
		ORDER BY id DESC`, companyID)
	if err != nil {
		return nil, fmt.Errorf("list api tokens of %d: %w", companyID, err)
	}
	defer rows.Close()
	out := []engine.APIToken{}
	for rows.Next() {
		t, err := scanAPIToken(rows)
		if err != nil {
			return nil, fmt.Errorf("list api tokens of %d: %w", companyID, err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list api tokens of %d: %w", companyID, err)
	}
	return out, nil
}

// Create implements engine.APITokenStore.
func (s *APITokens) Create(ctx context.Context, companyID, userID engine.ID, in engine.APITokenInput, hash, prefix string) (engine.APIToken, error) {
	in, err := engine.ValidateAPIToken(in)
	if err != nil {
		return engine.APIToken{}, err
	}
	if hash == "" || prefix == "" {
		return engine.APIToken{}, errors.New("create api token: empty hash or prefix")
	}
	t, err := scanAPIToken(s.db.SQL.QueryRowContext(ctx, `INSERT INTO api_tokens (company_id, user_id, name,
		token_hash, prefix, created_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING `+apiTokenCols,
		companyID, userID, in.Name, hash, prefix, s.ts(s.now())))
	if err != nil {
		return t, fmt.Errorf("insert api token: %w", err)
	}
	return t, nil
}

// Revoke implements engine.APITokenStore.
func (s *APITokens) Revoke(ctx context.Context, companyID, id engine.ID) (engine.APIToken, error) {
	t, err := scanAPIToken(s.db.SQL.QueryRowContext(ctx, `UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, $3)
		WHERE id = $1 AND company_id = $2 RETURNING `+apiTokenCols, id, companyID, s.ts(s.now())))
	if errors.Is(err, sql.ErrNoRows) {
		return t, engine.E(engine.ErrNoAPITokenFound)
	}
	if err != nil {
		return t, fmt.Errorf("revoke api token %d: %w", id, err)
	}
	return t, nil
}

// Authenticate implements engine.APITokenStore: one indexed read of the hash, joined
// with the tenant so that a disabled tenant's tokens are refused too.
func (s *APITokens) Authenticate(ctx context.Context, hash string) (engine.APIToken, error) {
	t, err := scanAPIToken(s.db.SQL.QueryRowContext(ctx, `SELECT t.id, t.company_id, t.user_id, t.name, t.prefix,
		t.created_at, t.last_used_at, t.revoked_at FROM api_tokens t JOIN companies c ON c.id = t.company_id
		WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND c.disabled_at IS NULL`, hash))
	if errors.Is(err, sql.ErrNoRows) {
		return t, engine.E(engine.ErrInvalidToken)
	}
	if err != nil {
		return t, fmt.Errorf("authenticate api token: %w", err)
	}
	now := s.now()
	if t.LastUsedAt == nil || now.Sub(*t.LastUsedAt) >= apiTokenTouch {
		// Best effort: a failed note of use does not refuse the call.
		_, _ = s.db.SQL.ExecContext(ctx, `UPDATE api_tokens SET last_used_at = $2 WHERE id = $1`, t.ID, s.ts(now))
		t.LastUsedAt = &now
	}
	return t, nil
}

// ClaimSend implements engine.APITokenStore with INSERT … ON CONFLICT DO NOTHING on
// the (tenant, key) primary key, then a read of the row that won. Keys older than
// apiSendKeep are deleted first, so the table holds about a day of keyed sends.
func (s *APITokens) ClaimSend(ctx context.Context, companyID engine.ID, key string, messageID, contactID engine.ID) (engine.APISend, bool, error) {
	now := s.now()
	if _, err := s.db.SQL.ExecContext(ctx, `DELETE FROM api_sends WHERE company_id = $1 AND created_at < $2`,
		companyID, s.ts(now.Add(-apiSendKeep))); err != nil {
		return engine.APISend{}, false, fmt.Errorf("expire api sends: %w", err)
	}
	res, err := s.db.SQL.ExecContext(ctx, `INSERT INTO api_sends (company_id, idem_key, message_id, contact_id, created_at)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT (company_id, idem_key) DO NOTHING`,
		companyID, key, messageID, contactID, s.ts(now))
	if err != nil {
		return engine.APISend{}, false, fmt.Errorf("claim api send: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return engine.APISend{}, false, fmt.Errorf("claim api send: %w", err)
	}
	var out engine.APISend
	if err := s.db.SQL.QueryRowContext(ctx, `SELECT message_id, contact_id, ticket_id FROM api_sends
		WHERE company_id = $1 AND idem_key = $2`, companyID, key).Scan(&out.MessageID, &out.ContactID, &out.TicketID); err != nil {
		return out, false, fmt.Errorf("read api send: %w", err)
	}
	return out, n == 0, nil
}

// FinishSend implements engine.APITokenStore.
func (s *APITokens) FinishSend(ctx context.Context, companyID engine.ID, key string, ticketID engine.ID) error {
	if _, err := s.db.SQL.ExecContext(ctx, `UPDATE api_sends SET ticket_id = $3 WHERE company_id = $1 AND idem_key = $2`,
		companyID, key, ticketID); err != nil {
		return fmt.Errorf("finish api send: %w", err)
	}
	return nil
}
