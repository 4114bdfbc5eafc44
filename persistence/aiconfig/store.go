package aiconfig

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"atende/engine"
	"atende/persistence/db"
)

// Store is the engine.AIConfigStore on the ai_configs and ai_intents tables.
type Store struct {
	// static after construction
	db    *db.DB
	seal  *Sealer
	clock engine.Clock
}

var _ engine.AIConfigStore = (*Store)(nil)

// New returns the store of d sealing keys with seal; a nil clock is the system clock.
func New(d *db.DB, seal *Sealer, clock engine.Clock) *Store {
	if clock == nil {
		clock = engine.SystemClock{}
	}
	return &Store{db: d, seal: seal, clock: clock}
}

// aad binds a sealed key to its tenant.
func aad(companyID engine.ID) string { return "ai-config/" + strconv.FormatInt(companyID, 10) }

// AIConfig implements engine.AIConfigStore. A key that does not open reads as none.
func (s *Store) AIConfig(ctx context.Context, companyID engine.ID) (engine.AIConfig, error) {
	c := engine.AIConfig{CompanyID: companyID}
	var sealed string
	var at int64
	err := s.db.SQL.QueryRowContext(ctx, `SELECT base_url, api_key, model, speech_model, voice, updated_at
		FROM ai_configs WHERE company_id = $1`, companyID).Scan(&c.BaseURL, &sealed, &c.Model, &c.SpeechModel, &c.Voice, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("ai config of company %d: %w", companyID, err)
	}
	c.UpdatedAt = time.UnixMicro(at).UTC()
	if c.APIKey, err = s.seal.Open(sealed, aad(companyID)); err != nil {
		c.APIKey = "" // sealed under another server key: the page asks for it again
	}
	return c, nil
}

// PutAIConfig implements engine.AIConfigStore: c normalised and saved; an empty
// APIKey keeps the stored one.
func (s *Store) PutAIConfig(ctx context.Context, c engine.AIConfig) (engine.AIConfig, error) {
	c, err := engine.NormalizeAIConfig(c)
	if err != nil {
		return c, err
	}
	if c.CompanyID <= 0 {
		return c, fmt.Errorf("ai config: no company")
	}
	sealed, err := s.seal.Seal(c.APIKey, aad(c.CompanyID))
	if err != nil {
		return c, err
	}
	now := s.clock.Now().UTC().Truncate(time.Microsecond)
	_, err = s.db.SQL.ExecContext(ctx, `INSERT INTO ai_configs (company_id, base_url, api_key, model, speech_model, voice, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (company_id) DO UPDATE SET base_url = excluded.base_url,
			api_key = CASE WHEN excluded.api_key = '' THEN ai_configs.api_key ELSE excluded.api_key END,
			model = excluded.model, speech_model = excluded.speech_model, voice = excluded.voice, updated_at = excluded.updated_at`,
		c.CompanyID, c.BaseURL, sealed, c.Model, c.SpeechModel, c.Voice, now.UnixMicro())
	if err != nil {
		return c, fmt.Errorf("put ai config of company %d: %w", c.CompanyID, err)
	}
	return s.AIConfig(ctx, c.CompanyID)
}

// Intents implements engine.AIConfigStore.
func (s *Store) Intents(ctx context.Context, companyID engine.ID) ([]engine.AIIntent, error) {
	rows, err := s.db.SQL.QueryContext(ctx, `SELECT id, company_id, name, examples, queue_id FROM ai_intents
		WHERE company_id = $1 ORDER BY lower(name), id`, companyID)
	if err != nil {
		return nil, fmt.Errorf("intents of company %d: %w", companyID, err)
	}
	defer rows.Close()
	out := []engine.AIIntent{}
	for rows.Next() {
		var in engine.AIIntent
		var ex string
		if err := rows.Scan(&in.ID, &in.CompanyID, &in.Name, &ex, &in.QueueID); err != nil {
			return nil, fmt.Errorf("intents of company %d: %w", companyID, err)
		}
		if err := json.Unmarshal([]byte(ex), &in.Examples); err != nil {
			return nil, fmt.Errorf("intent %d examples: %w", in.ID, err)
		}
		out = append(out, in)
	}
	return out, rows.Err()
}

// PutIntent implements engine.AIConfigStore. A name another intent of the tenant has
// (case ignored) is ERR_VALIDATION {name: "Invalid value"}.
func (s *Store) PutIntent(ctx context.Context, in engine.AIIntent) (engine.AIIntent, error) {
	in, err := engine.NormalizeIntent(in)
	if err != nil {
		return in, err
	}
	ex, err := json.Marshal(in.Examples)
	if err != nil {
		return in, err
	}
	now := s.clock.Now().UnixMicro()
	if in.ID == 0 {
		err = s.db.SQL.QueryRowContext(ctx, `INSERT INTO ai_intents (company_id, name, examples, queue_id, updated_at)
			VALUES ($1, $2, $3, $4, $5) RETURNING id`, in.CompanyID, in.Name, string(ex), in.QueueID, now).Scan(&in.ID)
	} else {
		var res sql.Result
		res, err = s.db.SQL.ExecContext(ctx, `UPDATE ai_intents SET name = $1, examples = $2, queue_id = $3, updated_at = $4
			WHERE id = $5 AND company_id = $6`, in.Name, string(ex), in.QueueID, now, in.ID, in.CompanyID)
		if err == nil {
			if n, _ := res.RowsAffected(); n == 0 {
				return in, engine.E(engine.ErrNotFound)
			}
		}
	}
	if db.IsUniqueViolation(err) {
		return in, &engine.Error{Code: engine.ErrValidation, Fields: map[string]string{"name": engine.MsgInvalidValue}}
	}
	if err != nil {
		return in, fmt.Errorf("put intent of company %d: %w", in.CompanyID, err)
	}
	return in, nil
}

// DeleteIntent implements engine.AIConfigStore.
func (s *Store) DeleteIntent(ctx context.Context, companyID, id engine.ID) error {
	res, err := s.db.SQL.ExecContext(ctx, `DELETE FROM ai_intents WHERE id = $1 AND company_id = $2`, id, companyID)
	if err != nil {
		return fmt.Errorf("delete intent %d: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return engine.E(engine.ErrNotFound)
	}
	return nil
}
