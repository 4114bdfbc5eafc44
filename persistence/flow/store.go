package flow

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"atende/engine"
	"atende/persistence/db"
)

// Store implements engine.FlowStore on either dialect.
type Store struct {
	// static after construction
	db    *db.DB
	clock engine.Clock
}

var _ engine.FlowStore = (*Store)(nil)

// NewStore returns the flow store of d; a nil clock is the system clock.
func NewStore(d *db.DB, clock engine.Clock) *Store {
	if clock == nil {
		clock = engine.SystemClock{}
	}
	return &Store{db: d, clock: clock}
}

// Start kinds of flow_starts.
const (
	startConnection = "connection"
	startQueue      = "queue"
)

// timeLayout is how SQLite text columns hold times (fixed width: sorts in time order).
const timeLayout = "2006-01-02T15:04:05.000000Z"

func (s *Store) now() time.Time { return s.clock.Now().UTC().Truncate(time.Microsecond) }

func (s *Store) ts(t time.Time) any {
	if s.db.Dialect == db.SQLite {
		return t.UTC().Format(timeLayout)
	}
	return t
}

// scanTime reads a time column of either dialect.
type scanTime struct{ t *time.Time }

func (r scanTime) Scan(src any) error {
	switch v := src.(type) {
	case time.Time:
		*r.t = v.UTC()
		return nil
	case string:
		t, err := time.Parse(time.RFC3339Nano, v)
		*r.t = t.UTC()
		return err
	case []byte:
		return r.Scan(string(v))
	case nil:
		*r.t = time.Time{}
		return nil
	}
	return fmt.Errorf("scan time: unsupported %T", src)
}

type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

const flowCols = `id, company_id, name, description, is_active, data_json, created_at, updated_at`

func scanFlow(row interface{ Scan(...any) error }) (engine.Flow, error) {
	var f engine.Flow
	var data string
	err := row.Scan(&f.ID, &f.CompanyID, &f.Name, &f.Description, &f.IsActive, &data,
		scanTime{&f.CreatedAt}, scanTime{&f.UpdatedAt})
	f.DataJSON = json.RawMessage(data)
	return f, err
}

// List implements engine.FlowStore: the tenant's flows by name.
func (s *Store) List(ctx context.Context, companyID engine.ID) ([]engine.Flow, error) {
	rows, err := s.db.SQL.QueryContext(ctx, `SELECT `+flowCols+` FROM flows WHERE company_id = $1 ORDER BY name, id`, companyID)
	if err != nil {
		return nil, fmt.Errorf("list flows of %d: %w", companyID, err)
	}
	out := []engine.Flow{}
	for rows.Next() {
		f, err := scanFlow(rows)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("list flows of %d: %w", companyID, err)
		}
		out = append(out, f)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list flows of %d: %w", companyID, err)
	}
	starts, err := s.starts(ctx, s.db.SQL, companyID, 0)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].ConnectionIDs, out[i].QueueIDs = starts[out[i].ID][0], starts[out[i].ID][1]
	}
	return out, nil
}

// starts reads the start targets of the tenant's flows (of flowID alone when not 0):
// flow id → [connection ids, queue ids], each sorted and never nil.
func (s *Store) starts(ctx context.Context, q querier, companyID, flowID engine.ID) (map[engine.ID][2][]engine.ID, error) {
	query := `SELECT flow_id, kind, target_id FROM flow_starts WHERE company_id = $1`
	args := []any{companyID}
	if flowID != 0 {
		query += ` AND flow_id = $2`
		args = append(args, flowID)
	}
	rows, err := q.QueryContext(ctx, query+` ORDER BY target_id`, args...)
	if err != nil {
		return nil, fmt.Errorf("read flow starts of %d: %w", companyID, err)
	}
	defer rows.Close()
	out := map[engine.ID][2][]engine.ID{}
	for rows.Next() {
		var id, target engine.ID
		var kind string
		if err := rows.Scan(&id, &kind, &target); err != nil {
			return nil, fmt.Errorf("read flow starts of %d: %w", companyID, err)
		}
		pair := out[id]
		if kind == startConnection {
			pair[0] = append(pair[0], target)
		} else {
			pair[1] = append(pair[1], target)
		}
		out[id] = pair
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read flow starts of %d: %w", companyID, err)
	}
	for id, pair := range out {
		for i := range pair {
			if pair[i] == nil {
				pair[i] = []engine.ID{}
			}
		}
		out[id] = pair
	}
	return out, nil
}

// Get implements engine.FlowStore.
func (s *Store) Get(ctx context.Context, companyID, id engine.ID) (engine.Flow, error) {
	return s.get(ctx, s.db.SQL, companyID, id)
}

func (s *Store) get(ctx context.Context, q querier, companyID, id engine.ID) (engine.Flow, error) {
	f, err := scanFlow(q.QueryRowContext(ctx, `SELECT `+flowCols+` FROM flows WHERE id = $1 AND company_id = $2`, id, companyID))
	if errors.Is(err, sql.ErrNoRows) {
		return f, engine.E(engine.ErrNoFlowFound)
	}
	if err != nil {
		return f, fmt.Errorf("get flow %d: %w", id, err)
	}
	starts, err := s.starts(ctx, q, companyID, id)
	if err != nil {
		return f, err
	}
	f.ConnectionIDs, f.QueueIDs = []engine.ID{}, []engine.ID{}
	if pair, ok := starts[id]; ok {
		f.ConnectionIDs, f.QueueIDs = pair[0], pair[1]
	}
	return f, nil
}

