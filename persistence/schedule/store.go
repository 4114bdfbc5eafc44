package schedule

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/jobs"
)

// Config are the collaborators of a Scheduler.
type Config struct {
	// IDs allocates the message id of each schedule ("message"). Required.
	IDs engine.IDAllocator
	// Contacts finds the contact of a schedule, or creates it for a bare number.
	// Required to fire.
	Contacts engine.ContactStore
	// Sender records a due message on its ticket. Required to fire.
	Sender engine.ScheduleSender
	// Clock is the time; nil is the system clock.
	Clock engine.Clock
	// Location, when set, is the zone message variables are rendered in for every
	// tenant (tests); nil reads each tenant's timeZone setting from Settings.
	Location *time.Location
	// Settings holds each tenant's time zone; nil is engine.TenantTimeZone for all.
	Settings engine.SettingStore
	// OnChange is told of every schedule a fire changed (sent, error, error text), so
	// that the realtime layer can publish it; nil tells nobody.
	OnChange func(engine.Schedule)
	// Jobs inserts and cancels the fire jobs in the schedules' transactions: the
	// node's River client, or an insert-only one (package jobs); nil makes an
	// insert-only client of its own. The node's client works them (Kinds).
	Jobs *jobs.Client
	// Workers is how many schedules one node fires at once; 0 means defaultWorkers.
	Workers int
	// Log receives fire failures.
	Log zerolog.Logger
}

// Scheduler implements engine.ScheduleStore and fires due schedules.
type Scheduler struct {
	// static after New
	db   *db.DB
	cfg  Config
	jobs *jobs.Client

	outcomes outcomes // fire outcomes waiting for their commit
}

var _ engine.ScheduleStore = (*Scheduler)(nil)

// New returns the scheduler of d. Its schedules fire on the node's River client
// that works Kinds.
func New(d *db.DB, cfg Config) (*Scheduler, error) {
	if cfg.IDs == nil {
		return nil, errors.New("schedule: Config.IDs is required")
	}
	if cfg.Clock == nil {
		cfg.Clock = engine.SystemClock{}
	}
	ins, err := jobs.InserterFor(d, cfg.Jobs)
	if err != nil {
		return nil, fmt.Errorf("schedule: %w", err)
	}
	return &Scheduler{db: d, cfg: cfg, jobs: ins}, nil
}

const cols = `s.id, s.company_id, s.kind, s.task_name, s.contact_id, s.phone_number, s.message, s.image_path,
	s.connection_id, s.user_id, s.ticket_id, s.tag_filter, s.send_at, s.status, s.error_message, s.message_id,
	s.sent_ticket_id, s.job_id, s.created_at, s.updated_at, c.id, c.name, c.number`

const from = `schedules s LEFT JOIN contacts c ON c.id = s.contact_id AND c.company_id = s.company_id`

// scan reads a row of cols, then into extra the columns a query selects after them.
func scan(r row, extra ...any) (engine.Schedule, int64, error) {
	var (
		sc                   engine.Schedule
		tags                 string
		sendAt, created, upd int64
		jobID                int64
		cid                  *int64
		cname, cnumber       *string
	)
	err := r.Scan(append([]any{&sc.ID, &sc.CompanyID, &sc.Kind, &sc.TaskName, &sc.ContactID, &sc.PhoneNumber, &sc.Message,
		&sc.ImagePath, &sc.ConnectionID, &sc.UserID, &sc.TicketID, &tags, &sendAt, &sc.Status, &sc.ErrorMessage,
		&sc.MessageID, &sc.SentTicketID, &jobID, &created, &upd, &cid, &cname, &cnumber}, extra...)...)
	if err != nil {
		return sc, 0, err
	}
	sc.TagFilter = []engine.ID{}
	_ = json.Unmarshal([]byte(tags), &sc.TagFilter)
	sc.SendAt = time.UnixMicro(sendAt).UTC()
	sc.CreatedAt = time.UnixMicro(created).UTC()
	sc.UpdatedAt = time.UnixMicro(upd).UTC()
	if cid != nil {
		sc.Contact = &engine.ScheduleContact{ID: *cid, Name: *cname, Number: *cnumber}
	}
	return sc, jobID, nil
}

func searchOf(in engine.ScheduleInput) string {
	return strings.ToLower(in.TaskName + "\x1f" + in.Message + "\x1f" + in.PhoneNumber)
}

