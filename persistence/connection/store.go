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

// DefaultID implements engine.ConnectionStore with one read of the id alone (a unique
// index keeps one default per tenant): every scheduled message and every ticket opened
// without a connection asks it.
func (s *Store) DefaultID(ctx context.Context, companyID engine.ID) (engine.ID, error) {
	var id engine.ID
	err := s.db.SQL.QueryRowContext(ctx, `SELECT id FROM connections WHERE company_id = $1 AND is_default`, companyID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, engine.E(engine.ErrNoDefWappFound)
	}
	if err != nil {
		return 0, fmt.Errorf("default connection of %d: %w", companyID, err)
	}
	return id, nil
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
// its default; a new default clears the old one in the same transaction. Concurrent
// creates of a tenant are serialised (lockTenant on PostgreSQL, the write lock of an
// immediate transaction on SQLite), so each sees the others' rows; index
// connections_one_default (migration 0320) still refuses a second default written any
// other way.
func (s *Store) Create(ctx context.Context, companyID engine.ID, in engine.ConnectionInput) (engine.Connection, error) {
	in, err := engine.ValidateConnection(in)
	if err != nil {
		return engine.Connection{}, err
	}
	id, err := s.create(ctx, companyID, in)
	if err != nil {
		return engine.Connection{}, wrapWrite("create connection", err)
	}
	return s.Get(ctx, companyID, id)
}

// lockTenant serialises the writes that may move a tenant's default connection: on
// PostgreSQL it locks the tenant's row until the transaction ends (SQLite transactions
// already hold the write lock). Without it, concurrent "make me the default" writes
// under READ COMMITTED each clear the old default and then collide on index
// connections_one_default, and their retries can collide again. Connections are
// created and edited rarely: a queue of them per tenant costs nothing.
func (s *Store) lockTenant(ctx context.Context, tx *sql.Tx, companyID engine.ID) error {
	if s.db.Dialect != db.Postgres {
		return nil
	}
	var id engine.ID
	err := tx.QueryRowContext(ctx, `SELECT id FROM companies WHERE id = $1 FOR UPDATE`, companyID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil // no tenant row to queue on; the index still holds the rule
	}
	return err
}

func (s *Store) create(ctx context.Context, companyID engine.ID, in engine.ConnectionInput) (engine.ID, error) {
	now := s.clock.Now().UnixMicro()
	var id engine.ID
	err := s.db.Tx(ctx, func(tx *sql.Tx) error {
		if err := s.lockTenant(ctx, tx, companyID); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM connections WHERE company_id = $1`, companyID).Scan(&n); err != nil {
			return err
		}
		isDefault := in.IsDefault || n == 0
		if isDefault {
			if _, err := tx.ExecContext(ctx, `UPDATE connections SET is_default = FALSE WHERE company_id = $1 AND is_default`, companyID); err != nil {
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
	return id, err
}

// Update implements engine.ConnectionStore. The channel never changes. Clearing
// isDefault on the tenant's default answers ErrNoOtherWhatsapp (make another one the
// default instead); the check and the write share one transaction.
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
	err = s.db.Tx(ctx, func(tx *sql.Tx) error {
		if in.IsDefault {
			if err := s.lockTenant(ctx, tx, companyID); err != nil {
				return err
			}
		}
		wasDefault, err := isDefault(ctx, tx, companyID, id)
		if err != nil {
			return err
		}
		if wasDefault && !in.IsDefault {
			return engine.E(engine.ErrNoOtherWhatsapp)
		}
		if in.IsDefault && !wasDefault {
			if _, err := tx.ExecContext(ctx, `UPDATE connections SET is_default = FALSE WHERE company_id = $1 AND is_default`, companyID); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, `UPDATE connections SET name = $3, number = $4, is_default = $5, out_channel = $6,
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

// SetMedia records the greeting and farewell images of connection id of companyID:
// a nil one is left as it is, "" clears it, anything else is a media store path
// ("<companyId>/<file>"). It returns the connection as it was before (whose replaced
// files the caller may remove) and as it is now.
func (s *Store) SetMedia(ctx context.Context, companyID, id engine.ID, greeting, farewell *string) (before, after engine.Connection, err error) {
	before, err = s.Get(ctx, companyID, id)
	if err != nil || (greeting == nil && farewell == nil) {
		return before, before, err
	}
	// One statement, each column kept unless given (COALESCE of NULL): a concurrent
	// upload of the other image is not written back stale.
	res, err := s.db.SQL.ExecContext(ctx, `UPDATE connections SET greeting_media = COALESCE($3, greeting_media),
		farewell_media = COALESCE($4, farewell_media), updated_at = $5
		WHERE company_id = $1 AND id = $2`, companyID, id, nullable(greeting), nullable(farewell), s.clock.Now().UnixMicro())
	if err != nil {
		return before, before, fmt.Errorf("set media of connection %d: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return before, before, engine.Wrap(engine.ErrNoWappFound, fmt.Errorf("connection %d", id))
	}
	after, err = s.Get(ctx, companyID, id)
	return before, after, err
}

// nullable is *v as a query argument, NULL when v is nil.
func nullable(v *string) sql.NullString {
	if v == nil {
		return sql.NullString{}
	}
	return sql.NullString{String: *v, Valid: true}
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
// first). The check and the delete share one transaction.
func (s *Store) Delete(ctx context.Context, companyID, id engine.ID) error {
	return s.db.Tx(ctx, func(tx *sql.Tx) error {
		// Queued behind the tenant's other default-moving writes, as create and
		// Update: a connection created meanwhile is counted, or waits for this.
		if err := s.lockTenant(ctx, tx, companyID); err != nil {
			return err
		}
		if err := checkDelete(ctx, tx, companyID, id); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM connections WHERE company_id = $1 AND id = $2`, companyID, id)
		return err
	})
}

// CheckDelete answers the error Delete would answer now (ErrNoWappFound,
// ErrNoOtherWhatsapp) without deleting, so that a caller can refuse before stopping
// the connection's session. Delete checks again.
func (s *Store) CheckDelete(ctx context.Context, companyID, id engine.ID) error {
	return checkDelete(ctx, s.db.SQL, companyID, id)
}

// rowQuerier is what checkDelete reads through: a transaction or the pool.
type rowQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// isDefault reads whether connection id of companyID is its tenant's default;
// ErrNoWappFound when the tenant has no such connection.
func isDefault(ctx context.Context, q rowQuerier, companyID, id engine.ID) (bool, error) {
	var def bool
	err := q.QueryRowContext(ctx, `SELECT is_default FROM connections WHERE company_id = $1 AND id = $2`, companyID, id).Scan(&def)
	if errors.Is(err, sql.ErrNoRows) {
		return false, engine.Wrap(engine.ErrNoWappFound, fmt.Errorf("connection %d", id))
	}
	if err != nil {
		return false, fmt.Errorf("connection %d: %w", id, err)
	}
	return def, nil
}

// checkDelete is the rule of Delete: ErrNoWappFound when the tenant has no such
// connection, ErrNoOtherWhatsapp when it is the default and not the last one.
func checkDelete(ctx context.Context, q rowQuerier, companyID, id engine.ID) error {
	def, err := isDefault(ctx, q, companyID, id)
	if err != nil {
		return err
	}
	if !def {
		return nil
	}
	var n int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM connections WHERE company_id = $1`, companyID).Scan(&n); err != nil {
		return fmt.Errorf("check delete of connection %d: %w", id, err)
	}
	if n > 1 {
		return engine.E(engine.ErrNoOtherWhatsapp)
	}
	return nil
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
