package credentials

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"atende/engine"
	"atende/persistence/db"
)

// Store is the engine.CredentialStore on the channel_credentials table.
type Store struct {
	db    *db.DB
	clock engine.Clock
}

// New returns the credentials store of d; a nil clock is the system clock.
func New(d *db.DB, clock engine.Clock) *Store {
	if clock == nil {
		clock = engine.SystemClock{}
	}
	return &Store{db: d, clock: clock}
}

// Put creates or replaces the credentials of c.ConnectionID. engine.ErrCredentialsTaken when
// another connection holds (Provider, ExternalID).
func (s *Store) Put(ctx context.Context, c engine.ChannelCredentials) error {
	if c.ConnectionID == 0 || c.Provider == "" || c.ExternalID == "" {
		return fmt.Errorf("credentials: put needs connection, provider and external id")
	}
	for _, v := range []string{c.Provider, c.ExternalID, c.AccountID, c.Token, c.Secret} {
		if !engine.StorableText(v) {
			return engine.Wrap(engine.ErrValidation, fmt.Errorf("credentials of connection %d: not storable text", c.ConnectionID))
		}
	}
	now := s.clock.Now().UnixMicro()
	_, err := s.db.SQL.ExecContext(ctx, `INSERT INTO channel_credentials
		(connection_id, company_id, provider, external_id, account_id, token, secret, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)
		ON CONFLICT (connection_id) DO UPDATE SET company_id = excluded.company_id, provider = excluded.provider,
			external_id = excluded.external_id, account_id = excluded.account_id, token = excluded.token,
			secret = excluded.secret, updated_at = excluded.updated_at`,
		c.ConnectionID, c.CompanyID, c.Provider, c.ExternalID, c.AccountID, c.Token, c.Secret, now)
	if db.IsUniqueViolation(err) {
		return engine.ErrCredentialsTaken
	}
	if err != nil {
		return fmt.Errorf("put credentials of connection %d: %w", c.ConnectionID, err)
	}
	return nil
}

const cols = `connection_id, company_id, provider, external_id, account_id, token, secret`

func scan(r interface{ Scan(...any) error }) (engine.ChannelCredentials, error) {
	var c engine.ChannelCredentials
	err := r.Scan(&c.ConnectionID, &c.CompanyID, &c.Provider, &c.ExternalID, &c.AccountID, &c.Token, &c.Secret)
	if errors.Is(err, sql.ErrNoRows) {
		return engine.ChannelCredentials{}, engine.E(engine.ErrNotFound)
	}
	return c, err
}

// Get returns the credentials of a connection; ERR_NOT_FOUND when it has none.
func (s *Store) Get(ctx context.Context, connectionID engine.ID) (engine.ChannelCredentials, error) {
	c, err := scan(s.db.SQL.QueryRowContext(ctx, `SELECT `+cols+` FROM channel_credentials WHERE connection_id = $1`, connectionID))
	if err != nil && engine.CodeOf(err) != engine.ErrNotFound {
		return c, fmt.Errorf("credentials of connection %d: %w", connectionID, err)
	}
	return c, err
}

// ByExternal finds the credentials a web-hook names; ERR_NOT_FOUND when none.
func (s *Store) ByExternal(ctx context.Context, provider, externalID string) (engine.ChannelCredentials, error) {
	if !engine.StorableText(provider) || !engine.StorableText(externalID) {
		return engine.ChannelCredentials{}, engine.E(engine.ErrNotFound) // a web-hook's hostile id
	}
	c, err := scan(s.db.SQL.QueryRowContext(ctx, `SELECT `+cols+` FROM channel_credentials
		WHERE provider = $1 AND external_id = $2`, provider, externalID))
	if err != nil && engine.CodeOf(err) != engine.ErrNotFound {
		return c, fmt.Errorf("credentials of %s %s: %w", provider, externalID, err)
	}
	return c, err
}

// ByCompany lists a tenant's credentials of one provider (secrets included: callers
// use them to reach the provider, never to answer a client).
func (s *Store) ByCompany(ctx context.Context, companyID engine.ID, provider string) ([]engine.ChannelCredentials, error) {
	rows, err := s.db.SQL.QueryContext(ctx, `SELECT `+cols+` FROM channel_credentials
		WHERE company_id = $1 AND provider = $2 ORDER BY connection_id`, companyID, provider)
	if err != nil {
		return nil, fmt.Errorf("credentials of company %d: %w", companyID, err)
	}
	defer rows.Close()
	var out []engine.ChannelCredentials
	for rows.Next() {
		c, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Delete forgets the credentials of a connection (wipe); no error when there were none.
func (s *Store) Delete(ctx context.Context, connectionID engine.ID) error {
	if _, err := s.db.SQL.ExecContext(ctx, `DELETE FROM channel_credentials WHERE connection_id = $1`, connectionID); err != nil {
		return fmt.Errorf("delete credentials of connection %d: %w", connectionID, err)
	}
	return nil
}

var _ engine.CredentialStore = (*Store)(nil)
