package groups

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/jobs"
)

// Config configures a Store. Maker and Connections are required.
type Config struct {
	// Maker creates a group on a connection (actors.Connections).
	Maker engine.GroupMaker
	// Connections finds the batch's connection: it must be one of the tenant's
	// WhatsApp connections.
	Connections engine.ConnectionStore
	// Clock is the time source; nil means the wall clock.
	Clock engine.Clock
	// OnChange receives a batch whose progress or status changed in the job (the
	// realtime "groupBatch" event); nil publishes nothing.
	OnChange func(engine.GroupBatch)
	// Retry is how long the job waits before trying a group again after a temporary
	// failure (the connection is down); 0 means 15 s.
	Retry time.Duration
	// MaxAttempts is how many creations of one group are begun before it is recorded
	// as an error; 0 means 20.
	MaxAttempts int
	// Jobs inserts the batches' jobs: the node's River client, or an insert-only one
	// (package jobs); nil makes an insert-only client of its own. The node's client
	// works them (Kinds).
	Jobs *jobs.Client
	Log  zerolog.Logger
}

// Store keeps the batches and runs their job.
type Store struct {
	// static after New
	db   *db.DB
	cfg  Config
	jobs *jobs.Client
}

// New returns a Store on d.
func New(d *db.DB, cfg Config) (*Store, error) {
	if cfg.Maker == nil || cfg.Connections == nil {
		return nil, errors.New("groups: Config.Maker and Config.Connections are required")
	}
	if cfg.Clock == nil {
		cfg.Clock = engine.SystemClock{}
	}
	if cfg.Retry <= 0 {
		cfg.Retry = 15 * time.Second
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = 20
	}
	ins, err := jobs.InserterFor(d, cfg.Jobs)
	if err != nil {
		return nil, fmt.Errorf("groups: %w", err)
	}
	return &Store{db: d, cfg: cfg, jobs: ins}, nil
}

func micros(t time.Time) int64 { return t.UTC().UnixMicro() }

func fromMicros(v int64) time.Time { return time.UnixMicro(v).UTC() }

// randomHex is n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Create validates in (spec section 5), checks that the connection is one of the
// tenant's WhatsApp connections, writes the batch with one pending row per group and
// inserts its job.
func (s *Store) Create(ctx context.Context, companyID, userID engine.ID, in engine.GroupBatchInput) (engine.GroupBatch, error) {
	in, root, err := engine.ValidateGroupBatch(in)
	if err != nil {
		return engine.GroupBatch{}, err
	}
	conn, err := s.cfg.Connections.Get(ctx, companyID, in.ConnectionID)
	if err != nil {
		if engine.CodeOf(err) == engine.ErrNotFound || errors.Is(err, sql.ErrNoRows) {
			return engine.GroupBatch{}, engine.E(engine.ErrNoWappFound)
		}
		return engine.GroupBatch{}, err
	}
	if conn.CompanyID != companyID {
		return engine.GroupBatch{}, engine.E(engine.ErrNoWappFound)
	}
	if conn.Channel != engine.ChannelWhatsApp {
		return engine.GroupBatch{}, engine.E(engine.ErrGroupsNotSupported)
	}
	now := micros(s.cfg.Clock.Now())
	tok := make([]byte, 16)
	_, _ = rand.Read(tok)
	token := base64.RawURLEncoding.EncodeToString(tok)
	var id engine.ID
	err = s.db.Tx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `INSERT INTO group_batches (company_id, connection_id, user_id, name, root, admin1,
			admin2, count, max_participants, media_path, media_type, token, status, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14) RETURNING id`,
			companyID, in.ConnectionID, userID, in.Name, root, in.Admin1, in.Admin2, in.Count, in.MaxParticipants,
			in.MediaPath, in.MediaType, token, engine.GroupBatchRunning, now).Scan(&id)
		if err != nil {
			return fmt.Errorf("insert group batch: %w", err)
		}
		for i := range in.Count {
			// The create key is WhatsApp's message-id-like key of the creation: fixed
			// here so that every attempt of this group sends the same one.
			if _, err := tx.ExecContext(ctx, `INSERT INTO group_items (batch_id, seq, company_id, name, create_key, updated_at)
				VALUES ($1, $2, $3, $4, $5, $6)`, id, i, companyID, engine.GroupName(in.Name, root, i), randomHex(8), now); err != nil {
				return fmt.Errorf("insert group %d of batch %d: %w", i, id, err)
			}
		}
		return nil
	})
	if err != nil {
		return engine.GroupBatch{}, err
	}
	s.insertJob(ctx, companyID, id)
	return s.Get(ctx, companyID, id)
}

