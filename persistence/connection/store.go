package connection

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"atende/engine"
	"atende/persistence/db"
)

// Store implements engine.ConnectionStore.
type Store struct {
	db    *db.DB
	clock engine.Clock
}

var _ engine.ConnectionStore = (*Store)(nil)

// New returns the connection store of d; a nil clock is the system clock.
func New(d *db.DB, clock engine.Clock) *Store {
	if clock == nil {
		clock = engine.SystemClock{}
	}
	return &Store{db: d, clock: clock}
}

const cols = `id, company_id, name, number, channel, status, qrcode, retries, is_default, out_channel,
	daily_max, greeting_message, farewell_message, greeting_media, farewell_media, token, updated_at`

type scanner interface{ Scan(dest ...any) error }

func scan(r scanner) (engine.Connection, error) {
	var c engine.Connection
	var updated int64
	err := r.Scan(&c.ID, &c.CompanyID, &c.Name, &c.Number, &c.Channel, &c.Status, &c.QRCode, &c.Retries,
		&c.IsDefault, &c.OutChannel, &c.DailyMax, &c.GreetingMessage, &c.FarewellMessage,
		&c.GreetingMedia, &c.FarewellMedia, &c.Token, &updated)
	c.UpdatedAt = time.UnixMicro(updated).UTC()
	c.Queues = []engine.Queue{}
	return c, err
}