// Create implements engine.FlowStore.
func (s *Store) Create(ctx context.Context, companyID engine.ID, in engine.FlowInput) (engine.Flow, error) {
	in, err := engine.ValidateFlow(in)
	if err != nil {
		return engine.Flow{}, err
	}
	var out engine.Flow
	err = s.db.Tx(ctx, func(tx *sql.Tx) error {
		now := s.ts(s.now())
		var id engine.ID
		if err := tx.QueryRowContext(ctx, `INSERT INTO flows (company_id, name, description, is_active, data_json,
			created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING id`,
			companyID, in.Name, in.Description, in.IsActive, string(in.DataJSON), now).Scan(&id); err != nil {
			return fmt.Errorf("insert flow: %w", err)
		}
		if err := s.setStarts(ctx, tx, companyID, id, in); err != nil {
			return err
		}
		var err error
		out, err = s.get(ctx, tx, companyID, id)
		return err
	})
	return out, err
}

// Update implements engine.FlowStore. A run already going keeps the graph it started
// with (the run's stream holds it).
func (s *Store) Update(ctx context.Context, companyID, id engine.ID, in engine.FlowInput) (engine.Flow, error) {
	in, err := engine.ValidateFlow(in)
	if err != nil {
		return engine.Flow{}, err
	}
	var out engine.Flow
	err = s.db.Tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE flows SET name = $1, description = $2, is_active = $3, data_json = $4,
			updated_at = $5 WHERE id = $6 AND company_id = $7`,
			in.Name, in.Description, in.IsActive, string(in.DataJSON), s.ts(s.now()), id, companyID)
		if err != nil {
			return fmt.Errorf("update flow %d: %w", id, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return engine.E(engine.ErrNoFlowFound)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM flow_starts WHERE flow_id = $1`, id); err != nil {
			return fmt.Errorf("clear starts of flow %d: %w", id, err)
		}
		if err := s.setStarts(ctx, tx, companyID, id, in); err != nil {
			return err
		}
		out, err = s.get(ctx, tx, companyID, id)
		return err
	})
	return out, err
}

// setStarts records where flow id starts. A connection or queue another flow of the
// tenant starts on is ERR_VALIDATION {connectionIds|queueIds: "Already exists"}.
func (s *Store) setStarts(ctx context.Context, tx *sql.Tx, companyID, id engine.ID, in engine.FlowInput) error {
	for _, set := range []struct {
		kind, field string
		ids         []engine.ID
	}{{startConnection, "connectionIds", in.ConnectionIDs}, {startQueue, "queueIds", in.QueueIDs}} {
		for _, target := range set.ids {
			res, err := tx.ExecContext(ctx, `INSERT INTO flow_starts (company_id, kind, target_id, flow_id)
				VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`, companyID, set.kind, target, id)
			if err != nil {
				return fmt.Errorf("insert start of flow %d: %w", id, err)
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return &engine.Error{Code: engine.ErrValidation, Fields: map[string]string{set.field: engine.MsgAlreadyExists}}
			}
		}
	}
	return nil
}

// Delete implements engine.FlowStore. Runs already going finish with their graph.
func (s *Store) Delete(ctx context.Context, companyID, id engine.ID) error {
	return s.db.Tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM flow_starts WHERE flow_id = $1 AND company_id = $2`, id, companyID); err != nil {
			return fmt.Errorf("delete starts of flow %d: %w", id, err)
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM flows WHERE id = $1 AND company_id = $2`, id, companyID)
		if err != nil {
			return fmt.Errorf("delete flow %d: %w", id, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return engine.E(engine.ErrNoFlowFound)
		}
		return nil
	})
}

// StartFor implements engine.FlowStore: the connection's flow wins over the queue's.
func (s *Store) StartFor(ctx context.Context, companyID, connectionID, queueID engine.ID) (engine.Flow, bool, error) {
	for _, c := range []struct {
		kind string
		id   engine.ID
	}{{startConnection, connectionID}, {startQueue, queueID}} {
		if c.id == 0 {
			continue
		}
		var id engine.ID
		err := s.db.SQL.QueryRowContext(ctx, `SELECT f.id FROM flow_starts st JOIN flows f ON f.id = st.flow_id
			WHERE st.company_id = $1 AND st.kind = $2 AND st.target_id = $3 AND f.is_active = $4`,
			companyID, c.kind, c.id, true).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return engine.Flow{}, false, fmt.Errorf("flow of %s %d: %w", c.kind, c.id, err)
		}
		f, err := s.Get(ctx, companyID, id)
		if engine.CodeOf(err) == engine.ErrNoFlowFound {
			continue
		}
		return f, err == nil, err
	}
	return engine.Flow{}, false, nil
}

// HasStarts reports whether any active flow of the tenant starts on connection
// connectionID or on any queue: the inbound path's cheap test before it asks a
// ticket's flow actor anything.
func (s *Store) HasStarts(ctx context.Context, companyID, connectionID engine.ID) (bool, error) {
	var n int
	err := s.db.SQL.QueryRowContext(ctx, `SELECT COUNT(*) FROM flow_starts st JOIN flows f ON f.id = st.flow_id
		WHERE st.company_id = $1 AND f.is_active = $2 AND (st.kind = $3 OR (st.kind = $4 AND st.target_id = $5))`,
		companyID, true, startQueue, startConnection, connectionID).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("flows of connection %d: %w", connectionID, err)
	}
	return n > 0, nil
}