// insertJob inserts the batch's job. A failure is logged: the batch is written and
// CatchUp, run by every starting node, inserts the job of every running batch.
func (s *Store) insertJob(ctx context.Context, companyID, batchID engine.ID) {
	if _, err := s.jobs.Insert(ctx, CreateArgs{CompanyID: companyID, BatchID: batchID}, nil); err != nil {
		s.cfg.Log.Error().Err(err).Int64("batch", batchID).Msg("group batch job not inserted; inserted at the next start")
	}
}

// CatchUp inserts the job of every batch still running (unique by batch, so a job
// that exists is not doubled): a batch whose insert failed after its commit resumes
// at the next node start.
func (s *Store) CatchUp(ctx context.Context) error {
	rows, err := s.db.SQL.QueryContext(ctx, `SELECT company_id, id FROM group_batches WHERE status = $1`, engine.GroupBatchRunning)
	if err != nil {
		return fmt.Errorf("running group batches: %w", err)
	}
	var ids [][2]engine.ID
	for rows.Next() {
		var c, b engine.ID
		if err := rows.Scan(&c, &b); err != nil {
			rows.Close()
			return err
		}
		ids = append(ids, [2]engine.ID{c, b})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, id := range ids {
		s.insertJob(ctx, id[0], id[1])
	}
	return nil
}

const batchCols = `id, company_id, connection_id, name, root, admin1, admin2, count, max_participants, media_path,
	media_type, token, status, created_count, failed_count, joined_count, created_at, updated_at`

func scanBatch(r interface{ Scan(...any) error }) (engine.GroupBatch, error) {
	var b engine.GroupBatch
	var created, updated int64
	err := r.Scan(&b.ID, &b.CompanyID, &b.ConnectionID, &b.Name, &b.Root, &b.Admin1, &b.Admin2, &b.Count,
		&b.MaxParticipants, &b.MediaPath, &b.MediaType, &b.Token, &b.Status, &b.Created, &b.Failed, &b.Joined,
		&created, &updated)
	b.CreatedAt, b.UpdatedAt = fromMicros(created), fromMicros(updated)
	return b, err
}

// Get reads the batch id of the tenant with its groups.
func (s *Store) Get(ctx context.Context, companyID, id engine.ID) (engine.GroupBatch, error) {
	return get(ctx, s.db.SQL, companyID, id)
}

// get reads a batch through q (the caller's transaction, or the pool outside one).
func get(ctx context.Context, q db.Querier, companyID, id engine.ID) (engine.GroupBatch, error) {
	b, err := scanBatch(q.QueryRowContext(ctx, `SELECT `+batchCols+` FROM group_batches WHERE company_id = $1 AND id = $2`, companyID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return b, engine.E(engine.ErrNoGroupBatchFound)
	}
	if err != nil {
		return b, fmt.Errorf("read group batch %d: %w", id, err)
	}
	groups, err := items(ctx, q, []engine.ID{id})
	if err != nil {
		return b, err
	}
	b.Groups = groups[id]
	return b, nil
}

// items reads the groups of the batches ids, in order.
func items(ctx context.Context, q db.Querier, ids []engine.ID) (map[engine.ID][]engine.Group, error) {
	out := make(map[engine.ID][]engine.Group, len(ids))
	for _, id := range ids {
		rows, err := q.QueryContext(ctx, `SELECT seq, name, status, jid, invite_link, participants, joined, error
			FROM group_items WHERE batch_id = $1 ORDER BY seq`, id)
		if err != nil {
			return nil, fmt.Errorf("read groups of batch %d: %w", id, err)
		}
		list := []engine.Group{}
		for rows.Next() {
			var g engine.Group
			if err := rows.Scan(&g.Seq, &g.Name, &g.Status, &g.JID, &g.InviteLink, &g.Participants, &g.Joined, &g.Error); err != nil {
				rows.Close()
				return nil, err
			}
			list = append(list, g)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		out[id] = list
	}
	return out, nil
}

// maxListed caps List: the newest batches of the tenant.
const maxListed = 50

// List reads the tenant's newest batches, newest first, with their groups.
func (s *Store) List(ctx context.Context, companyID engine.ID) ([]engine.GroupBatch, error) {
	rows, err := s.db.SQL.QueryContext(ctx, `SELECT `+batchCols+` FROM group_batches WHERE company_id = $1
		ORDER BY id DESC LIMIT $2`, companyID, maxListed)
	if err != nil {
		return nil, fmt.Errorf("list group batches: %w", err)
	}
	list := []engine.GroupBatch{}
	var ids []engine.ID
	for rows.Next() {
		b, err := scanBatch(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		list = append(list, b)
		ids = append(ids, b.ID)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	groups, err := items(ctx, s.db.SQL, ids)
	if err != nil {
		return nil, err
	}
	for i := range list {
		list[i].Groups = groups[list[i].ID]
	}
	return list, nil
}