func (s *Store) query(ctx context.Context, where string, args ...any) ([]engine.Connection, error) {
	rows, err := s.db.SQL.QueryContext(ctx, `SELECT `+cols+` FROM connections `+where+` ORDER BY id`, args...)
	if err != nil {
		return nil, err
	}
	var out []engine.Connection
	for rows.Next() {
		c, err := scan(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, s.fillQueues(ctx, out)
}

func (s *Store) fillQueues(ctx context.Context, conns []engine.Connection) error {
	if len(conns) == 0 {
		return nil
	}
	byID := make(map[engine.ID]int, len(conns))
	ph := make([]string, len(conns))
	args := make([]any, len(conns))
	for i, c := range conns {
		byID[c.ID] = i
		ph[i] = fmt.Sprintf("$%d", i+1)
		args[i] = c.ID
	}
	rows, err := s.db.SQL.QueryContext(ctx, `SELECT cq.connection_id, q.id, q.name, q.color, q.greeting_message
		FROM connection_queues cq JOIN queues q ON q.id = cq.queue_id
		WHERE cq.connection_id IN (`+strings.Join(ph, ",")+`) ORDER BY cq.connection_id, cq.position`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var cid engine.ID
		var q engine.Queue
		if err := rows.Scan(&cid, &q.ID, &q.Name, &q.Color, &q.GreetingMessage); err != nil {
			return err
		}
		i := byID[cid]
		conns[i].Queues = append(conns[i].Queues, q)
	}
	return rows.Err()
}

func (s *Store) one(ctx context.Context, what string, where string, args ...any) (engine.Connection, error) {
	cs, err := s.query(ctx, where, args...)
	if err != nil {
		return engine.Connection{}, fmt.Errorf("get connection %s: %w", what, err)
	}
	if len(cs) == 0 {
		return engine.Connection{}, engine.Wrap(engine.ErrNoWappFound, fmt.Errorf("connection %s", what))
	}
	return cs[0], nil
}

// List implements engine.ConnectionStore.
func (s *Store) List(ctx context.Context, companyID engine.ID) ([]engine.Connection, error) {
	cs, err := s.query(ctx, `WHERE company_id = $1`, companyID)
	if err != nil {
		return nil, fmt.Errorf("list connections of %d: %w", companyID, err)
	}
	if cs == nil {
		cs = []engine.Connection{}
	}
	return cs, nil
}

// Get implements engine.ConnectionStore.
func (s *Store) Get(ctx context.Context, companyID, id engine.ID) (engine.Connection, error) {
	return s.one(ctx, fmt.Sprint(id), `WHERE company_id = $1 AND id = $2`, companyID, id)
}

// Lookup implements engine.ConnectionStore.
func (s *Store) Lookup(ctx context.Context, id engine.ID) (engine.Connection, error) {
	return s.one(ctx, fmt.Sprint(id), `WHERE id = $1`, id)
}

// ByToken implements engine.ConnectionStore.
func (s *Store) ByToken(ctx context.Context, token string) (engine.Connection, error) {
	if token == "" || len(token) > 64 {
		return engine.Connection{}, engine.E(engine.ErrNoWappFound)
	}
	return s.one(ctx, "by token", `WHERE token = $1`, token)
}

// All implements engine.ConnectionStore.
func (s *Store) All(ctx context.Context) ([]engine.Connection, error) {
	cs, err := s.query(ctx, ``)
	if err != nil {
		return nil, fmt.Errorf("list all connections: %w", err)
	}
	return cs, nil
}

func newToken() string {
	var b [18]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// Create implements engine.ConnectionStore. The first connection of a tenant becomes
// its default.
func (s *Store) Create(ctx context.Context, companyID engine.ID, in engine.ConnectionInput) (engine.Connection, error) {
	in, err := engine.ValidateConnection(in)
	if err != nil {
		return engine.Connection{}, err
	}
	now := s.clock.Now().UnixMicro()
	var id engine.ID
	err = s.db.Tx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM connections WHERE company_id = $1`, companyID).Scan(&n); err != nil {
			return err
		}
		isDefault := in.IsDefault || n == 0
		if isDefault {
			if _, err := tx.ExecContext(ctx, `UPDATE connections SET is_default = FALSE WHERE company_id = $1`, companyID); err != nil {
				return err
			}
		}
		err := tx.QueryRowContext(ctx, `INSERT INTO connections (company_id, name, number, channel, is_default, out_channel,
			daily_max, greeting_message, farewell_message, token, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11) RETURNING id`,
			companyID, in.Name, in.Number, in.Channel, isDefault, in.OutChannel, in.DailyMax,
			in.GreetingMessage, in.FarewellMessage, newToken(), now).Scan(&id)
		if err != nil {
			return err
		}
		return setQueues(ctx, tx, companyID, id, in.QueueIDs)
	})
	if err != nil {
		return engine.Connection{}, wrapWrite("create connection", err)
	}
	return s.Get(ctx, companyID, id)
}

// Update implements engine.ConnectionStore. The channel never changes. Clearing
// isDefault on the tenant's only default answers ErrNoOtherWhatsapp.
func (s *Store) Update(ctx context.Context, companyID, id engine.ID, in engine.ConnectionInput) (engine.Connection, error) {
	cur, err := s.Get(ctx, companyID, id)
	if err != nil {
		return engine.Connection{}, err
	}
	in.Channel = cur.Channel
	in, err = engine.ValidateConnection(in)
	if err != nil {
		return engine.Connection{}, err
	}
	if cur.IsDefault && !in.IsDefault {
		return engine.Connection{}, engine.E(engine.ErrNoOtherWhatsapp)
	}
	err = s.db.Tx(ctx, func(tx *sql.Tx) error {
		if in.IsDefault && !cur.IsDefault {
			if _, err := tx.ExecContext(ctx, `UPDATE connections SET is_default = FALSE WHERE company_id = $1`, companyID); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `UPDATE connections SET name = $3, number = $4, is_default = $5, out_channel = $6,
			daily_max = $7, greeting_message = $8, farewell_message = $9, updated_at = $10
			WHERE company_id = $1 AND id = $2`, companyID, id, in.Name, in.Number, in.IsDefault, in.OutChannel,
			in.DailyMax, in.GreetingMessage, in.FarewellMessage, s.clock.Now().UnixMicro())
		if err != nil {
			return err
		}
		return setQueues(ctx, tx, companyID, id, in.QueueIDs)
	})
	if err != nil {
		return engine.Connection{}, wrapWrite("update connection", err)
	}
	return s.Get(ctx, companyID, id)
}

func setQueues(ctx context.Context, tx *sql.Tx, companyID, id engine.ID, queueIDs []engine.ID) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM connection_queues WHERE connection_id = $1`, id); err != nil {
		return err
	}
	for i, q := range queueIDs {
		var ok int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM queues WHERE company_id = $1 AND id = $2`, companyID, q).Scan(&ok)
		if errors.Is(err, sql.ErrNoRows) {
			return engine.Wrap(engine.ErrNoQueueFound, fmt.Errorf("queue %d", q))
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO connection_queues (connection_id, queue_id, position) VALUES ($1, $2, $3)`, id, q, i); err != nil {
			return err
		}
	}
	return nil
}

// Delete implements engine.ConnectionStore. The tenant's default connection can go
// only when it is the last one (ErrNoOtherWhatsapp otherwise: make another default
// first).
func (s *Store) Delete(ctx context.Context, companyID, id engine.ID) error {
	cur, err := s.Get(ctx, companyID, id)
	if err != nil {
		return err
	}
	return s.db.Tx(ctx, func(tx *sql.Tx) error {
		if cur.IsDefault {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM connections WHERE company_id = $1`, companyID).Scan(&n); err != nil {
				return err
			}
			if n > 1 {
				return engine.E(engine.ErrNoOtherWhatsapp)
			}
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM connections WHERE company_id = $1 AND id = $2`, companyID, id)
		return err
	})
}

// SetStatus implements engine.ConnectionStore.
func (s *Store) SetStatus(ctx context.Context, id engine.ID, st engine.StatusChange) error {
	q := `UPDATE connections SET status = $2, qrcode = $3, updated_at = $4,
		retries = CASE WHEN $2 = 'CONNECTED' THEN 0 WHEN $2 = 'qrcode' THEN retries + 1 ELSE retries END`
	args := []any{id, st.Status, st.QRCode, s.clock.Now().UnixMicro()}
	if st.Number != "" {
		q += `, number = $5`
		args = append(args, st.Number)
	}
	if _, err := s.db.SQL.ExecContext(ctx, q+` WHERE id = $1`, args...); err != nil {
		return fmt.Errorf("set status of connection %d: %w", id, err)
	}
	return nil
}

func wrapWrite(what string, err error) error {
	var e *engine.Error
	if errors.As(err, &e) {
		return err
	}
	return fmt.Errorf("%s: %w", what, err)
}
