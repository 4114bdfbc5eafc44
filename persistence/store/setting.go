package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"atende/engine"
	"atende/persistence/db"
)

// Settings implements engine.SettingStore on either dialect. Only the keys of
// engine.SettingDefaults exist; a key without a row has its default value.
//
// Safe for concurrent use.
type Settings struct {
	refBase
}

var _ engine.SettingStore = (*Settings)(nil)

// NewSettings returns the settings store of d; a nil clock is the system clock.
func NewSettings(d *db.DB, clock engine.Clock) *Settings {
	return &Settings{refBase: newRefBase(d, clock)}
}

func settingDefault(key string) (engine.Setting, bool) {
	for _, st := range engine.SettingDefaults {
		if st.Key == key {
			return st, true
		}
	}
	return engine.Setting{}, false
}

// List implements engine.SettingStore.
func (s *Settings) List(ctx context.Context, companyID engine.ID) ([]engine.Setting, error) {
	rows, err := s.db.SQL.QueryContext(ctx, `SELECT key, value FROM settings WHERE company_id = $1`, companyID)
	if err != nil {
		return nil, fmt.Errorf("list settings of %d: %w", companyID, err)
	}
	defer rows.Close()
	stored := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, fmt.Errorf("list settings of %d: %w", companyID, err)
		}
		stored[k] = v
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list settings of %d: %w", companyID, err)
	}
	out := make([]engine.Setting, len(engine.SettingDefaults))
	for i, d := range engine.SettingDefaults {
		out[i] = d
		if v, ok := stored[d.Key]; ok {
			out[i].Value = v
		}
	}
	return out, nil
}

// Get implements engine.SettingStore.
func (s *Settings) Get(ctx context.Context, companyID engine.ID, key string) (engine.Setting, error) {
	return getSetting(ctx, s.db.SQL, companyID, key)
}

// Within reads settings through q, a transaction the caller holds (see db.Querier).
func (s *Settings) Within(q db.Querier) engine.SettingReader { return settingsWithin{q} }

type settingsWithin struct{ q db.Querier }

func (w settingsWithin) Get(ctx context.Context, companyID engine.ID, key string) (engine.Setting, error) {
	return getSetting(ctx, w.q, companyID, key)
}

func getSetting(ctx context.Context, q db.Querier, companyID engine.ID, key string) (engine.Setting, error) {
	st, ok := settingDefault(key)
	if !ok {
		return engine.Setting{}, engine.E(engine.ErrNoSettingFound)
	}
	var v string
	err := q.QueryRowContext(ctx, `SELECT value FROM settings WHERE company_id = $1 AND key = $2`,
		companyID, key).Scan(&v)
	switch {
	case err == nil:
		st.Value = v
	case errors.Is(err, sql.ErrNoRows):
	default:
		return engine.Setting{}, fmt.Errorf("get setting %s of %d: %w", key, companyID, err)
	}
	return st, nil
}

// Set implements engine.SettingStore.
func (s *Settings) Set(ctx context.Context, companyID engine.ID, key, value string) (engine.Setting, error) {
	if _, ok := settingDefault(key); !ok {
		return engine.Setting{}, engine.E(engine.ErrNoSettingFound)
	}
	if _, err := s.db.SQL.ExecContext(ctx, `INSERT INTO settings (company_id, key, value, updated_at)
		VALUES ($1, $2, $3, $4)
		ON CONFLICT (company_id, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
		companyID, key, value, s.ts(s.now())); err != nil {
		return engine.Setting{}, fmt.Errorf("set setting %s of %d: %w", key, companyID, err)
	}
	return engine.Setting{Key: key, Value: value}, nil
}

// EnsureDefaults implements engine.SettingStore.
func (s *Settings) EnsureDefaults(ctx context.Context, companyID engine.ID) error {
	now := s.ts(s.now())
	for _, d := range engine.SettingDefaults {
		if _, err := s.db.SQL.ExecContext(ctx, `INSERT INTO settings (company_id, key, value, updated_at)
			VALUES ($1, $2, $3, $4) ON CONFLICT (company_id, key) DO NOTHING`,
			companyID, d.Key, d.Value, now); err != nil {
			return fmt.Errorf("default setting %s of %d: %w", d.Key, companyID, err)
		}
	}
	return nil
}