// Create implements engine.ScheduleStore: the row and its timer in one transaction.
// The contact, connection and ticket must be the tenant's (ERR_NO_CONTACT_FOUND,
// ERR_NO_WAPP_FOUND, ERR_NO_TICKET_FOUND otherwise).
func (s *Scheduler) Create(ctx context.Context, companyID engine.ID, in engine.ScheduleInput) (engine.Schedule, error) {
	msgID, err := s.cfg.IDs.Next(ctx, "message")
	if err != nil {
		return engine.Schedule{}, fmt.Errorf("allocate message id: %w", err)
	}
	tags, _ := json.Marshal(nonNil(in.TagFilter))
	now := s.cfg.Clock.Now().UTC().UnixMicro()
	var id engine.ID
	err = inTx(ctx, s.db, func(tx txn) error {
		if err := s.checkRefs(ctx, tx, companyID, &in); err != nil {
			return err
		}
		if err := tx.queryRow(ctx, `INSERT INTO schedules (company_id, kind, task_name, contact_id, phone_number,
			message, image_path, connection_id, user_id, ticket_id, tag_filter, send_at, status, message_id, search,
			created_at, updated_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,'pending',$13,$14,$15,$15) RETURNING id`,
			companyID, in.Kind, in.TaskName, in.ContactID, in.PhoneNumber, in.Message, in.ImagePath, in.ConnectionID,
			in.UserID, in.TicketID, string(tags), in.SendAt.UTC().UnixMicro(), msgID, searchOf(in), now).Scan(&id); err != nil {
			return fmt.Errorf("insert schedule: %w", err)
		}
		jobID, err := s.insertTx(ctx, tx, companyID, id, in.SendAt)
		if err != nil {
			return err
		}
		_, err = tx.exec(ctx, `UPDATE schedules SET job_id = $1 WHERE id = $2`, jobID, id)
		return err
	})
	if err != nil {
		return engine.Schedule{}, err
	}
	return s.Get(ctx, companyID, id)
}

// checkRefs refuses references to rows that are not the tenant's. A schedule made
// from a ticket takes the ticket's contact and connection when it names none, so that
// it is listed with its contact and its variables render the contact's name.
func (s *Scheduler) checkRefs(ctx context.Context, tx txn, companyID engine.ID, in *engine.ScheduleInput) error {
	if in.TicketID != 0 {
		var contactID, connID engine.ID
		err := tx.queryRow(ctx, `SELECT contact_id, whatsapp_id FROM tickets WHERE id = $1 AND company_id = $2`,
			in.TicketID, companyID).Scan(&contactID, &connID)
		if isNoRows(err) {
			return engine.E(engine.ErrNoTicketFound)
		}
		if err != nil {
			return fmt.Errorf("check ticket %d: %w", in.TicketID, err)
		}
		if in.ContactID == 0 {
			in.ContactID = contactID
		}
		if in.ConnectionID == 0 {
			in.ConnectionID = connID
		}
	}
	for _, ref := range []struct {
		id    engine.ID
		table string
		code  engine.Code
	}{
		{in.ContactID, "contacts", engine.ErrNoContactFound},
		{in.ConnectionID, "connections", engine.ErrNoWappFound},
		{in.TicketID, "tickets", engine.ErrNoTicketFound},
		{in.UserID, "users", engine.ErrNoUserFound},
	} {
		if ref.id == 0 {
			continue
		}
		var n int
		if err := tx.queryRow(ctx, `SELECT count(*) FROM `+ref.table+` WHERE id = $1 AND company_id = $2`,
			ref.id, companyID).Scan(&n); err != nil {
			return fmt.Errorf("check %s %d: %w", ref.table, ref.id, err)
		}
		if n == 0 {
			return engine.E(ref.code)
		}
	}
	return nil
}

// Update implements engine.ScheduleStore: a pending or failed schedule gets the new
// fields, status pending, and a new timer; the old timer is cancelled in the same
// transaction. A sent one answers ERR_SCHEDULE_SENT.
func (s *Scheduler) Update(ctx context.Context, companyID, id engine.ID, in engine.ScheduleInput) (engine.Schedule, error) {
	tags, _ := json.Marshal(nonNil(in.TagFilter))
	now := s.cfg.Clock.Now().UTC().UnixMicro()
	err := inTx(ctx, s.db, func(tx txn) error {
		old, jobID, err := s.lockRow(ctx, tx, companyID, id)
		if err != nil {
			return err
		}
		if old.Status == engine.ScheduleSent {
			return engine.E(engine.ErrScheduleSent)
		}
		if err := s.checkRefs(ctx, tx, companyID, &in); err != nil {
			return err
		}
		if err := s.jobs.CancelTx(ctx, tx.raw(), jobID); err != nil {
			return err
		}
		newJob, err := s.insertTx(ctx, tx, companyID, id, in.SendAt)
		if err != nil {
			return err
		}
		_, err = tx.exec(ctx, `UPDATE schedules SET task_name=$1, contact_id=$2, phone_number=$3, message=$4,
			image_path=$5, connection_id=$6, user_id=$7, ticket_id=$8, tag_filter=$9, send_at=$10, status='pending',
			error_message='', job_id=$11, search=$12, updated_at=$13 WHERE id=$14 AND company_id=$15`,
			in.TaskName, in.ContactID, in.PhoneNumber, in.Message, in.ImagePath, in.ConnectionID, in.UserID,
			in.TicketID, string(tags), in.SendAt.UTC().UnixMicro(), newJob, searchOf(in), now, id, companyID)
		return err
	})
	if err != nil {
		return engine.Schedule{}, err
	}
	return s.Get(ctx, companyID, id)
}

// lockRow reads the row for a change: on PostgreSQL with FOR UPDATE, so that an edit
// and a fire of the same schedule serialise (SQLite's transactions already do).
func (s *Scheduler) lockRow(ctx context.Context, tx txn, companyID, id engine.ID) (engine.Schedule, int64, error) {
	q := `SELECT ` + cols + ` FROM ` + from + ` WHERE s.id = $1 AND s.company_id = $2`
	if s.db.Dialect == db.Postgres {
		q += ` FOR UPDATE OF s`
	}
	sc, jobID, err := scan(tx.queryRow(ctx, q, id, companyID))
	if isNoRows(err) {
		return sc, 0, engine.E(engine.ErrNoScheduleFound)
	}
	if err != nil {
		return sc, 0, fmt.Errorf("read schedule %d: %w", id, err)
	}
	return sc, jobID, nil
}

// Delete implements engine.ScheduleStore.
func (s *Scheduler) Delete(ctx context.Context, companyID, id engine.ID) error {
	return inTx(ctx, s.db, func(tx txn) error {
		old, jobID, err := s.lockRow(ctx, tx, companyID, id)
		if err != nil {
			return err
		}
		if old.Status == engine.ScheduleSent {
			return engine.E(engine.ErrScheduleSent)
		}
		if err := s.jobs.CancelTx(ctx, tx.raw(), jobID); err != nil {
			return err
		}
		_, err = tx.exec(ctx, `DELETE FROM schedules WHERE id = $1 AND company_id = $2`, id, companyID)
		return err
	})
}

// Get implements engine.ScheduleStore.
func (s *Scheduler) Get(ctx context.Context, companyID, id engine.ID) (engine.Schedule, error) {
	sc, _, err := scan(s.db.SQL.QueryRowContext(ctx, `SELECT `+cols+` FROM `+from+` WHERE s.id = $1 AND s.company_id = $2`, id, companyID))
	if isNoRows(err) {
		return sc, engine.E(engine.ErrNoScheduleFound)
	}
	if err != nil {
		return sc, fmt.Errorf("get schedule %d: %w", id, err)
	}
	return sc, nil
}

// maxLimit caps ScheduleQuery.Limit.
const maxLimit = 500

// List implements engine.ScheduleStore: by sendAt, then id.
func (s *Scheduler) List(ctx context.Context, companyID engine.ID, q engine.ScheduleQuery) ([]engine.Schedule, int, bool, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = engine.SchedulePageSize
	}
	limit = min(limit, maxLimit)
	where := `s.company_id = $1`
	args := []any{companyID}
	add := func(cond string, v any) {
		args = append(args, v)
		where += fmt.Sprintf(` AND `+cond, len(args))
	}
	if q.Kind != "" {
		add(`s.kind = $%d`, q.Kind)
	}
	if q.UserID != 0 {
		add(`s.user_id = $%d`, q.UserID)
	}
	if !q.From.IsZero() {
		add(`s.send_at >= $%d`, q.From.UTC().UnixMicro())
	}
	if !q.To.IsZero() {
		add(`s.send_at < $%d`, q.To.UTC().UnixMicro())
	}
	if t := strings.ToLower(strings.TrimSpace(q.Search)); t != "" {
		r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
		add(`s.search LIKE $%d ESCAPE '\'`, "%"+r.Replace(t)+"%")
	}
	var count int
	if err := s.db.SQL.QueryRowContext(ctx, `SELECT count(*) FROM schedules s WHERE `+where, args...).Scan(&count); err != nil {
		return nil, 0, false, fmt.Errorf("count schedules of %d: %w", companyID, err)
	}
	args = append(args, limit+1, max(q.Offset, 0))
	rows, err := s.db.SQL.QueryContext(ctx, fmt.Sprintf(`SELECT %s FROM %s WHERE %s ORDER BY s.send_at, s.id
		LIMIT $%d OFFSET $%d`, cols, from, where, len(args)-1, len(args)), args...)
	if err != nil {
		return nil, 0, false, fmt.Errorf("list schedules of %d: %w", companyID, err)
	}
	defer rows.Close()
	out := []engine.Schedule{}
	for rows.Next() {
		sc, _, err := scan(rows)
		if err != nil {
			return nil, 0, false, fmt.Errorf("list schedules of %d: %w", companyID, err)
		}
		out = append(out, sc)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, false, fmt.Errorf("list schedules of %d: %w", companyID, err)
	}
	more := len(out) > limit
	if more {
		out = out[:limit]
	}
	return out, count, more, nil
}

// PendingFor counts the pending schedules of a contact or a connection (one of the
// two ids non-zero), so that deleting either can say so instead of orphaning them.
func (s *Scheduler) PendingFor(ctx context.Context, companyID, contactID, connectionID engine.ID) (int, error) {
	var n int
	err := s.db.SQL.QueryRowContext(ctx, `SELECT count(*) FROM schedules WHERE company_id = $1 AND status = 'pending'
		AND (($2 <> 0 AND contact_id = $2) OR ($3 <> 0 AND connection_id = $3))`, companyID, contactID, connectionID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count pending schedules: %w", err)
	}
	return n, nil
}

func nonNil(ids []engine.ID) []engine.ID {
	if ids == nil {
		return []engine.ID{}
	}
	return ids
}
